#pragma once

#include "protocol/jsonrpc.h"
#include "protocol/replies.h"

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include <optional>

// The gateway's side of MCP as pure functions: what a host's request is answered with. The
// session and the gateway only carry these out.
namespace Tether {

class ToolCatalog;

// The protocol revision that answers an initialize asking for `requested`: the same when Tether
// speaks it, else the newest it speaks (lifecycle, version negotiation). Nothing when
// `requested` is not a string.
std::optional<QString> negotiatedProtocolVersion(const QJsonValue &requested);

// The initialize result: the tools capability with list_changed, Tether as the server.
QJsonObject initializeResult(const QString &protocolVersion);

// A tools/list cursor: the base64url of the last public name of the page before, so that pages
// stay put while tools come and go.
QString cursorAfter(const QString &publicName);
std::optional<QString> nameFromCursor(const QJsonValue &cursor);

// One page of tools/list: the result's JSON, or why the request cannot be answered.
struct ToolsPage
{
    QByteArray result;
    std::optional<JsonRpc::Error> error;
};
ToolsPage toolsListPage(const ToolCatalog &catalog, const QJsonObject &params, int pageSize);

// A host's tools/call, read.
struct ToolCallRequest
{
    QString name;
    QJsonObject arguments;
    QByteArray argumentsJson; // as the host wrote them, when read without parsing: sent as written
    QJsonValue progressToken{QJsonValue::Undefined}; // undefined: the host asks for no progress
    std::optional<JsonRpc::Error> error;
};
ToolCallRequest parseToolCallRequest(const QJsonObject &params);
// What a call sends its server: the host's arguments, and the result wanted as text (the host
// gets it as the server wrote it).
ToolCallInput toolCallInput(const ToolCallRequest &request);

// What a host gets for a tools/call.
struct HostToolReply
{
    enum class Kind {
        Result,  // a CallToolResult: the server's own, or a tool error result Tether wrote
        Error,   // a JSON-RPC error
        Nothing, // cancelled by the host: no response at all
    };
    Kind kind = Kind::Result;
    QJsonObject result;
    JsonRpc::Error error;
    QByteArray resultJson{}; // `result` as the server wrote it, when known
};

// The server's result unchanged, the server's own error unchanged, nothing for a call the host
// cancelled; anything else went wrong in Tether or on the way, and becomes a tool error result
// naming the tool, so that the model reading it can act on it.
HostToolReply hostReplyFor(const ToolCallReply &reply, const QString &publicName);

// A CallToolResult with `text` as its content and isError set.
QJsonObject toolErrorResult(const QString &text);

// "Unknown tool: X", the answer for a tool the gateway does not expose (hidden ones included).
HostToolReply unknownToolReply(const QString &publicName);

// The params of notifications/progress for the host's own token.
QJsonObject progressParams(const QJsonValue &progressToken, const ProgressUpdate &update);

// A JSON-RPC response whose result is JSON text already written (a tools/list page).
QByteArray responseWithResultJson(const QJsonValue &id, const QByteArray &result);

} // namespace Tether
