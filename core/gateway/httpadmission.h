#pragma once

#include "httpserver/httpreply.h"
#include "protocol/jsonrpc.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>

// Which requests the Streamable HTTP endpoint takes, judged from a request's head alone (before
// its body is read), as pure functions: the design note's admission table, in its order.
namespace Tether {

struct HttpRequest;

// The paths the endpoint serves.
inline constexpr QByteArrayView McpPath = "/mcp";
inline constexpr QByteArrayView HealthPath = "/healthz";
inline constexpr QByteArrayView MetricsPath = "/metrics";

struct EndpointRules
{
    QByteArray token;           // the bearer token every request carries
    QString tokenFile;          // where the user finds it, for the 401's message
    QString listenHost;         // as configured: "127.0.0.1", "gateway.example", "0.0.0.0"
    quint16 port = 0;
    QStringList allowedOrigins; // besides http(s)://{127.0.0.1,localhost,[::1],listenHost}:port
    QStringList allowedHosts;   // besides {127.0.0.1,localhost,[::1],listenHost}[:port]
};

// An HTTP refusal whose body is a JSON-RPC error with a null id, so that an MCP client shows
// its message (the message says what was wrong and what to do).
HttpReply jsonRpcErrorReply(int status, int code, const QString &message, HttpHeaders headers = {});

// The refusal of a request by its head: 403 for a foreign Origin or Host, 401 without the
// token, 404 for other paths, 405, 415 for a POST that is not JSON, 406 for an Accept that
// takes neither JSON nor an event stream, 400 for a GET or DELETE without Mcp-Session-Id or an
// MCP-Protocol-Version Tether does not speak. Nothing: admitted (the session checks follow).
// The 401 and 403 close the connection.
std::optional<HttpReply> refuseEndpointHead(const HttpRequest &head, const EndpointRules &rules);

// A stateless request (MCP 2026-07-28) whose headers do not say what its body says: a 400 with
// -32020 when MCP-Protocol-Version, Mcp-Method or Mcp-Name disagree with the envelope, the method
// or the name (or are missing), or with the envelope's own error (-32602, -32022). Nothing: fine.
std::optional<HttpReply> refuseStatelessRequest(const HttpRequest &head, const JsonRpc::Message &message);

// Whether an Accept field takes an event stream ("text/event-stream", "text/*", "*/*"; an
// absent field takes anything).
bool acceptsEventStream(QByteArrayView accept);

} // namespace Tether
