#pragma once

#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QString>

#include <utility>

namespace Tether {

// One MCP host connected to the gateway now.
struct GatewayHost
{
    QString clientName;    // from its initialize; empty until then
    QString clientVersion;
    QString transport;     // "stdio", "stdio (relayed)" (tetherctl serve relaying to this Tether), "http"
    QDateTime since;
    int callsInFlight = 0;
};

// A value snapshot of the gateway: what the window shows of it.
struct GatewayStatus
{
    QList<GatewayHost> hosts;
    QList<std::pair<QString, quint64>> callsByServer; // tool calls made through the gateway, by server name
    QList<std::pair<QString, quint64>> sessionsOpened; // hosts connected since the gateway began, by transport
    int exposedTools = 0;
};

} // namespace Tether

Q_DECLARE_METATYPE(Tether::GatewayStatus)
