#include "transport.h"

#include <csignal>
#include <cstring>

using namespace Qt::StringLiterals;

namespace Tether {

QString signalName(int signalNumber)
{
    const char *abbreviation = sigabbrev_np(signalNumber);
    return abbreviation ? u"SIG"_s + QString::fromLatin1(abbreviation) : u"signal %1"_s.arg(signalNumber);
}

QString TransportClosure::describe() const
{
    QStringList parts;
    if (!error.isEmpty())
        parts.append(error);
    if (exitSignal)
        parts.append(u"process killed by %1"_s.arg(signalName(*exitSignal)));
    else if (exitCode)
        parts.append(u"process exited with code %1"_s.arg(*exitCode));
    if (parts.isEmpty())
        parts.append(requested ? u"closed by Tether"_s : u"connection closed"_s);
    return parts.join(u"; "_s);
}

} // namespace Tether
