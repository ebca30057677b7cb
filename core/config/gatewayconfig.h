#pragma once

#include <QString>
#include <QStringList>

#include <chrono>

namespace Tether {

// The config's "gateway.http" section: Tether's Streamable HTTP endpoint for MCP hosts.
struct GatewayHttpConfig
{
    static constexpr quint16 DefaultPort = 27413;

    // The window serves it while it runs; `tetherctl serve --http` serves it whatever this says.
    bool enabled = false;
    // Loopback unless the file says otherwise; any other address needs TLS.
    QString host = QStringLiteral("127.0.0.1");
    quint16 port = DefaultPort;
    qint64 maxBodyBytes = 4 * 1024 * 1024;
    // Origins ("https://app.example") and Host names ("gateway.example" or "gateway.example:443")
    // accepted besides the listener's own.
    QStringList allowedOrigins;
    QStringList allowedHosts;
    // PEM files, absolute (the parser resolves them against the config file's folder); both
    // empty: plain HTTP.
    QString tlsCertificate;
    QString tlsKey;

    bool usesTls() const { return !tlsCertificate.isEmpty(); }

    bool operator==(const GatewayHttpConfig &) const = default;
};

// How the gateway names what its servers offer.
enum class GatewayNames {
    Prefixed, // "<server>__<tool>" for every tool and prompt
    Plain,    // each server's own names, prefixed only where two servers offer the same one
};

// The config's "gateway" section: how Tether serves its servers' tools to MCP hosts.
struct GatewayConfig
{
    // How long a call to a server that is starting or reconnecting waits for it to connect
    // before it fails with a tool error result.
    std::chrono::milliseconds outageWait{10000};
    // Tools in one page of tools/list (and of the other lists).
    int toolsPageSize = 1000;
    GatewayNames names = GatewayNames::Prefixed;
    GatewayHttpConfig http;

    bool operator==(const GatewayConfig &) const = default;
};

// Whether `host` names this machine's loopback interface only: 127.0.0.0/8, ::1 or "localhost".
bool isLoopbackHost(const QString &host);

// Where a client on this machine reaches the endpoint `http` describes: "http://127.0.0.1:27413/mcp",
// https with TLS, the loopback address for a listener on every interface ("0.0.0.0", "::").
QString gatewayHttpUrl(const GatewayHttpConfig &http);

} // namespace Tether
