#include "gatewaysession.h"

#include "gateway.h"
#include "gatewaytasks.h"
#include "promptcatalog.h"
#include "resourcecatalog.h"

#include "common/displaytext.h"
#include "common/jsonscan.h"
#include "common/jsontext.h"
#include "common/logging.h"
#include "protocol/mcptypes.h"
#include "protocol/protocolera.h"

#include <QJsonDocument>
#include <QJsonParseError>
#include <QPointer>
#include <QUuid>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// The client's part of MCP for one host: what servers ask while the host's requests run, and on a
// perHost server's session of its own, goes to the host through its session.
class HostSide final : public ClientSide
{
public:
    explicit HostSide(GatewaySession *session)
        : m_session(session)
    {
    }

    QString clientLabel() const override { return m_session ? m_session->hostLabel() : u"a host that has left"_s; }
    quint64 serverRequest(const ServerRequest &request, ReplyHandler reply, ProgressHandler onProgress) override
    {
        if (!m_session) {
            reply(RpcReply::failure(JsonRpc::InternalError, u"the host has disconnected"_s));
            return 0;
        }
        return m_session->forwardServerRequest(request, std::move(reply), std::move(onProgress));
    }
    void cancelServerRequest(quint64 handle, const QString &reason) override
    {
        if (m_session)
            m_session->cancelServerRequest(handle, reason);
    }
    void serverNotification(const QString &serverName, const QString &method, const QJsonObject &params) override
    {
        if (m_session)
            m_session->passOn(serverName, method, params);
    }
    bool wantsOwnSession() const override { return true; }
    QString logLevel() const override { return m_session ? m_session->logLevel() : QString(); }

private:
    QPointer<GatewaySession> m_session;
};

// The logger a host sees for a server's log message: the server's name, then its own logger.
QString loggerFor(const QString &serverName, const QJsonValue &logger)
{
    const QString own = logger.toString();
    return own.isEmpty() ? serverName : serverName + u'/' + own;
}

// A local failure of a request forwarded to a server, as the host gets it.
JsonRpc::Error hostError(const JsonRpc::Error &error, bool fromServer)
{
    if (fromServer)
        return error; // the server's own answer, unchanged
    return {JsonRpc::InternalError, error.message, error.data};
}

} // namespace

GatewaySession::GatewaySession(Gateway &gateway, HostChannel &channel, QObject *parent)
    : QObject(parent)
    , m_gateway(gateway)
    , m_channel(channel)
    , m_hostLabel(u"a host over %1"_s.arg(channel.transportName()))
    , m_since(QDateTime::currentDateTimeUtc())
    , m_sent(m_hostLabel, ServerRequestTimeout,
             [this](const QByteArray &message, const QJsonValue &related) {
                 m_channel.send(message, HostChannel::Role::Request, related);
             },
             this)
    , m_side(std::make_shared<HostSide>(this))
{
    connect(&m_gateway, &Gateway::settled, this, &GatewaySession::onSettled);
}

GatewaySession::~GatewaySession() = default;

int GatewaySession::callsInFlight() const
{
    return int(std::count_if(m_received.entries().cbegin(), m_received.entries().cend(),
                             [](const auto &entry) { return entry.second.work.method == u"tools/call"; }));
}

void GatewaySession::send(const QJsonObject &message, HostChannel::Role role, const QJsonValue &request)
{
    m_channel.send(JsonRpc::serialize(message), role, request);
}

void GatewaySession::respond(const QJsonValue &id, const QJsonObject &result, const QByteArray &resultJson, bool cacheable)
{
    if (m_stateless) {
        const QJsonObject object = resultJson.isEmpty() ? result : QJsonDocument::fromJson(resultJson).object();
        m_channel.send(responseWithResultJson(id, QJsonDocument(statelessResult(object, cacheable)).toJson(QJsonDocument::Compact)),
                       HostChannel::Role::Response, id);
        return;
    }
    // Written without a response object around the result: that costs a copy and a second pass of
    // Qt's JSON writer, which the result's own text, when known, spares altogether. That text is
    // used only on one line: a line ends a host's message on stdio and an event's data.
    const bool oneLine = !resultJson.isEmpty() && !resultJson.contains('\n') && !resultJson.contains('\r');
    m_channel.send(responseWithResultJson(id, oneLine ? resultJson : QJsonDocument(result).toJson(QJsonDocument::Compact)),
                   HostChannel::Role::Response, id);
}

void GatewaySession::respondError(const QJsonValue &id, int code, const QString &message, const QJsonValue &data)
{
    // The stateless era says "resource not found" with -32602 and the uri in the data.
    if (m_stateless && code == -32002)
        code = JsonRpc::InvalidParams;
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
        onResponse(message);
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
    if (!m_initialized || m_stateless)
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
    const QString key = requestIdKey(id);
    if (!refuseReusedId(id, key))
        acceptToolCall(id, key, std::move(call));
    return true;
}

bool GatewaySession::refuseReusedId(const QJsonValue &id, const QString &key)
{
    if (!m_received.contains(key))
        return false;
    respondError(id, JsonRpc::InvalidRequest, reusedRequestIdMessage(id));
    return true;
}

GatewaySession::Received::Entry *GatewaySession::accept(const JsonRpc::Message &message, const QString &key,
                                                        HostRequest work)
{
    work.order = ++m_arrivals;
    work.method = message.method;
    const QJsonValue token = message.params.value(u"_meta").toObject().value(u"progressToken");
    return m_received.begin(message.id, key, std::move(work),
                            token.isString() || token.isDouble() ? token : QJsonValue(QJsonValue::Undefined));
}

void GatewaySession::onRequest(const JsonRpc::Message &received)
{
    const QString key = requestIdKey(received.id);
    if (refuseReusedId(received.id, key))
        return;
    JsonRpc::Message message = received;
    if (!takeStatelessRequest(message, key))
        dispatch(message, key);
}

void GatewaySession::dispatch(const JsonRpc::Message &message, const QString &key)
{
    const QString &method = message.method;
    if (method == u"ping") {
        respond(message.id, QJsonObject{});
        return;
    }
    if (method == u"initialize") {
        onInitialize(message.id, message.params);
        return;
    }
    if (!m_initialized) {
        respondError(message.id, JsonRpc::InvalidRequest,
                     u"Invalid request: '%1' before initialize; initialize the session first"_s.arg(method));
        return;
    }
    if (method == u"tools/list" || method == u"resources/list" || method == u"resources/templates/list"
        || method == u"prompts/list") {
        if (!waitForServers(message, key))
            answerList(message.id, method, message.params);
        return;
    }
    if (method == u"tools/call") {
        if (message.params.contains(u"task") && !m_stateless) {
            callToolAsTask(message, key);
            return;
        }
        ToolCallRequest call = parseToolCallRequest(message.params);
        if (call.error)
            respondError(message.id, *call.error);
        else
            acceptToolCall(message.id, key, std::move(call));
        return;
    }
    if (method == u"resources/read") {
        readResource(message, key);
    } else if (method == u"resources/subscribe" || method == u"resources/unsubscribe") {
        subscribe(message, key, method == u"resources/subscribe");
    } else if (method == u"prompts/get") {
        getPrompt(message, key);
    } else if (method == u"completion/complete") {
        complete(message, key);
    } else if (method == u"logging/setLevel") {
        setLogLevel(message);
    } else if (method == u"tasks/get" || method == u"tasks/result" || method == u"tasks/cancel") {
        onTaskRequest(message, key);
    } else if (method == u"tasks/list") {
        listTasks(message, key);
    } else {
        respondError(message.id, JsonRpc::MethodNotFound, u"Method not found: %1"_s.arg(method));
    }
}

bool GatewaySession::waitForServers(const JsonRpc::Message &message, const QString &key)
{
    if (!m_gateway.isSettling())
        return false;
    HostRequest work;
    work.params = message.params;
    work.waitsForServers = true;
    accept(message, key, std::move(work));
    return true;
}

void GatewaySession::acceptToolCall(const QJsonValue &id, const QString &key, ToolCallRequest call)
{
    HostRequest work;
    work.order = ++m_arrivals;
    work.method = u"tools/call"_s;
    // A tool of a server that is still starting is not known yet.
    const ExposedTool *tool = m_gateway.catalog().find(call.name);
    work.waitsForServers = m_gateway.isSettling() && !tool;
    if (tool)
        work.serverName = tool->serverName;
    const QJsonValue token = call.progressToken;
    work.call = std::move(call);
    const bool waits = work.waitsForServers;
    m_received.begin(id, key, std::move(work), token);
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
    m_sent.setPeerLabel(m_hostLabel);
    m_capabilities = params.value(u"capabilities"_s).toObject();
    m_protocolVersion = *version;
    m_initialized = true;
    m_toolsFingerprint = m_gateway.catalog().fingerprint();
    m_resourcesFingerprint = m_gateway.resources().fingerprint();
    m_promptsFingerprint = m_gateway.prompts().fingerprint();
    spdlog::info("gateway: {} connected over {} (protocol {})", hostLabel(), m_channel.transportName(), *version);
    respond(id, initializeResult(*version, m_gateway.capabilities()));
    emit hostChanged();
}

void GatewaySession::answerList(const QJsonValue &id, const QString &method, const QJsonObject &params)
{
    const int pageSize = m_gateway.config().toolsPageSize;
    const bool first = !params.contains(u"cursor"_s);
    HostListPage page;
    if (method == u"tools/list") {
        page = toolsListPage(m_gateway.catalog(), params, pageSize);
        if (first)
            m_toolsFingerprint = m_gateway.catalog().fingerprint(); // the host now sees this set
    } else if (method == u"prompts/list") {
        page = listPage("prompts", u"prompts", m_gateway.prompts().prompts(),
                        [](const ExposedPrompt &prompt) -> const QString & { return prompt.publicName; }, params, pageSize);
        if (first)
            m_promptsFingerprint = m_gateway.prompts().fingerprint();
    } else if (method == u"resources/list") {
        page = listPage("resources", u"resources", m_gateway.resources().resources(),
                        [](const ExposedResource &resource) -> const QString & { return resource.uri; }, params, pageSize);
        if (first)
            m_resourcesFingerprint = m_gateway.resources().fingerprint();
    } else {
        page = listPage("resourceTemplates", u"resource templates", m_gateway.resources().templates(),
                        [](const ExposedResourceTemplate &entry) -> const QString & { return entry.uriTemplate; }, params,
                        pageSize);
    }
    if (page.error) {
        respondError(id, *page.error);
        return;
    }
    if (m_stateless) {
        respond(id, QJsonDocument::fromJson(page.result).object(), {}, true);
        return;
    }
    m_channel.send(responseWithResultJson(id, page.result), HostChannel::Role::Response, id);
}

void GatewaySession::startToolCall(const QString &key)
{
    Received::Entry *entry = m_received.find(key);
    entry->work.waitsForServers = false;
    const ToolCallRequest call = entry->work.call; // the entry may go while the call is made
    if (const ExposedTool *tool = m_gateway.catalog().find(call.name))
        entry->work.serverName = tool->serverName;
    const QPointer<GatewaySession> self(this);
    ProgressHandler onProgress;
    if (!call.progressToken.isUndefined()) {
        onProgress = [self, key](const ProgressUpdate &update) {
            if (self)
                self->onToolCallProgress(key, update);
        };
    }
    ToolCallInput input = toolCallInput(call);
    input.origin = m_side;
    const ToolCallTicket ticket = m_gateway.callTool(
        hostLabel(), call.name, input,
        [self, key](const HostToolReply &reply) {
            if (self)
                self->finishToolCall(key, reply);
        },
        std::move(onProgress));
    // An unknown tool is answered before callTool returns.
    if (Received::Entry *sent = m_received.find(key))
        sent->work.ticket = ticket;
}

void GatewaySession::onToolCallProgress(const QString &key, const ProgressUpdate &update)
{
    const Received::Entry *entry = m_received.find(key);
    if (!entry)
        return;
    if (const std::optional<QJsonObject> params = m_received.progressFor(key, update))
        send(JsonRpc::makeNotification(u"notifications/progress"_s, *params), HostChannel::Role::Progress, entry->id);
}

void GatewaySession::finishToolCall(const QString &key, const HostToolReply &reply)
{
    deliverWhenAsked(key, [this, reply](const QJsonValue &id) {
        switch (reply.kind) {
        case HostToolReply::Kind::Result:
            respond(id, reply.result, reply.resultJson);
            break;
        case HostToolReply::Kind::Error:
            respondError(id, reply.error);
            break;
        case HostToolReply::Kind::Nothing:
            m_channel.endWithoutResponse(id);
            break;
        }
    });
}

void GatewaySession::deliverWhenAsked(const QString &key, std::function<void(const QJsonValue &id)> deliver)
{
    Received::Entry *entry = m_received.find(key);
    if (!entry)
        return;
    if (!entry->work.parkedAs.isEmpty()) {
        // The host was answered input_required and has not come back yet: this waits for it.
        entry->work.deliver = std::move(deliver);
        return;
    }
    const QJsonValue id = answerId(*entry);
    finishRequest(key);
    deliver(id);
    emit hostChanged();
}

std::optional<GatewaySession::Received::Entry> GatewaySession::finishRequest(const QString &key)
{
    std::optional<Received::Entry> entry = m_received.take(key);
    if (!entry)
        return entry;
    m_parked.remove(entry->work.parkedAs);
    for (auto it = m_retries.begin(); it != m_retries.end();) {
        if (it.value() == key)
            it = m_retries.erase(it);
        else
            ++it;
    }
    // The server's questions still open on it: nobody is left to answer them.
    const QString why = u"the request of %1 they were asked for has ended"_s.arg(hostLabel());
    for (auto &[inputKey, reply] : entry->work.asked)
        reply(RpcReply::failure(JsonRpc::InternalError, why));
    for (auto &[inputKey, reply] : entry->work.unaskedReplies)
        reply(RpcReply::failure(JsonRpc::InternalError, why));
    entry->work.asked.clear();
    entry->work.unaskedReplies.clear();
    return entry;
}

QJsonValue GatewaySession::answerId(const Received::Entry &entry) const
{
    return entry.work.answerTo.isUndefined() ? entry.id : entry.work.answerTo;
}

void GatewaySession::forward(const JsonRpc::Message &message, const QString &key, const QString &serverName,
                             const QJsonObject &params, std::function<QJsonObject(const QJsonObject &)> rewrite)
{
    HostRequest work;
    work.serverName = serverName;
    work.rewrite = std::move(rewrite);
    if (message.method == u"tasks/result")
        work.taskId = message.params.value(u"taskId").toString();
    Received::Entry *entry = accept(message, key, std::move(work));
    const QPointer<GatewaySession> self(this);
    ProgressHandler onProgress;
    if (!entry->progressToken.isUndefined()) {
        onProgress = [self, key](const ProgressUpdate &update) {
            if (self)
                self->onToolCallProgress(key, update);
        };
    }
    // The host's own _meta goes on, but for its progress token: the server gets Tether's.
    const QJsonObject sent = withoutMetaMembers(params, {u"progressToken"});
    const ToolCallTicket ticket = m_gateway.forward(
        hostLabel(), serverName, message.method, sent,
        [self, key](const RpcReply &reply) {
            if (self)
                self->finishForwarded(key, reply);
        },
        std::move(onProgress), m_side);
    if (Received::Entry *pending = m_received.find(key))
        pending->work.ticket = ticket;
}

void GatewaySession::finishForwarded(const QString &key, const RpcReply &reply)
{
    const Received::Entry *entry = m_received.find(key);
    if (!entry)
        return;
    const auto rewrite = entry->work.rewrite;
    const bool cacheable = entry->work.method == u"resources/read";
    deliverWhenAsked(key, [this, reply, rewrite, cacheable](const QJsonValue &id) {
        if (reply.ok()) {
            const QJsonObject result = reply.result.toObject();
            respond(id, rewrite ? rewrite(result) : result, {}, cacheable);
        } else if (reply.error->code == JsonRpc::RequestCancelled && !reply.fromServer) {
            m_channel.endWithoutResponse(id);
        } else {
            respondError(id, hostError(*reply.error, reply.fromServer));
        }
    });
}

void GatewaySession::readResource(const JsonRpc::Message &message, const QString &key)
{
    const QString uri = message.params.value(u"uri").toString();
    if (uri.isEmpty()) {
        respondError(message.id, JsonRpc::InvalidParams, u"resources/read needs the resource's \"uri\" as a string"_s);
        return;
    }
    const QString server = m_gateway.resources().serverFor(uri);
    if (server.isEmpty()) {
        if (!waitForServers(message, key)) {
            respondError(message.id, -32002,
                         u"Resource not found: %1 (no server behind Tether lists it or has a template for it)"_s.arg(uri),
                         QJsonObject{{u"uri"_s, uri}});
        }
        return;
    }
    forward(message, key, server, message.params);
}

void GatewaySession::subscribe(const JsonRpc::Message &message, const QString &key, bool subscribed)
{
    const QString uri = message.params.value(u"uri").toString();
    if (uri.isEmpty()) {
        respondError(message.id, JsonRpc::InvalidParams, u"%1 needs the resource's \"uri\" as a string"_s.arg(message.method));
        return;
    }
    const QString server = m_gateway.resources().serverFor(uri);
    if (server.isEmpty()) {
        if (!waitForServers(message, key)) {
            respondError(message.id, -32002,
                         u"Resource not found: %1 (no server behind Tether lists it or has a template for it)"_s.arg(uri),
                         QJsonObject{{u"uri"_s, uri}});
        }
        return;
    }
    const QString entry = server + QChar(0) + uri;
    if (subscribed == m_subscriptions.contains(entry)) {
        respond(message.id, QJsonObject{}); // subscribed (or not) already
        return;
    }
    if (subscribed)
        m_subscriptions.insert(entry);
    else
        m_subscriptions.remove(entry);
    const QPointer<GatewaySession> self(this);
    m_gateway.setSubscribed(this, server, uri, subscribed, [self, id = message.id, entry, subscribed](const RpcReply &reply) {
        if (!self)
            return;
        if (reply.ok()) {
            self->respond(id, QJsonObject{});
            return;
        }
        if (subscribed)
            self->m_subscriptions.remove(entry);
        self->respondError(id, hostError(*reply.error, reply.fromServer));
    });
}

void GatewaySession::getPrompt(const JsonRpc::Message &message, const QString &key)
{
    const QString name = message.params.value(u"name").toString();
    const ExposedPrompt *prompt = m_gateway.prompts().find(name);
    if (!prompt) {
        if (!waitForServers(message, key))
            respondError(message.id, JsonRpc::InvalidParams, u"Unknown prompt: %1"_s.arg(name));
        return;
    }
    QJsonObject params = message.params;
    params.insert(u"name"_s, prompt->promptName);
    forward(message, key, prompt->serverName, params);
}

void GatewaySession::complete(const JsonRpc::Message &message, const QString &key)
{
    QJsonObject ref = message.params.value(u"ref").toObject();
    const QString type = ref.value(u"type").toString();
    QString server;
    if (type == u"ref/prompt") {
        const ExposedPrompt *prompt = m_gateway.prompts().find(ref.value(u"name").toString());
        if (!prompt) {
            if (!waitForServers(message, key))
                respondError(message.id, JsonRpc::InvalidParams, u"Unknown prompt: %1"_s.arg(ref.value(u"name").toString()));
            return;
        }
        server = prompt->serverName;
        ref.insert(u"name"_s, prompt->promptName);
    } else if (type == u"ref/resource") {
        const QString uri = ref.value(u"uri").toString();
        server = m_gateway.resources().serverForTemplate(uri);
        if (server.isEmpty())
            server = m_gateway.resources().serverFor(uri);
        if (server.isEmpty()) {
            if (!waitForServers(message, key))
                respondError(message.id, JsonRpc::InvalidParams,
                             u"Unknown resource template: %1 (no server behind Tether lists it)"_s.arg(uri));
            return;
        }
    } else {
        respondError(message.id, JsonRpc::InvalidParams,
                     u"completion/complete needs \"ref\" with \"type\" \"ref/prompt\" or \"ref/resource\""_s);
        return;
    }
    QJsonObject params = message.params;
    params.insert(u"ref"_s, ref);
    forward(message, key, server, params);
}

void GatewaySession::setLogLevel(const JsonRpc::Message &message)
{
    const QString level = message.params.value(u"level").toString();
    if (!logLevelRank(level)) {
        respondError(message.id, JsonRpc::InvalidParams,
                     u"Invalid params: \"level\" is %1; it is one of %2"_s.arg(quotedJson(message.params.value(u"level")),
                                                                             logLevels().join(u", "_s)));
        return;
    }
    m_logLevel = level;
    respond(message.id, QJsonObject{});
    emit logLevelChanged();
}

void GatewaySession::callToolAsTask(const JsonRpc::Message &message, const QString &key)
{
    const QString name = message.params.value(u"name").toString();
    const ExposedTool *tool = m_gateway.catalog().find(name);
    if (!tool) {
        if (waitForServers(message, key))
            return;
        const HostToolReply unknown = m_gateway.unknownToolReply(name);
        if (unknown.kind == HostToolReply::Kind::Error)
            respondError(message.id, unknown.error);
        else
            respond(message.id, unknown.result);
        return;
    }
    QJsonObject params = message.params;
    params.insert(u"name"_s, tool->toolName);
    const QString server = tool->serverName;
    const QPointer<GatewaySession> self(this);
    forward(message, key, server, params, [self, server](const QJsonObject &result) {
        // A CreateTaskResult: the task is the host's, under an id unique across servers.
        const QJsonObject task = result.value(u"task").toObject();
        if (!self || !task.value(u"taskId").isString())
            return result; // the server ran the tool at once after all
        QJsonObject rewritten = result;
        rewritten.insert(u"task"_s,
                         withTaskId(task, self->m_gateway.tasks().add(server, task.value(u"taskId").toString(), self.get())));
        return rewritten;
    });
}

void GatewaySession::onTaskRequest(const JsonRpc::Message &message, const QString &key)
{
    const QString id = message.params.value(u"taskId").toString();
    const GatewayTasks::Task *task = m_gateway.tasks().find(id);
    if (!task || task->host != this) {
        respondError(message.id, JsonRpc::InvalidParams, u"Unknown task: %1"_s.arg(id));
        return;
    }
    QJsonObject params = message.params;
    params.insert(u"taskId"_s, task->serverTaskId);
    const bool result = message.method == u"tasks/result";
    forward(message, key, task->serverName, params, [id, result](const QJsonObject &answer) {
        // tasks/result is the tool's result, which names the task only in its _meta.
        return result ? withRelatedTaskId(answer, id) : withTaskId(answer, id);
    });
}

void GatewaySession::listTasks(const JsonRpc::Message &message, const QString &key)
{
    // The host sees its own tasks alone: each server that holds one is asked, and only the host's
    // are kept. One page: the host's tasks are few.
    const QList<GatewayTasks::Task> own = m_gateway.tasks().ofHost(this);
    QStringList servers;
    for (const GatewayTasks::Task &task : own) {
        if (!servers.contains(task.serverName))
            servers.append(task.serverName);
    }
    if (servers.isEmpty()) {
        respond(message.id, QJsonObject{{u"tasks"_s, QJsonArray{}}});
        return;
    }
    HostRequest work;
    accept(message, key, std::move(work));
    struct Gathered
    {
        int waiting = 0;
        QJsonArray tasks;
    };
    auto gathered = std::make_shared<Gathered>();
    gathered->waiting = int(servers.size());
    const QPointer<GatewaySession> self(this);
    for (const QString &server : std::as_const(servers)) {
        m_gateway.forward(hostLabel(), server, u"tasks/list"_s, {}, [self, key, server, gathered](const RpcReply &reply) {
            if (!self)
                return;
            for (const QJsonValue &value : reply.result.toObject().value(u"tasks").toArray()) {
                const QJsonObject task = value.toObject();
                const GatewayTasks::Task *known
                    = self->m_gateway.tasks().findByServer(server, task.value(u"taskId").toString(), self.get());
                if (known)
                    gathered->tasks.append(withTaskId(task, known->id));
            }
            if (--gathered->waiting > 0)
                return;
            if (const std::optional<Received::Entry> entry = self->finishRequest(key)) {
                self->respond(entry->id, QJsonObject{{u"tasks"_s, gathered->tasks}});
                emit self->hostChanged();
            }
        }, {}, m_side);
    }
}

void GatewaySession::dropRequest(const QString &key)
{
    Received::Entry *pending = m_received.find(key);
    if (!pending)
        return;
    if (pending->work.method == u"subscriptions/listen")
        endListen(*pending);
    const QJsonValue id = answerId(*pending);
    const bool answered = !pending->work.parkedAs.isEmpty(); // input_required was its answer
    finishRequest(key);
    if (!answered)
        m_channel.endWithoutResponse(id);
    emit hostChanged();
}

void GatewaySession::onNotification(const JsonRpc::Message &message)
{
    if (message.method == u"notifications/initialized") {
        fetchRoots();
        return;
    }
    if (message.method == u"notifications/roots/list_changed") {
        fetchRoots();
        return;
    }
    if (message.method == u"notifications/progress") {
        // Progress on a server's request the host is answering: on to the server.
        m_sent.progress(message.params.value(u"progressToken"), progressUpdateOf(message.params));
        return;
    }
    if (message.method != u"notifications/cancelled")
        return; // anything else needs nothing
    const QJsonValue requestId = message.params.value(u"requestId"_s);
    if (!isRequestId(requestId))
        return;
    // A retry of a stateless host's request stands for the request it continues.
    const QString key = m_retries.value(requestIdKey(requestId), requestIdKey(requestId));
    Received::Entry *entry = m_received.find(key);
    if (!entry)
        return; // finished already, or never known: nothing to do
    const QString reason = message.params.value(u"reason"_s).toString();
    const QString why = u"cancelled by %1"_s.arg(hostLabel()) + (reason.isEmpty() ? QString() : u": "_s + reason);
    if (entry->work.ticket.isValid())
        m_gateway.cancelToolCall(entry->work.ticket, why); // answered at once, with nothing for the host
    else
        dropRequest(key);
}

void GatewaySession::onResponse(const JsonRpc::Message &message)
{
    const qint64 id = message.id.isDouble() ? message.id.toInteger(-1) : -1;
    RpcReply reply;
    if (message.kind == JsonRpc::MessageKind::Response) {
        reply.result = message.result;
    } else {
        reply.error = message.error;
        reply.fromServer = true; // the host's own answer
    }
    if (!m_sent.complete(id, reply))
        spdlog::debug("gateway: {} answered a request nobody waits for (id {}); ignored", hostLabel(), id);
}

void GatewaySession::fetchRoots()
{
    if (!declaresRoots())
        return;
    const QPointer<GatewaySession> self(this);
    m_sent.send(u"roots/list"_s, {}, [self](const RpcReply &reply) {
        if (!self)
            return;
        if (!reply.ok() || !reply.result.toObject().value(u"roots").isArray()) {
            spdlog::warn("gateway: {} did not list its roots: {}", self->hostLabel(),
                         reply.ok() ? u"its answer holds no \"roots\" array"_s : reply.error->message);
            return;
        }
        const QJsonArray roots = reply.result.toObject().value(u"roots").toArray();
        if (roots == self->m_roots)
            return;
        self->m_roots = roots;
        emit self->rootsChanged();
    });
}

QJsonValue GatewaySession::relatedRequest(const ServerRequest &request) const
{
    const QString taskId = relatedTaskId(request.params);
    const GatewayTasks::Task *task
        = taskId.isEmpty() ? nullptr : m_gateway.tasks().findByServer(request.serverName, taskId, this);
    for (const auto &[key, entry] : m_received.entries()) {
        if (task ? entry.work.taskId == task->id : entry.work.serverName == request.serverName)
            return entry.id;
    }
    return QJsonValue::Undefined;
}

quint64 GatewaySession::forwardServerRequest(const ServerRequest &request, ReplyHandler reply, ProgressHandler onProgress)
{
    if (!m_inputEnd.isEmpty()) {
        reply(RpcReply::failure(JsonRpc::InternalError, inputEndedMessage()));
        return 0;
    }
    if (m_stateless) {
        // A stateless host is asked with an input_required answer to its request, and answers
        // in the retry of that request.
        const QJsonValue related = relatedRequest(request);
        const QString key = related.isUndefined() ? QString() : requestIdKey(related);
        Received::Entry *entry = key.isEmpty() ? nullptr : m_received.find(key);
        if (!entry || !mayRequireInput(entry->work.method)) {
            reply(RpcReply::failure(JsonRpc::MethodNotFound,
                                    u"%1 speaks protocol 2026-07-28, which lets a server ask its client only while a "
                                    "tools/call, prompts/get or resources/read of that client runs"_s.arg(hostLabel())));
            return 0;
        }
        if (!declaresClientFeature(m_capabilities, request.method, request.params)) {
            reply(RpcReply::failure(JsonRpc::MethodNotFound,
                                    u"%1 does not support %2 (its request did not declare it), so Tether cannot pass it "
                                    "on"_s.arg(hostLabel(), request.method)));
            return 0;
        }
        const quint64 question = ++m_questions;
        const QString inputKey = u"q%1"_s.arg(question);
        QJsonObject embedded{{u"method"_s, request.method}};
        QJsonObject params = request.params;
        params.remove(u"_meta"_s);
        if (!params.isEmpty())
            embedded.insert(u"params"_s, params);
        spdlog::info("gateway: server '{}' asks {} for {} (input_required)", request.serverName, hostLabel(), request.method);
        entry->work.unasked.emplace_back(inputKey, embedded);
        entry->work.unaskedReplies.emplace(inputKey, std::move(reply));
        if (entry->work.parkedAs.isEmpty())
            askHost(*entry, key);
        return question;
    }
    if (!declaresClientFeature(m_capabilities, request.method, request.params)) {
        if (request.method == u"roots/list") {
            reply(RpcReply{QJsonObject{{u"roots"_s, m_gateway.configRoots(request.serverName)}}, std::nullopt});
            return 0;
        }
        reply(RpcReply::failure(JsonRpc::MethodNotFound,
                                u"%1 does not support %2 (it did not declare it), so Tether cannot pass it on"_s.arg(
                                    hostLabel(), request.method)));
        return 0;
    }
    // The host gets the server's request with Tether's progress token and the task as it knows it.
    QJsonObject params = request.params;
    QJsonObject meta = params.value(u"_meta").toObject();
    const bool wantsProgress = meta.contains(u"progressToken");
    meta.remove(u"progressToken"_s);
    if (wantsProgress)
        meta.insert(u"progressToken"_s, m_sent.nextId());
    if (meta.isEmpty())
        params.remove(u"_meta"_s);
    else
        params.insert(u"_meta"_s, meta);
    const QString taskId = relatedTaskId(params);
    if (const GatewayTasks::Task *task
        = taskId.isEmpty() ? nullptr : m_gateway.tasks().findByServer(request.serverName, taskId, this))
        params = withRelatedTaskId(params, task->id);
    if (request.method == u"elicitation/create" && params.value(u"mode").toString() == u"url") {
        if (m_urlElicitations.size() >= MaxUrlElicitations)
            m_urlElicitations.clear(); // completions that old are of no use to anyone
        m_urlElicitations.insert(request.serverName + QChar(0) + params.value(u"elicitationId").toString());
    }
    spdlog::info("gateway: server '{}' asks {} for {}", request.serverName, hostLabel(), request.method);
    RequestOptions options;
    options.onProgress = wantsProgress ? std::move(onProgress) : ProgressHandler();
    options.related = relatedRequest(request);
    return quint64(m_sent.send(request.method, JsonRpc::serialize(params), std::move(reply), std::move(options)));
}

void GatewaySession::cancelServerRequest(quint64 id, const QString &reason)
{
    if (!m_stateless) {
        m_sent.cancel(qint64(id), reason);
        return;
    }
    // The server withdrew its question: it is not put to the host, and its answer is not wanted.
    const QString inputKey = u"q%1"_s.arg(id);
    for (const QString &key : m_received.keys()) {
        Received::Entry *entry = m_received.find(key);
        entry->work.asked.erase(inputKey);
        entry->work.unaskedReplies.erase(inputKey);
        std::erase_if(entry->work.unasked, [&](const auto &question) { return question.first == inputKey; });
    }
    Q_UNUSED(reason)
}

void GatewaySession::passOn(const QString &serverName, const QString &method, const QJsonObject &params)
{
    if (!m_initialized)
        return;
    QJsonObject sent = params;
    if (m_stateless) {
        // Log messages only when the host's requests ask for them; updates only on its listens.
        if (method == u"notifications/resources/updated") {
            const QString entry = serverName + QChar(0) + params.value(u"uri").toString();
            sendToListeners(method, sent, [&](const HostRequest &listen) { return listen.listenedUris.contains(entry); });
            return;
        }
        if (method != u"notifications/message" || m_logLevel.isEmpty())
            return;
    }
    if (method == u"notifications/message") {
        const std::optional<int> level = logLevelRank(params.value(u"level").toString());
        if (!m_logLevel.isEmpty() && level && *level < *logLevelRank(m_logLevel))
            return;
        sent.insert(u"logger"_s, loggerFor(serverName, params.value(u"logger")));
    } else if (method == u"notifications/resources/updated") {
        if (!m_subscriptions.contains(serverName + QChar(0) + params.value(u"uri").toString()))
            return;
    } else if (method == u"notifications/tasks/status") {
        const GatewayTasks::Task *task = m_gateway.tasks().findByServer(serverName, params.value(u"taskId").toString(), this);
        if (!task)
            return;
        sent = withTaskId(sent, task->id);
    } else if (method == u"notifications/elicitation/complete") {
        if (!m_urlElicitations.remove(serverName + QChar(0) + params.value(u"elicitationId").toString()))
            return; // another host's
    } else {
        return;
    }
    send(JsonRpc::makeNotification(method, sent), HostChannel::Role::Notification, {});
}

void GatewaySession::cancelAllCalls(const QString &reason)
{
    for (const QString &key : m_received.keys()) {
        Received::Entry *entry = m_received.find(key);
        if (!entry)
            continue;
        if (entry->work.ticket.isValid())
            m_gateway.cancelToolCall(entry->work.ticket, reason);
        dropRequest(key);
    }
    // The servers waiting on this host hear at once that no answer is coming.
    m_sent.failAll(JsonRpc::InternalError, u"%1 disconnected before it answered (%2)"_s.arg(hostLabel(), reason));
}

void GatewaySession::endInput(const QString &reason)
{
    m_inputEnd = reason.isEmpty() ? u"its input ended"_s : reason;
    for (const QString &key : m_received.keys()) {
        Received::Entry *entry = m_received.find(key);
        if (!entry || (entry->work.method != u"subscriptions/listen" && entry->work.parkedAs.isEmpty()))
            continue;
        if (entry->work.ticket.isValid())
            m_gateway.cancelToolCall(entry->work.ticket, reason);
        dropRequest(key);
    }
    m_sent.failAll(JsonRpc::InternalError, inputEndedMessage());
}

QString GatewaySession::inputEndedMessage() const
{
    return u"%1 stopped sending (%2), so it answers nothing more"_s.arg(hostLabel(), m_inputEnd);
}

void GatewaySession::listsChanged()
{
    if (!m_initialized)
        return;
    const auto notify = [this](QByteArray &told, const QByteArray &now, const QString &method, bool HostRequest::*listens) {
        if (told == now)
            return;
        told = now;
        if (m_stateless)
            sendToListeners(method, {}, [listens](const HostRequest &listen) { return listen.*listens; });
        else
            send(JsonRpc::makeNotification(method), HostChannel::Role::Notification, {});
    };
    notify(m_toolsFingerprint, m_gateway.catalog().fingerprint(), u"notifications/tools/list_changed"_s,
           &HostRequest::listensToTools);
    notify(m_resourcesFingerprint, m_gateway.resources().fingerprint(), u"notifications/resources/list_changed"_s,
           &HostRequest::listensToResources);
    notify(m_promptsFingerprint, m_gateway.prompts().fingerprint(), u"notifications/prompts/list_changed"_s,
           &HostRequest::listensToPrompts);
}

void GatewaySession::onSettled()
{
    std::vector<std::pair<quint64, QString>> waiting;
    for (const auto &[key, entry] : m_received.entries()) {
        if (entry.work.waitsForServers)
            waiting.emplace_back(entry.work.order, key);
    }
    std::sort(waiting.begin(), waiting.end());
    for (const auto &[order, key] : waiting) {
        Received::Entry *entry = m_received.find(key);
        if (!entry)
            continue;
        if (entry->work.method == u"tools/call" && !entry->work.params.contains(u"task")) {
            startToolCall(key);
            continue;
        }
        // A list, or a request that names what a server offers: taken up again, now that the
        // servers have come up (or not).
        const Received::Entry request = *m_received.take(key);
        JsonRpc::Message message;
        message.kind = JsonRpc::MessageKind::Request;
        message.id = request.id;
        message.method = request.work.method;
        message.params = request.work.params;
        dispatch(message, key);
    }
    if (!waiting.empty())
        emit hostChanged(); // a list among them is answered now
}

bool GatewaySession::takeStatelessRequest(JsonRpc::Message &message, const QString &key)
{
    const QJsonObject meta = message.params.value(u"_meta").toObject();
    // The first request decides the host's era: an envelope, and no initialize, make it stateless
    // once the envelope is good (a host refused may still initialize).
    const bool claims = !m_initialized && meta.contains(Envelope::ProtocolVersion) && message.method != u"initialize";
    if (!m_stateless && !claims)
        return false;
    if (const std::optional<JsonRpc::Error> error = envelopeError(message.params)) {
        respondError(message.id, *error);
        return true;
    }
    m_stateless = true;
    // Each request says what its client can do and which log messages it wants.
    m_capabilities = meta.value(Envelope::ClientCapabilities).toObject();
    const QString logLevel = meta.value(Envelope::LogLevel).toString();
    if (!m_initialized) {
        const QJsonObject clientInfo = meta.value(Envelope::ClientInfo).toObject();
        m_clientName = clientInfo.value(u"name"_s).toString();
        m_clientVersion = clientInfo.value(u"version"_s).toString();
        if (!m_clientName.isEmpty())
            m_hostLabel = m_clientVersion.isEmpty() ? m_clientName : m_clientName + u' ' + m_clientVersion;
        m_sent.setPeerLabel(m_hostLabel);
        m_protocolVersion = meta.value(Envelope::ProtocolVersion).toString();
        m_initialized = true;
        m_toolsFingerprint = m_gateway.catalog().fingerprint();
        m_resourcesFingerprint = m_gateway.resources().fingerprint();
        m_promptsFingerprint = m_gateway.prompts().fingerprint();
        spdlog::info("gateway: {} connected over {} (protocol {}, stateless)", hostLabel(), m_channel.transportName(),
                     m_protocolVersion);
        emit hostChanged();
    }
    if (logLevel != m_logLevel && (logLevel.isEmpty() || logLevelRank(logLevel))) {
        m_logLevel = logLevel;
        emit logLevelChanged();
    }
    message.params = withoutEnvelope(message.params);
    if (isHandshakeOnlyMethod(message.method)) {
        respondError(message.id, JsonRpc::MethodNotFound,
                     u"Method not found: %1 (protocol 2026-07-28 has no such method)"_s.arg(message.method));
        return true;
    }
    if (message.method == u"server/discover") {
        respond(message.id, discoverResult(m_gateway.capabilities()));
        return true;
    }
    if (message.method == u"subscriptions/listen") {
        listen(message, key);
        return true;
    }
    if (message.params.contains(u"requestState") || message.params.contains(u"inputResponses")) {
        resume(message, key);
        return true;
    }
    return false;
}

void GatewaySession::listen(const JsonRpc::Message &message, const QString &key)
{
    const QJsonValue filter = message.params.value(u"notifications");
    if (!filter.isObject()) {
        respondError(message.id, JsonRpc::InvalidParams,
                     u"Invalid params: subscriptions/listen needs \"notifications\", an object such as "
                     "{\"toolsListChanged\": true}"_s);
        return;
    }
    const QJsonObject wanted = filter.toObject();
    HostRequest work;
    QJsonObject honored;
    for (const auto &[flag, member] : {std::pair{u"toolsListChanged"_s, &HostRequest::listensToTools},
                                       std::pair{u"promptsListChanged"_s, &HostRequest::listensToPrompts},
                                       std::pair{u"resourcesListChanged"_s, &HostRequest::listensToResources}}) {
        if (wanted.value(flag).toBool()) {
            work.*member = true;
            honored.insert(flag, true);
        }
    }
    QJsonArray uris;
    for (const QJsonValue &uri : wanted.value(u"resourceSubscriptions").toArray()) {
        const QString server = m_gateway.resources().serverFor(uri.toString());
        if (server.isEmpty())
            continue; // no server lists it: nothing would ever tell of it
        const QString entry = server + QChar(0) + uri.toString();
        work.listenedUris.insert(entry);
        uris.append(uri);
        if (m_subscriptions.contains(entry))
            continue;
        m_subscriptions.insert(entry);
        m_gateway.setSubscribed(this, server, uri.toString(), true, [label = hostLabel(), uri](const RpcReply &reply) {
            if (!reply.ok())
                spdlog::warn("gateway: {} listens to {}, which its server refused to tell of: {}", label,
                             uri.toString(), reply.error->message);
        });
    }
    if (!uris.isEmpty())
        honored.insert(u"resourceSubscriptions"_s, uris);
    accept(message, key, std::move(work));
    send(JsonRpc::makeNotification(u"notifications/subscriptions/acknowledged"_s,
                                   QJsonObject{{u"notifications"_s, honored},
                                               {u"_meta"_s, QJsonObject{{Envelope::SubscriptionId.toString(), message.id}}}}),
         HostChannel::Role::Progress, message.id);
}

void GatewaySession::endListen(Received::Entry &entry)
{
    const QSet<QString> uris = std::exchange(entry.work.listenedUris, {});
    for (const QString &uri : uris) {
        const bool stillListened = std::any_of(m_received.entries().cbegin(), m_received.entries().cend(),
                                               [&](const auto &other) { return other.second.work.listenedUris.contains(uri); });
        if (stillListened || !m_subscriptions.remove(uri))
            continue;
        const qsizetype split = uri.indexOf(QChar(0));
        m_gateway.setSubscribed(this, uri.left(split), uri.mid(split + 1), false, [](const RpcReply &) {});
    }
}

void GatewaySession::sendToListeners(const QString &method, QJsonObject params,
                                     const std::function<bool(const HostRequest &)> &wants)
{
    for (const auto &[key, entry] : m_received.entries()) {
        if (entry.work.method != u"subscriptions/listen" || !wants(entry.work))
            continue;
        QJsonObject meta = params.value(u"_meta").toObject();
        meta.insert(Envelope::SubscriptionId.toString(), entry.id);
        params.insert(u"_meta"_s, meta);
        send(JsonRpc::makeNotification(method, params), HostChannel::Role::Progress, entry.id);
    }
}

void GatewaySession::askHost(Received::Entry &entry, const QString &key)
{
    QJsonObject inputRequests;
    for (const auto &[inputKey, embedded] : entry.work.unasked)
        inputRequests.insert(inputKey, embedded);
    entry.work.unasked.clear();
    entry.work.asked.merge(entry.work.unaskedReplies);
    entry.work.unaskedReplies.clear();
    const QString token = QUuid::createUuid().toString(QUuid::WithoutBraces);
    entry.work.parkedAs = token;
    m_parked.insert(token, key);
    const QJsonValue id = answerId(entry);
    entry.work.answerTo = QJsonValue::Undefined;
    emit requestParked(token);
    respond(id, QJsonObject{{u"resultType"_s, u"input_required"_s},
                            {u"inputRequests"_s, inputRequests},
                            {u"requestState"_s, token}});
}

void GatewaySession::resume(const JsonRpc::Message &message, const QString &key)
{
    const QString token = message.params.value(u"requestState").toString();
    const QString continued = m_parked.value(token);
    Received::Entry *entry = continued.isEmpty() ? nullptr : m_received.find(continued);
    if (!entry || entry->work.method != message.method) {
        respondError(message.id, JsonRpc::InvalidParams,
                     u"Invalid or expired requestState: it names no %1 of %2 that waits for answers (a retry must "
                     "send back the requestState of the input_required it answers, as it came)"_s.arg(message.method,
                                                                                                 hostLabel()),
                     QJsonObject{{u"reason"_s, u"invalid_request_state"_s}});
        return;
    }
    m_parked.remove(token);
    entry->work.parkedAs.clear();
    entry->work.answerTo = message.id;
    m_retries.insert(key, continued);
    const QJsonObject responses = message.params.value(u"inputResponses").toObject();
    const std::map<QString, ReplyHandler> asked = std::exchange(entry->work.asked, {});
    for (const auto &[inputKey, reply] : asked) {
        const QJsonValue answer = responses.value(inputKey);
        if (answer.isObject())
            reply(RpcReply{answer, std::nullopt});
        else
            reply(RpcReply::failure(JsonRpc::InternalError,
                                    u"%1 retried its request without an answer to this question"_s.arg(hostLabel())));
    }
    entry = m_received.find(continued);
    if (!entry)
        return;
    if (entry->work.deliver) {
        const auto deliver = std::move(entry->work.deliver);
        finishRequest(continued);
        deliver(message.id);
        emit hostChanged();
        return;
    }
    if (!entry->work.unasked.empty())
        askHost(*entry, continued);
}

} // namespace Tether
