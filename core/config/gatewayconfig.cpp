#include "gatewayconfig.h"

using namespace Qt::StringLiterals;

namespace Tether {

bool isLoopbackHost(const QString &host)
{
    if (host.compare(u"localhost"_s, Qt::CaseInsensitive) == 0 || host == u"::1" || host == u"[::1]")
        return true;
    const QStringList parts = host.split(u'.');
    if (parts.size() != 4 || parts.first() != u"127")
        return false;
    return std::all_of(parts.cbegin(), parts.cend(), [](const QString &part) {
        bool ok = false;
        const int number = part.toInt(&ok);
        return ok && number >= 0 && number <= 255 && !part.startsWith(u'+');
    });
}

QString gatewayHttpUrl(const GatewayHttpConfig &http)
{
    QString host = http.host;
    if (host.startsWith(u'[') && host.endsWith(u']'))
        host = host.mid(1, host.size() - 2);
    if (host == u"0.0.0.0" || host.compare(u"localhost"_s, Qt::CaseInsensitive) == 0)
        host = u"127.0.0.1"_s;
    else if (host == u"::")
        host = u"::1"_s;
    if (host.contains(u':'))
        host = u'[' + host + u']';
    return u"%1://%2:%3/mcp"_s.arg(http.usesTls() ? u"https"_s : u"http"_s, host).arg(http.port);
}

} // namespace Tether
