#pragma once

#include "config/gatewayconfig.h"
#include "protocol/jsonrpc.h"
#include "protocol/replies.h"

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <optional>
#include <vector>

// The gateway's side of MCP as pure functions: what a host's request is answered with. The
// session and the gateway only carry these out.
namespace Tether {

class ToolCatalog;

// The protocol revision that answers an initialize asking for `requested`: the same when Tether
// speaks it, else the newest it speaks (lifecycle, version negotiation). Nothing when
// `requested` is not a string.
std::optional<QString> negotiatedProtocolVersion(const QJsonValue &requested);

// The initialize result: Tether as the server, with `capabilities` (gatewayCapabilities()).
QJsonObject initializeResult(const QString &protocolVersion, const QJsonObject &capabilities);

// Stateless hosts (MCP 2026-07-28). The server/discover result: the versions, the capabilities
// (those the era has), Tether as the server in its _meta.
QJsonObject discoverResult(const QJsonObject &capabilities);
// A result as a stateless host wants it: "resultType" (kept when the server's result has one),
// the cache hints of a list or read (nothing is cached: each is a snapshot of servers that change),
// and Tether as the server in its _meta.
QJsonObject statelessResult(QJsonObject result, bool cacheable);
// Why a stateless host's request cannot be taken as one: its envelope is missing or names a
// version Tether does not speak; nothing when it is fine.
std::optional<JsonRpc::Error> envelopeError(const QJsonObject &params);
// The params without the envelope's members: what goes on to a server (with its own envelope).
QJsonObject withoutEnvelope(QJsonObject params);
// Methods of the handshake era a stateless host does not have.
bool isHandshakeOnlyMethod(QStringView method);
// The response to `payload` when it is a stateless server/discover, the question a client finding
// the era asks first (often of a process of its own that it then ends): answered with
// `capabilities` before any server runs. Nothing for any other message.
std::optional<QByteArray> answerToEraProbe(const QByteArray &payload, const QJsonObject &capabilities);

// What the gateway offers hosts, given the capabilities of its servers (as each last connected;
// an empty object for one whose capabilities are not known yet, which counts as offering
// everything): tools always; resources (subscribe, listChanged), prompts (listChanged),
// completions, logging and tasks whenever a server does or may.
QJsonObject gatewayCapabilities(const QList<QJsonObject> &serverCapabilities);

// The names a host sees for the tools (or prompts) of several servers, in the order given: the
// prefixed name of each (<server>__<name>), or with GatewayNames::Plain the server's own name
// wherever no other entry has it, neither as its own nor as its prefixed name.
struct NamedEntry
{
    QString ownName;
    QString prefixedName;
};
QStringList exposedNames(GatewayNames names, const QList<NamedEntry> &entries);

// A list's cursor: the base64url of the last key (public name, URI) of the page before, so that
// pages stay put while entries come and go.
QString cursorAfter(const QString &publicName);
std::optional<QString> nameFromCursor(const QJsonValue &cursor);

// One page of a list a host asks for: the result's JSON, or why the request cannot be answered.
struct HostListPage
{
    QByteArray result;
    std::optional<JsonRpc::Error> error;
};
// A page of `entries` (sorted by `keyOf`, each with its JSON in `json`) under the result's
// `member` ("tools", "prompts"…), starting after the params' cursor; `what` names the list in
// the error for a cursor Tether did not give.
template<typename Entry, typename KeyOf>
HostListPage listPage(QByteArrayView member, QStringView what, const std::vector<Entry> &entries, KeyOf keyOf,
                  const QJsonObject &params, int pageSize);
HostListPage toolsListPage(const ToolCatalog &catalog, const QJsonObject &params, int pageSize);

// A host's tools/call, read.
struct ToolCallRequest
{
    QString name;
    QJsonObject arguments;
    QByteArray argumentsJson; // as the host wrote them, when read without parsing: sent as written
    QJsonValue progressToken{QJsonValue::Undefined}; // undefined: the host asks for no progress
    QJsonObject meta; // the host's _meta besides its progress token (a trace context), passed on
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

// A JSON-RPC response whose result is JSON text already written (a tools/list page).
QByteArray responseWithResultJson(const QJsonValue &id, const QByteArray &result);

// The cursor of a list request, when there is one; an error when it is not one Tether gave.
std::optional<QString> cursorOf(const QJsonObject &params, QStringView what, std::optional<JsonRpc::Error> *error);

template<typename Entry, typename KeyOf>
HostListPage listPage(QByteArrayView member, QStringView what, const std::vector<Entry> &entries, KeyOf keyOf,
                  const QJsonObject &params, int pageSize)
{
    std::optional<JsonRpc::Error> error;
    const std::optional<QString> after = cursorOf(params, what, &error);
    if (error)
        return {{}, error};
    const auto begin = after ? std::upper_bound(entries.cbegin(), entries.cend(), *after,
                                                [&](const QString &key, const Entry &entry) { return key < keyOf(entry); })
                             : entries.cbegin();
    const qsizetype first = begin - entries.cbegin();
    const qsizetype end = std::min<qsizetype>(first + std::max(pageSize, 1), qsizetype(entries.size()));
    QByteArray result;
    result += "{\"";
    result += member;
    result += "\":[";
    for (qsizetype i = first; i < end; ++i) {
        if (i > first)
            result += ',';
        result += entries[size_t(i)].json;
    }
    result += ']';
    if (end < qsizetype(entries.size()))
        result += ",\"nextCursor\":\"" + cursorAfter(keyOf(entries[size_t(end - 1)])).toLatin1() + '"';
    result += '}';
    return {result, std::nullopt};
}

} // namespace Tether
