#include "transport.h"

#include "common/displaytext.h"

#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace Tether {

void Transport::sendJson(const QByteArray &json)
{
    send(QJsonDocument::fromJson(json).object());
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

QString byteLimitText(qsizetype bytes)
{
    constexpr qsizetype MiB = 1024 * 1024;
    return bytes % MiB == 0 ? u"%1 MiB"_s.arg(bytes / MiB) : u"%1 bytes"_s.arg(bytes);
}

} // namespace Tether
