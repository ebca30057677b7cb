#include "gatewayprotocol.h"

#include "toolcatalog.h"

#include "common/jsontext.h"
#include "protocol/mcptypes.h"

#include <QJsonArray>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace Tether {

std::optional<QString> negotiatedProtocolVersion(const QJsonValue &requested)
{
    if (!requested.isString())
        return std::nullopt;
    const QStringList &spoken = supportedProtocolVersions();
    return spoken.contains(requested.toString()) ? requested.toString() : spoken.first();
}

QJsonObject initializeResult(const QString &protocolVersion)
{
    return {
        {u"protocolVersion"_s, protocolVersion},
        {u"capabilities"_s, QJsonObject{{u"tools"_s, QJsonObject{{u"listChanged"_s, true}}}}},
        {u"serverInfo"_s, QJsonObject{{u"name"_s, u"tether"_s},
                                      {u"title"_s, u"Tether"_s},
                                      {u"version"_s, QStringLiteral(TETHER_VERSION)}}},
        {u"instructions"_s,
         u"Tether serves the tools of the MCP servers it supervises, each named <server>__<tool>. A call to a "
         "server that is reconnecting waits briefly for it; a server that is down answers with a tool error "
         "that names its state."_s},
    };
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

ToolsPage toolsListPage(const ToolCatalog &catalog, const QJsonObject &params, int pageSize)
{
    qsizetype first = 0;
    const QJsonValue cursor = params.value(u"cursor"_s);
    if (!cursor.isUndefined() && !cursor.isNull()) {
        const std::optional<QString> after = nameFromCursor(cursor);
        if (!after) {
            return {{}, JsonRpc::Error{JsonRpc::InvalidParams,
                                       u"Invalid cursor: %1 is not a cursor Tether gave; list the tools from the "
                                       "start"_s.arg(quotedJson(cursor)),
                                       {}}};
        }
        first = catalog.indexAfter(*after);
    }
    const auto &tools = catalog.tools();
    const qsizetype end = std::min<qsizetype>(first + std::max(pageSize, 1), qsizetype(tools.size()));
    QByteArray result = "{\"tools\":[";
    for (qsizetype i = first; i < end; ++i) {
        if (i > first)
            result += ',';
        result += tools[size_t(i)].json;
    }
    result += ']';
    if (end < qsizetype(tools.size()))
        result += ",\"nextCursor\":\"" + cursorAfter(tools[size_t(end - 1)].publicName).toLatin1() + '"';
    result += '}';
    return {result, std::nullopt};
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
    const QJsonValue token = params.value(u"_meta"_s).toObject().value(u"progressToken"_s);
    if (token.isString() || token.isDouble())
        request.progressToken = token;
    return request;
}

ToolCallInput toolCallInput(const ToolCallRequest &request)
{
    if (!request.argumentsJson.isEmpty())
        return ToolCallInput::relayed(request.argumentsJson);
    ToolCallInput input(request.arguments);
    input.resultAsText = true;
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

QJsonObject progressParams(const QJsonValue &progressToken, const ProgressUpdate &update)
{
    QJsonObject params{{u"progressToken"_s, progressToken}, {u"progress"_s, update.progress}};
    if (update.total)
        params.insert(u"total"_s, *update.total);
    if (!update.message.isEmpty())
        params.insert(u"message"_s, update.message);
    return params;
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
