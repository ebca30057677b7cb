#include "metrics.h"

#include "gateway.h"

#include "manager/servermanager.h"

#include <map>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// Transports whose session series are written even while no host uses them.
const QStringList KnownTransports{u"stdio"_s, u"http"_s};

QByteArray number(double value)
{
    return QByteArray::number(value, 'g', 15);
}

QByteArray number(quint64 value)
{
    return QByteArray::number(value);
}

// Writes the families of the text format: HELP and TYPE once, then the samples.
class MetricsWriter final
{
public:
    void family(const char *name, const char *type, const char *help)
    {
        m_text += "# HELP "_ba + name + ' ' + help + "\n# TYPE "_ba + name + ' ' + type + '\n';
    }

    void sample(const char *name, const QList<std::pair<const char *, QString>> &labels, const QByteArray &value)
    {
        m_text += name;
        if (!labels.isEmpty()) {
            m_text += '{';
            for (qsizetype i = 0; i < labels.size(); ++i) {
                if (i > 0)
                    m_text += ',';
                m_text += labels.at(i).first + "=\""_ba + escapeMetricLabel(labels.at(i).second) + '"';
            }
            m_text += '}';
        }
        m_text += ' ' + value + '\n';
    }

    QByteArray text() const { return m_text; }

private:
    QByteArray m_text;
};

QString stateLabel(ServerState state)
{
    return stateName(state).toLower();
}

} // namespace

QByteArray escapeMetricLabel(const QString &value)
{
    QByteArray escaped;
    const QByteArray utf8 = value.toUtf8();
    escaped.reserve(utf8.size());
    for (const char c : utf8) {
        if (c == '\\')
            escaped += "\\\\";
        else if (c == '"')
            escaped += "\\\"";
        else if (c == '\n')
            escaped += "\\n";
        else
            escaped += c;
    }
    return escaped;
}

MetricsSnapshot metricsSnapshot(const ServerManager &manager, Gateway &gateway)
{
    MetricsSnapshot snapshot;
    for (const ServerStatus &status : manager.statuses())
        snapshot.servers.append({status, manager.callStatistics(status.name)});
    snapshot.gateway = gateway.status();
    return snapshot;
}

QByteArray renderMetrics(const MetricsSnapshot &snapshot)
{
    MetricsWriter out;
    const auto perServer = [&](const char *name, const char *type, const char *help, auto value) {
        out.family(name, type, help);
        for (const ServerMetrics &server : snapshot.servers)
            out.sample(name, {{"server", server.status.name}}, value(server));
    };

    perServer("tether_server_up", "gauge", "Whether the server is connected (1) or not (0).",
              [](const ServerMetrics &s) { return number(quint64(s.status.state == ServerState::Connected)); });
    out.family("tether_server_state", "gauge", "The server's state: 1 for the state it is in, 0 for the others.");
    for (const ServerMetrics &server : snapshot.servers) {
        for (const ServerState state : AllServerStates) {
            out.sample("tether_server_state", {{"server", server.status.name}, {"state", stateLabel(state)}},
                       number(quint64(server.status.state == state)));
        }
    }
    perServer("tether_server_attempt", "gauge", "Retries used in the server's current outage.",
              [](const ServerMetrics &s) { return number(quint64(std::max(s.status.attempt, 0))); });
    perServer("tether_server_max_attempts", "gauge", "Retries an outage of the server may use before it fails.",
              [](const ServerMetrics &s) { return number(quint64(std::max(s.status.maxAttempts, 0))); });
    perServer("tether_server_restarts_total", "counter", "Connection attempts after the server's first one.",
              [](const ServerMetrics &s) { return number(s.status.generation > 0 ? s.status.generation - 1 : 0); });
    perServer("tether_server_outages_total", "counter", "Outages of the server begun: a failed start or a lost connection.",
              [](const ServerMetrics &s) { return number(s.status.outages); });
    perServer("tether_server_connected_seconds_total", "counter", "Time the server has spent connected.",
              [](const ServerMetrics &s) { return number(double(s.status.connectedMsTotal) / 1000.0); });
    perServer("tether_server_tools", "gauge", "Tools the server offers now.",
              [](const ServerMetrics &s) { return number(quint64(std::max(s.status.toolCount, 0))); });

    out.family("tether_tool_calls_total", "counter", "Tool calls answered, by server and how they ended.");
    for (const ServerMetrics &server : snapshot.servers) {
        for (int i = 0; i < CallOutcomeCount; ++i) {
            const auto outcome = CallOutcome(i);
            out.sample("tether_tool_calls_total", {{"server", server.status.name}, {"outcome", callOutcomeName(outcome)}},
                       number(server.calls.calls(outcome)));
        }
    }
    out.family("tether_tool_call_duration_seconds", "histogram",
               "How long tool calls took from the call to the answer, a wait through an outage included.");
    for (const ServerMetrics &server : snapshot.servers) {
        const CallStatistics &calls = server.calls;
        for (size_t i = 0; i < CallStatistics::DurationBounds.size(); ++i) {
            out.sample("tether_tool_call_duration_seconds_bucket",
                       {{"server", server.status.name}, {"le", QString::fromLatin1(number(CallStatistics::DurationBounds.at(i)))}},
                       number(calls.atMost.at(i)));
        }
        out.sample("tether_tool_call_duration_seconds_bucket", {{"server", server.status.name}, {"le", u"+Inf"_s}},
                   number(calls.total()));
        out.sample("tether_tool_call_duration_seconds_sum", {{"server", server.status.name}}, number(calls.durationSecondsSum));
        out.sample("tether_tool_call_duration_seconds_count", {{"server", server.status.name}}, number(calls.total()));
    }

    std::map<QString, std::pair<quint64, quint64>> sessions; // transport: connected now, opened in all
    for (const QString &transport : KnownTransports)
        sessions[transport];
    for (const GatewayHost &host : snapshot.gateway.hosts)
        ++sessions[host.transport].first;
    for (const auto &[transport, opened] : snapshot.gateway.sessionsOpened)
        sessions[transport].second = opened;
    out.family("tether_gateway_sessions", "gauge", "Hosts connected to the gateway now, by transport.");
    for (const auto &[transport, counts] : sessions)
        out.sample("tether_gateway_sessions", {{"transport", transport}}, number(counts.first));
    out.family("tether_gateway_sessions_total", "counter", "Host sessions opened since the gateway began, by transport.");
    for (const auto &[transport, counts] : sessions)
        out.sample("tether_gateway_sessions_total", {{"transport", transport}}, number(counts.second));
    out.family("tether_gateway_http_refusals_total", "counter", "Requests the gateway's HTTP endpoint refused, by status.");
    for (const auto &[status, count] : snapshot.httpRefusals)
        out.sample("tether_gateway_http_refusals_total", {{"status", QString::number(status)}}, number(count));

    out.family("tether_build_info", "gauge", "Tether's version, as a label.");
    out.sample("tether_build_info", {{"version", QStringLiteral(TETHER_VERSION)}}, number(quint64(1)));
    return out.text();
}

} // namespace Tether
