#pragma once

#include "common/jsonscan.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <initializer_list>
#include <memory>
#include <optional>

namespace Tether {

class ClientSide;

// Protocol revisions Tether speaks, newest first; the first is the one it asks for.
const QStringList &supportedProtocolVersions();

// `params` without the members `keys` of its _meta, and without a _meta left empty.
QJsonObject withoutMetaMembers(QJsonObject params, std::initializer_list<QStringView> keys);


struct ServerIdentity
{
    QString protocolVersion;
    QString name;
    QString version;
    QString title;
    QString instructions;
    QJsonObject capabilities;
};

// Who the server is, from its serverInfo (an initialize result's, or a discover result's _meta),
// with the rest of `result` (instructions, capabilities).
ServerIdentity serverIdentityOf(const QString &protocolVersion, const QJsonObject &serverInfo, const QJsonObject &result);

// A tool as the server defined it. The definition is kept as compact JSON text and its parts
// are read from it on demand: a manager of hundreds of servers holds thousands of tools.
struct ToolDefinition
{
    QString name;
    QString title;
    QString description;
    // The definition as the server sent it, in CBOR: as small as compact JSON, and far quicker to
    // write, which counts when a server lists tens of thousands of tools.
    QByteArray cbor;

    QJsonObject raw() const;
    QJsonObject inputSchema() const { return raw().value(u"inputSchema").toObject(); }
    QJsonObject outputSchema() const { return raw().value(u"outputSchema").toObject(); }
    QJsonObject annotations() const { return raw().value(u"annotations").toObject(); }

    bool operator==(const ToolDefinition &other) const { return cbor == other.cbor; }
};

// One parameter of a tool, from the properties of its input schema.
struct ToolParameter
{
    QString name;
    bool required = false;
    QJsonObject schema; // the property's own schema

    bool operator==(const ToolParameter &) const = default;
};

// The parameters of an input schema in the order people read them: the required ones first, in
// the schema's "required" order, then the others by name. A name "required" lists that is not a
// property, or lists twice, is left out.
QList<ToolParameter> toolParameters(const QJsonObject &inputSchema);

// Parses one entry of a tools/list result; std::nullopt with `error` set when it is unusable.
std::optional<ToolDefinition> parseToolDefinition(const QJsonValue &value, QString *error);

// The parsers of whole results take a result as the server sent it. A result of the wrong shape
// is a protocol error of the server, never taken as empty: std::nullopt, with `error` saying
// what is wrong ("\"tools\" is a string, not an array").

// The server's answer to initialize, with the version it chose.
std::optional<ServerIdentity> parseInitializeResult(const QJsonValue &result, QString *error);

// One page of a paginated list (tools/list, resources/list, resources/templates/list,
// prompts/list): the entries under `key`, each still to be judged on its own (parseToolDefinition,
// parseResource, …), and the cursor of the next page (empty on the last).
struct ListPage
{
    QJsonArray entries;
    QString nextCursor;
};
std::optional<ListPage> parseListPage(const QJsonValue &result, QStringView key, QString *error);

// What a tools/call carries to the server besides the tool's name: its arguments, as an object
// or as the JSON text a host wrote (sent as written, never parsed on the way), and whether the
// result is wanted as the server's text alone, as a gateway passes it on.
struct ToolCallInput
{
    ToolCallInput(QJsonObject object = {}) // NOLINT(google-explicit-constructor): an object is the usual input
        : arguments(std::move(object))
    {
    }
    ToolCallInput(std::initializer_list<QPair<QString, QJsonValue>> members) // NOLINT(google-explicit-constructor)
        : arguments(members)
    {
    }
    // A host's call through the gateway: its arguments' text, and the result as text.
    static ToolCallInput relayed(QByteArray argumentsJson);

    // The arguments as the request writes them.
    QByteArray argumentsText() const;

    QJsonObject arguments;
    QByteArray argumentsJson;  // when set, it is sent and `arguments` is not
    bool resultAsText = false; // the result's `json` and `isError` are enough: nothing else of it is read
    QJsonObject meta;          // the caller's _meta besides a progress token (a host's trace context)
    // The client the call is made for (a host of the gateway, the window): the server's requests
    // while it runs may be meant for it. Not sent.
    std::weak_ptr<ClientSide> origin;
};

struct ToolCallResult
{
    QJsonArray content;
    bool isError = false;
    QJsonValue structuredContent;
    QJsonObject raw;
    QByteArray json{}; // `raw` as the server wrote it, when known: what a host gets from the gateway
};

std::optional<ToolCallResult> parseToolCallResult(const QJsonValue &result, QString *error);
// The isError of a result known only as its text, from the members a scan found in it
// (validJsonObjectMembers), nothing parsed. None when it is not a tool's result (no "content"
// array, an "isError" that is no boolean, a "structuredContent" that is no object): it is then
// parsed, which says what is wrong with it.
std::optional<bool> toolCallResultTextIsError(const JsonMembersText &resultMembers);

// A resource a server offers (resources/list), its JSON kept for --json.
struct ResourceDefinition
{
    QString uri;
    QString name;
    QString title;
    QString description;
    QString mimeType;
    QJsonObject raw;

    bool operator==(const ResourceDefinition &) const = default;
};
std::optional<ResourceDefinition> parseResource(const QJsonValue &value, QString *error);

// A family of resources named by an RFC 6570 URI template (resources/templates/list).
struct ResourceTemplate
{
    QString uriTemplate;
    QString name;
    QString title;
    QString description;
    QString mimeType;
    QJsonObject raw;

    bool operator==(const ResourceTemplate &) const = default;
};
std::optional<ResourceTemplate> parseResourceTemplate(const QJsonValue &value, QString *error);

// One part of what resources/read returns: text, or bytes the server sent as base64 `blob`.
struct ResourceContents
{
    QString uri;
    QString mimeType;
    std::optional<QString> text;
    QByteArray blob; // decoded

    bool isImage() const { return !text && mimeType.startsWith(u"image/"); }
    bool operator==(const ResourceContents &) const = default;
};
std::optional<QList<ResourceContents>> parseResourceReadResult(const QJsonValue &result, QString *error);

struct PromptArgument
{
    QString name;
    QString title;
    QString description;
    bool required = false;

    bool operator==(const PromptArgument &) const = default;
};

// A prompt a server offers (prompts/list).
struct PromptDefinition
{
    QString name;
    QString title;
    QString description;
    QList<PromptArgument> arguments;
    QJsonObject raw;

    bool operator==(const PromptDefinition &) const = default;
};
std::optional<PromptDefinition> parsePrompt(const QJsonValue &value, QString *error);

// What prompts/get returns: messages, each a role and one content block.
struct PromptResult
{
    QString description;
    QJsonArray messages;
    QJsonObject raw;
};
std::optional<PromptResult> parsePromptResult(const QJsonValue &result, QString *error);

// The rank of an MCP log level (RFC 5424's, as logging/setLevel and notifications/message name
// them): debug 0, info 1, notice 2, warning 3, error 4, critical 5, alert 6, emergency 7; nothing
// for any other word.
std::optional<int> logLevelRank(QStringView level);
const QStringList &logLevels(); // by rank

// Human-readable rendering of a content list: text as is, other kinds summarised.
QString renderContent(const QJsonArray &content);
// A prompt's messages for people: "role: content" each, the content as renderContent shows it.
QString renderPromptMessages(const QJsonArray &messages);

} // namespace Tether
