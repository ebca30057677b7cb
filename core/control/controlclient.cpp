#include "controlclient.h"

#include "gateway/gatewayinstance.h"
#include "gateway/stdiohostchannel.h"
#include "protocol/replies.h"

#include <QDeadlineTimer>
#include <QEventLoop>
#include <QThread>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

ControlReply failure(int code, const QString &message)
{
    return {{}, JsonRpc::Error{code, message, {}}};
}

} // namespace

ControlClient::ControlClient(int socket, Control::InstanceInfo instance, QObject *parent)
    : QObject(parent)
    , m_channel(std::make_unique<StdioHostChannel>(StdioHostChannel::socket(socket, u"control"_s)))
    , m_instance(std::move(instance))
{
    connect(m_channel.get(), &StdioHostChannel::messageReceived, this, &ControlClient::onLine);
    connect(m_channel.get(), &StdioHostChannel::finished, this, &ControlClient::onFinished);
    m_channel->start();
}

ControlClient::~ControlClient()
{
    if (m_channel)
        m_channel->disconnect(this);
}

qint64 ControlClient::request(QStringView method, const QJsonObject &params, Handler handler)
{
    if (m_lost) {
        QTimer::singleShot(0, this, [handler = std::move(handler)] {
            handler(failure(JsonRpc::ConnectionClosed, u"the connection to the Tether that runs the config has ended"_s));
        });
        return 0;
    }
    const qint64 id = m_nextId++;
    m_waiting.emplace(id, std::move(handler));
    m_channel->send(JsonRpc::serialize(JsonRpc::makeRequest(id, method.toString(), params)), HostChannel::Role::Request, {});
    return id;
}

ControlReply ControlClient::requestAndWait(QStringView method, const QJsonObject &params, std::chrono::milliseconds timeout)
{
    std::optional<ControlReply> reply;
    QEventLoop loop;
    QTimer deadline;
    deadline.setSingleShot(true);
    QObject::connect(&deadline, &QTimer::timeout, &loop, &QEventLoop::quit);
    const qint64 id = request(method, params, [&reply, &loop](const ControlReply &received) {
        reply = received;
        loop.quit();
    });
    if (!reply) {
        m_waitDeadline = &deadline;
        m_waitTimeout = timeout;
        if (m_asksOpen.isEmpty())
            deadline.start(timeout);
        loop.exec();
        m_waitDeadline = nullptr;
    }
    if (!reply) {
        m_waiting.erase(id); // its handler refers to this call's frame: a late answer finds none
        return failure(Control::NoAnswerInTime, u"the Tether (pid %1) did not answer %2 within %3 ms"_s.arg(m_instance.pid)
                                                    .arg(method)
                                                    .arg(timeout.count()));
    }
    return *reply;
}

std::optional<QString> ControlClient::greet(const QString &clientName, std::chrono::milliseconds timeout)
{
    const ControlReply reply = requestAndWait(Control::Hello, Control::helloParams(clientName), timeout);
    if (reply.error)
        return reply.error->message;
    if (std::optional<QString> refusal = Control::helloRefusal(reply.result))
        return refusal;
    m_instance = Control::instanceInfoFromJson(reply.result.value(u"instance").toObject());
    return std::nullopt;
}

void ControlClient::close(const QString &why)
{
    end(why);
}

void ControlClient::onLine(const QByteArray &line)
{
    const JsonRpc::DecodedPayload payload = JsonRpc::decodePayload(line);
    if (!payload.error.isEmpty()) {
        end(u"the Tether (pid %1) answered something that is not the control protocol: %2"_s.arg(m_instance.pid)
                .arg(payload.error));
        return;
    }
    for (const QJsonObject &object : payload.messages) {
        const JsonRpc::Message message = JsonRpc::classify(object);
        switch (message.kind) {
        case JsonRpc::MessageKind::Notification:
            if (message.method == Control::AskCancelled)
                releaseWait(message.params.value(u"id"));
            emit notified(message.method, message.params);
            break;
        case JsonRpc::MessageKind::Response:
        case JsonRpc::MessageKind::ErrorResponse: {
            const auto waiting = m_waiting.find(message.id.toInteger(-1));
            if (waiting == m_waiting.end())
                break;
            const Handler handler = std::move(waiting->second);
            m_waiting.erase(waiting);
            if (message.kind == JsonRpc::MessageKind::Response)
                handler({message.result.toObject(), std::nullopt});
            else
                handler({{}, message.error});
            break;
        }
        case JsonRpc::MessageKind::Request:
            holdWait(message.id);
            if (m_requestHandler) {
                m_requestHandler(message.id, message.method, message.params);
            } else {
                respond(message.id, RpcReply::failure(JsonRpc::MethodNotFound,
                                                      u"this client of Tether answers no %1"_s.arg(message.method)));
            }
            break;
        default:
            break;
        }
    }
}

void ControlClient::holdWait(const QJsonValue &askId)
{
    m_asksOpen.insert(askId.toInteger(-1));
    if (m_waitDeadline)
        m_waitDeadline->stop();
}

void ControlClient::releaseWait(const QJsonValue &askId)
{
    if (m_asksOpen.remove(askId.toInteger(-1)) && m_asksOpen.isEmpty() && m_waitDeadline)
        m_waitDeadline->start(m_waitTimeout);
}

void ControlClient::respond(const QJsonValue &id, const RpcReply &reply)
{
    releaseWait(id);
    if (m_lost)
        return;
    const QJsonObject message = reply.error ? JsonRpc::makeError(id, reply.error->code, reply.error->message)
                                            : JsonRpc::makeResult(id, reply.result);
    m_channel->send(JsonRpc::serialize(message), HostChannel::Role::Response, {});
}

void ControlClient::onFinished(const QString &reason)
{
    end(u"the Tether (pid %1) that runs %2 has gone (%3)"_s.arg(m_instance.pid).arg(m_instance.configPath, reason));
}

void ControlClient::end(const QString &why)
{
    if (std::exchange(m_lost, true))
        return;
    m_channel->disconnect(this);
    // Closes the socket (from the event loop: this may run in the channel's own signal), so the
    // instance learns at once that nobody waits for these answers.
    m_channel.release()->deleteLater();
    for (auto &[id, handler] : std::exchange(m_waiting, {}))
        handler(failure(JsonRpc::ConnectionClosed, why));
    emit lost(why);
}

Attachment attachToInstance(const QString &configPath, const QString &clientName, std::chrono::milliseconds timeout)
{
    const QDeadlineTimer deadline(timeout);
    for (;;) {
        // The kernel's word: a process holds the config's claim, or none runs it.
        const qint64 holder = instanceClaimHolder(configPath);
        if (holder == 0)
            return {nullptr, {}};
        QString why;
        const std::optional<GatewayInstanceRecord> record = readGatewayInstanceRecord(configPath, &why);
        // Its record is there (or a record that cannot be trusted is): judged as it is.
        if ((record && record->pid == holder) || (!record && !why.isEmpty())) {
            std::optional<LiveGatewayInstance> live = findLiveGatewayInstance(configPath, &why);
            if (!live) {
                return {nullptr, u"the Tether (pid %1) that runs %2 cannot be reached: %3"_s.arg(holder).arg(configPath,
                                                                                                     why)};
            }
            Control::InstanceInfo known;
            known.pid = live->record.pid;
            known.configPath = live->record.configPath;
            auto client = std::make_unique<ControlClient>(live->socket, known);
            // At least a few seconds to answer, however long the record took to come.
            const std::chrono::milliseconds answerWithin =
                std::max(std::chrono::milliseconds(deadline.remainingTime()), std::chrono::milliseconds(5000));
            if (std::optional<QString> refusal = client->greet(clientName, answerWithin)) {
                return {nullptr, u"the Tether (pid %1) that runs %2 cannot be used: %3"_s.arg(known.pid).arg(configPath,
                                                                                                       *refusal)};
            }
            return {std::move(client), {}};
        }
        // It is starting (its record comes once its first config is read), or the record is an
        // earlier Tether's, which the new one replaces.
        if (deadline.hasExpired()) {
            return {nullptr, u"the Tether (pid %1) that runs %2 has not opened its socket within %3 s"_s.arg(holder)
                                 .arg(configPath)
                                 .arg(timeout.count() / 1000)};
        }
        QThread::msleep(20);
    }
}

} // namespace Tether
