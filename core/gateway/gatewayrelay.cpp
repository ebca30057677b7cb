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

constexpr QByteArrayView InitializeMethod("\"initialize\"");
constexpr QByteArrayView CancelledMethod("\"notifications/cancelled\"");

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
        trackHostLine(line);
        m_instance->send(line, Role::Response, {});
    } else {
        m_held.append(line);
    }
}

void GatewayRelay::trackHostLine(const QByteArray &line)
{
    const std::optional<QByteArrayView> id = jsonMemberText(line, "id"_L1);
    const std::optional<QByteArrayView> method = jsonMemberText(line, "method"_L1);
    if (!method) {
        if (id) // the host's answer to a request of the instance
            m_askedOfHost.erase(id->toByteArray());
        return;
    }
    const std::optional<QByteArrayView> params = jsonMemberText(line, "params"_L1);
    if (id) {
        const bool call = *method == QByteArrayView("\"tools/call\"");
        const std::optional<QByteArrayView> name = call && params ? jsonMemberText(*params, "name"_L1) : std::nullopt;
        m_unanswered[id->toByteArray()] = {method->toByteArray(), name.value_or(QByteArrayView()).toByteArray()};
    } else if (*method == CancelledMethod && params) {
        // A cancelled request gets no answer from the instance.
        if (const std::optional<QByteArrayView> cancelled = jsonMemberText(*params, "requestId"_L1))
            m_unanswered.erase(cancelled->toByteArray());
    }
}

void GatewayRelay::onInstanceLine(const QByteArray &line)
{
    const std::optional<QByteArrayView> id = jsonMemberText(line, "id"_L1);
    const std::optional<QByteArrayView> method = jsonMemberText(line, "method"_L1);
    if (!method && id) {
        m_unanswered.erase(id->toByteArray());
    } else if (method && id) {
        // A server's request passed on to the host (sampling, elicitation, roots).
        if (m_inputEnded) {
            refuseForHost(id->toByteArray());
            return;
        }
        m_askedOfHost.insert(id->toByteArray());
    } else if (method && *method == CancelledMethod) {
        const std::optional<QByteArrayView> params = jsonMemberText(line, "params"_L1);
        if (const std::optional<QByteArrayView> cancelled = params ? jsonMemberText(*params, "requestId"_L1) : std::nullopt)
            m_askedOfHost.erase(cancelled->toByteArray());
    }
    m_host.send(line, Role::Response, {});
    tellWhenAllAnswered();
}

void GatewayRelay::answerUnanswered(bool initializeToo)
{
    const QString why = u"the Tether that served it went away before answering"_s;
    std::map<QByteArray, Unanswered> unanswered = std::exchange(m_unanswered, {});
    if (!initializeToo) {
        for (auto it = unanswered.begin(); it != unanswered.end();) {
            if (it->second.method == InitializeMethod)
                m_unanswered.insert(unanswered.extract(it++));
            else
                ++it;
        }
    }
    for (const auto &[id, request] : unanswered) {
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

void GatewayRelay::refuseForHost(const QByteArray &id)
{
    const QString why = u"the host relayed here stopped sending (%1) before it answered"_s.arg(m_inputEndReason);
    m_instance->send(JsonRpc::serialize(JsonRpc::makeError(jsonValueOf(id), JsonRpc::InternalError, why)), Role::Response, {});
}

bool GatewayRelay::hasUnanswered() const
{
    return m_session ? m_session->hasRequests() : !m_unanswered.empty();
}

void GatewayRelay::tellWhenAllAnswered()
{
    if (!m_inputEnded || m_closing || m_toldAllAnswered || hasUnanswered())
        return;
    m_toldAllAnswered = true;
    QMetaObject::invokeMethod(this, &GatewayRelay::allAnswered, Qt::QueuedConnection);
}

void GatewayRelay::onInstanceFinished()
{
    m_instance->disconnect(this);
    m_instance.release()->deleteLater(); // it is still emitting finished()
    m_askedOfHost.clear(); // the instance waits for nothing any more
    if (m_closing)
        return;
    if (m_inputEnded) {
        // No gateway takes over a host that sends nothing more: what was not answered is now.
        answerUnanswered(true);
        tellWhenAllAnswered();
        return;
    }
    answerUnanswered(false);
    emit lost(u"the Tether relayed to closed the connection"_s);
}

void GatewayRelay::takeOver(Gateway &gateway)
{
    m_gateway = &gateway;
    m_session = gateway.openSession(this);
    if (!m_hostInitialize.isEmpty()) {
        // A host still waiting for its initialize's answer gets it from here.
        QJsonObject replayed = QJsonDocument::fromJson(m_hostInitialize).object();
        const std::optional<QByteArrayView> id = jsonMemberText(m_hostInitialize, "id"_L1);
        if (!id || !m_unanswered.contains(id->toByteArray()))
            replayed.insert(u"id"_s, ReplayedInitializeId);
        m_unanswered.clear();
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

void GatewayRelay::endInput(const QString &reason)
{
    if (std::exchange(m_inputEnded, true))
        return;
    m_inputEndReason = reason;
    if (m_session) {
        connect(m_session, &GatewaySession::hostChanged, this, &GatewayRelay::tellWhenAllAnswered);
        m_session->endInput(reason);
    } else if (m_instance) {
        for (const QByteArray &id : std::exchange(m_askedOfHost, {}))
            refuseForHost(id);
        // A listen ends only when its host cancels it, which this one no longer can.
        for (auto it = m_unanswered.begin(); it != m_unanswered.end();) {
            if (it->second.method != QByteArrayView("\"subscriptions/listen\"")) {
                ++it;
                continue;
            }
            const QJsonObject params{{u"requestId"_s, jsonValueOf(it->first)}, {u"reason"_s, reason}};
            m_instance->send(JsonRpc::serialize(JsonRpc::makeNotification(u"notifications/cancelled"_s, params)),
                             Role::Notification, {});
            it = m_unanswered.erase(it);
        }
    }
    tellWhenAllAnswered();
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
