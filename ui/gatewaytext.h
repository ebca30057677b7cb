#pragma once

#include "gateway/gatewayservice.h"

#include <QDateTime>
#include <QString>

#include <optional>

// What the window says of the gateway: plain functions of its snapshots.
namespace Tether {

// The status bar's indicator: "Gateway: http://127.0.0.1:27413/mcp · 2 hosts", "Gateway off",
// "Gateway not served: port 27413 in use".
QString gatewayIndicatorText(const GatewayServing &serving);

// "no hosts", "1 host", "3 hosts".
QString hostCountText(qsizetype hosts);

// A failure to serve in a few words: "port 27413 in use", else the first clause of `error`,
// cut short.
QString notServedSummary(const QString &error, quint16 port);

// How to serve the gateway when the config at `configPath` does not enable it.
QString gatewayOffHint(const QString &configPath);

// "07:12:03 (5 min ago)", or with the date when `since` is not of today's.
QString connectedSinceText(const QDateTime &since, const QDateTime &now);

// The tool calls made through the gateway to `server`; nothing when none was made.
std::optional<quint64> gatewayCallsTo(const GatewayStatus &status, const QString &server);

} // namespace Tether
