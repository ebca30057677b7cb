#include "mcpclientsession.h"

#include "common/jsonscan.h"

#include "common/displaytext.h"
#include "common/jsontext.h"
#include "common/logging.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QSet>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace Tether {

// A server that keeps handing out new cursors is broken; stop before memory runs out.
static constexpr int MaxListPages = 1000;
// A server's requests waiting for a client's answer at once: a server that asks more is broken.
static constexpr int MaxWaitingServerRequests = 32;
// Rounds of input_required one stateless request may take: a server that keeps asking is broken.
static constexpr int MaxInputRounds = 10;
// The longest wait before subscriptions/listen is opened again after it failed.
static constexpr std::chrono::seconds LongestListenDelay{30};

// A stateless request whose server may ask for input on the way: what sending it again takes.
struct McpClientSession::InputFlow
{
    QString method;
    QJsonObject params; // as the caller gave them, without envelope or progress token
    RequestOptions options;
    ReplyHandler handler;
    qint64 firstId = 0; // the id the caller knows
    qint64 leg = 0;     // the request on the wire, 0 while the clients answer
    int rounds = 0;
    quint64 round = 0;  // tells the answers of this round from a withdrawn one's
    QString requestState;
    bool hasRequestState = false;
    QJsonObject answers;
    int waiting = 0;
    // The questions out to clients: who answers each, and its handle there.
    QList<std::pair<std::weak_ptr<ClientSide>, quint64>> asked;
    bool finished = false;
};

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
    , m_sent(u"server '%1'"_s.arg(m_options.serverName), m_options.requestTimeout,
             [this](const QByteArray &message, const QJsonValue &) { writeMessage(message); }, this)
    , m_eraToTryFirst(m_options.firstEra)
{
    connect(m_transport.get(), &Transport::started, this, &McpClientSession::onTransportStarted);
    connect(m_transport.get(), &Transport::messageReceived, this, &McpClientSession::onMessage);
    m_transport->setPayloadTaker([this](const QByteArray &payload) { return takeReplyAsText(payload); });
    connect(m_transport.get(), &Transport::inputSkipped, this, &McpClientSession::onInputSkipped);
    connect(m_transport.get(), &Transport::stderrLine, this, &McpClientSession::stderrLine);
    connect(m_transport.get(), &Transport::lost, this, &McpClientSession::onTransportLost);
    connect(m_transport.get(), &Transport::closed, this, &McpClientSession::onTransportClosed);
}

McpClientSession::~McpClientSession()
{
    // The clients asked on the server's behalf hear that nobody waits for their answers.
    cancelServerRequests(u"connection closed by Tether"_s);
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

static QJsonObject tetherClientInfo()
{
    return QJsonObject{{u"name"_s, u"tether"_s}, {u"title"_s, u"Tether"_s}, {u"version"_s, QStringLiteral(TETHER_VERSION)}};
}

void McpClientSession::onTransportStarted()
{
    if (m_state != State::Initializing)
        return;
    if (m_options.pinnedEra.value_or(m_options.firstEra) == ProtocolEra::Stateless)
        sendDiscover();
    else
        sendInitialize();
}

void McpClientSession::sendInitialize()
{
    m_era = ProtocolEra::Handshake;
    m_initializeTried = true;
    const QJsonObject params{
        {u"protocolVersion"_s, supportedProtocolVersions().first()},
        {u"capabilities"_s, m_options.clientCapabilities},
        {u"clientInfo"_s, tetherClientInfo()},
    };
    request(u"initialize"_s, params, [this](const RpcReply &reply) { onInitializeReply(reply); });
}

void McpClientSession::onInitializeReply(const RpcReply &reply)
{
    if (m_state != State::Initializing)
        return;
    if (!reply.ok()) {
        // A server of the stateless era alone answers -32022 with the versions it speaks.
        const QStringList theirs = versionsOfUnsupportedVersionError(*reply.error);
        const bool statelessOffered = std::any_of(theirs.begin(), theirs.end(), [](const QString &version) {
            return statelessProtocolVersions().contains(version);
        });
        if (statelessOffered && !m_options.pinnedEra && !m_discoverTried) {
            spdlog::info("{} speaks {} only; asking with server/discover", serverLabel(), theirs.join(u", "_s));
            sendDiscover();
        } else if (statelessOffered && m_options.pinnedEra) {
            fail(u"%1 speaks protocol %2 only, and %3 pins it to 2025-11-25, which it does not speak; %4"_s.arg(
                serverLabel(), theirs.join(u", "_s), eraPinText(m_options.pinnedBy), eraPinAdvice(m_options.pinnedBy, u"2026-07-28")));
        } else if (!theirs.isEmpty()) {
            fail(u"%1 answered that it speaks protocol version '%2' only, which Tether does not speak (Tether speaks %3); "
                 "update the server or Tether"_s.arg(serverLabel(), theirs.join(u"', '"_s),
                                                     spokenProtocolVersions().join(u", "_s)));
        } else {
            fail(u"initialize failed: "_s + reply.error->message);
        }
        return;
    }
    QString wrong;
    std::optional<ServerIdentity> identity = parseInitializeResult(reply.result, &wrong);
    if (!identity) {
        fail(wrongShape(u"initialize"_s, wrong).message);
        return;
    }
    const QString &version = identity->protocolVersion;
    if (!supportedProtocolVersions().contains(version)) {
        fail(u"%1 answered protocol version '%2', which Tether does not speak (Tether speaks %3); "
             "update the server or Tether"_s
                 .arg(serverLabel(), version, supportedProtocolVersions().join(u", "_s)));
        return;
    }
    notify(u"notifications/initialized"_s);
    becomeReady(std::move(*identity));
}

void McpClientSession::becomeReady(ServerIdentity identity)
{
    m_serverIdentity = std::move(identity);
    m_eraToTryFirst = m_era;
    // Initializing -> Ready
    m_state = State::Ready;
    m_wasReady = true;
    spdlog::debug("{}: connected ({} {}, protocol {})", serverLabel(), m_serverIdentity.name,
                  m_serverIdentity.version, m_serverIdentity.protocolVersion);
    const QPointer<McpClientSession> guard(this);
    emit ready();
    if (guard && m_state == State::Ready && m_era == ProtocolEra::Stateless)
        listen();
}

void McpClientSession::sendDiscover()
{
    m_era = ProtocolEra::Stateless;
    m_discoverTried = true;
    request(u"server/discover"_s, {}, [this](const RpcReply &reply) { onDiscoverReply(reply); });
}

void McpClientSession::onDiscoverReply(const RpcReply &reply)
{
    if (m_state != State::Initializing)
        return;
    if (!reply.ok()) {
        const JsonRpc::Error &error = *reply.error;
        if (error.code == JsonRpc::ConnectionClosed && !reply.fromServer)
            return; // the closing tells
        // A server that cannot be reached, or fails (HTTP 5xx), says nothing of its era.
        const int httpStatus = error.data.toObject().value(u"httpStatus").toInt();
        if (error.code == JsonRpc::TransportError && (httpStatus == 0 || httpStatus >= 500)) {
            fail(u"server/discover failed: "_s + error.message);
            return;
        }
        discoverRefused(u"it answered server/discover with %1 %2"_s.arg(error.code).arg(error.message));
        return;
    }
    QString wrong;
    QStringList theirs;
    std::optional<ServerIdentity> identity = parseDiscoverResult(reply.result, &wrong, &theirs);
    if (identity) {
        becomeReady(std::move(*identity));
        return;
    }
    if (!wrong.isEmpty()) {
        discoverRefused(u"its server/discover result has the wrong shape (%1)"_s.arg(wrong));
        return;
    }
    if (m_options.pinnedEra) {
        fail(u"%1 answered that it speaks protocol version '%2' only, which Tether does not speak (Tether speaks %3); "
             "update the server or Tether"_s.arg(serverLabel(), theirs.join(u"', '"_s), spokenProtocolVersions().join(u", "_s)));
        return;
    }
    discoverRefused(u"it speaks stateless versions %1 only"_s.arg(theirs.join(u", "_s)));
}

void McpClientSession::discoverRefused(const QString &why)
{
    if (m_options.pinnedEra) {
        fail(u"%1 does not speak protocol 2026-07-28, to which %2 pins it: %3; %4"_s.arg(
            serverLabel(), eraPinText(m_options.pinnedBy), why, eraPinAdvice(m_options.pinnedBy, u"2025-11-25")));
        return;
    }
    if (m_initializeTried) {
        fail(u"%1 refused both eras: initialize named a stateless version, but %2"_s.arg(serverLabel(), why));
        return;
    }
    spdlog::debug("{}: {}; opening a session with initialize", serverLabel(), why);
    sendInitialize();
}

qint64 McpClientSession::request(const QString &method, const QJsonObject &params, ReplyHandler handler,
                                 ProgressHandler onProgress, std::optional<std::chrono::milliseconds> timeout,
                                 std::weak_ptr<ClientSide> origin)
{
    if (m_era == ProtocolEra::Stateless && m_state == State::Ready && answerLocally(method, params, handler))
        return 0;
    QJsonObject sentParams = params;
    if (onProgress) {
        QJsonObject meta = sentParams.value(u"_meta").toObject();
        meta.insert(u"progressToken", m_sent.nextId());
        sentParams.insert(u"_meta", meta);
    }
    RequestOptions options;
    options.onProgress = std::move(onProgress);
    options.timeout = timeout;
    options.origin = std::move(origin);
    return sendRequest(method, sentParams.isEmpty() ? QByteArray() : JsonRpc::serialize(sentParams), std::move(handler),
                       std::move(options));
}

qint64 McpClientSession::sendRequest(const QString &method, const QByteArray &params, ReplyHandler handler,
                                     RequestOptions options)
{
    const bool opening = method == u"initialize" || method == u"server/discover";
    const bool usable = m_state == State::Ready || (m_state == State::Initializing && opening);
    if (!usable) {
        const QString reason = m_state == State::Initializing
                                   ? u"%1 is still initializing"_s.arg(serverLabel())
                                   : u"%1 is not connected"_s.arg(serverLabel());
        // Answer later, never from inside the call: callers may not expect re-entrance.
        answerLater(this, std::move(handler), RpcReply::failure(JsonRpc::ConnectionClosed, reason));
        return 0;
    }
    if (m_era == ProtocolEra::Stateless) {
        const QJsonObject object = params.isEmpty() ? QJsonObject() : QJsonDocument::fromJson(params).object();
        return sendStateless(method, object, std::move(handler), std::move(options));
    }
    return m_sent.send(method, params, std::move(handler), std::move(options));
}

QJsonObject McpClientSession::envelope() const
{
    return requestEnvelope(m_options.clientCapabilities, tetherClientInfo(), m_logLevel);
}

qint64 McpClientSession::sendStateless(const QString &method, QJsonObject params, ReplyHandler handler,
                                       RequestOptions options, std::shared_ptr<InputFlow> flow)
{
    if (!flow && mayRequireInput(method)) {
        flow = std::make_shared<InputFlow>();
        flow->method = method;
        params = withoutMetaMembers(params, {u"progressToken"});
        flow->params = params;
        flow->options = options;
        flow->handler = std::move(handler);
    }
    QJsonObject sent = withEnvelope(params, envelope());
    if (options.onProgress) {
        QJsonObject meta = sent.value(u"_meta").toObject();
        meta.insert(u"progressToken"_s, m_sent.nextId());
        sent.insert(u"_meta"_s, meta);
    }
    const QPointer<McpClientSession> self(this);
    ReplyHandler judged;
    if (flow) {
        judged = [self, flow](const RpcReply &reply) {
            if (self)
                self->onStatelessReply(flow, reply);
        };
    } else {
        judged = [self, method, handler = std::move(handler)](const RpcReply &reply) {
            if (!self || !reply.ok() || reply.result.isUndefined()) {
                handler(reply);
                return;
            }
            switch (resultTypeOf(reply.result.toObject())) {
            case ResultType::Complete:
                handler(reply);
                return;
            case ResultType::Missing:
                handler(RpcReply{{}, self->wrongShape(method, u"no \"resultType\", which protocol 2026-07-28 requires"_s)});
                return;
            default:
                handler(RpcReply{{}, self->wrongShape(method, u"\"resultType\" is %1, not \"complete\""_s.arg(
                                                                   quotedJson(reply.result.toObject().value(u"resultType"))))});
                return;
            }
        };
    }
    const qint64 id = m_sent.send(method, JsonRpc::serialize(sent), std::move(judged), std::move(options));
    if (flow) {
        flow->leg = id;
        if (flow->firstId == 0) {
            flow->firstId = id;
            m_inputFlows.emplace(id, flow);
        }
    }
    return id;
}

void McpClientSession::onStatelessReply(const std::shared_ptr<InputFlow> &flow, const RpcReply &reply)
{
    if (flow->finished)
        return;
    flow->leg = 0;
    if (!reply.ok() || reply.result.isUndefined()) {
        finishInputFlow(flow, reply);
        return;
    }
    const QJsonObject result = reply.result.toObject();
    switch (resultTypeOf(result)) {
    case ResultType::Complete:
        finishInputFlow(flow, reply);
        return;
    case ResultType::Missing:
        finishInputFlow(flow, RpcReply{{}, wrongShape(flow->method, u"no \"resultType\", which protocol 2026-07-28 requires"_s)});
        return;
    case ResultType::Unknown:
        finishInputFlow(flow, RpcReply{{}, wrongShape(flow->method, u"\"resultType\" is %1, which Tether does not know"_s.arg(
                                                                    quotedJson(result.value(u"resultType"))))});
        return;
    case ResultType::InputRequired:
        break;
    }
    const QJsonValue inputRequests = result.value(u"inputRequests");
    const QJsonValue requestState = result.value(u"requestState");
    QString wrong;
    if (!inputRequests.isUndefined() && !inputRequests.isObject())
        wrong = u"\"inputRequests\" is not an object"_s;
    else if (!requestState.isUndefined() && !requestState.isString())
        wrong = u"\"requestState\" is not a string"_s;
    else if (inputRequests.toObject().isEmpty() && requestState.isUndefined())
        wrong = u"input_required with neither \"inputRequests\" nor \"requestState\""_s;
    if (!wrong.isEmpty()) {
        finishInputFlow(flow, RpcReply{{}, wrongShape(flow->method, wrong)});
        return;
    }
    if (++flow->rounds > MaxInputRounds) {
        finishInputFlow(flow, RpcReply::failure(
                                  JsonRpc::InvalidReply,
                                  u"%1 asked for input %2 times for one %3 and still was not done; Tether gives up on it "
                                  "(a server that never stops asking is broken: report it to its authors)"_s
                                      .arg(serverLabel())
                                      .arg(MaxInputRounds)
                                      .arg(flow->method)));
        return;
    }
    flow->hasRequestState = requestState.isString();
    flow->requestState = requestState.toString();
    askForInput(flow, inputRequests.toObject());
}

void McpClientSession::askForInput(const std::shared_ptr<InputFlow> &flow, const QJsonObject &inputRequests)
{
    const quint64 round = ++flow->round;
    flow->answers = {};
    flow->asked.clear();
    flow->waiting = int(inputRequests.size());
    // Checked whole first: a round with one question Tether cannot ask asks none.
    for (auto it = inputRequests.begin(); it != inputRequests.end(); ++it) {
        const QJsonObject embedded = it.value().toObject();
        const QString method = embedded.value(u"method").toString();
        const QJsonObject params = embedded.value(u"params").toObject();
        QString refusal;
        if (!it.value().isObject() || !isClientFeatureRequest(method))
            refusal = u"input request '%1' is not elicitation/create, sampling/createMessage or roots/list"_s.arg(it.key());
        else if (!declaresClientFeature(m_options.clientCapabilities, method, params))
            refusal = u"input request '%1' asks for %2, which Tether did not declare to it"_s.arg(it.key(), method);
        else if (const std::optional<QString> malformed = malformedServerRequest(method, params))
            refusal = u"input request '%1' (%2) is malformed: %3"_s.arg(it.key(), method, *malformed);
        if (!refusal.isEmpty()) {
            finishInputFlow(flow, RpcReply::failure(JsonRpc::InvalidReply,
                                                    u"%1 answered %2 with input_required, but %3"_s.arg(serverLabel(), flow->method, refusal)));
            return;
        }
    }
    const QPointer<McpClientSession> self(this);
    for (auto it = inputRequests.begin(); it != inputRequests.end() && !flow->finished && flow->round == round; ++it) {
        const QString key = it.key();
        const QJsonObject embedded = it.value().toObject();
        ServerRequest request{m_options.serverName, embedded.value(u"method").toString(),
                              embedded.value(u"params").toObject(), {}};
        // Roots are the session's, whoever asks; the rest is for the client whose request it is.
        std::shared_ptr<ClientSide> answerer = request.method == u"roots/list" ? nullptr : flow->options.origin.lock();
        if (!answerer)
            answerer = m_options.clientSide.lock();
        if (!answerer) {
            if (request.method == u"roots/list") {
                onInputAnswered(flow, round, key, RpcReply{QJsonObject{{u"roots"_s, m_options.roots}}, std::nullopt});
                continue;
            }
            finishInputFlow(flow, RpcReply::failure(
                                      JsonRpc::InternalError,
                                      u"%1 needs %2 to answer %3, and no client of Tether can answer it now"_s.arg(
                                          serverLabel(), request.method, flow->method)));
            return;
        }
        const quint64 handle = answerer->serverRequest(
            request,
            [self, flow, round, key](const RpcReply &answer) {
                if (self)
                    self->onInputAnswered(flow, round, key, answer);
            },
            [](const ProgressUpdate &) {}); // a stateless server hears no progress of its questions
        if (!flow->finished && flow->round == round && !flow->answers.contains(key))
            flow->asked.append({answerer, handle});
    }
    if (!flow->finished && flow->round == round && inputRequests.isEmpty())
        onInputAnswered(flow, round, {}, RpcReply{QJsonObject{}, std::nullopt});
}

void McpClientSession::onInputAnswered(const std::shared_ptr<InputFlow> &flow, quint64 round, const QString &key,
                                       const RpcReply &reply)
{
    if (flow->finished || flow->round != round || flow->leg != 0)
        return;
    if (!reply.ok()) {
        JsonRpc::Error error = *reply.error;
        error.message = u"%1 needed an answer to go on with %2, and the client gave none: %3"_s.arg(
            serverLabel(), flow->method, error.message);
        finishInputFlow(flow, RpcReply{{}, error}, u"another question of the same request was refused"_s);
        return;
    }
    if (!key.isNull()) {
        flow->answers.insert(key, reply.result);
        --flow->waiting;
    }
    if (flow->waiting > 0)
        return;
    flow->asked.clear();
    QJsonObject params = flow->params;
    if (!flow->answers.isEmpty())
        params.insert(u"inputResponses"_s, flow->answers);
    if (flow->hasRequestState)
        params.insert(u"requestState"_s, flow->requestState);
    if (m_state != State::Ready) {
        finishInputFlow(flow, RpcReply::failure(JsonRpc::ConnectionClosed, u"%1 is not connected"_s.arg(serverLabel())));
        return;
    }
    sendStateless(flow->method, params, {}, flow->options, flow);
}

void McpClientSession::finishInputFlow(const std::shared_ptr<InputFlow> &flow, const RpcReply &reply,
                                       const QString &withdrawReason)
{
    if (flow->finished)
        return;
    flow->finished = true;
    m_inputFlows.erase(flow->firstId);
    const auto asked = std::exchange(flow->asked, {});
    for (const auto &[answerer, handle] : asked) {
        if (const std::shared_ptr<ClientSide> client = answerer.lock())
            client->cancelServerRequest(handle, withdrawReason.isEmpty() ? u"the request it served has ended"_s : withdrawReason);
    }
    const ReplyHandler handler = std::move(flow->handler);
    if (handler)
        handler(reply);
}

bool McpClientSession::answerLocally(const QString &method, const QJsonObject &params, ReplyHandler &handler)
{
    if (method == u"logging/setLevel") {
        m_logLevel = params.value(u"level").toString();
    } else if (method == u"resources/subscribe" || method == u"resources/unsubscribe") {
        const QString uri = params.value(u"uri").toString();
        const bool subscribe = method == u"resources/subscribe";
        if (subscribe == m_resourceSubscriptions.contains(uri)) {
            answerLater(this, std::move(handler), RpcReply{QJsonObject{}, std::nullopt});
            return true;
        }
        if (subscribe)
            m_resourceSubscriptions.append(uri);
        else
            m_resourceSubscriptions.removeAll(uri);
        listen();
    } else {
        return false;
    }
    answerLater(this, std::move(handler), RpcReply{QJsonObject{}, std::nullopt});
    return true;
}

void McpClientSession::listen()
{
    if (m_state != State::Ready || m_era != ProtocolEra::Stateless)
        return;
    const QJsonObject capabilities = m_serverIdentity.capabilities;
    QJsonObject wanted;
    for (const auto &[capability, flag] : {std::pair{u"tools"_s, u"toolsListChanged"_s},
                                           std::pair{u"prompts"_s, u"promptsListChanged"_s},
                                           std::pair{u"resources"_s, u"resourcesListChanged"_s}}) {
        if (capabilities.value(capability).toObject().value(u"listChanged").toBool())
            wanted.insert(flag, true);
    }
    if (!m_resourceSubscriptions.isEmpty() && capabilities.value(u"resources"_s).toObject().value(u"subscribe").toBool())
        wanted.insert(u"resourceSubscriptions"_s, QJsonArray::fromStringList(m_resourceSubscriptions));
    if (m_listenId != 0) {
        const qint64 previous = std::exchange(m_listenId, 0);
        m_sent.cancel(previous, u"what Tether listens to changed"_s);
    }
    if (wanted.isEmpty())
        return;
    RequestOptions options;
    options.timeout = OutgoingRequests::LongestTimeout; // it runs as long as the session
    const QPointer<McpClientSession> self(this);
    m_listenId = sendStateless(
        u"subscriptions/listen"_s, QJsonObject{{u"notifications"_s, wanted}},
        [self, sentAs = m_sent.nextId(), started = std::chrono::steady_clock::now()](const RpcReply &reply) {
            if (!self || self->m_listenId != sentAs)
                return; // replaced, or cancelled
            self->m_listenId = 0;
            if (self->m_state != State::Ready)
                return;
            // Ended by the server, or after a long while (an idle connection cut): no failure.
            if (reply.ok() || std::chrono::steady_clock::now() - started > std::chrono::seconds(10))
                self->m_listenFailures = 0;
            else if (reply.error->code == JsonRpc::MethodNotFound)
                return; // a server that tells no changes
            else
                ++self->m_listenFailures;
            auto delay = std::chrono::milliseconds(500) * (1 << std::min(self->m_listenFailures, 6));
            delay = std::min<std::chrono::milliseconds>(delay, LongestListenDelay);
            spdlog::debug("{}: subscriptions/listen ended ({}); listening again in {} ms", self->serverLabel(),
                          reply.ok() ? std::string("by the server") : reply.error->message.toStdString(), delay.count());
            QTimer::singleShot(delay, self, [self] {
                if (self && self->m_listenId == 0)
                    self->listen();
            });
        },
        std::move(options));
}

void McpClientSession::writeMessage(const QByteArray &message)
{
    if (m_transport->isOpen())
        m_transport->sendJson(message);
}

void McpClientSession::notify(const QString &method, const QJsonObject &params)
{
    if (m_transport->isOpen())
        m_transport->send(JsonRpc::makeNotification(method, params));
}

void McpClientSession::cancel(qint64 requestId, const QString &reason)
{
    const auto flow = m_inputFlows.find(requestId);
    if (flow == m_inputFlows.end()) {
        m_sent.cancel(requestId, reason);
        return;
    }
    const std::shared_ptr<InputFlow> cancelled = flow->second;
    if (cancelled->leg != 0 && m_sent.cancel(cancelled->leg, reason))
        return; // its handler ends the flow
    finishInputFlow(cancelled, RpcReply::failure(JsonRpc::RequestCancelled, u"cancelled: "_s + reason), reason);
}

void McpClientSession::onMessage(const QJsonObject &object, const QByteArray &text, const QJsonValue &related)
{
    if (m_state == State::Closed)
        return;
    const JsonRpc::Message message = JsonRpc::classify(object);
    switch (message.kind) {
    case JsonRpc::MessageKind::Request:
        onServerRequest(message, related);
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
    if (m_state == State::Closed)
        return false;
    return m_sent.takeReplyText(payload, [this](const JsonMembersText &resultMembers, RpcReply *reply) {
        // An error result quotes the server's own words, which may hold its secrets: it is parsed,
        // and scrubbed as values, never as text.
        // A stateless server's result may ask for input instead: that one is read in full.
        if (m_era == ProtocolEra::Stateless && memberValue(resultMembers, "resultType") != "\"complete\"")
            return false;
        const std::optional<bool> isError = toolCallResultTextIsError(resultMembers);
        if (!isError || (*isError && !m_transport->secrets().isEmpty()))
            return false;
        reply->textResultIsError = *isError;
        return true;
    });
}

void McpClientSession::onInputSkipped(const QString &what)
{
    ++m_stats.skippedInput;
    spdlog::warn("{}: {}", serverLabel(), m_transport->secrets().scrub(what));
}

void McpClientSession::refuseServerRequest(const QJsonValue &id, int code, const QString &message)
{
    ++m_stats.refusedRequests;
    spdlog::info("{}: {}", serverLabel(), message);
    m_transport->send(JsonRpc::makeError(id, code, message));
}

void McpClientSession::onServerRequest(const JsonRpc::Message &message, const QJsonValue &related)
{
    if (m_era == ProtocolEra::Stateless) {
        // A stateless server asks through input_required results, never with requests.
        ++m_stats.unsupportedRequests;
        m_transport->send(JsonRpc::makeError(
            message.id, JsonRpc::MethodNotFound,
            u"Method not found: %1 (protocol 2026-07-28 has no requests from servers)"_s.arg(message.method)));
        return;
    }
    if (message.method == u"ping") {
        m_transport->send(JsonRpc::makeResult(message.id, QJsonObject{}));
        return;
    }
    if (!isClientFeatureRequest(message.method)
        || !declaresClientFeature(m_options.clientCapabilities, message.method, message.params)) {
        ++m_stats.unsupportedRequests;
        spdlog::info("{} asked for '{}', which Tether does not support for it; answered -32601", serverLabel(),
                     message.method);
        m_transport->send(JsonRpc::makeError(
            message.id, JsonRpc::MethodNotFound,
            u"Method not found: %1 (Tether did not declare it to this server)"_s.arg(message.method)));
        return;
    }
    const QString key = requestIdKey(message.id);
    if (m_received.contains(key)) {
        refuseServerRequest(message.id, JsonRpc::InvalidRequest, reusedRequestIdMessage(message.id));
        return;
    }
    if (const std::optional<QString> wrong = malformedServerRequest(message.method, message.params)) {
        refuseServerRequest(message.id, JsonRpc::InvalidParams, u"Invalid params of %1: %2"_s.arg(message.method, *wrong));
        return;
    }
    if (m_received.size() >= MaxWaitingServerRequests) {
        refuseServerRequest(message.id, JsonRpc::InternalError,
                            u"%1 has %2 requests waiting for a client's answer already, as many as Tether holds; "
                            "answer or cancel some first"_s.arg(serverLabel()).arg(m_received.size()));
        return;
    }
    ServerRequest request{m_options.serverName, message.method, message.params, {}};
    const std::shared_ptr<ClientSide> answerer = answererFor(request, related, &request.undecided);
    if (!answerer) {
        if (message.method == u"roots/list") {
            m_transport->send(JsonRpc::makeResult(message.id, QJsonObject{{u"roots"_s, m_options.roots}}));
            return;
        }
        refuseServerRequest(message.id, JsonRpc::InternalError,
                            u"no client of Tether can answer %1 from %2 now: none of them has a request of its own "
                            "running on the server"_s.arg(message.method, serverLabel()));
        return;
    }
    const QJsonValue progressToken = message.params.value(u"_meta").toObject().value(u"progressToken");
    const quint64 serial = ++m_serverRequests;
    // A person may take a while to answer: the requests it serves do not time out meanwhile.
    QList<qint64> held;
    if (related.isDouble() && m_sent.origin(related.toInteger()) == answerer)
        held.append(related.toInteger());
    else if (request.undecided.isEmpty())
        held = m_sent.requestsOf(answerer.get());
    for (qint64 id : std::as_const(held))
        m_sent.hold(id);
    m_received.begin(message.id, key, ServerRequestWork{answerer, 0, serial, held}, progressToken);
    if (message.method == u"elicitation/create" && message.params.value(u"mode").toString() == u"url") {
        if (m_urlElicitations.size() >= MaxWaitingServerRequests * 8)
            m_urlElicitations.clear(); // completions of elicitations that old are of no use to anyone
        m_urlElicitations.insert(message.params.value(u"elicitationId").toString(), answerer);
    }
    const QPointer<McpClientSession> self(this);
    const quint64 handle = answerer->serverRequest(
        request,
        [self, key, serial](const RpcReply &reply) {
            if (self)
                self->answerServerRequest(key, serial, reply);
        },
        [self, key, serial](const ProgressUpdate &update) {
            if (self)
                self->reportServerRequestProgress(key, serial, update);
        });
    // Answered at once (a refusal), the request has left the books.
    if (self) {
        if (auto *entry = m_received.find(key))
            entry->work.handle = handle;
    }
}

std::shared_ptr<ClientSide> McpClientSession::answererFor(const ServerRequest &request, const QJsonValue &related,
                                                          QStringList *undecided) const
{
    // A session has one set of roots, whoever's request runs: its shared side's (the union of
    // the gateway's hosts' roots, or a host's own on a session of its own).
    if (request.method == u"roots/list")
        return m_options.clientSide.lock();
    // The request came on the stream of one of ours (Streamable HTTP): it serves that request, and
    // a request of Tether's own is nobody else's to answer.
    if (related.isDouble() && m_sent.contains(related.toInteger())) {
        if (std::shared_ptr<ClientSide> origin = m_sent.origin(related.toInteger()))
            return origin;
        return m_options.clientSide.lock();
    }
    // A task's requests go to whoever the task is for, which only the shared side knows.
    if (relatedTaskId(request.params).isEmpty()) {
        const std::vector<std::shared_ptr<ClientSide>> origins = m_sent.origins();
        if (origins.size() == 1)
            return origins.front();
        for (const std::shared_ptr<ClientSide> &origin : origins)
            undecided->append(origin->clientLabel());
    }
    return m_options.clientSide.lock();
}

void McpClientSession::answerServerRequest(const QString &key, quint64 serial, const RpcReply &reply)
{
    // A request the server cancelled may have its id taken by a newer one by now.
    const auto *waiting = m_received.find(key);
    if (!waiting || waiting->work.serial != serial)
        return;
    const std::optional<IncomingRequests<ServerRequestWork>::Entry> entry = takeServerRequest(key);
    if (!m_transport->isOpen())
        return; // its connection is gone
    if (reply.ok()) {
        m_transport->send(JsonRpc::makeResult(entry->id, reply.result));
        return;
    }
    QJsonObject response = JsonRpc::makeError(entry->id, reply.error->code, reply.error->message);
    if (!reply.error->data.isUndefined() && !reply.error->data.isNull()) {
        QJsonObject error = response.value(u"error").toObject();
        error.insert(u"data"_s, reply.error->data);
        response.insert(u"error"_s, error);
    }
    m_transport->send(response);
}

std::optional<IncomingRequests<McpClientSession::ServerRequestWork>::Entry> McpClientSession::takeServerRequest(const QString &key)
{
    std::optional<IncomingRequests<ServerRequestWork>::Entry> entry = m_received.take(key);
    if (entry) {
        for (qint64 id : std::as_const(entry->work.held))
            m_sent.release(id);
    }
    return entry;
}

void McpClientSession::reportServerRequestProgress(const QString &key, quint64 serial, const ProgressUpdate &update)
{
    const auto *waiting = m_received.find(key);
    if (!waiting || waiting->work.serial != serial)
        return;
    if (const std::optional<QJsonObject> params = m_received.progressFor(key, update))
        notify(u"notifications/progress"_s, *params);
}

void McpClientSession::cancelServerRequests(const QString &reason)
{
    for (const QString &key : m_received.keys()) {
        const std::optional<IncomingRequests<ServerRequestWork>::Entry> entry = takeServerRequest(key);
        if (!entry)
            continue;
        if (const std::shared_ptr<ClientSide> answerer = entry->work.answerer.lock())
            answerer->cancelServerRequest(entry->work.handle, reason);
    }
}

void McpClientSession::notifyRootsChanged()
{
    // A stateless server asks for the roots with each request that needs them.
    if (m_state == State::Ready && m_era == ProtocolEra::Handshake && m_options.clientCapabilities.contains(u"roots"))
        notify(u"notifications/roots/list_changed"_s);
}

void McpClientSession::onNotification(const JsonRpc::Message &message)
{
    if (m_era == ProtocolEra::Stateless && message.params.value(u"_meta").toObject().contains(Envelope::SubscriptionId)) {
        // Which listen it came on is the session's own business.
        JsonRpc::Message listened = message;
        listened.params = withoutMetaMembers(listened.params, {Envelope::SubscriptionId});
        if (listened.method != u"notifications/subscriptions/acknowledged")
            onNotification(listened);
        return;
    }
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
        passOnNotification(message);
    } else if (method == u"notifications/progress") {
        const QJsonValue token = message.params.value(u"progressToken");
        ProgressUpdate update = progressUpdateOf(message.params);
        update.message = m_transport->secrets().scrub(update.message);
        m_sent.progress(token, update);
        emit progressNotified(token, update);
    } else if (method == u"notifications/cancelled") {
        // The server no longer wants the answer to one of its requests.
        const QJsonValue requestId = message.params.value(u"requestId");
        const std::optional<IncomingRequests<ServerRequestWork>::Entry> entry
            = isRequestId(requestId) ? takeServerRequest(requestIdKey(requestId)) : std::nullopt;
        if (!entry)
            return;
        if (const std::shared_ptr<ClientSide> answerer = entry->work.answerer.lock()) {
            const QString reason = message.params.value(u"reason").toString();
            answerer->cancelServerRequest(entry->work.handle,
                                          u"cancelled by %1"_s.arg(serverLabel())
                                              + (reason.isEmpty() ? QString() : u": "_s + reason));
        }
    } else if (method == u"notifications/resources/updated" || method == u"notifications/tasks/status"
               || method == u"notifications/elicitation/complete") {
        passOnNotification(message);
    } else {
        spdlog::debug("{}: ignored notification '{}'", serverLabel(), method);
    }
}

void McpClientSession::passOnNotification(const JsonRpc::Message &message)
{
    std::shared_ptr<ClientSide> client;
    if (message.method == u"notifications/elicitation/complete")
        client = m_urlElicitations.take(message.params.value(u"elicitationId").toString()).lock();
    if (!client)
        client = m_options.clientSide.lock();
    if (!client)
        return;
    const SecretScrubber &secrets = m_transport->secrets();
    const QJsonObject params = secrets.isEmpty() ? message.params : secrets.scrub(QJsonValue(message.params)).toObject();
    client->serverNotification(m_options.serverName, message.method, params);
}

void McpClientSession::onResponse(const JsonRpc::Message &message, const QByteArray &text)
{
    const qint64 id = message.id.isDouble() ? message.id.toInteger(-1) : -1;
    if (!m_sent.contains(id)) {
        ++m_stats.unknownResponses;
        spdlog::warn("{}: skipped a response to id {} that no request is waiting for", serverLabel(),
                     QString::fromUtf8(JsonRpc::serialize(QJsonObject{{u"id"_s, message.id}})));
        return;
    }
    if (message.kind == JsonRpc::MessageKind::Response) {
        RpcReply reply{message.result, std::nullopt};
        // A tool's result goes on to a host as it came (the gateway): its text spares writing it again.
        if (m_sent.method(id) == u"tools/call")
            reply.resultJson = jsonMemberText(text, "result"_L1).value_or(QByteArrayView()).toByteArray();
        m_sent.complete(id, reply);
        return;
    }
    // A server may quote the request it refuses, or its own environment, in the error.
    JsonRpc::Error error = message.error;
    error.message = m_transport->secrets().scrub(error.message);
    error.data = m_transport->secrets().scrub(error.data);
    m_sent.complete(id, RpcReply{{}, error, true});
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
    m_sent.failAll(JsonRpc::ConnectionClosed, reason);
    // Stateless requests whose clients were still answering the server's questions.
    while (guard && !m_inputFlows.empty())
        finishInputFlow(m_inputFlows.begin()->second, RpcReply::failure(JsonRpc::ConnectionClosed, reason), reason);
    if (guard)
        cancelServerRequests(reason);
}

QString McpClientSession::failureReason(const TransportClosure &closure) const
{
    // A server never reached had no connection to close: what stopped it says it all.
    QString reason = closure.describe();
    if (m_state == State::Ready)
        reason.prepend(u"connection closed: "_s);
    else if (!closure.unreached)
        reason.prepend(u"connection closed during initialize: "_s);
    if (!closure.lastStderrLine().isEmpty())
        reason += u" (last stderr line: \"%1\")"_s.arg(closure.lastStderrLine());
    return reason;
}

void McpClientSession::onTransportLost(const TransportClosure &closure)
{
    if (m_state == State::Closing || m_state == State::Closed)
        return;
    // The session fails now; the transport's closed(), once the server's leftovers are gone, ends it.
    rememberClosure(closure);
    fail(failureReason(closure));
}

void McpClientSession::rememberClosure(const TransportClosure &closure)
{
    m_transportClosure = closure;
    // A server that quit when asked server/discover is asked with initialize next time.
    if (m_state == State::Initializing && m_era == ProtocolEra::Stateless && !m_options.pinnedEra)
        m_eraToTryFirst = ProtocolEra::Handshake;
}

void McpClientSession::onTransportClosed(const TransportClosure &closure)
{
    if (m_state == State::Closed)
        return;
    const QPointer<McpClientSession> guard(this);
    rememberClosure(closure);
    if (m_state != State::Closing) {
        fail(failureReason(closure));
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

// The entries that `parse` accepts, the first of each `key`, and why the others were left out;
// judged page by page as they come, so that no turn of the event loop judges a whole long list
// and each page's JSON goes with its page.
template<typename Entry>
class KeptEntries
{
public:
    using Parse = std::optional<Entry> (*)(const QJsonValue &, QString *);

    KeptEntries(Parse parse, QString Entry::*key, const QString &what)
        : m_parse(parse)
        , m_key(key)
        , m_what(what)
    {}

    void add(const QJsonArray &page)
    {
        for (const QJsonValue &value : page) {
            QString error;
            std::optional<Entry> entry = m_parse(value, &error);
            if (!entry) {
                warnings.append(error);
                continue;
            }
            const QString &name = (*entry).*m_key;
            if (m_keys.contains(name)) {
                warnings.append(u"the %1 '%2' is listed twice; the first one is kept"_s.arg(m_what, name));
                continue;
            }
            m_keys.insert(name);
            kept.append(std::move(*entry));
        }
    }

    QList<Entry> kept;
    QStringList warnings;

private:
    Parse m_parse;
    QString Entry::*m_key;
    QString m_what;
    QSet<QString> m_keys;
};

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
    // A server of resources or prompts alone has no tools to list (and may not know the method).
    if (!offers(u"tools")) {
        answerLater(this, std::move(handler), ToolListReply{});
        return;
    }
    auto tools = std::make_shared<KeptEntries<ToolDefinition>>(parseToolDefinition, &ToolDefinition::name, u"tool"_s);
    const auto addPage = [tools](const QJsonArray &page) { tools->add(page); };
    listEntries(u"tools/list"_s, u"tools"_s, addPage, [this, tools, handler = std::move(handler)](const ListedEntries &listed) {
        ToolListReply reply;
        reply.error = listed.error;
        if (!listed.error) {
            reply.tools = std::move(tools->kept);
            reply.warnings = std::move(tools->warnings);
            logSkipped(u"tools/list"_s, reply.warnings);
            expireList(listed, u"tools", &McpClientSession::toolsListChanged);
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
    auto resources = std::make_shared<KeptEntries<ResourceDefinition>>(parseResource, &ResourceDefinition::uri, u"resource"_s);
    const auto addPage = [resources](const QJsonArray &page) { resources->add(page); };
    listEntries(u"resources/list"_s, u"resources"_s, addPage, [this, resources, handler = std::move(handler)](const ListedEntries &listed) {
        auto reply = std::make_shared<ResourceListReply>();
        reply->error = listed.error;
        if (listed.error) {
            handler(*reply);
            return;
        }
        reply->resources = std::move(resources->kept);
        reply->warnings = std::move(resources->warnings);
        expireList(listed, u"resources", &McpClientSession::resourcesListChanged);
        auto templates = std::make_shared<KeptEntries<ResourceTemplate>>(parseResourceTemplate, &ResourceTemplate::uriTemplate,
                                                                         u"resource template"_s);
        const auto addTemplatePage = [templates](const QJsonArray &page) { templates->add(page); };
        listEntries(u"resources/templates/list"_s, u"resourceTemplates"_s, addTemplatePage,
                    [this, reply, templates, handler](const ListedEntries &listedTemplates) {
            // A server with nothing but fixed resources may not know the method at all.
            const bool unknown = listedTemplates.error && listedTemplates.error->code == JsonRpc::MethodNotFound;
            if (listedTemplates.error && !unknown) {
                reply->error = listedTemplates.error;
            } else if (!unknown) {
                reply->templates = std::move(templates->kept);
                reply->warnings += templates->warnings;
            }
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
    auto prompts = std::make_shared<KeptEntries<PromptDefinition>>(parsePrompt, &PromptDefinition::name, u"prompt"_s);
    const auto addPage = [prompts](const QJsonArray &page) { prompts->add(page); };
    listEntries(u"prompts/list"_s, u"prompts"_s, addPage, [this, prompts, handler = std::move(handler)](const ListedEntries &listed) {
        PromptListReply reply;
        reply.error = listed.error;
        if (!listed.error) {
            reply.prompts = std::move(prompts->kept);
            reply.warnings = std::move(prompts->warnings);
            logSkipped(u"prompts/list"_s, reply.warnings);
            expireList(listed, u"prompts", &McpClientSession::promptsListChanged);
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

void McpClientSession::expireList(const ListedEntries &listed, QStringView capability, void (McpClientSession::*changed)())
{
    // A list its server says changes goes by what it says (a listen tells); one kept no time at
    // all (ttlMs 0) is as good as any until the next request.
    if (m_era != ProtocolEra::Stateless || listed.ttlMs <= 0
        || m_serverIdentity.capabilities.value(capability).toObject().value(u"listChanged").toBool()
        || m_expiringLists.contains(capability.toString()))
        return;
    m_expiringLists.insert(capability.toString());
    const auto keptFor = std::chrono::milliseconds(std::clamp<qint64>(listed.ttlMs, 1000, 24LL * 3600 * 1000));
    QTimer::singleShot(keptFor, this, [this, capability = capability.toString(), changed] {
        m_expiringLists.remove(capability);
        if (m_state == State::Ready)
            emit(this->*changed)();
    });
}

void McpClientSession::listEntries(const QString &method, const QString &key, PageHandler onPage, ListedEntriesHandler handler)
{
    fetchPage(method, key, {}, std::make_shared<ListedEntries>(), std::make_shared<QSet<QString>>(), std::move(onPage),
              std::move(handler));
}

void McpClientSession::fetchPage(const QString &method, const QString &key, const QString &cursor,
                                 std::shared_ptr<ListedEntries> accumulated, std::shared_ptr<QSet<QString>> seenCursors,
                                 PageHandler onPage, ListedEntriesHandler handler)
{
    QJsonObject params;
    if (!cursor.isNull())
        params.insert(u"cursor", cursor);
    request(method, params, [this, method, key, accumulated, seenCursors, onPage, handler](const RpcReply &reply) {
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
        onPage(page->entries);
        accumulated->ttlMs = reply.result.toObject().value(u"ttlMs").toInteger();
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
        fetchPage(method, key, next, accumulated, seenCursors, onPage, handler);
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
    if (!input.meta.isEmpty()) {
        // The host's own _meta (a trace context, say) goes on, with Tether's progress token.
        QJsonObject meta = input.meta;
        meta.remove(u"progressToken"_s);
        if (onProgress)
            meta.insert(u"progressToken"_s, m_sent.nextId());
        params += "\"_meta\":";
        params += QJsonDocument(meta).toJson(QJsonDocument::Compact);
        params += ',';
    } else if (onProgress) {
        params += "\"_meta\":{\"progressToken\":";
        appendInteger(params, m_sent.nextId());
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
        RequestOptions{std::move(onProgress), std::nullopt, input.resultAsText, QJsonValue::Undefined,
                                  input.origin});
}

QString McpClientSession::ping(ReplyHandler handler, std::optional<std::chrono::milliseconds> timeout)
{
    const QString probe = m_era == ProtocolEra::Stateless ? u"server/discover"_s : u"ping"_s;
    request(probe, {}, std::move(handler), {}, timeout);
    return probe;
}

} // namespace Tether
