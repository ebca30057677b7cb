#include "mcpclientsession.h"

#include "common/jsonscan.h"

#include "common/displaytext.h"
#include "common/jsontext.h"
#include "common/logging.h"

#include <QCoreApplication>
#include <QSet>

using namespace Qt::StringLiterals;

namespace Tether {

// A server that keeps handing out new cursors is broken; stop before memory runs out.
static constexpr int MaxListPages = 1000;

QString SessionClosure::describe() const
{
    if (!failure.isEmpty())
        return failure;
    return transport.describe();
}

McpClientSession::McpClientSession(std::unique_ptr<Transport> transport, SessionOptions options, QObject *parent)
    : QObject(parent)
    , m_transport(std::move(transport))
    , m_options(std::move(options))
{
    connect(m_transport.get(), &Transport::started, this, &McpClientSession::onTransportStarted);
    connect(m_transport.get(), &Transport::messageReceived, this, &McpClientSession::onMessage);
    m_transport->setPayloadTaker([this](const QByteArray &payload) { return takeReplyAsText(payload); });
    connect(m_transport.get(), &Transport::inputSkipped, this, &McpClientSession::onInputSkipped);
    connect(m_transport.get(), &Transport::stderrLine, this, &McpClientSession::stderrLine);
    connect(m_transport.get(), &Transport::closed, this, &McpClientSession::onTransportClosed);
    m_deadlineTimer.setSingleShot(true);
    connect(&m_deadlineTimer, &QTimer::timeout, this, &McpClientSession::onDeadlineTimer);
}

McpClientSession::~McpClientSession()
{
    // Nobody is left to hear about the requests; the owner is going away with us.
    m_pending.clear();
}

QString McpClientSession::serverLabel() const
{
    return u"server '%1'"_s.arg(m_options.serverName);
}

JsonRpc::Error McpClientSession::wrongShape(const QString &method, const QString &what) const
{
    return {JsonRpc::InvalidReply,
            u"%1 answered '%2' with a result of the wrong shape (%3): a protocol error of the server; update it or "
            "report it to its authors"_s.arg(serverLabel(), method, what),
            {}};
}

void McpClientSession::open()
{
    Q_ASSERT(m_state == State::Idle);
    // Idle -> Initializing
    m_state = State::Initializing;
    m_transport->start();
}

void McpClientSession::close()
{
    if (m_state == State::Closing || m_state == State::Closed)
        return;
    // * -> Closing
    m_state = State::Closing;
    m_transport->close();
}

void McpClientSession::onTransportStarted()
{
    if (m_state != State::Initializing)
        return;
    const QJsonObject params{
        {u"protocolVersion"_s, supportedProtocolVersions().first()},
        // Tether answers pings and nothing else a server may ask of a client.
        {u"capabilities"_s, QJsonObject{}},
        {u"clientInfo"_s, QJsonObject{{u"name"_s, u"tether"_s},
                                      {u"title"_s, u"Tether"_s},
                                      {u"version"_s, QStringLiteral(TETHER_VERSION)}}},
    };
    request(u"initialize"_s, params, [this](const RpcReply &reply) { onInitializeReply(reply); });
}

void McpClientSession::onInitializeReply(const RpcReply &reply)
{
    if (m_state != State::Initializing)
        return;
    if (!reply.ok()) {
        fail(u"initialize failed: "_s + reply.error->message);
        return;
    }
    QString wrong;
    std::optional<ServerIdentity> identity = parseInitializeResult(reply.result, &wrong);
    if (!identity) {
        fail(wrongShape(u"initialize"_s, wrong).message);
        return;
    }
    const QString version = identity->protocolVersion;
    if (!supportedProtocolVersions().contains(version)) {
        fail(u"%1 answered protocol version '%2', which Tether does not speak (Tether speaks %3); "
             "update the server or Tether"_s
                 .arg(serverLabel(), version, supportedProtocolVersions().join(u", "_s)));
        return;
    }
    m_serverIdentity = std::move(*identity);

    notify(u"notifications/initialized"_s);
    // Initializing -> Ready
    m_state = State::Ready;
    m_wasReady = true;
    spdlog::debug("{}: connected ({} {}, protocol {})", serverLabel(), m_serverIdentity.name,
                  m_serverIdentity.version, version);
    emit ready();
}

qint64 McpClientSession::request(const QString &method, const QJsonObject &params, ReplyHandler handler,
                                 ProgressHandler onProgress, std::optional<std::chrono::milliseconds> timeout)
{
    QJsonObject sentParams = params;
    if (onProgress) {
        QJsonObject meta = sentParams.value(u"_meta").toObject();
        meta.insert(u"progressToken", nextRequestId());
        sentParams.insert(u"_meta", meta);
    }
    return sendRequest(method, sentParams.isEmpty() ? QByteArray() : JsonRpc::serialize(sentParams), std::move(handler),
                       std::move(onProgress), timeout);
}

qint64 McpClientSession::sendRequest(const QString &method, const QByteArray &params, ReplyHandler handler,
                                     ProgressHandler onProgress, std::optional<std::chrono::milliseconds> timeout,
                                     bool resultAsText)
{
    const qint64 id = m_nextRequestId++;
    const bool usable = m_state == State::Ready || (m_state == State::Initializing && method == u"initialize");
    if (!usable) {
        const QString reason = m_state == State::Initializing
                                   ? u"%1 is still initializing"_s.arg(serverLabel())
                                   : u"%1 is not connected"_s.arg(serverLabel());
        // Answer later, never from inside the call: callers may not expect re-entrance.
        answerLater(this, std::move(handler), RpcReply::failure(JsonRpc::ConnectionClosed, reason));
        return id;
    }

    const std::chrono::milliseconds limit = timeout.value_or(m_options.requestTimeout);
    const auto deadline = std::chrono::steady_clock::now() + limit;
    m_pending.emplace(id, PendingRequest{method, limit, std::move(handler), std::move(onProgress), deadline, resultAsText});
    m_requestsWantingText += resultAsText ? 1 : 0;
    armDeadlineTimer(deadline);
    m_transport->sendJson(JsonRpc::serializeRequest(id, method, params));
    return id;
}

void McpClientSession::notify(const QString &method, const QJsonObject &params)
{
    if (m_transport->isOpen())
        m_transport->send(JsonRpc::makeNotification(method, params));
}

void McpClientSession::cancel(qint64 requestId, const QString &reason)
{
    if (!m_pending.contains(requestId))
        return;
    notify(u"notifications/cancelled"_s, {{u"requestId"_s, requestId}, {u"reason"_s, reason}});
    completeRequest(requestId, RpcReply::failure(JsonRpc::RequestCancelled, reason));
}

void McpClientSession::onRequestTimeout(qint64 requestId)
{
    const auto it = m_pending.find(requestId);
    if (it == m_pending.end())
        return;
    const QString reason = u"request '%1' to %2 timed out after %3 ms"_s
                               .arg(it->second.method, serverLabel())
                               .arg(it->second.timeout.count());
    spdlog::warn("{}", reason);
    notify(u"notifications/cancelled"_s, {{u"requestId"_s, requestId}, {u"reason"_s, reason}});
    completeRequest(requestId, RpcReply::failure(JsonRpc::RequestTimeout, reason));
}

void McpClientSession::armDeadlineTimer(std::chrono::steady_clock::time_point deadline)
{
    if (m_deadlineTimer.isActive() && m_armedDeadline <= deadline)
        return;
    m_armedDeadline = deadline;
    const auto remaining = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    m_deadlineTimer.start(std::max(remaining, std::chrono::milliseconds(0)));
}

void McpClientSession::onDeadlineTimer()
{
    // A request answered in time leaves the timer armed for it: only the expired ones time out here.
    const auto now = std::chrono::steady_clock::now();
    QList<qint64> expired;
    std::optional<std::chrono::steady_clock::time_point> next;
    for (const auto &[id, pending] : m_pending) {
        if (pending.deadline <= now)
            expired.append(id);
        else if (!next || pending.deadline < *next)
            next = pending.deadline;
    }
    if (next)
        armDeadlineTimer(*next);
    const QPointer<McpClientSession> guard(this);
    for (qint64 id : std::as_const(expired)) {
        if (!guard)
            return;
        onRequestTimeout(id);
    }
}

void McpClientSession::completeRequest(qint64 requestId, const RpcReply &reply)
{
    const auto it = m_pending.find(requestId);
    if (it == m_pending.end())
        return;
    PendingRequest node = std::move(it->second);
    m_pending.erase(it);
    m_requestsWantingText -= node.resultAsText ? 1 : 0;
    if (node.handler)
        node.handler(reply);
}

void McpClientSession::onMessage(const QJsonObject &object, const QByteArray &text)
{
    if (m_state == State::Closed)
        return;
    const JsonRpc::Message message = JsonRpc::classify(object);
    switch (message.kind) {
    case JsonRpc::MessageKind::Request:
        onServerRequest(message);
        break;
    case JsonRpc::MessageKind::Notification:
        onNotification(message);
        break;
    case JsonRpc::MessageKind::Response:
    case JsonRpc::MessageKind::ErrorResponse:
        onResponse(message, text);
        break;
    case JsonRpc::MessageKind::Invalid:
        onInputSkipped(u"skipped a message that is not JSON-RPC (%1): %2"_s.arg(
            message.invalidReason, excerpt(JsonRpc::serialize(object))));
        break;
    }
}

bool McpClientSession::takeReplyAsText(const QByteArray &payload)
{
    // Only a plain reply is taken: {"jsonrpc":"2.0","id":N,"result":{…}} in any order. Anything
    // else, an error reply among them, is parsed and judged as usual.
    if (m_state == State::Closed || m_requestsWantingText == 0)
        return false;
    JsonMembersText resultMembers;
    const std::optional<JsonMembersText> members = validJsonObjectMembers(payload, "result", &resultMembers);
    if (!members || members->size() != 3 || memberValue(*members, "jsonrpc") != "\"2.0\"")
        return false;
    const QByteArrayView result = memberValue(*members, "result");
    const std::optional<qint64> id = jsonInteger(memberValue(*members, "id"));
    if (!id || !result.startsWith('{'))
        return false;
    const auto pending = m_pending.find(*id);
    if (pending == m_pending.end() || !pending->second.resultAsText)
        return false;
    // An error result quotes the server's own words, which may hold its secrets: it is parsed,
    // and scrubbed as values, never as text.
    const std::optional<bool> isError = toolCallResultTextIsError(resultMembers);
    if (!isError || (*isError && !m_transport->secrets().isEmpty()))
        return false;
    RpcReply reply{QJsonValue::Undefined, std::nullopt}; // undefined: the result is known as text alone
    reply.resultJson = result.toByteArray();
    reply.textResultIsError = *isError;
    completeRequest(*id, reply);
    return true;
}

void McpClientSession::onInputSkipped(const QString &what)
{
    ++m_stats.skippedInput;
    spdlog::warn("{}: {}", serverLabel(), m_transport->secrets().scrub(what));
}

void McpClientSession::onServerRequest(const JsonRpc::Message &message)
{
    if (message.method == u"ping") {
        m_transport->send(JsonRpc::makeResult(message.id, QJsonObject{}));
        return;
    }
    ++m_stats.unsupportedRequests;
    spdlog::info("{} asked for '{}', which Tether does not support; answered -32601", serverLabel(),
                 message.method);
    m_transport->send(JsonRpc::makeError(message.id, JsonRpc::MethodNotFound,
                                         u"Method not found: %1 (Tether does not support it)"_s.arg(message.method)));
}

void McpClientSession::onNotification(const JsonRpc::Message &message)
{
    const QString &method = message.method;
    const bool listChanged = method == u"notifications/tools/list_changed"
                             || method == u"notifications/resources/list_changed"
                             || method == u"notifications/prompts/list_changed";
    if (listChanged && m_state != State::Ready) {
        // Before the handshake ends the first lists are still to come and will see the new
        // ones anyway: passing this on would only duplicate that first sync.
        spdlog::debug("{}: {} before the handshake ended, covered by the first sync", serverLabel(), method);
    } else if (method == u"notifications/tools/list_changed") {
        emit toolsListChanged();
    } else if (method == u"notifications/resources/list_changed") {
        emit resourcesListChanged();
    } else if (method == u"notifications/prompts/list_changed") {
        emit promptsListChanged();
    } else if (method == u"notifications/message") {
        const SecretScrubber &secrets = m_transport->secrets();
        emit logMessage(message.params.value(u"level").toString(),
                        secrets.scrub(message.params.value(u"logger").toString()),
                        secrets.scrub(message.params.value(u"data")));
    } else if (method == u"notifications/progress") {
        const QJsonValue token = message.params.value(u"progressToken");
        ProgressUpdate update;
        update.progress = message.params.value(u"progress").toDouble();
        if (message.params.value(u"total").isDouble())
            update.total = message.params.value(u"total").toDouble();
        update.message = m_transport->secrets().scrub(message.params.value(u"message").toString());
        const auto it = m_pending.find(token.toInteger(-1));
        if (it != m_pending.end() && it->second.onProgress)
            it->second.onProgress(update);
        emit progressNotified(token, update);
    } else {
        spdlog::debug("{}: ignored notification '{}'", serverLabel(), method);
    }
}

void McpClientSession::onResponse(const JsonRpc::Message &message, const QByteArray &text)
{
    const qint64 id = message.id.isDouble() ? message.id.toInteger(-1) : -1;
    const auto pending = m_pending.find(id);
    if (pending == m_pending.end()) {
        ++m_stats.unknownResponses;
        spdlog::warn("{}: skipped a response to id {} that no request is waiting for", serverLabel(),
                     QString::fromUtf8(JsonRpc::serialize(QJsonObject{{u"id"_s, message.id}})));
        return;
    }
    if (message.kind == JsonRpc::MessageKind::Response) {
        RpcReply reply{message.result, std::nullopt};
        // A tool's result goes on to a host as it came (the gateway): its text spares writing it again.
        if (pending->second.method == u"tools/call")
            reply.resultJson = jsonMemberText(text, "result"_L1).value_or(QByteArrayView()).toByteArray();
        completeRequest(id, reply);
        return;
    }
    // A server may quote the request it refuses, or its own environment, in the error.
    JsonRpc::Error error = message.error;
    error.message = m_transport->secrets().scrub(error.message);
    error.data = m_transport->secrets().scrub(error.data);
    completeRequest(id, RpcReply{{}, error, true});
}

void McpClientSession::fail(const QString &reason)
{
    if (!m_failure.isEmpty() || m_state == State::Closing || m_state == State::Closed)
        return;
    m_failure = reason;
    spdlog::debug("{}: {}", serverLabel(), reason);
    const QPointer<McpClientSession> guard(this);
    emit failed(reason);
    if (!guard || m_state == State::Closed)
        return;
    failAllPending(reason);
    if (!guard)
        return;
    close();
}

void McpClientSession::failAllPending(const QString &reason)
{
    const QPointer<McpClientSession> guard(this);
    QList<qint64> ids;
    for (const auto &[id, pending] : m_pending)
        ids.append(id);
    for (qint64 id : ids) {
        if (!guard)
            return;
        if (m_pending.contains(id))
            completeRequest(id, RpcReply::failure(JsonRpc::ConnectionClosed, reason));
    }
}

void McpClientSession::onTransportClosed(const TransportClosure &closure)
{
    if (m_state == State::Closed)
        return;
    const QPointer<McpClientSession> guard(this);
    m_transportClosure = closure;
    if (m_state != State::Closing) {
        QString reason = (m_state == State::Ready ? u"connection closed: "_s
                                                  : u"connection closed during initialize: "_s)
                         + closure.describe();
        if (!closure.lastStderrLine().isEmpty())
            reason += u" (last stderr line: \"%1\")"_s.arg(closure.lastStderrLine());
        fail(reason);
        if (!guard)
            return;
    }
    // * -> Closed
    m_state = State::Closed;
    failAllPending(m_failure.isEmpty() ? u"connection closed by Tether"_s : u"connection closed: "_s + m_failure);
    if (!guard)
        return;
    emit closed(SessionClosure{m_wasReady, m_failure, closure});
}

// The entries that `parse` accepts, the first of each `key`; why the others were left out.
template<typename Entry>
static QList<Entry> keptEntries(const QJsonArray &entries, std::optional<Entry> (*parse)(const QJsonValue &, QString *),
                                QString Entry::*key, QStringView what, QStringList *warnings)
{
    QList<Entry> kept;
    QSet<QString> keys;
    for (const QJsonValue &value : entries) {
        QString error;
        std::optional<Entry> entry = parse(value, &error);
        if (!entry) {
            warnings->append(error);
            continue;
        }
        const QString &name = (*entry).*key;
        if (keys.contains(name)) {
            warnings->append(u"the %1 '%2' is listed twice; the first one is kept"_s.arg(what, name));
            continue;
        }
        keys.insert(name);
        kept.append(std::move(*entry));
    }
    return kept;
}

void McpClientSession::logSkipped(const QString &method, const QStringList &warnings) const
{
    for (const QString &warning : warnings)
        spdlog::warn("{}: {}: {}", serverLabel(), method, warning);
}

JsonRpc::Error McpClientSession::notOffered(QStringView capability) const
{
    return {JsonRpc::MethodNotFound,
            u"%1 offers no %2: its initialize result does not advertise the \"%2\" capability"_s.arg(serverLabel(),
                                                                                                     capability),
            {}};
}

void McpClientSession::listTools(ToolListHandler handler)
{
    listEntries(u"tools/list"_s, u"tools"_s, [this, handler = std::move(handler)](const ListedEntries &listed) {
        ToolListReply reply;
        reply.error = listed.error;
        if (!listed.error) {
            reply.tools = keptEntries(listed.entries, parseToolDefinition, &ToolDefinition::name, u"tool", &reply.warnings);
            logSkipped(u"tools/list"_s, reply.warnings);
        }
        handler(reply);
    });
}

void McpClientSession::listResources(ResourceListHandler handler)
{
    if (!offers(u"resources")) {
        answerLater(this, std::move(handler), ResourceListReply{});
        return;
    }
    listEntries(u"resources/list"_s, u"resources"_s, [this, handler = std::move(handler)](const ListedEntries &listed) {
        auto reply = std::make_shared<ResourceListReply>();
        reply->error = listed.error;
        if (listed.error) {
            handler(*reply);
            return;
        }
        reply->resources = keptEntries(listed.entries, parseResource, &ResourceDefinition::uri, u"resource",
                                       &reply->warnings);
        listEntries(u"resources/templates/list"_s, u"resourceTemplates"_s, [this, reply, handler](const ListedEntries &templates) {
            // A server with nothing but fixed resources may not know the method at all.
            const bool unknown = templates.error && templates.error->code == JsonRpc::MethodNotFound;
            if (templates.error && !unknown)
                reply->error = templates.error;
            else if (!unknown)
                reply->templates = keptEntries(templates.entries, parseResourceTemplate, &ResourceTemplate::uriTemplate,
                                               u"resource template", &reply->warnings);
            if (!reply->error)
                logSkipped(u"resources/list"_s, reply->warnings);
            handler(*reply);
        });
    });
}

void McpClientSession::listPrompts(PromptListHandler handler)
{
    if (!offers(u"prompts")) {
        answerLater(this, std::move(handler), PromptListReply{});
        return;
    }
    listEntries(u"prompts/list"_s, u"prompts"_s, [this, handler = std::move(handler)](const ListedEntries &listed) {
        PromptListReply reply;
        reply.error = listed.error;
        if (!listed.error) {
            reply.prompts = keptEntries(listed.entries, parsePrompt, &PromptDefinition::name, u"prompt", &reply.warnings);
            logSkipped(u"prompts/list"_s, reply.warnings);
        }
        handler(reply);
    });
}

qint64 McpClientSession::readResource(const QString &uri, ResourceReadHandler handler)
{
    if (!offers(u"resources")) {
        answerLater(this, std::move(handler), ResourceReadReply{{}, notOffered(u"resources")});
        return 0;
    }
    return request(u"resources/read"_s, {{u"uri"_s, uri}}, [this, handler = std::move(handler)](const RpcReply &reply) {
        ResourceReadReply readReply;
        QString wrong;
        if (!reply.ok())
            readReply.error = reply.error;
        else if (std::optional<QList<ResourceContents>> contents = parseResourceReadResult(reply.result, &wrong))
            readReply.contents = std::move(*contents);
        else
            readReply.error = wrongShape(u"resources/read"_s, wrong);
        handler(readReply);
    });
}

qint64 McpClientSession::getPrompt(const QString &name, const QJsonObject &arguments, PromptHandler handler)
{
    if (!offers(u"prompts")) {
        answerLater(this, std::move(handler), PromptReply{{}, notOffered(u"prompts")});
        return 0;
    }
    const QJsonObject params{{u"name"_s, name}, {u"arguments"_s, arguments}};
    return request(u"prompts/get"_s, params, [this, handler = std::move(handler)](const RpcReply &reply) {
        PromptReply promptReply;
        QString wrong;
        if (!reply.ok())
            promptReply.error = reply.error;
        else if (std::optional<PromptResult> result = parsePromptResult(reply.result, &wrong))
            promptReply.result = std::move(*result);
        else
            promptReply.error = wrongShape(u"prompts/get"_s, wrong);
        handler(promptReply);
    });
}

void McpClientSession::listEntries(const QString &method, const QString &key, ListedEntriesHandler handler)
{
    fetchPage(method, key, {}, std::make_shared<ListedEntries>(), std::make_shared<QSet<QString>>(), std::move(handler));
}

void McpClientSession::fetchPage(const QString &method, const QString &key, const QString &cursor,
                                 std::shared_ptr<ListedEntries> accumulated, std::shared_ptr<QSet<QString>> seenCursors,
                                 ListedEntriesHandler handler)
{
    QJsonObject params;
    if (!cursor.isNull())
        params.insert(u"cursor", cursor);
    request(method, params, [this, method, key, accumulated, seenCursors, handler](const RpcReply &reply) {
        const QString failed = method + u" failed: "_s;
        if (!reply.ok()) {
            accumulated->error = reply.error;
            accumulated->error->message.prepend(failed);
            handler(*accumulated);
            return;
        }
        QString wrong;
        const std::optional<ListPage> page = parseListPage(reply.result, key, &wrong);
        if (!page) {
            accumulated->error = wrongShape(method, wrong);
            accumulated->error->message.prepend(failed);
            handler(*accumulated);
            return;
        }
        for (const QJsonValue &entry : page->entries)
            accumulated->entries.append(entry);
        const QString &next = page->nextCursor;
        if (next.isEmpty()) {
            handler(*accumulated);
            return;
        }
        const qsizetype pagesRead = seenCursors->size() + 1;
        if (seenCursors->contains(next) || pagesRead >= MaxListPages) {
            const QString why = seenCursors->contains(next)
                                    ? u"%1 returned the cursor '%2' again; its pagination never ends"_s.arg(serverLabel(), next)
                                    : u"%1 still gave a next cursor after %2 pages, the most Tether reads; its pagination seems never to end"_s
                                          .arg(serverLabel())
                                          .arg(pagesRead);
            accumulated->error = JsonRpc::Error{JsonRpc::InvalidReply, failed + why, {}};
            handler(*accumulated);
            return;
        }
        seenCursors->insert(next);
        fetchPage(method, key, next, accumulated, seenCursors, handler);
    });
}

qint64 McpClientSession::callTool(const QString &name, const ToolCallInput &input,
                                  ToolCallHandler handler, ProgressHandler onProgress)
{
    // Written around the arguments' own JSON: an object holding them would copy them whole first.
    const QByteArray arguments = input.argumentsText();
    QByteArray params;
    params.reserve(64 + arguments.size() + name.size());
    params += '{';
    if (onProgress) {
        params += "\"_meta\":{\"progressToken\":";
        appendInteger(params, nextRequestId());
        params += "},";
    }
    params += "\"arguments\":";
    params += arguments;
    params += ",\"name\":";
    appendJsonString(params, name);
    params += '}';
    return sendRequest(
        u"tools/call"_s, params,
        [this, handler = std::move(handler)](const RpcReply &reply) {
            ToolCallReply callReply;
            callReply.fromServer = reply.fromServer;
            if (!reply.ok()) {
                callReply.error = reply.error;
            } else if (reply.result.isUndefined()) {
                // Taken as text, a tool's result: its text and isError are all that is wanted of it.
                callReply.result.json = reply.resultJson;
                callReply.result.isError = reply.textResultIsError;
            } else {
                const QJsonValue &value = reply.result;
                QString wrong;
                // An error result is the server's error message, scrubbed as one; a result is the tool's data.
                const bool errorResult = value.toObject().value(u"isError").toBool();
                const QJsonValue result = errorResult ? m_transport->secrets().scrub(value) : value;
                if (std::optional<ToolCallResult> parsed = parseToolCallResult(result, &wrong)) {
                    callReply.result = std::move(*parsed);
                    if (!errorResult)
                        callReply.result.json = reply.resultJson;
                } else {
                    callReply.error = wrongShape(u"tools/call"_s, wrong);
                }
            }
            handler(callReply);
        },
        std::move(onProgress), {}, input.resultAsText);
}

void McpClientSession::ping(ReplyHandler handler, std::optional<std::chrono::milliseconds> timeout)
{
    request(u"ping"_s, {}, std::move(handler), {}, timeout);
}

} // namespace Tether
