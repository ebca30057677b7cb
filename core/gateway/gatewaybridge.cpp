#include "gatewaybridge.h"

#include "gateway.h"
#include "gatewaysession.h"
#include "gatewaytoken.h"

#include "common/logging.h"
#include "protocol/jsonrpc.h"
#include "transport/streamablehttptransport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// The id of the host's initialize when it is replayed to a gateway taking over: one the host
// never uses, so that its answer can be told and dropped.
const QJsonValue ReplayedInitializeId = u"tether-bridge-takeover"_s;

} // namespace

GatewayBridge::GatewayBridge(const QString &endpointUrl, const QString &tokenFile, const QByteArray &token,
                             QObject *parent)
    : QObject(parent)
    , m_endpointUrl(endpointUrl)
    , m_tokenFile(tokenFile)
    , m_token(token)
{
    openTransport();
}

void GatewayBridge::openTransport()
{
    HttpServerEndpoint endpoint;
    endpoint.url = QUrl(m_endpointUrl);
    endpoint.headers = {{u"Authorization"_s, u"Bearer "_s + QString::fromLatin1(m_token)}};
    if (m_transport) {
        m_transport->disconnect(this);
        m_transport.release()->deleteLater(); // it is still emitting closed()
    }
    m_transport = std::make_unique<StreamableHttpTransport>(endpoint);
    connect(m_transport.get(), &Transport::messageReceived, this, [this](const QJsonObject &message) {
        if (!m_replaying) {
            emit messageForHost(JsonRpc::serialize(message));
            return;
        }
        if (message.value(u"id"_s) != ReplayedInitializeId)
            return; // nothing of the new session concerns the host before it is set up
        m_replaying = false;
        if (m_hostInitialized)
            m_transport->send(JsonRpc::makeNotification(u"notifications/initialized"_s));
        for (const QJsonObject &held : std::exchange(m_held, {}))
            m_transport->send(held);
        emit messageForHost(JsonRpc::serialize(JsonRpc::makeNotification(u"notifications/tools/list_changed"_s)));
    });
    connect(m_transport.get(), &Transport::closed, this,
            [this](const TransportClosure &closure) { onTransportClosed(closure.error); });
}

void GatewayBridge::onTransportClosed(const QString &error)
{
    if (m_closing) {
        emit closed();
        return;
    }
    if (const std::optional<QByteArray> token = replacedToken(); token && !m_hostInitialize.isEmpty()) {
        spdlog::info("serve: the gateway token in {} was replaced; relaying again with the new one", m_tokenFile);
        m_token = *token;
        openTransport();
        m_transport->start();
        m_replaying = true;
        QJsonObject replayed = m_hostInitialize;
        replayed.insert(u"id"_s, ReplayedInitializeId);
        m_transport->send(replayed);
        return;
    }
    m_replaying = false;
    emit lost(error.isEmpty() ? u"the Tether bridged to closed the session"_s : error);
    // The host's messages held for the new session go to the gateway that takes over.
    for (const QJsonObject &held : std::exchange(m_held, {}))
        relayToInstance(held);
}

std::optional<QByteArray> GatewayBridge::replacedToken() const
{
    QString error;
    const std::optional<QByteArray> token = m_tokenFile.isEmpty() ? std::nullopt : readGatewayToken(m_tokenFile, &error);
    if (!token || *token == m_token)
        return std::nullopt;
    return token;
}

GatewayBridge::~GatewayBridge() = default;

void GatewayBridge::start()
{
    m_transport->start();
}

void GatewayBridge::relayFromHost(const QByteArray &payload)
{
    if (m_session) {
        m_session->receive(payload);
        return;
    }
    const QJsonDocument document = QJsonDocument::fromJson(payload);
    if (!document.isObject()) {
        // What the gateway answers such a line with, without a round trip.
        const bool parsed = document.isArray();
        emit messageForHost(JsonRpc::serialize(JsonRpc::makeError(
            QJsonValue::Null, parsed ? JsonRpc::InvalidRequest : JsonRpc::ParseError,
            parsed ? u"Invalid request: Tether takes no JSON-RPC batches; send one message at a time"_s
                   : u"Parse error: a line that is not a JSON object"_s)));
        return;
    }
    const QJsonObject message = document.object();
    const QString method = message.value(u"method"_s).toString();
    if (method == u"initialize" && m_hostInitialize.isEmpty())
        m_hostInitialize = message;
    else if (method == u"notifications/initialized")
        m_hostInitialized = true;
    relayToInstance(message);
}

void GatewayBridge::relayToInstance(const QJsonObject &message)
{
    if (m_session)
        m_session->receiveMessage(message);
    else if (m_replaying)
        m_held.append(message);
    else
        m_transport->send(message);
}

void GatewayBridge::takeOver(Gateway &gateway)
{
    m_gateway = &gateway;
    m_session = gateway.openSession(this);
    if (!m_hostInitialize.isEmpty()) {
        QJsonObject replayed = m_hostInitialize;
        replayed.insert(u"id"_s, ReplayedInitializeId);
        m_session->receiveMessage(replayed);
    }
    if (m_hostInitialized) {
        m_session->receiveMessage(JsonRpc::makeNotification(u"notifications/initialized"_s));
        // The tools may differ from the instance's: the host lists them again.
        emit messageForHost(JsonRpc::serialize(JsonRpc::makeNotification(u"notifications/tools/list_changed"_s)));
    }
}

void GatewayBridge::close(const QString &reason)
{
    m_closing = true;
    if (!m_gateway) {
        m_transport->close();
        return;
    }
    if (m_session)
        m_gateway->closeSession(std::exchange(m_session, nullptr), reason);
    QTimer::singleShot(0, this, &GatewayBridge::closed);
}

QString GatewayBridge::transportName() const
{
    return u"stdio"_s;
}

void GatewayBridge::send(const QByteArray &message, Role role, const QJsonValue &request)
{
    if (role == Role::Response && request == ReplayedInitializeId)
        return;
    emit messageForHost(message);
}

void GatewayBridge::endWithoutResponse(const QJsonValue &)
{
    // A stdio host expects nothing for a request it cancelled.
}

} // namespace Tether
