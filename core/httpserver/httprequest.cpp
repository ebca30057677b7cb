#include "httprequest.h"

namespace Tether {

QUrlQuery HttpRequest::queryItems() const
{
    return QUrlQuery(QString::fromUtf8(query));
}

bool HttpRequest::keepAlive() const
{
    if (headers.hasToken("Connection", "close"))
        return false;
    return minorVersion >= 1 || headers.hasToken("Connection", "keep-alive");
}

bool HttpRequest::expectsContinue() const
{
    return minorVersion >= 1 && headers.hasToken("Expect", "100-continue");
}

} // namespace Tether
