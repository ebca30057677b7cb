#include "gatewayrelay.h"

#include "gateway.h"
#include "gatewayprotocol.h"
#include "gatewaysession.h"
#include "stdiohostchannel.h"

#include "common/jsontext.h"
#include "protocol/jsonrpc.h"

#include <QJsonArray>
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

// A JSON value written as text (an id, a string), as a value.
QJsonValue jsonValueOf(const QByteArray &text)
{
    return QJsonDocument::fromJson('[' + text + ']').array().first();
}

} // namespace

GatewayRelay::GatewayRelay(StdioHostChannel &host, int instanceSocket, QObject *parent)
    : QObject(parent)
    , m_host(host)
    , m_instance(std::make_unique<StdioHostChannel>(StdioHostChannel::socket(instanceSocket, u"socket"_s)))
{
    connect(&m_host, &StdioHostChannel::messageReceived, this, &GatewayRelay::onHostLine);
    connect(m_instance.get(), &StdioHostChannel::messageReceived, this, &GatewayRelay::onInstanceLine);
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
    if (m_instance) {
        if (line != m_hostInitialize) // a takeover answers the initialize itself
            trackHostRequest(line);
        m_instance->send(line, Role::Response, {});
    } else {
        m_held.append(line);
    }
}

void GatewayRelay::trackHostRequest(const QByteArray &line)
{
    const std::optional<QByteArrayView> method = jsonMemberText(line, "method"_L1);
    if (!method)
        return;
    const std::optional<QByteArrayView> params = jsonMemberText(line, "params"_L1);
    if (const std::optional<QByteArrayView> id = jsonMemberText(line, "id"_L1)) {
        const bool call = *method == QByteArrayView("\"tools/call\"");
        const std::optional<QByteArrayView> name = call && params ? jsonMemberText(*params, "name"_L1) : std::nullopt;
        m_unanswered[id->toByteArray()] = {method->toByteArray(), name.value_or(QByteArrayView()).toByteArray()};
    } else if (*method == QByteArrayView("\"notifications/cancelled\"") && params) {
        // A cancelled request gets no answer from the instance.
        if (const std::optional<QByteArrayView> cancelled = jsonMemberText(*params, "requestId"_L1))
            m_unanswered.erase(cancelled->toByteArray());
    }
}

void GatewayRelay::onInstanceLine(const QByteArray &line)
{
    if (!m_unanswered.empty() && !jsonMemberText(line, "method"_L1)) {
        if (const std::optional<QByteArrayView> id = jsonMemberText(line, "id"_L1))
            m_unanswered.erase(id->toByteArray());
    }
    m_host.send(line, Role::Response, {});
}

void GatewayRelay::answerUnanswered()
{
    const QString why = u"the Tether that served it went away before answering"_s;
    for (const auto &[id, request] : std::exchange(m_unanswered, {})) {
        const QJsonValue requestId = jsonValueOf(id);
        if (!request.toolName.isEmpty()) {
            const QString text = u"Tool '%1' did not finish: %2; call it again."_s.arg(jsonValueOf(request.toolName).toString(), why);
            m_host.send(JsonRpc::serialize(JsonRpc::makeResult(requestId, toolErrorResult(text))), Role::Response, requestId);
        } else {
            const QString text = u"'%1' got no answer: %2; send it again."_s.arg(jsonValueOf(request.method).toString(), why);
            m_host.send(JsonRpc::serialize(JsonRpc::makeError(requestId, JsonRpc::ConnectionClosed, text)), Role::Response,
                        requestId);
        }
    }
}

void GatewayRelay::onInstanceFinished()
{
    m_instance->disconnect(this);
    m_instance.release()->deleteLater(); // it is still emitting finished()
    if (m_closing)
        return;
    answerUnanswered();
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
