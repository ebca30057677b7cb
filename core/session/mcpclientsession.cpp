#include "mcpclientsession.h"

#include "common/displaytext.h"
#include "common/logging.h"

#include <QCoreApplication>
#include <QSet>

using namespace Qt::StringLiterals;

namespace Tether {

// A server that keeps handing out new cursors is broken; stop before memory runs out.
static constexpr int MaxToolPages = 1000;

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
    connect(m_transport.get(), &Transport::inputSkipped, this, &McpClientSession::onInputSkipped);
    connect(m_transport.get(), &Transport::stderrLine, this, &McpClientSession::stderrLine);
    connect(m_transport.get(), &Transport::closed, this, &McpClientSession::onTransportClosed);
}

McpClientSession::~McpClientSession()
{
    // Nobody is left to hear about the requests; the owner is going away with us.
    for (auto &[id, pending] : m_pending)
        delete pending.timer;
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

    QJsonObject sentParams = params;
    if (onProgress) {
        QJsonObject meta = sentParams.value(u"_meta").toObject();
        meta.insert(u"progressToken", id);
        sentParams.insert(u"_meta", meta);
    }
    auto *timer = new QTimer(this);
    timer->setSingleShot(true);
    connect(timer, &QTimer::timeout, this, [this, id] { onRequestTimeout(id); });
    const std::chrono::milliseconds limit = timeout.value_or(m_options.requestTimeout);
    timer->start(limit);
    m_pending.emplace(id, PendingRequest{method, limit, std::move(handler), std::move(onProgress), timer});
    m_transport->send(JsonRpc::makeRequest(id, method, sentParams));
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

void McpClientSession::completeRequest(qint64 requestId, const RpcReply &reply)
{
    const auto it = m_pending.find(requestId);
    if (it == m_pending.end())
        return;
    PendingRequest node = std::move(it->second);
    m_pending.erase(it);
    delete node.timer;
    if (node.handler)
        node.handler(reply);
}

void McpClientSession::onMessage(const QJsonObject &object)
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
        onResponse(message);
        break;
    case JsonRpc::MessageKind::Invalid:
        onInputSkipped(u"skipped a message that is not JSON-RPC (%1): %2"_s.arg(
            message.invalidReason, excerpt(JsonRpc::serialize(object))));
        break;
    }
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
    if (method == u"notifications/tools/list_changed") {
        // Before the handshake ends the first tools/list is still to come and will see the
        // new list anyway: passing this on would only duplicate that first sync.
        if (m_state == State::Ready)
            emit toolsListChanged();
        else
            spdlog::debug("{}: tools/list_changed before the handshake ended, covered by the first sync",
                          serverLabel());
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

void McpClientSession::onResponse(const JsonRpc::Message &message)
{
    const qint64 id = message.id.isDouble() ? message.id.toInteger(-1) : -1;
    if (!m_pending.contains(id)) {
        ++m_stats.unknownResponses;
        spdlog::warn("{}: skipped a response to id {} that no request is waiting for", serverLabel(),
                     QString::fromUtf8(JsonRpc::serialize(QJsonObject{{u"id"_s, message.id}})));
        return;
    }
    if (message.kind == JsonRpc::MessageKind::Response) {
        completeRequest(id, RpcReply{message.result, std::nullopt});
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

void McpClientSession::listTools(ToolListHandler handler)
{
    fetchToolPage({}, std::make_shared<ToolListReply>(), std::make_shared<QSet<QString>>(),
                  std::make_shared<QSet<QString>>(), std::move(handler));
}

void McpClientSession::fetchToolPage(const QString &cursor, std::shared_ptr<ToolListReply> accumulated,
                                     std::shared_ptr<QSet<QString>> seenCursors,
                                     std::shared_ptr<QSet<QString>> toolNames,
                                     ToolListHandler handler)
{
    QJsonObject params;
    if (!cursor.isNull())
        params.insert(u"cursor", cursor);
    request(u"tools/list"_s, params, [this, accumulated, seenCursors, toolNames, handler](const RpcReply &reply) {
        if (!reply.ok()) {
            accumulated->error = reply.error;
            accumulated->error->message = u"tools/list failed: "_s + reply.error->message;
            handler(*accumulated);
            return;
        }
        QString wrong;
        const std::optional<ToolListPage> page = parseToolListPage(reply.result, &wrong);
        if (!page) {
            accumulated->error = wrongShape(u"tools/list"_s, wrong);
            accumulated->error->message.prepend(u"tools/list failed: "_s);
            handler(*accumulated);
            return;
        }
        for (const QJsonValue &entry : page->tools) {
            QString error;
            std::optional<ToolDefinition> tool = parseToolDefinition(entry, &error);
            if (!tool) {
                accumulated->warnings.append(error);
                continue;
            }
            if (toolNames->contains(tool->name)) {
                accumulated->warnings.append(u"the tool '%1' is listed twice; the first one is kept"_s.arg(tool->name));
                continue;
            }
            toolNames->insert(tool->name);
            accumulated->tools.append(std::move(*tool));
        }
        const QString &next = page->nextCursor;
        if (next.isEmpty()) {
            for (const QString &warning : std::as_const(accumulated->warnings))
                spdlog::warn("{}: tools/list: {}", serverLabel(), warning);
            handler(*accumulated);
            return;
        }
        const qsizetype pagesRead = seenCursors->size() + 1;
        if (seenCursors->contains(next) || pagesRead >= MaxToolPages) {
            const QString why = seenCursors->contains(next)
                                    ? u"%1 returned the cursor '%2' again; its pagination never ends"_s.arg(serverLabel(), next)
                                    : u"%1 still gave a next cursor after %2 pages, the most Tether reads; its pagination seems never to end"_s
                                          .arg(serverLabel())
                                          .arg(pagesRead);
            accumulated->error = JsonRpc::Error{JsonRpc::InvalidReply, u"tools/list failed: "_s + why, {}};
            handler(*accumulated);
            return;
        }
        seenCursors->insert(next);
        fetchToolPage(next, accumulated, seenCursors, toolNames, handler);
    });
}

qint64 McpClientSession::callTool(const QString &name, const QJsonObject &arguments,
                                  ToolCallHandler handler, ProgressHandler onProgress)
{
    const QJsonObject params{{u"name"_s, name}, {u"arguments"_s, arguments}};
    return request(
        u"tools/call"_s, params,
        [this, handler = std::move(handler)](const RpcReply &reply) {
            ToolCallReply callReply;
            QString wrong;
            // An error result is the server's error message, scrubbed as one; a result is the tool's data.
            const bool errorResult = reply.ok() && reply.result.toObject().value(u"isError").toBool();
            const QJsonValue result = errorResult ? m_transport->secrets().scrub(reply.result) : reply.result;
            if (!reply.ok())
                callReply.error = reply.error;
            else if (std::optional<ToolCallResult> parsed = parseToolCallResult(result, &wrong))
                callReply.result = std::move(*parsed);
            else
                callReply.error = wrongShape(u"tools/call"_s, wrong);
            callReply.fromServer = reply.fromServer;
            handler(callReply);
        },
        std::move(onProgress));
}

void McpClientSession::ping(ReplyHandler handler, std::optional<std::chrono::milliseconds> timeout)
{
    request(u"ping"_s, {}, std::move(handler), {}, timeout);
}

} // namespace Tether
