#include "canonicalurl.h"

#include <QHostAddress>

using namespace Qt::StringLiterals;

namespace Tether {

QString canonicalResourceUrl(const QUrl &serverUrl)
{
    QUrl url = serverUrl.adjusted(QUrl::RemoveUserInfo | QUrl::RemoveQuery | QUrl::RemoveFragment
                                  | QUrl::NormalizePathSegments);
    url.setScheme(url.scheme().toLower());
    url.setHost(url.host().toLower());
    if ((url.scheme() == u"https"_s && url.port() == 443) || (url.scheme() == u"http"_s && url.port() == 80))
        url.setPort(-1);
    if (url.path() != u"/"_s)
        url = url.adjusted(QUrl::StripTrailingSlash);
    return url.toString(QUrl::FullyEncoded);
}

bool isLoopbackUrl(const QUrl &url)
{
    const QString host = url.host();
    return host.compare(u"localhost"_s, Qt::CaseInsensitive) == 0 || QHostAddress(host).isLoopback();
}

} // namespace Tether
