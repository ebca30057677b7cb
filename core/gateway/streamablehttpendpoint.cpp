#include "streamablehttpendpoint.h"

#include "gateway.h"
#include "gatewayprotocol.h"
#include "gatewayinstance.h"
#include "gatewaysession.h"
#include "gatewaytoken.h"
#include "httpadmission.h"
#include "httphostchannel.h"
#include "httpsessionexpiry.h"
#include "metrics.h"

#include "httpserver/httpresponse.h"
#include "httpserver/httpserver.h"
#include "httpserver/servertls.h"

#include "common/duration.h"
#include "common/jsontext.h"
#include "common/logging.h"
#include "protocol/jsonrpc.h"
#include "protocol/protocolera.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonParseError>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

HttpServerOptions serverOptions(const GatewayHttpConfig &http)
{
    HttpServerOptions options;
    options.limits.maxBodyBytes = http.maxBodyBytes;
    return options;
}

std::optional<QHostAddress> listenAddress(const QString &host)
{
    if (host.compare(u"localhost"_s, Qt::CaseInsensitive) == 0)
        return QHostAddress(QHostAddress::LocalHost);
    QString bare = host;
    if (bare.startsWith(u'[') && bare.endsWith(u']'))
        bare = bare.mid(1, bare.size() - 2);
    const QHostAddress address(bare);
    if (address.isNull())
        return std::nullopt;
    return address;
}

HttpReply sessionNotFound(const QByteArray &sessionId)
{
    return jsonRpcErrorReply(404, -32001,
                             u"Session not found: %1 has ended or never was (Tether restarted, the host deleted it, or "
                             "it was idle too long); initialize a new session"_s.arg(QString::fromLatin1(sessionId)));
}

} // namespace

StreamableHttpEndpoint::StreamableHttpEndpoint(Gateway &gateway, Options options, QObject *parent)
    : QObject(parent)
    , m_gateway(gateway)
    , m_options(std::move(options))
    , m_server(std::make_unique<HttpServer>(serverOptions(m_options.http)))
{
    m_server->setAdmission([this](const HttpRequest &head) { return admit(head); });
    m_server->setHandler([this](const HttpRequest &request, HttpResponse &response) { handle(request, response); });
    m_server->setErrorReply([this](int status, const QString &reason) {
        ++m_refusals[status];
        const QString advice = status == 413 ? u" Send less, or raise gateway.http.maxBodyBytes."_s : QString();
        return jsonRpcErrorReply(status, -32000, reason + advice);
    });
    m_expiryTimer.setInterval(std::min(m_options.sessionIdleExpiry / 2, std::chrono::milliseconds(60'000)));
    connect(&m_expiryTimer, &QTimer::timeout, this, &StreamableHttpEndpoint::expireIdleSessions);
}

StreamableHttpEndpoint::~StreamableHttpEndpoint()
{
    close();
}

std::unique_ptr<StreamableHttpEndpoint> StreamableHttpEndpoint::serve(Gateway &gateway, const GatewayHttpConfig &http,
                                                                      const QString &configPath,
                                                                      const QString &instanceId, QString *error)
{
    Options options;
    options.http = http;
    options.tokenFile = gatewayTokenPath(configPath);
    const std::optional<QByteArray> token = loadOrCreateGatewayToken(options.tokenFile, error);
    if (!token)
        return nullptr;
    options.token = *token;
    options.instanceId = instanceId;
    auto endpoint = std::make_unique<StreamableHttpEndpoint>(gateway, options);
    endpoint->setMetricsSource([&gateway, served = endpoint.get()] {
        MetricsSnapshot snapshot = metricsSnapshot(gateway.manager(), gateway);
        snapshot.httpRefusals = served->refusals();
        return renderMetrics(snapshot);
    });
    if (!endpoint->listen()) {
        *error = endpoint->errorString();
        // The port is the lock: the Tether that holds it has most likely left its record.
        for (const GatewayInstanceRecord &holder : readGatewayInstanceRecords()) {
            if (!holder.url.isEmpty() && QUrl(holder.url).port() == http.port) {
                *error += u" (the Tether of pid %1 serves %2)"_s.arg(holder.pid).arg(holder.url);
                break;
            }
        }
        return nullptr;
    }
    return endpoint;
}

bool StreamableHttpEndpoint::listen()
{
    const GatewayHttpConfig &http = m_options.http;
    const std::optional<QHostAddress> address = listenAddress(http.host);
    if (!address) {
        m_error = u"gateway.http.host = \"%1\" is not an IP address; write one such as \"127.0.0.1\""_s.arg(http.host);
        return false;
    }
    bool listening = false;
    if (http.usesTls()) {
        QString tlsError;
        const std::optional<QSslConfiguration> tls = loadServerTls(http.tlsCertificate, http.tlsKey, &tlsError);
        if (!tls) {
            m_error = u"gateway.http.tls: "_s + tlsError;
            return false;
        }
        listening = m_server->listen(*address, http.port, *tls);
    } else {
        listening = m_server->listen(*address, http.port);
    }
    if (!listening) {
        m_error = m_server->errorString()
                  + u"; is another Tether serving the gateway? Stop it, or set gateway.http.port to a free port"_s;
        return false;
    }
    m_error.clear();
    m_expiryTimer.start();
    spdlog::info("gateway: serving MCP over HTTP at {}", url());
    return true;
}

void StreamableHttpEndpoint::close()
{
    m_expiryTimer.stop();
    const QList<HttpHostChannel *> channels = m_channels.values();
    for (HttpHostChannel *channel : channels)
        endSession(channel, u"Tether's HTTP endpoint closed"_s);
    const QList<HttpHostChannel *> stateless = m_statelessSessions.keys();
    for (HttpHostChannel *channel : stateless)
        endStateless(channel, u"Tether's HTTP endpoint closed"_s);
    m_server->close();
}

bool StreamableHttpEndpoint::rotateToken(QString *error)
{
    const std::optional<QByteArray> token = rotateGatewayToken(m_options.tokenFile, error);
    if (!token)
        return false;
    m_options.token = *token;
    const QList<HttpHostChannel *> channels = m_channels.values();
    for (HttpHostChannel *channel : channels)
        endSession(channel, u"the gateway token was replaced; connect again with the new one"_s);
    return true;
}

bool StreamableHttpEndpoint::isListening() const
{
    return m_server->isListening();
}

quint16 StreamableHttpEndpoint::port() const
{
    return m_server->serverPort();
}

QString StreamableHttpEndpoint::url() const
{
    QHostAddress address = m_server->serverAddress();
    if (address == QHostAddress::Any || address == QHostAddress::AnyIPv4)
        address = QHostAddress::LocalHost;
    else if (address == QHostAddress::AnyIPv6)
        address = QHostAddress::LocalHostIPv6;
    QString host = address.toString();
    if (address.protocol() == QAbstractSocket::IPv6Protocol)
        host = u'[' + host + u']';
    return u"%1://%2:%3%4"_s.arg(m_server->isEncrypted() ? u"https"_s : u"http"_s, host)
        .arg(port())
        .arg(QString::fromLatin1(McpPath));
}

void StreamableHttpEndpoint::setMetricsSource(std::function<QByteArray()> source)
{
    m_metrics = std::move(source);
}

std::optional<HttpReply> StreamableHttpEndpoint::admit(const HttpRequest &head)
{
    EndpointRules rules;
    rules.token = m_options.token;
    rules.tokenFile = m_options.tokenFile;
    rules.listenHost = m_options.http.host;
    rules.port = port();
    rules.allowedOrigins = m_options.http.allowedOrigins;
    rules.allowedHosts = m_options.http.allowedHosts;
    std::optional<HttpReply> refusal = refuseEndpointHead(head, rules);
    const QByteArray sessionId = head.header("Mcp-Session-Id");
    if (!refusal && head.path == McpPath && !sessionId.isEmpty() && !m_channels.contains(sessionId))
        refusal = sessionNotFound(sessionId);
    if (refusal)
        ++m_refusals[refusal->status];
    return refusal;
}

void StreamableHttpEndpoint::refuse(HttpResponse &response, const HttpReply &reply)
{
    ++m_refusals[reply.status];
    response.send(reply.status, reply.headers, reply.body);
}

QList<std::pair<int, quint64>> StreamableHttpEndpoint::refusals() const
{
    QList<std::pair<int, quint64>> counts;
    for (auto it = m_refusals.cbegin(); it != m_refusals.cend(); ++it)
        counts.append({it.key(), it.value()});
    return counts;
}

void StreamableHttpEndpoint::handle(const HttpRequest &request, HttpResponse &response)
{
    if (request.path == HealthPath) {
        const QJsonObject health{{u"instance"_s, m_options.instanceId},
                                 {u"version"_s, QStringLiteral(TETHER_VERSION)},
                                 {u"pid"_s, QCoreApplication::applicationPid()},
                                 {u"sessions"_s, sessionCount()}};
        response.send(200, {{"Content-Type", "application/json"}}, QJsonDocument(health).toJson(QJsonDocument::Compact));
        return;
    }
    if (request.path == MetricsPath) {
        if (!m_metrics) {
            refuse(response, jsonRpcErrorReply(404, -32000, u"Not found: this Tether serves no metrics"_s));
            return;
        }
        response.send(200, {{"Content-Type", MetricsContentType}}, m_metrics());
        return;
    }
    if (request.method == "POST") {
        handlePost(request, response);
        return;
    }
    HttpHostChannel *channel = m_channels.value(request.header("Mcp-Session-Id"));
    if (!channel) {
        refuse(response, sessionNotFound(request.header("Mcp-Session-Id")));
        return;
    }
    channel->touch();
    if (request.method == "GET") {
        response.beginEventStream({{"Mcp-Session-Id", channel->sessionId()}});
        channel->openNotificationStream(&response);
        return;
    }
    endSession(channel, u"the host ended its session"_s); // DELETE
    response.send(200);
}

void StreamableHttpEndpoint::handlePost(const HttpRequest &request, HttpResponse &response)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(request.body, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        refuse(response, jsonRpcErrorReply(400, JsonRpc::ParseError,
                                              u"Parse error: the body is not JSON (%1 at offset %2)"_s.arg(
                                                  parseError.errorString()).arg(parseError.offset)));
        return;
    }
    if (!document.isObject()) {
        refuse(response, jsonRpcErrorReply(400, JsonRpc::InvalidRequest,
                                              u"Invalid request: send one JSON-RPC message as a JSON object per POST "
                                              "(Tether takes no batches)"_s));
        return;
    }
    const QJsonObject object = document.object();
    const JsonRpc::Message message = JsonRpc::classify(object);
    if (message.kind == JsonRpc::MessageKind::Invalid) {
        refuse(response, jsonRpcErrorReply(400, JsonRpc::InvalidRequest, u"Invalid request: "_s + message.invalidReason));
        return;
    }
    const bool eventStream = acceptsEventStream(request.header("Accept"));
    const QByteArray sessionId = request.header("Mcp-Session-Id");
    const bool initialize = message.kind == JsonRpc::MessageKind::Request && message.method == u"initialize";
    if (sessionId.isEmpty()) {
        // A stateless host's request says so in its envelope, or (a notification) in its header.
        const bool stateless = message.params.value(u"_meta").toObject().contains(Envelope::ProtocolVersion)
                               || eraOfVersion(QString::fromUtf8(request.header("MCP-Protocol-Version")))
                                      == ProtocolEra::Stateless;
        if (stateless && !initialize) {
            serveStateless(request, object, message, response);
            return;
        }
        if (!initialize) {
            refuse(response, jsonRpcErrorReply(400, -32000,
                                                  u"Bad request: no Mcp-Session-Id header; send initialize first, then "
                                                  "the session id its response gave with every request"_s));
            return;
        }
        openSession(object, response);
        return;
    }
    // Admitted with a live session, which may have ended while the body came.
    HttpHostChannel *channel = m_channels.value(sessionId);
    if (!channel) {
        refuse(response, sessionNotFound(sessionId));
        return;
    }
    channel->touch();
    GatewaySession *session = m_sessions.value(channel);
    if (message.kind != JsonRpc::MessageKind::Request) {
        response.send(202);
        session->receiveMessage(object);
        return;
    }
    if (channel->isAwaiting(message.id)) {
        const QJsonObject error = JsonRpc::makeError(
            message.id, JsonRpc::InvalidRequest,
            u"Invalid request: the id %1 belongs to a request still in flight; give each request its own id"_s.arg(
                quotedJson(message.id)));
        response.send(200, {{"Content-Type", "application/json"}}, JsonRpc::serialize(error));
        return;
    }
    // A call that asks for progress gets it on an event stream of its own; anything else is
    // answered with one JSON object, which turns into a stream only when something else must go
    // with it first (a server's sampling or elicitation for the host, while the call runs).
    const bool wantsProgress = message.params.value(u"_meta").toObject().contains(u"progressToken");
    if (message.method == u"tools/call" && wantsProgress && eventStream) {
        response.beginEventStream();
        channel->await(message.id, &response, HttpHostChannel::Reply::EventStream);
    } else {
        channel->await(message.id, &response, HttpHostChannel::Reply::Json, {}, eventStream);
    }
    session->receiveMessage(object);
}

void StreamableHttpEndpoint::openSession(const QJsonObject &initialize, HttpResponse &response)
{
    if (sessionCount() >= m_options.maxSessions) {
        if (const std::optional<HttpSessionEnding> idle = httpSessionToGiveWay(sessionActivity(),
                                                                                std::chrono::steady_clock::now())) {
            endSession(m_channels.value(idle->sessionId),
                       u"%1, idle for %2: the longest idle of the %3 sessions Tether serves at most, ended for a new "
                       "one"_s.arg(httpSessionLabel(idle->sessionId), formatDuration(idle->idleFor))
                           .arg(sessionCount()));
        } else {
            refuse(response, jsonRpcErrorReply(503, -32000,
                                                  u"Service unavailable: %1 hosts are connected, as many as Tether "
                                                  "serves at once; close a session (DELETE) or try again later"_s.arg(
                                                      sessionCount())));
            return;
        }
    }
    const QJsonObject params = initialize.value(u"params"_s).toObject();
    const bool willInitialize = negotiatedProtocolVersion(params.value(u"protocolVersion"_s)).has_value();
    auto *channel = new HttpHostChannel(newRandomId(), this);
    GatewaySession *session = m_gateway.openSession(channel);
    m_channels.insert(channel->sessionId(), channel);
    m_sessions.insert(channel, session);
    cancelWhenAbandoned(channel);
    // The session id goes with the initialize result only: a refused initialize opens nothing.
    channel->await(initialize.value(u"id"_s), &response, HttpHostChannel::Reply::Json,
                   willInitialize ? HttpHeaders{{"Mcp-Session-Id", channel->sessionId()}} : HttpHeaders{});
    session->receiveMessage(initialize);
    if (!session->isInitialized()) {
        endSession(channel, u"its initialize was refused"_s);
        return;
    }
    emit sessionsChanged();
}

void StreamableHttpEndpoint::cancelWhenAbandoned(HttpHostChannel *channel)
{
    connect(channel, &HttpHostChannel::requestAbandoned, this, [this, channel](const QJsonValue &id) {
        GatewaySession *abandoned = m_sessions.value(channel, m_statelessSessions.value(channel));
        if (abandoned) {
            abandoned->receiveMessage(JsonRpc::makeNotification(
                u"notifications/cancelled"_s,
                {{u"requestId"_s, id}, {u"reason"_s, u"the host disconnected before the answer came"_s}}));
        }
    });
}

void StreamableHttpEndpoint::endSession(HttpHostChannel *channel, const QString &reason)
{
    GatewaySession *session = m_sessions.take(channel);
    m_channels.remove(channel->sessionId());
    if (session)
        m_gateway.closeSession(session, reason);
    channel->endStreams();
    // The session is deleted from the event loop, and may still speak to its channel until then.
    channel->deleteLater();
    emit sessionsChanged();
}

QList<HttpSessionActivity> StreamableHttpEndpoint::sessionActivity() const
{
    QList<HttpSessionActivity> activity;
    for (const HttpHostChannel *channel : m_channels)
        activity.append({channel->sessionId(), channel->isIdle(), channel->lastActivity()});
    return activity;
}

void StreamableHttpEndpoint::expireIdleSessions()
{
    // Its host most likely left without a DELETE; one still there initializes again at its 404.
    const QList<HttpSessionEnding> expired = expiredHttpSessions(sessionActivity(), std::chrono::steady_clock::now(),
                                                                 m_options.sessionIdleExpiry);
    for (const HttpSessionEnding &ending : expired) {
        endSession(m_channels.value(ending.sessionId),
                   u"%1, idle for %2: no request and no stream open for %3, so its host is taken to have left"_s.arg(
                       httpSessionLabel(ending.sessionId), formatDuration(ending.idleFor),
                       formatDuration(m_options.sessionIdleExpiry)));
    }
}

void StreamableHttpEndpoint::serveStateless(const HttpRequest &request, const QJsonObject &object,
                                            const JsonRpc::Message &message, HttpResponse &response)
{
    // A notification belongs with no session: a listen ends when its stream closes.
    if (message.kind != JsonRpc::MessageKind::Request) {
        response.send(202);
        return;
    }
    if (const std::optional<HttpReply> refusal = refuseStatelessRequest(request, message)) {
        refuse(response, *refusal);
        return;
    }
    // A retry continues the request its requestState names, in that request's session.
    HttpHostChannel *channel = m_parked.take(message.params.value(u"requestState").toString());
    GatewaySession *session = channel ? m_statelessSessions.value(channel) : nullptr;
    if (!session) {
        channel = new HttpHostChannel({}, this);
        session = m_gateway.openSession(channel);
        m_statelessSessions.insert(channel, session);
        cancelWhenAbandoned(channel);
        connect(session, &GatewaySession::requestParked, this, [this, channel](const QString &requestState) {
            m_parked.insert(requestState, channel);
            // A host that never comes back with its answers does not hold the request for ever.
            QTimer::singleShot(GatewaySession::ServerRequestTimeout, channel, [this, channel, requestState] {
                if (m_parked.value(requestState) == channel)
                    endStateless(channel, u"its host never answered the questions of its request"_s);
            });
        });
        // Answered (and not waiting for a retry), the request's session has nothing more to do.
        connect(session, &GatewaySession::hostChanged, channel, [this, channel] {
            QTimer::singleShot(0, channel, [this, channel] {
                GatewaySession *done = m_statelessSessions.value(channel);
                if (done && !done->hasRequests())
                    endStateless(channel, u"its request was answered"_s);
            });
        });
    }
    // A listen's notifications, and a call's progress, go on an event stream.
    const bool eventStream = acceptsEventStream(request.header("Accept"));
    const bool wantsProgress = message.params.value(u"_meta").toObject().contains(u"progressToken");
    if (eventStream && (message.method == u"subscriptions/listen" || (message.method == u"tools/call" && wantsProgress))) {
        response.beginEventStream();
        channel->await(message.id, &response, HttpHostChannel::Reply::EventStream);
    } else {
        channel->await(message.id, &response, HttpHostChannel::Reply::Json, {}, eventStream);
    }
    session->receiveMessage(object);
}

void StreamableHttpEndpoint::endStateless(HttpHostChannel *channel, const QString &reason)
{
    GatewaySession *session = m_statelessSessions.take(channel);
    for (auto it = m_parked.begin(); it != m_parked.end();) {
        if (it.value() == channel)
            it = m_parked.erase(it);
        else
            ++it;
    }
    if (session)
        m_gateway.closeSession(session, reason);
    channel->endStreams();
    channel->deleteLater();
}

} // namespace Tether
