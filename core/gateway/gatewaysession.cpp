#include "gatewaysession.h"

#include "gateway.h"

#include "common/decimaltext.h"
#include "common/displaytext.h"
#include "common/jsonscan.h"
#include "common/jsontext.h"
#include "common/logging.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QPointer>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// A request id as a key: 1 and "1" are different ids.
QString idKey(const QJsonValue &id)
{
    if (id.isString())
        return u"s:"_s + id.toString();
    // Every call is keyed: one allocation, not a number's and then the key's.
    const DecimalText digits(id.toInteger());
    QString key;
    key.reserve(2 + digits.size());
    key += u"n:";
    key += digits.latin1();
    return key;
}

bool isRequestId(const QJsonValue &id)
{
    return id.isString() || (id.isDouble() && id.toDouble() == double(id.toInteger()));
}

} // namespace

GatewaySession::GatewaySession(Gateway &gateway, HostChannel &channel, QObject *parent)
    : QObject(parent)
    , m_gateway(gateway)
    , m_channel(channel)
    , m_hostLabel(u"a host over %1"_s.arg(channel.transportName()))
    , m_since(QDateTime::currentDateTimeUtc())
{
    connect(&m_gateway, &Gateway::settled, this, &GatewaySession::onSettled);
}

GatewaySession::~GatewaySession() = default;

int GatewaySession::callsInFlight() const
{
    return int(std::count_if(m_pending.cbegin(), m_pending.cend(),
                             [](const auto &entry) { return entry.second.method == u"tools/call"; }));
}

void GatewaySession::send(const QJsonObject &message, HostChannel::Role role, const QJsonValue &request)
{
    m_channel.send(JsonRpc::serialize(message), role, request);
}

void GatewaySession::respond(const QJsonValue &id, const QJsonObject &result, const QByteArray &resultJson)
{
    // Written without a response object around the result: that costs a copy and a second pass of
    // Qt's JSON writer, which the result's own text, when known, spares altogether. That text is
    // used only on one line: a line ends a host's message on stdio and an event's data.
    const bool oneLine = !resultJson.isEmpty() && !resultJson.contains('\n') && !resultJson.contains('\r');
    m_channel.send(responseWithResultJson(id, oneLine ? resultJson : QJsonDocument(result).toJson(QJsonDocument::Compact)),
                   HostChannel::Role::Response, id);
}

void GatewaySession::respondError(const QJsonValue &id, int code, const QString &message, const QJsonValue &data)
{
    QJsonObject response = JsonRpc::makeError(id, code, message);
    if (!data.isUndefined() && !data.isNull()) {
        QJsonObject error = response.value(u"error"_s).toObject();
        error.insert(u"data"_s, data);
        response.insert(u"error"_s, error);
    }
    send(response, HostChannel::Role::Response, id);
}

void GatewaySession::receive(const QByteArray &payload)
{
    if (receiveToolCallText(payload))
        return;
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(payload, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        respondError(QJsonValue::Null, JsonRpc::ParseError,
                     u"Parse error: %1 at offset %2 of %3"_s.arg(parseError.errorString())
                         .arg(parseError.offset)
                         .arg(excerpt(payload)));
        return;
    }
    if (document.isArray()) {
        respondError(QJsonValue::Null, JsonRpc::InvalidRequest,
                     u"Invalid request: Tether takes no JSON-RPC batches; send one message at a time"_s);
        return;
    }
    receiveMessage(document.object());
}

void GatewaySession::receiveMessage(const QJsonObject &object)
{
    const JsonRpc::Message message = JsonRpc::classify(object);
    switch (message.kind) {
    case JsonRpc::MessageKind::Request:
        onRequest(message);
        return;
    case JsonRpc::MessageKind::Notification:
        onNotification(message);
        return;
    case JsonRpc::MessageKind::Response:
    case JsonRpc::MessageKind::ErrorResponse:
        // The gateway asks hosts nothing.
        spdlog::debug("gateway: {} sent a response nobody asked for; ignored", hostLabel());
        return;
    case JsonRpc::MessageKind::Invalid:
        break;
    }
    const QJsonValue id = object.value(u"id"_s);
    respondError(isRequestId(id) ? id : QJsonValue(QJsonValue::Null), JsonRpc::InvalidRequest,
                 u"Invalid request: "_s + message.invalidReason);
}

bool GatewaySession::receiveToolCallText(const QByteArray &payload)
{
    // {"jsonrpc":"2.0","id":…,"method":"tools/call","params":{"name":"…","arguments":{…}}}, in any
    // order: the arguments go to the server as the host wrote them. Anything else, a progress token
    // among it, is parsed and judged in full.
    if (!m_initialized)
        return false;
    JsonMembersText params;
    const std::optional<JsonMembersText> members = validJsonObjectMembers(payload, "params", &params);
    if (!members || members->size() != 4 || memberValue(*members, "jsonrpc") != "\"2.0\""
        || memberValue(*members, "method") != "\"tools/call\"")
        return false;
    const QByteArrayView idText = memberValue(*members, "id");
    QJsonValue id;
    if (const std::optional<qint64> number = jsonInteger(idText))
        id = *number;
    else if (const std::optional<QByteArrayView> text = plainJsonString(idText))
        id = QString::fromUtf8(*text);
    else
        return false;
    const std::optional<QByteArrayView> name = plainJsonString(memberValue(params, "name"));
    const QByteArrayView arguments = memberValue(params, "arguments");
    if (!name || name->isEmpty() || !(arguments.isEmpty() || arguments.startsWith('{'))
        || params.size() != (arguments.isEmpty() ? 1 : 2))
        return false;
    ToolCallRequest call;
    call.name = QString::fromUtf8(*name);
    call.argumentsJson = arguments.isEmpty() ? QByteArray("{}") : arguments.toByteArray();
    const QString key = idKey(id);
    if (!refuseReusedId(id, key))
        acceptToolCall(id, key, std::move(call));
    return true;
}

bool GatewaySession::refuseReusedId(const QJsonValue &id, const QString &key)
{
    if (!m_pending.contains(key))
        return false;
    respondError(id, JsonRpc::InvalidRequest,
                 u"Invalid request: the id %1 belongs to a request still in flight; give each request its own id"_s.arg(
                     quotedJson(id)));
    return true;
}

void GatewaySession::onRequest(const JsonRpc::Message &message)
{
    const QString key = idKey(message.id);
    if (refuseReusedId(message.id, key))
        return;
    if (message.method == u"ping") {
        respond(message.id, QJsonObject{});
        return;
    }
    if (message.method == u"initialize") {
        onInitialize(message.id, message.params);
        return;
    }
    if (!m_initialized) {
        respondError(message.id, JsonRpc::InvalidRequest,
                     u"Invalid request: '%1' before initialize; initialize the session first"_s.arg(message.method));
        return;
    }
    if (message.method == u"tools/list") {
        if (!m_gateway.isSettling()) {
            answerToolsList(message.id, message.params);
            return;
        }
        PendingRequest pending;
        pending.order = ++m_arrivals;
        pending.id = message.id;
        pending.method = message.method;
        pending.params = message.params;
        pending.waitsForServers = true;
        m_pending.emplace(key, pending);
        return;
    }
    if (message.method == u"tools/call") {
        ToolCallRequest call = parseToolCallRequest(message.params);
        if (call.error)
            respondError(message.id, call.error->code, call.error->message);
        else
            acceptToolCall(message.id, key, std::move(call));
        return;
    }
    respondError(message.id, JsonRpc::MethodNotFound,
                 u"Method not found: %1 (Tether's gateway serves tools only)"_s.arg(message.method));
}

void GatewaySession::acceptToolCall(const QJsonValue &id, const QString &key, ToolCallRequest call)
{
    PendingRequest pending;
    pending.order = ++m_arrivals;
    pending.id = id;
    pending.method = u"tools/call"_s;
    // A tool of a server that is still starting is not known yet.
    pending.waitsForServers = m_gateway.isSettling() && !m_gateway.catalog().find(call.name);
    pending.call = std::move(call);
    const bool waits = pending.waitsForServers;
    m_pending.emplace(key, std::move(pending));
    if (!waits)
        startToolCall(key);
    emit hostChanged();
}

void GatewaySession::onInitialize(const QJsonValue &id, const QJsonObject &params)
{
    if (m_initialized) {
        respondError(id, JsonRpc::InvalidRequest, u"Invalid request: the session is initialized already"_s);
        return;
    }
    const std::optional<QString> version = negotiatedProtocolVersion(params.value(u"protocolVersion"_s));
    if (!version) {
        respondError(id, JsonRpc::InvalidParams,
                     u"initialize needs \"protocolVersion\" as a string, such as \"%1\""_s.arg(
                         supportedProtocolVersions().first()));
        return;
    }
    const QJsonObject clientInfo = params.value(u"clientInfo"_s).toObject();
    m_clientName = clientInfo.value(u"name"_s).toString();
    m_clientVersion = clientInfo.value(u"version"_s).toString();
    if (!m_clientName.isEmpty())
        m_hostLabel = m_clientVersion.isEmpty() ? m_clientName : m_clientName + u' ' + m_clientVersion;
    m_protocolVersion = *version;
    m_initialized = true;
    m_notifiedFingerprint = m_gateway.catalog().fingerprint();
    spdlog::info("gateway: {} connected over {} (protocol {})", hostLabel(), m_channel.transportName(), *version);
    respond(id, initializeResult(*version));
    emit hostChanged();
}

void GatewaySession::answerToolsList(const QJsonValue &id, const QJsonObject &params)
{
    const ToolCatalog &catalog = m_gateway.catalog();
    const ToolsPage page = toolsListPage(catalog, params, m_gateway.config().toolsPageSize);
    if (page.error) {
        respondError(id, page.error->code, page.error->message);
        return;
    }
    if (!params.contains(u"cursor"_s))
        m_notifiedFingerprint = catalog.fingerprint(); // the host now sees this set
    m_channel.send(responseWithResultJson(id, page.result), HostChannel::Role::Response, id);
}

void GatewaySession::startToolCall(const QString &key)
{
    PendingRequest &pending = m_pending.at(key);
    pending.waitsForServers = false;
    const ToolCallRequest call = pending.call; // the entry may go while the call is made
    const QPointer<GatewaySession> self(this);
    ProgressHandler onProgress;
    if (!call.progressToken.isUndefined()) {
        onProgress = [self, key](const ProgressUpdate &update) {
            if (self)
                self->onToolCallProgress(key, update);
        };
    }
    const ToolCallTicket ticket = m_gateway.callTool(
        hostLabel(), call.name, toolCallInput(call),
        [self, key](const HostToolReply &reply) {
            if (self)
                self->finishToolCall(key, reply);
        },
        std::move(onProgress));
    // An unknown tool is answered before callTool returns.
    if (const auto it = m_pending.find(key); it != m_pending.end())
        it->second.ticket = ticket;
}

void GatewaySession::onToolCallProgress(const QString &key, const ProgressUpdate &update)
{
    const auto it = m_pending.find(key);
    if (it == m_pending.end() || update.progress <= it->second.lastProgress)
        return; // progress must increase, and ends with the response
    it->second.lastProgress = update.progress;
    send(JsonRpc::makeNotification(u"notifications/progress"_s, progressParams(it->second.call.progressToken, update)),
         HostChannel::Role::Progress, it->second.id);
}

void GatewaySession::finishToolCall(const QString &key, const HostToolReply &reply)
{
    const auto it = m_pending.find(key);
    if (it == m_pending.end())
        return;
    const QJsonValue id = it->second.id;
    m_pending.erase(it);
    switch (reply.kind) {
    case HostToolReply::Kind::Result:
        respond(id, reply.result, reply.resultJson);
        break;
    case HostToolReply::Kind::Error:
        respondError(id, reply.error.code, reply.error.message, reply.error.data);
        break;
    case HostToolReply::Kind::Nothing:
        m_channel.endWithoutResponse(id);
        break;
    }
    emit hostChanged();
}

void GatewaySession::dropRequest(const QString &key)
{
    const auto it = m_pending.find(key);
    if (it == m_pending.end())
        return;
    const QJsonValue id = it->second.id;
    m_pending.erase(it);
    m_channel.endWithoutResponse(id);
    emit hostChanged();
}

void GatewaySession::onNotification(const JsonRpc::Message &message)
{
    if (message.method != u"notifications/cancelled")
        return; // initialized, and anything else, needs nothing
    const QJsonValue requestId = message.params.value(u"requestId"_s);
    if (!isRequestId(requestId))
        return;
    const auto it = m_pending.find(idKey(requestId));
    if (it == m_pending.end())
        return; // finished already, or never known: nothing to do
    const QString reason = message.params.value(u"reason"_s).toString();
    const QString why = u"cancelled by %1"_s.arg(hostLabel()) + (reason.isEmpty() ? QString() : u": "_s + reason);
    if (it->second.ticket.isValid())
        m_gateway.cancelToolCall(it->second.ticket, why); // answered at once, with nothing for the host
    else
        dropRequest(it->first);
}

void GatewaySession::cancelAllCalls(const QString &reason)
{
    QList<QString> keys;
    for (const auto &[key, pending] : m_pending)
        keys.append(key);
    for (const QString &key : std::as_const(keys)) {
        const auto it = m_pending.find(key);
        if (it == m_pending.end())
            continue;
        if (it->second.ticket.isValid())
            m_gateway.cancelToolCall(it->second.ticket, reason);
        dropRequest(key);
    }
}

void GatewaySession::toolsChanged(const QByteArray &fingerprint)
{
    if (!m_initialized || fingerprint == m_notifiedFingerprint)
        return;
    m_notifiedFingerprint = fingerprint;
    send(JsonRpc::makeNotification(u"notifications/tools/list_changed"_s), HostChannel::Role::Notification, {});
}

void GatewaySession::onSettled()
{
    std::vector<std::pair<quint64, QString>> waiting;
    for (const auto &[key, pending] : m_pending) {
        if (pending.waitsForServers)
            waiting.emplace_back(pending.order, key);
    }
    std::sort(waiting.begin(), waiting.end());
    for (const auto &[order, key] : waiting) {
        const auto it = m_pending.find(key);
        if (it == m_pending.end())
            continue;
        if (it->second.method == u"tools/call") {
            startToolCall(key);
            continue;
        }
        const PendingRequest request = it->second;
        m_pending.erase(it);
        answerToolsList(request.id, request.params);
    }
}

} // namespace Tether
