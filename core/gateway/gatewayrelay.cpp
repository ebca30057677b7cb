#include "gatewayrelay.h"

#include "gateway.h"
#include "gatewaysession.h"
#include "stdiohostchannel.h"

#include "protocol/jsonrpc.h"

#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// The id of the host's initialize when it is replayed to a gateway taking over: one the host
// never uses, so that its answer can be told and dropped.
const QJsonValue ReplayedInitializeId = u"tether-relay-takeover"_s;

bool isInitialize(const QByteArray &line)
{
    return QJsonDocument::fromJson(line).object().value(u"method"_s) == u"initialize"_s;
}

} // namespace

GatewayRelay::GatewayRelay(StdioHostChannel &host, int instanceSocket, QObject *parent)
    : QObject(parent)
    , m_host(host)
    , m_instance(std::make_unique<StdioHostChannel>(StdioHostChannel::socket(instanceSocket, u"socket"_s)))
{
    connect(&m_host, &StdioHostChannel::messageReceived, this, &GatewayRelay::onHostLine);
    connect(m_instance.get(), &StdioHostChannel::messageReceived, this,
            [this](const QByteArray &line) { m_host.send(line, Role::Response, {}); });
    connect(m_instance.get(), &StdioHostChannel::finished, this, &GatewayRelay::onInstanceFinished);
}

GatewayRelay::~GatewayRelay() = default;

void GatewayRelay::start()
{
    m_instance->start();
}

void GatewayRelay::onHostLine(const QByteArray &line)
{
    if (m_session) {
        m_session->receive(line);
        return;
    }
    if (!m_hostInitialize.isEmpty())
        m_hostSentMore = true;
    else if (isInitialize(line))
        m_hostInitialize = line;
    if (m_instance)
        m_instance->send(line, Role::Response, {});
    else
        m_held.append(line);
}

void GatewayRelay::onInstanceFinished()
{
    m_instance->disconnect(this);
    m_instance.release()->deleteLater(); // it is still emitting finished()
    if (!m_closing)
        emit lost(u"the Tether relayed to closed the connection"_s);
}

void GatewayRelay::takeOver(Gateway &gateway)
{
    m_gateway = &gateway;
    m_session = gateway.openSession(this);
    if (!m_hostInitialize.isEmpty()) {
        // A host still waiting for its initialize's answer gets it from here.
        QJsonObject replayed = QJsonDocument::fromJson(m_hostInitialize).object();
        if (m_hostSentMore)
            replayed.insert(u"id"_s, ReplayedInitializeId);
        m_session->receiveMessage(replayed);
    }
    if (m_hostSentMore) {
        m_session->receiveMessage(JsonRpc::makeNotification(u"notifications/initialized"_s));
        // The tools may differ from the instance's: the host lists them again.
        m_host.send(JsonRpc::serialize(JsonRpc::makeNotification(u"notifications/tools/list_changed"_s)),
                    Role::Notification, {});
    }
    for (const QByteArray &held : std::exchange(m_held, {}))
        m_session->receive(held);
}

void GatewayRelay::close(const QString &reason)
{
    m_closing = true;
    m_instance.reset();
    if (m_session)
        m_gateway->closeSession(std::exchange(m_session, nullptr), reason);
}

QString GatewayRelay::transportName() const
{
    return u"stdio"_s;
}

void GatewayRelay::send(const QByteArray &message, Role role, const QJsonValue &request)
{
    if (role == Role::Response && request == ReplayedInitializeId)
        return;
    m_host.send(message, role, request);
}

void GatewayRelay::endWithoutResponse(const QJsonValue &request)
{
    m_host.endWithoutResponse(request);
}

} // namespace Tether
