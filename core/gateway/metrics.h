#pragma once

#include "gatewaystatus.h"

#include "manager/callstatistics.h"
#include "supervisor/serverstatus.h"

#include <QByteArray>
#include <QList>

#include <utility>

namespace Tether {

class Gateway;
class ServerManager;

// The Content-Type of renderMetrics()'s text.
inline constexpr char MetricsContentType[] = "text/plain; version=0.0.4; charset=utf-8";

// One server as the metrics see it.
struct ServerMetrics
{
    ServerStatus status;
    CallStatistics calls;
};

// Every value the metrics are rendered from, taken at one moment.
struct MetricsSnapshot
{
    QList<ServerMetrics> servers; // in config order
    GatewayStatus gateway;
    QList<std::pair<int, quint64>> httpRefusals; // requests the HTTP endpoint refused, by status
};

// The servers of `manager` and the sessions of `gateway` now; the HTTP refusals are the
// endpoint's to add.
MetricsSnapshot metricsSnapshot(const ServerManager &manager, Gateway &gateway);

// The snapshot in the Prometheus text exposition format 0.0.4 (what `GET /metrics` answers):
// per-server state, up, attempt, restarts, outages, connected time, tools, calls by outcome and
// their duration histogram (no tool label: a series per tool would grow without bound), and the
// gateway's sessions.
QByteArray renderMetrics(const MetricsSnapshot &snapshot);

// A label value as the text format writes it: backslash, double quote and line feed escaped.
QByteArray escapeMetricLabel(const QString &value);

} // namespace Tether
