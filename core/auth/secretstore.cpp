#include "secretstore.h"

using namespace Qt::StringLiterals;

namespace Tether {

QString tokenKey(const QString &serverUrl)
{
    return u"token:"_s + serverUrl;
}

QString clientKey(const QString &issuer)
{
    return u"client:"_s + issuer;
}

} // namespace Tether
