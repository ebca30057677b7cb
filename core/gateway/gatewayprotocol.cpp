#include "gatewayprotocol.h"

#include "toolcatalog.h"

#include "common/jsontext.h"
#include "protocol/mcptypes.h"
#include "protocol/protocolera.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

using namespace Qt::StringLiterals;

namespace Tether {

std::optional<QString> negotiatedProtocolVersion(const QJsonValue &requested)
{
    if (!requested.isString())
        return std::nullopt;
    const QStringList &spoken = supportedProtocolVersions();
    return spoken.contains(requested.toString()) ? requested.toString() : spoken.first();
}

static QJsonObject tetherServerInfo()
{
    return {{u"name"_s, u"tether"_s}, {u"title"_s, u"Tether"_s}, {u"version"_s, QStringLiteral(TETHER_VERSION)}};
}

QJsonObject initializeResult(const QString &protocolVersion, const QJsonObject &capabilities)
{
    return {
        {u"protocolVersion"_s, protocolVersion},
        {u"capabilities"_s, capabilities},
        {u"serverInfo"_s, tetherServerInfo()},
        {u"instructions"_s,
         u"Tether serves the tools, resources and prompts of the MCP servers it supervises, tools and prompts "
         "named <server>__<name>. A call to a server that is reconnecting waits briefly for it; a server that is "
         "down answers with a tool error that names its state."_s},
    };
}

QJsonObject discoverResult(const QJsonObject &capabilities)
{
    QJsonObject offered = capabilities;
    offered.remove(u"tasks"_s); // the stateless era has no tasks
    return statelessResult(QJsonObject{{u"supportedVersions"_s, QJsonArray::fromStringList(statelessProtocolVersions())},
                                       {u"capabilities"_s, offered}},
                           true);
}

QJsonObject statelessResult(QJsonObject result, bool cacheable)
{
    if (!result.contains(u"resultType"))
        result.insert(u"resultType"_s, u"complete"_s);
    if (cacheable && result.value(u"resultType") == u"complete"_s) {
        result.insert(u"ttlMs"_s, 0);
        result.insert(u"cacheScope"_s, u"private"_s);
    }
    QJsonObject meta = result.value(u"_meta").toObject();
    meta.insert(Envelope::ServerInfo.toString(), tetherServerInfo());
    result.insert(u"_meta"_s, meta);
    return result;
}

std::optional<JsonRpc::Error> envelopeError(const QJsonObject &params)
{
    const QJsonObject meta = params.value(u"_meta").toObject();
    const QJsonValue version = meta.value(Envelope::ProtocolVersion);
    if (!version.isString() || !meta.value(Envelope::ClientCapabilities).isObject()) {
        return JsonRpc::Error{JsonRpc::InvalidParams,
                              u"Request is missing the _meta envelope of protocol 2026-07-28: it needs "
                              "\"%1\" and \"%2\" (an object) in params._meta"_s.arg(Envelope::ProtocolVersion,
                                                                                   Envelope::ClientCapabilities),
                              QJsonObject{{u"envelope"_s, QJsonObject{{u"missing"_s, QJsonArray{u"_meta"_s}}}}}};
    }
    if (!statelessProtocolVersions().contains(version.toString())) {
        return JsonRpc::Error{JsonRpc::UnsupportedProtocolVersion,
                              u"Unsupported protocol version: %1 (Tether speaks %2)"_s.arg(
                                  version.toString(), spokenProtocolVersions().join(u", "_s)),
                              QJsonObject{{u"supported"_s, QJsonArray::fromStringList(spokenProtocolVersions())},
                                          {u"requested"_s, version}}};
    }
    return std::nullopt;
}

QJsonObject withoutEnvelope(QJsonObject params)
{
    return withoutMetaMembers(std::move(params), {Envelope::ProtocolVersion, Envelope::ClientCapabilities,
                                                  Envelope::ClientInfo, Envelope::LogLevel});
}

bool isHandshakeOnlyMethod(QStringView method)
{
    return method == u"initialize" || method == u"ping" || method == u"logging/setLevel"
           || method == u"resources/subscribe" || method == u"resources/unsubscribe" || method.startsWith(u"tasks/");
}

std::optional<QByteArray> answerToEraProbe(const QByteArray &payload, const QJsonObject &capabilities)
{
    const JsonRpc::Message message = JsonRpc::classify(QJsonDocument::fromJson(payload).object());
    if (message.kind != JsonRpc::MessageKind::Request || message.method != u"server/discover" || envelopeError(message.params))
        return std::nullopt;
    return JsonRpc::serialize(JsonRpc::makeResult(message.id, discoverResult(capabilities)));
}

QJsonObject gatewayCapabilities(const QList<QJsonObject> &serverCapabilities)
{
    const auto anyOffers = [&](QStringView capability) {
        return std::any_of(serverCapabilities.cbegin(), serverCapabilities.cend(), [&](const QJsonObject &offered) {
            return offered.isEmpty() || offered.contains(capability);
        });
    };
    QJsonObject capabilities{{u"tools"_s, QJsonObject{{u"listChanged"_s, true}}}};
    if (anyOffers(u"resources"))
        capabilities.insert(u"resources"_s, QJsonObject{{u"subscribe"_s, true}, {u"listChanged"_s, true}});
    if (anyOffers(u"prompts"))
        capabilities.insert(u"prompts"_s, QJsonObject{{u"listChanged"_s, true}});
    if (anyOffers(u"completions"))
        capabilities.insert(u"completions"_s, QJsonObject{});
    if (anyOffers(u"logging"))
        capabilities.insert(u"logging"_s, QJsonObject{});
    if (anyOffers(u"tasks")) {
        capabilities.insert(u"tasks"_s,
                            QJsonObject{{u"list"_s, QJsonObject{}},
                                        {u"cancel"_s, QJsonObject{}},
                                        {u"requests"_s, QJsonObject{{u"tools"_s, QJsonObject{{u"call"_s, QJsonObject{}}}}}}});
    }
    return capabilities;
}

QStringList exposedNames(GatewayNames names, const QList<NamedEntry> &entries)
{
    QStringList exposed;
    exposed.reserve(entries.size());
    if (names == GatewayNames::Prefixed) {
        for (const NamedEntry &entry : entries)
            exposed.append(entry.prefixedName);
        return exposed;
    }
    QHash<QString, int> ownCount;
    QSet<QString> prefixed;
    for (const NamedEntry &entry : entries) {
        ++ownCount[entry.ownName];
        prefixed.insert(entry.prefixedName);
    }
    for (const NamedEntry &entry : entries) {
        const bool alone = ownCount.value(entry.ownName) == 1 && !prefixed.contains(entry.ownName);
        exposed.append(alone ? entry.ownName : entry.prefixedName);
    }
    return exposed;
}

QString cursorAfter(const QString &publicName)
{
    return QString::fromLatin1(
        publicName.toUtf8().toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

std::optional<QString> nameFromCursor(const QJsonValue &cursor)
{
    if (!cursor.isString() || cursor.toString().isEmpty())
        return std::nullopt;
    const auto decoded = QByteArray::fromBase64Encoding(
        cursor.toString().toLatin1(),
        QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals | QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded || decoded.decoded.isEmpty())
        return std::nullopt;
    const QString name = QString::fromUtf8(decoded.decoded);
    // Only what cursorAfter writes: the same bytes back.
    if (cursorAfter(name) != cursor.toString())
        return std::nullopt;
    return name;
}

std::optional<QString> cursorOf(const QJsonObject &params, QStringView what, std::optional<JsonRpc::Error> *error)
{
    const QJsonValue cursor = params.value(u"cursor"_s);
    if (cursor.isUndefined() || cursor.isNull())
        return std::nullopt;
    std::optional<QString> after = nameFromCursor(cursor);
    if (!after) {
        *error = JsonRpc::Error{JsonRpc::InvalidParams,
                                u"Invalid cursor: %1 is not a cursor Tether gave; list the %2 from the start"_s.arg(
                                    quotedJson(cursor), what),
                                {}};
    }
    return after;
}

HostListPage toolsListPage(const ToolCatalog &catalog, const QJsonObject &params, int pageSize)
{
    return listPage("tools", u"tools", catalog.tools(), [](const ExposedTool &tool) -> const QString & { return tool.publicName; },
                    params, pageSize);
}

ToolCallRequest parseToolCallRequest(const QJsonObject &params)
{
    ToolCallRequest request;
    const QJsonValue name = params.value(u"name"_s);
    if (!name.isString() || name.toString().isEmpty()) {
        request.error = JsonRpc::Error{JsonRpc::InvalidParams, u"tools/call needs the tool's name as a string in \"name\""_s, {}};
        return request;
    }
    request.name = name.toString();
    const QJsonValue arguments = params.value(u"arguments"_s);
    if (!arguments.isUndefined() && !arguments.isNull() && !arguments.isObject()) {
        request.error = JsonRpc::Error{
            JsonRpc::InvalidParams, u"the arguments of '%1' are not a JSON object"_s.arg(request.name), {}};
        return request;
    }
    request.arguments = arguments.toObject();
    request.meta = params.value(u"_meta"_s).toObject();
    const QJsonValue token = request.meta.take(u"progressToken"_s);
    if (token.isString() || token.isDouble())
        request.progressToken = token;
    return request;
}

ToolCallInput toolCallInput(const ToolCallRequest &request)
{
    ToolCallInput input = request.argumentsJson.isEmpty() ? ToolCallInput(request.arguments)
                                                          : ToolCallInput::relayed(request.argumentsJson);
    input.resultAsText = true;
    input.meta = request.meta;
    return input;
}

QJsonObject toolErrorResult(const QString &text)
{
    return {{u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, text}}}}, {u"isError"_s, true}};
}

HostToolReply hostReplyFor(const ToolCallReply &reply, const QString &publicName)
{
    if (!reply.error)
        return {HostToolReply::Kind::Result, reply.result.raw, {}, reply.result.json};
    if (reply.fromServer)
        return {HostToolReply::Kind::Error, {}, *reply.error};
    const QString &message = reply.error->message;
    QString text;
    switch (reply.error->code) {
    case JsonRpc::RequestCancelled:
        return {HostToolReply::Kind::Nothing, {}, {}};
    case JsonRpc::ServerUnavailable:
        text = u"Tool '%1' is unavailable: %2."_s.arg(publicName, message);
        break;
    case JsonRpc::ConnectionClosed:
        text = u"Tool '%1' did not finish: %2."_s.arg(publicName, message);
        break;
    case JsonRpc::RequestTimeout:
        text = u"Tool '%1' did not answer in time: %2."_s.arg(publicName, message);
        break;
    default:
        text = u"Tool '%1' could not be called: %2."_s.arg(publicName, message);
        break;
    }
    return {HostToolReply::Kind::Result, toolErrorResult(text), {}};
}

HostToolReply unknownToolReply(const QString &publicName)
{
    return {HostToolReply::Kind::Error, {}, JsonRpc::Error{JsonRpc::InvalidParams, u"Unknown tool: "_s + publicName, {}}};
}

QByteArray responseWithResultJson(const QJsonValue &id, const QByteArray &result)
{
    // An integer id, what hosts send, is written here: Qt's writer costs more than the rest of a
    // small response.
    constexpr qint64 ExactInteger = qint64(1) << 53;
    if (id.isDouble() && id.toDouble() == double(id.toInteger()) && qAbs(id.toInteger()) <= ExactInteger) {
        QByteArray response;
        response.reserve(48 + result.size());
        response += "{\"jsonrpc\":\"2.0\",\"id\":";
        appendInteger(response, id.toInteger());
        response += ",\"result\":";
        response += result;
        response += '}';
        return response;
    }
    // {"id":…,"jsonrpc":"2.0","result":{}} with the empty result replaced: the id written by Qt.
    QByteArray response = JsonRpc::serialize(JsonRpc::makeResult(id, QJsonObject{}));
    Q_ASSERT(response.endsWith("{}}"));
    response.chop(3);
    return response + result + '}';
}

} // namespace Tether
