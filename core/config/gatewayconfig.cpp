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

} // namespace Tether
