#pragma once

#include "gateway/gatewayservice.h"

#include <QDateTime>
#include <QString>

#include <optional>

// What the window says of the gateway: plain functions of its snapshots.
namespace Tether {

// The status bar's indicator: "Gateway: http://127.0.0.1:27413/mcp · 2 hosts", "Gateway:
// tetherctl serve · 1 host", "Gateway off", "Gateway not served: port 27413 in use".
QString gatewayIndicatorText(const GatewayServing &serving);

// "1 tool", "12 tools".
QString toolCountText(qsizetype tools);
// "no hosts", "1 host", "3 hosts".
QString hostCountText(qsizetype hosts);

// A failure to serve in a few words: "port 27413 in use", else the first clause of `error`,
// cut short.
QString notServedSummary(const QString &error, quint16 port);

// Why HTTP is not served, in the Gateway window's words: "Port 27413 is in use (…): choose another
// port." for a port in use, else `error` as it is.
QString httpNotServedText(const QString &error, quint16 port);

// Why the gateway is off (`serving.error`: the relay socket could not be made) and how to serve
// it over HTTP all the same.
QString gatewayOffHint(const GatewayServing &serving);
// What the window serves while only the tetherctl serve of clients relays to it, and how to serve
// it over HTTP too.
QString gatewayRelayingText(const GatewayServing &serving);

// "07:12:03 (5 min ago)", or with the date when `since` is not of today's.
QString connectedSinceText(const QDateTime &since, const QDateTime &now);

// The tool calls made through the gateway to `server`; nothing when none was made.
std::optional<quint64> gatewayCallsTo(const GatewayStatus &status, const QString &server);

} // namespace Tether
