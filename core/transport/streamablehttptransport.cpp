#include "streamablehttptransport.h"

#include "common/logging.h"
#include "protocol/jsonrpc.h"
#include "protocol/mcptypes.h"
#include "protocol/protocolera.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QScopeGuard>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Tether {

static const QString InitializeMethod = u"initialize"_s;
static const QString InitializedMethod = u"notifications/initialized"_s;
// How long messages after notifications/initialized wait for the server's GET stream to be
// answered: a server sends its headers at once, or flushes them only with its first event.
constexpr std::chrono::milliseconds LongestServerStreamWait{1000};

// Ids are numbers or strings; the key tells 1 and "1" apart.
static QString idKey(const QJsonValue &id)
{
    return QString::fromUtf8(QJsonDocument(QJsonArray{id}).toJson(QJsonDocument::Compact));
}

static bool isSuccess(int status)
{
    return status >= 200 && status < 300;
}


StreamableHttpTransport::StreamableHttpTransport(HttpServerEndpoint endpoint, HttpTransportOptions options,
                                                 QObject *parent)
    : Transport(endpoint.secrets(), parent)
    , m_endpoint(std::move(endpoint))
    , m_options(options)
{
    m_closeTimer.setSingleShot(true);
    connect(&m_closeTimer, &QTimer::timeout, this, &StreamableHttpTransport::finish);
    m_serverStreamWait.setSingleShot(true);
    connect(&m_serverStreamWait, &QTimer::timeout, this, &StreamableHttpTransport::releaseHeldMessages);
}

StreamableHttpTransport::~StreamableHttpTransport()
{
    abortAll();
    if (m_deleteReply)
        discardReply(m_deleteReply, this);
}

QString StreamableHttpTransport::description() const
{
    return u"http: "_s + m_endpoint.shown();
}

bool StreamableHttpTransport::isOpen() const
{
    return m_stage == Stage::Open;
}

void StreamableHttpTransport::start()
{
    Q_ASSERT(m_stage == Stage::Idle);
    // Idle -> Open: HTTP has no connection to set up; the initialize POST is the first contact.
    m_stage = Stage::Open;
    QMetaObject::invokeMethod(
        this, [this] {
            if (m_stage == Stage::Open)
                emit started();
        },
        Qt::QueuedConnection);
}

void StreamableHttpTransport::send(const QJsonObject &message)
{
    if (m_stage != Stage::Open)
        return;
    if (m_holdingForServerStream) {
        m_heldMessages.append(message);
        return;
    }
    const JsonRpc::Message classified = JsonRpc::classify(message);
    if (classified.kind == JsonRpc::MessageKind::Request) {
        m_awaited.emplace(idKey(classified.id), classified.method);
        if (classified.method == InitializeMethod)
            m_initializeId = classified.id;
        // A stateless request's envelope names its version; a request without one (initialize)
        // leaves the stateless era.
        const QString version = classified.params.value(u"_meta").toObject().value(Envelope::ProtocolVersion).toString();
        m_statelessVersion = version.toUtf8();
        post(JsonRpc::serialize(message), classified.id, classified.method,
             version.isEmpty() ? QString() : mcpNameOf(classified.method, classified.params));
        return;
    }
    if (classified.kind == JsonRpc::MessageKind::Notification && classified.method == u"notifications/cancelled")
        forgetRequest(classified.params.value(u"requestId"));
    post(JsonRpc::serialize(message), QJsonValue::Undefined, classified.method);
    if (classified.method == InitializedMethod && !m_serverStreamRequested) {
        // A server may answer a pending request on a GET stream that opens after it (sse-retry of
        // the conformance suite does), where no Last-Event-ID says whose stream it resumes.
        m_holdingForServerStream = true;
        m_serverStreamWait.start(LongestServerStreamWait);
    }
}

void StreamableHttpTransport::releaseHeldMessages()
{
    if (!m_holdingForServerStream)
        return;
    m_holdingForServerStream = false;
    m_serverStreamWait.stop();
    for (const QJsonObject &message : std::exchange(m_heldMessages, {}))
        send(message);
}

void StreamableHttpTransport::addSessionHeaders(QNetworkRequest &request) const
{
    if (!m_sessionId.isEmpty())
        request.setRawHeader("Mcp-Session-Id", m_sessionId);
    // A version the session will refuse anyway must not reach the server as if Tether spoke it.
    if (supportedProtocolVersions().contains(m_protocolVersion))
        request.setRawHeader("MCP-Protocol-Version", m_protocolVersion.toUtf8());
}

QNetworkRequest StreamableHttpTransport::request(const QByteArray &accept)
{
    QNetworkRequest request = m_endpoint.request(m_endpoint.url, accept);
    addSessionHeaders(request);
    // A token renewed by another connection of this server is new to this one's scrubber.
    if (const QByteArray authorization = m_endpoint.authorization(); !authorization.isEmpty())
        addSecrets(secretsOfHeaderValue(QString::fromLatin1(authorization)));
    return request;
}

void StreamableHttpTransport::post(const QByteArray &payload, const QJsonValue &requestId, const QString &method,
                                   const QString &mcpName, bool renewed, bool steppedUp)
{
    QNetworkRequest request = this->request("application/json, text/event-stream");
    request.setHeader(QNetworkRequest::ContentTypeHeader, u"application/json"_s);
    if (!m_statelessVersion.isEmpty()) {
        // A stateless request says in its headers what its body says, for the intermediaries.
        request.setRawHeader("MCP-Protocol-Version", m_statelessVersion);
        if (!requestId.isUndefined())
            request.setRawHeader("Mcp-Method", method.toUtf8());
        if (!mcpName.isNull())
            request.setRawHeader("Mcp-Name", encodeMcpHeaderValue(mcpName));
    }
    request.setTransferTimeout(int(m_options.requestTimeout.count()));

    auto exchange = std::make_unique<Exchange>();
    exchange->kind = Exchange::Kind::Post;
    exchange->requestId = requestId;
    exchange->method = method;
    exchange->carriedSession = !m_sessionId.isEmpty();
    exchange->events = SseParser(m_options.maxMessageBytes);
    exchange->position.retryDelay = m_options.resumeDelay;
    exchange->authorization = request.rawHeader("Authorization");
    exchange->renewed = renewed;
    exchange->steppedUp = steppedUp;
    exchange->mcpName = mcpName;
    if (m_endpoint.signsIn())
        exchange->payload = payload;
    exchange->reply = network().post(request, payload);
    track(std::move(exchange));
}

void StreamableHttpTransport::openStream(Exchange::Kind kind, const QJsonValue &requestId,
                                         const StreamPosition &position, bool renewed)
{
    QNetworkRequest request = this->request("text/event-stream");
    if (!position.lastEventId.isEmpty())
        request.setRawHeader("Last-Event-ID", position.lastEventId);

    auto exchange = std::make_unique<Exchange>();
    exchange->kind = kind;
    exchange->requestId = requestId;
    if (const auto it = m_awaited.find(idKey(requestId)); kind == Exchange::Kind::Resume && it != m_awaited.end())
        exchange->method = it->second;
    exchange->carriedSession = !m_sessionId.isEmpty();
    exchange->events = SseParser(m_options.maxMessageBytes);
    exchange->position = position;
    exchange->authorization = request.rawHeader("Authorization");
    exchange->renewed = renewed;
    exchange->reply = network().get(request);
    if (kind == Exchange::Kind::ServerStream) {
        // Its headers say the server has taken the stream: what waited for it may go now.
        connect(exchange->reply, &QNetworkReply::metaDataChanged, this, &StreamableHttpTransport::releaseHeldMessages);
    }
    track(std::move(exchange));
}

void StreamableHttpTransport::scheduleStream(Exchange::Kind kind, const QJsonValue &requestId,
                                             const StreamPosition &position)
{
    // A server that ends its stream at once, again and again, must not be asked in a tight loop.
    std::chrono::milliseconds delay = position.retryDelay;
    for (int i = 0; i < position.idleReopens && delay < m_options.longestResumeDelay; ++i)
        delay *= 2;
    delay = std::min(delay, m_options.longestResumeDelay);
    spdlog::debug("{}: reopening an event stream in {} ms{}", description(), delay.count(),
                  position.lastEventId.isEmpty() ? "" : " with Last-Event-ID");
    QTimer::singleShot(delay, this, [this, kind, requestId, position] {
        if (m_stage != Stage::Open || (kind == Exchange::Kind::Resume && !isAwaited(requestId)))
            return; // closed meanwhile, or answered some other way
        openStream(kind, requestId, position);
    });
}

StreamableHttpTransport::StreamPosition StreamableHttpTransport::positionAfter(const Exchange &exchange)
{
    StreamPosition next = exchange.position;
    const QByteArray &seen = exchange.events.lastEventId();
    // A new event id is progress too: a priming event, or the server polling its stream.
    const bool advanced = exchange.brought || (!seen.isEmpty() && seen != next.lastEventId);
    if (!seen.isEmpty())
        next.lastEventId = seen;
    next.idleReopens = advanced ? 0 : next.idleReopens + 1;
    return next;
}

QNetworkAccessManager &StreamableHttpTransport::network()
{
    constexpr int ConnectionsPerManager = 6; // Qt's own number of connections per host
    std::map<const QNetworkAccessManager *, int> inFlight;
    for (const auto &[reply, exchange] : m_exchanges)
        ++inFlight[reply->manager()];
    for (const auto &manager : m_networks) {
        if (inFlight[manager.get()] < ConnectionsPerManager)
            return *manager;
    }
    m_networks.push_back(std::make_unique<QNetworkAccessManager>());
    return *m_networks.back();
}

void StreamableHttpTransport::track(std::unique_ptr<Exchange> exchange)
{
    QNetworkReply *reply = exchange->reply;
    m_exchanges.emplace(reply, std::move(exchange));
    followOnlySafeRedirects(reply, m_endpoint);
    connect(reply, &QNetworkReply::readyRead, this, [this, reply] { onReadyRead(reply); });
    connect(reply, &QNetworkReply::finished, this, [this, reply] { onFinished(reply); });
}

bool StreamableHttpTransport::isAlive(QNetworkReply *reply) const
{
    return m_stage == Stage::Open && (!reply || m_exchanges.contains(reply));
}

bool StreamableHttpTransport::isAwaited(const QJsonValue &requestId) const
{
    return !requestId.isUndefined() && m_awaited.contains(idKey(requestId));
}

QString StreamableHttpTransport::what(const Exchange &exchange) const
{
    if (exchange.kind == Exchange::Kind::ServerStream)
        return u"the request for its event stream"_s;
    if (exchange.kind == Exchange::Kind::Resume)
        return u"the resumption of the event stream of '%1'"_s.arg(exchange.method);
    if (exchange.requestId.isUndefined())
        return exchange.method.isEmpty() ? u"a response"_s : u"the notification '%1'"_s.arg(exchange.method);
    return u"'%1'"_s.arg(exchange.method);
}

void StreamableHttpTransport::classify(Exchange &exchange)
{
    exchange.classified = true;
    const int status = httpStatusOf(*exchange.reply);
    exchange.stream = isSuccess(status) && isEventStream(*exchange.reply);
    if (exchange.kind == Exchange::Kind::Post && exchange.method == InitializeMethod && isSuccess(status))
        m_sessionId = exchange.reply->rawHeader("Mcp-Session-Id");
    if (exchange.stream && exchange.kind != Exchange::Kind::Post) {
        exchange.position.failedConnects = 0; // connected again: the count of failures starts afresh
        if (exchange.kind == Exchange::Kind::ServerStream)
            m_serverStreamOpened = true;
    }
}

void StreamableHttpTransport::onReadyRead(QNetworkReply *reply)
{
    const auto it = m_exchanges.find(reply);
    if (it == m_exchanges.end())
        return;
    Exchange &exchange = *it->second;
    if (!exchange.classified)
        classify(exchange);
    if (!exchange.stream) {
        exchange.body.append(reply->readAll());
        if (exchange.body.size() > m_options.maxMessageBytes)
            giveUp(reply, HttpErrors::tooLarge(m_endpoint, what(exchange), m_options.maxMessageBytes));
        return;
    }
    const QList<SseEvent> events = exchange.events.push(reply->readAll());
    if (exchange.events.retry()) {
        // Qt's timers take an int of milliseconds: an unbounded retry: would wrap around.
        exchange.position.retryDelay = std::clamp(*exchange.events.retry(), m_options.shortestResumeDelay,
                                                  m_options.longestResumeDelay);
    }
    for (const SseEvent &event : events) {
        // An event without data primes the client with an id to resume from; it carries nothing.
        if (event.data.isEmpty())
            continue;
        exchange.brought = true;
        if (event.type != "message") {
            spdlog::debug("{}: skipped an event of type '{}'", description(), event.type.toStdString());
            continue;
        }
        if (!deliver(event.data, u"an event"_s, reply,
                     exchange.kind == Exchange::Kind::ServerStream ? QJsonValue(QJsonValue::Undefined) : exchange.requestId))
            return;
        if (exchange.kind != Exchange::Kind::ServerStream && !isAwaited(exchange.requestId)) {
            // The response came: a server that keeps the stream open (keep-alive comments)
            // would otherwise hold its connection for ever.
            m_exchanges.erase(reply);
            discardReply(reply, this);
            return;
        }
    }
    if (exchange.events.overflowed())
        giveUp(reply, HttpErrors::tooLarge(m_endpoint, what(exchange), m_options.maxMessageBytes));
}

void StreamableHttpTransport::giveUp(QNetworkReply *reply, const QString &why)
{
    const auto it = m_exchanges.find(reply);
    const std::unique_ptr<Exchange> exchange = std::move(it->second);
    m_exchanges.erase(it);
    discardReply(reply, this);
    onFailure(*exchange, why);
}

void StreamableHttpTransport::onFailure(const Exchange &exchange, const QString &why)
{
    if (exchange.kind == Exchange::Kind::ServerStream)
        closeWithError(why);
    else
        answerWithError(exchange.requestId, why);
}

bool StreamableHttpTransport::deliver(QByteArrayView payload, const QString &source, QNetworkReply *from,
                                      const QJsonValue &stream)
{
    const QPointer<StreamableHttpTransport> guard(this);
    JsonRpc::DecodedPayload decoded = JsonRpc::decodePayload(payload);
    if (!decoded.error.isEmpty()) {
        const QString damage = u"%1 from %2 that is %3"_s.arg(source, m_endpoint.shown(), decoded.error);
        emit inputSkipped(u"skipped "_s + damage);
        if (!guard || !isAlive(from))
            return false;
        if (isAwaited(decoded.damagedReplyId))
            decoded.messages.append(JsonRpc::makeDamagedReplyError(decoded.damagedReplyId, damage));
    }
    for (const QJsonObject &message : std::as_const(decoded.messages)) {
        const JsonRpc::Message classified = JsonRpc::classify(message);
        const bool response = classified.kind == JsonRpc::MessageKind::Response
                              || classified.kind == JsonRpc::MessageKind::ErrorResponse;
        if (response) {
            if (classified.id == m_initializeId && classified.kind == JsonRpc::MessageKind::Response)
                m_protocolVersion = classified.result.toObject().value(u"protocolVersion").toString();
            m_awaited.erase(idKey(classified.id));
        }
        emit messageReceived(message, decoded.text,
                             classified.kind == JsonRpc::MessageKind::Request ? stream : QJsonValue(QJsonValue::Undefined));
        if (!guard || !isAlive(from))
            return false;
    }
    return true;
}

void StreamableHttpTransport::answerWithError(const QJsonValue &requestId, const QString &error, int httpStatus)
{
    if (!isAwaited(requestId))
        return;
    m_awaited.erase(idKey(requestId));
    spdlog::debug("{}: {}", description(), error);
    QJsonObject answer = JsonRpc::makeError(requestId, JsonRpc::TransportError, error);
    if (httpStatus != 0) {
        QJsonObject body = answer.value(u"error").toObject();
        body.insert(u"data"_s, QJsonObject{{u"httpStatus"_s, httpStatus}});
        answer.insert(u"error"_s, body);
    }
    emit messageReceived(answer);
}

bool StreamableHttpTransport::answerWithServerError(const Exchange &exchange, int httpStatus)
{
    if (!isAwaited(exchange.requestId))
        return false;
    const QJsonObject body = QJsonDocument::fromJson(exchange.body).object();
    const JsonRpc::Message message = JsonRpc::classify(body);
    // Servers write a null id when they refused the request before reading its id.
    if (message.kind != JsonRpc::MessageKind::ErrorResponse || !(message.id == exchange.requestId || message.id.isNull()))
        return false;
    m_awaited.erase(idKey(exchange.requestId));
    spdlog::debug("{}: HTTP {} to {}: {} {}", description(), httpStatus, what(exchange), message.error.code,
                  message.error.message);
    QJsonObject answer = body;
    answer.insert(u"id"_s, exchange.requestId);
    emit messageReceived(answer);
    return true;
}

void StreamableHttpTransport::forgetRequest(const QJsonValue &requestId)
{
    if (!isAwaited(requestId))
        return;
    m_awaited.erase(idKey(requestId));
    // Nobody waits for the answer any more: stop reading (or resuming) its stream.
    for (auto it = m_exchanges.begin(); it != m_exchanges.end(); ++it) {
        if (it->second->requestId == requestId) {
            QNetworkReply *reply = it->first;
            m_exchanges.erase(it);
            discardReply(reply, this);
            return;
        }
    }
}

void StreamableHttpTransport::onFinished(QNetworkReply *reply)
{
    // What arrived with the end of the reply is read like any other data first.
    if (reply->isOpen())
        onReadyRead(reply);
    if (!isAlive(reply))
        return;
    const auto it = m_exchanges.find(reply);
    const std::unique_ptr<Exchange> exchange = std::move(it->second);
    m_exchanges.erase(it);
    reply->deleteLater();
    // The server's stream refused or cut, or the handshake's end refused: nothing to wait for.
    const auto releaseHeld = qScopeGuard([guard = QPointer(this), kind = exchange->kind, method = exchange->method] {
        if (!guard)
            return;
        if (kind == Exchange::Kind::ServerStream || (method == InitializedMethod && !guard->m_serverStreamRequested))
            guard->releaseHeldMessages();
    });

    if (httpStatusOf(*reply) != 0)
        m_networkFailuresInRow = 0;
    if (const QString refused = refusedRedirect(*reply); !refused.isEmpty()) {
        onFailure(*exchange, refused);
        return;
    }
    if (exchange->stream) {
        onStreamEnded(*exchange);
        return;
    }
    // Cut or timed out after a 2xx status line: the body is incomplete, whatever came of it.
    if (httpStatusOf(*reply) == 0 || (isSuccess(httpStatusOf(*reply)) && reply->error() != QNetworkReply::NoError)) {
        onNetworkFailure(*exchange, reply->error(), reply->errorString());
        return;
    }
    if (isSuccess(httpStatusOf(*reply)))
        onBody(*exchange, *reply);
    else
        onHttpError(*exchange, *reply);
}

void StreamableHttpTransport::onStreamEnded(const Exchange &exchange)
{
    const StreamPosition next = positionAfter(exchange);
    if (exchange.kind == Exchange::Kind::ServerStream) {
        // The server may end its stream at any time; it is there to be reopened.
        scheduleStream(Exchange::Kind::ServerStream, {}, next);
        return;
    }
    if (!isAwaited(exchange.requestId))
        return; // the response came: the stream is done
    if (next.lastEventId.isEmpty()) {
        answerWithError(exchange.requestId,
                        u"%1 ended the event stream of %2 before it sent the response, and gave no event id "
                        "to resume from"_s.arg(m_endpoint.shown(), what(exchange)));
        return;
    }
    scheduleStream(Exchange::Kind::Resume, exchange.requestId, next);
}

void StreamableHttpTransport::onNetworkFailure(const Exchange &exchange, QNetworkReply::NetworkError error,
                                               const QString &detail)
{
    const QString text = HttpErrors::networkFailure(m_endpoint, error, detail);
    if (exchange.kind != Exchange::Kind::Post) {
        onStreamLost(exchange, text);
        return;
    }
    // The server cannot be reached at all: not one request's problem. A connection cut or
    // timed out may be one request's bad luck (a proxy, a restarting load balancer): only that
    // request fails, unless it keeps happening.
    ++m_networkFailuresInRow;
    if (meansUnreachable(error) || m_networkFailuresInRow >= m_options.maxNetworkFailures) {
        m_closure.unreached = meansUnreachable(error);
        closeWithError(m_networkFailuresInRow > 1
                           ? u"%1 (%2 requests in a row got no answer)"_s.arg(text).arg(m_networkFailuresInRow)
                           : text);
        return;
    }
    if (exchange.requestId.isUndefined())
        spdlog::warn("{}: {}", description(), text);
    else
        answerWithError(exchange.requestId, text);
}

void StreamableHttpTransport::onStreamLost(const Exchange &exchange, const QString &why)
{
    StreamPosition next = exchange.position;
    next.lastEventId = positionAfter(exchange).lastEventId;
    ++next.failedConnects;
    if (next.failedConnects < m_options.maxResumeAttempts) {
        scheduleStream(exchange.kind, exchange.requestId, next);
        return;
    }
    closeWithError(u"an event stream from the server was cut and could not be resumed after %1 attempts: %2"_s
                       .arg(next.failedConnects)
                       .arg(why));
}

void StreamableHttpTransport::onBody(const Exchange &exchange, const QNetworkReply &reply)
{
    if (exchange.kind != Exchange::Kind::Post) {
        const QString text = u"%1 answered %2 with Content-Type '%3' instead of an event stream"_s.arg(
            m_endpoint.shown(), what(exchange), reply.header(QNetworkRequest::ContentTypeHeader).toString());
        if (exchange.kind == Exchange::Kind::ServerStream && !m_serverStreamOpened)
            spdlog::warn("{}: {}; the server's own messages arrive only with replies", description(), text);
        else if (exchange.kind == Exchange::Kind::ServerStream)
            closeWithError(u"the server's event stream could not be resumed: "_s + text);
        else
            answerWithError(exchange.requestId, text);
        return;
    }
    if (exchange.requestId.isUndefined() && httpStatusOf(reply) == 202) {
        // Accepted; what some servers put in the body anyway ("Accepted") means nothing.
        onPostAccepted(exchange);
        return;
    }
    if (exchange.body.trimmed().isEmpty()) {
        answerWithError(exchange.requestId, u"%1 answered %2 with HTTP %3 and no body"_s.arg(
                                                m_endpoint.shown(), what(exchange)).arg(httpStatusOf(reply)));
        onPostAccepted(exchange);
        return;
    }
    const JsonRpc::DecodedPayload decoded = JsonRpc::decodePayload(exchange.body);
    if (!decoded.error.isEmpty()) {
        const QString text = HttpErrors::notJson(m_endpoint, what(exchange), reply, exchange.body);
        if (exchange.requestId.isUndefined())
            spdlog::warn("{}: {}", description(), text);
        else
            answerWithError(exchange.requestId, text);
        return;
    }
    if (!deliver(exchange.body, u"a reply"_s, nullptr))
        return;
    answerWithError(exchange.requestId,
                    u"%1 answered %2 with JSON that holds no response to it"_s.arg(m_endpoint.shown(), what(exchange)));
    onPostAccepted(exchange);
}

void StreamableHttpTransport::onPostAccepted(const Exchange &exchange)
{
    // The handshake is complete once the server took notifications/initialized: from then on
    // the server may speak on its own, over the GET stream if it offers one.
    if (m_stage != Stage::Open || exchange.method != InitializedMethod || m_serverStreamRequested)
        return;
    m_serverStreamRequested = true;
    openStream(Exchange::Kind::ServerStream, {}, StreamPosition{{}, m_options.resumeDelay});
}

void StreamableHttpTransport::onHttpError(const Exchange &exchange, const QNetworkReply &reply)
{
    const int status = httpStatusOf(reply);
    if (status == 401 && m_endpoint.signsIn()) {
        onUnauthorized(exchange, reply);
        return;
    }
    if (status == 403 && exchange.kind == Exchange::Kind::Post && !exchange.steppedUp && m_endpoint.signsIn()
        && bearerChallengeOf(reply).error == u"insufficient_scope") {
        onInsufficientScope(exchange, reply);
        return;
    }
    // 404 is how the spec says the session is gone. Servers also answer 400 for a session they
    // do not know (server-everything: "No valid session ID"), but a 400 may be about one
    // request's content too; a ping has none, so a 400 to a ping of the session means the
    // session itself is refused. The heartbeat finds it so.
    const bool refusesSession = status == 404 || (status == 400 && exchange.method == u"ping");
    if (refusesSession && exchange.carriedSession) {
        m_sessionLost = true;
        closeWithError(u"session lost: %1 answered HTTP %2 to a request of the current session (the server ended "
                       "the session or restarted); a new session is needed"_s.arg(m_endpoint.shown()).arg(status));
        return;
    }
    if (exchange.method == InitializeMethod && !exchange.carriedSession) {
        const QPointer<StreamableHttpTransport> guard(this);
        emit initializeRejected(status);
        if (!guard || !isAlive(nullptr))
            return;
    }
    HttpErrors::reportRefusedScope(m_endpoint, reply);
    const QString text = HttpErrors::httpStatus(m_endpoint, what(exchange), reply, exchange.body);
    const bool reopening = exchange.kind == Exchange::Kind::Resume
                           || (exchange.kind == Exchange::Kind::ServerStream && m_serverStreamOpened);
    if (reopening && (status == 409 || status >= 500)) {
        // Busy or failing for a moment (409: the server still holds the old stream): try again, bounded.
        onStreamLost(exchange, text);
        return;
    }
    switch (exchange.kind) {
    case Exchange::Kind::Post:
        if (exchange.requestId.isUndefined())
            spdlog::warn("{}: {}", description(), text);
        else if ((status != 400 && status != 404) || !answerWithServerError(exchange, status))
            answerWithError(exchange.requestId, text, status);
        return;
    case Exchange::Kind::ServerStream:
        if (status == 405 && !m_serverStreamOpened) {
            spdlog::debug("{}: the server offers no event stream of its own", description());
        } else if (!m_serverStreamOpened) {
            spdlog::warn("{}: {}; the server's own messages arrive only with replies", description(), text);
        } else {
            closeWithError(u"the server's event stream was cut and could not be resumed: "_s + text);
        }
        return;
    case Exchange::Kind::Resume:
        answerWithError(exchange.requestId, u"the event stream was cut before the response and could not be "
                                            "resumed: "_s + text);
        return;
    }
}

void StreamableHttpTransport::onUnauthorized(const Exchange &exchange, const QNetworkReply &reply)
{
    renewAfterUnauthorized(m_endpoint, reply, exchange.authorization, exchange.renewed,
                           {this,
                            [this, kind = exchange.kind, requestId = exchange.requestId, method = exchange.method,
                             mcpName = exchange.mcpName, payload = exchange.payload, position = exchange.position] {
                                if (m_stage != Stage::Open)
                                    return;
                                if (kind == Exchange::Kind::Post) {
                                    if (requestId.isUndefined() || isAwaited(requestId))
                                        post(payload, requestId, method, mcpName, true);
                                } else if (kind == Exchange::Kind::ServerStream || isAwaited(requestId)) {
                                    openStream(kind, requestId, position, true);
                                }
                            },
                            [this](const BearerChallenge &challenge, const QString &reason) { closeForSignIn(challenge, reason); },
                            [this](const QString &error) { closeWithError(error); }});
}

void StreamableHttpTransport::onInsufficientScope(const Exchange &exchange, const QNetworkReply &reply)
{
    stepUpAfterInsufficientScope(
        m_endpoint, reply, what(exchange), exchange.body, exchange.authorization,
        {this,
         [this, requestId = exchange.requestId, method = exchange.method, mcpName = exchange.mcpName,
          payload = exchange.payload, renewed = exchange.renewed] {
             if (m_stage == Stage::Open && (requestId.isUndefined() || isAwaited(requestId)))
                 post(payload, requestId, method, mcpName, renewed, true);
         },
         {},
         [this, requestId = exchange.requestId](const QString &error) {
             if (m_stage != Stage::Open)
                 return;
             if (requestId.isUndefined())
                 spdlog::warn("{}: {}", description(), error);
             else
                 answerWithError(requestId, error, 403);
         }});
}

void StreamableHttpTransport::closeForSignIn(const BearerChallenge &challenge, const QString &reason)
{
    if (m_stage != Stage::Open)
        return;
    spdlog::info("{}: needs a sign-in: {}", description(), secrets().scrub(reason));
    m_closure.signIn = SignInRequired{challenge, reason};
    closeWithError(HttpErrors::signInNeeded(m_endpoint, challenge));
}

void StreamableHttpTransport::close()
{
    switch (m_stage) {
    case Stage::Idle:
        // Idle -> Closed
        m_closure.requested = true;
        m_stage = Stage::Closed;
        QMetaObject::invokeMethod(this, [this] { emit closed(m_closure); }, Qt::QueuedConnection);
        return;
    case Stage::Open:
        m_closure.requested = true;
        beginClose();
        return;
    case Stage::Closing:
    case Stage::Closed:
        return; // already on its way
    }
}

void StreamableHttpTransport::closeWithError(const QString &error)
{
    if (m_stage != Stage::Open)
        return;
    m_closure.error = error;
    beginClose();
}

void StreamableHttpTransport::beginClose()
{
    // Open -> Closing
    m_stage = Stage::Closing;
    m_holdingForServerStream = false;
    m_serverStreamWait.stop();
    m_heldMessages.clear();
    abortAll();
    if (m_sessionId.isEmpty() || m_sessionLost) {
        QMetaObject::invokeMethod(this, &StreamableHttpTransport::finish, Qt::QueuedConnection);
        return;
    }
    // Ending the session frees it on the server; bounded, since the server may be gone.
    QNetworkRequest request = this->request("application/json, text/event-stream");
    request.setTransferTimeout(int(m_options.closeTimeout.count()));
    m_deleteReply = network().deleteResource(request);
    followOnlySafeRedirects(m_deleteReply, m_endpoint);
    connect(m_deleteReply, &QNetworkReply::finished, this, [this] {
        const int status = httpStatusOf(*m_deleteReply);
        spdlog::debug("{}: DELETE of the session answered {}", description(),
                      status ? QString::number(status) : secrets().scrub(m_deleteReply->errorString()));
        finish();
    });
    m_closeTimer.start(m_options.closeTimeout);
}

void StreamableHttpTransport::abortAll()
{
    const auto exchanges = std::move(m_exchanges);
    m_exchanges.clear();
    for (const auto &[reply, exchange] : exchanges)
        discardReply(reply, this);
}

void StreamableHttpTransport::finish()
{
    if (m_stage == Stage::Closed)
        return;
    // Closing -> Closed
    m_stage = Stage::Closed;
    m_closeTimer.stop();
    if (m_deleteReply) {
        discardReply(m_deleteReply, this);
        m_deleteReply = nullptr;
    }
    spdlog::debug("{}: closed ({})", description(), m_closure.describe());
    emit closed(m_closure);
}

} // namespace Tether
