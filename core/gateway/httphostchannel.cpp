#include "httphostchannel.h"

#include "httpserver/httpresponse.h"

#include "common/logging.h"

#include <QJsonArray>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// A request id as a key: 1 and "1" are different ids.
QByteArray idKey(const QJsonValue &id)
{
    return QJsonDocument(QJsonArray{id}).toJson(QJsonDocument::Compact);
}

// Messages held for a host with no GET stream open: list changes, log messages, a server's
// requests made outside any call. Past the bound the oldest go: a host that never opens the
// stream loses the least recent.
constexpr qsizetype MaxHeldNotifications = 256;

} // namespace

HttpHostChannel::HttpHostChannel(QByteArray sessionId, QObject *parent)
    : QObject(parent)
    , m_sessionId(std::move(sessionId))
    , m_lastActivity(std::chrono::steady_clock::now())
{
}

HttpHostChannel::~HttpHostChannel()
{
    for (const Awaited &awaited : std::as_const(m_awaited))
        disconnect(awaited.abortion);
}

QString HttpHostChannel::transportName() const
{
    return u"http"_s;
}

void HttpHostChannel::touch()
{
    m_lastActivity = std::chrono::steady_clock::now();
}

bool HttpHostChannel::isIdle() const
{
    return m_awaited.isEmpty() && !m_notifications;
}

bool HttpHostChannel::isAwaiting(const QJsonValue &id) const
{
    return m_awaited.contains(idKey(id));
}

void HttpHostChannel::await(const QJsonValue &id, HttpResponse *response, Reply reply, const HttpHeaders &headers,
                            bool mayStream)
{
    Awaited awaited{id, response, reply, headers, {}, mayStream};
    awaited.abortion = connect(response, &HttpResponse::aborted, this, [this, id] {
        take(id);
        touch();
        emit requestAbandoned(id);
    });
    m_awaited.insert(idKey(id), awaited);
}

HttpHostChannel::Awaited HttpHostChannel::take(const QJsonValue &id)
{
    Awaited awaited = m_awaited.take(idKey(id));
    disconnect(awaited.abortion);
    // A session is idle from its last answer on, not from the request of a long call.
    touch();
    return awaited;
}

void HttpHostChannel::openNotificationStream(HttpResponse *response)
{
    if (m_notifications)
        m_notifications->end(); // a new GET wins: the old one may be a half-dead socket
    m_notifications = response;
    connect(response, &HttpResponse::aborted, this, &HttpHostChannel::touch);
    for (const QByteArray &message : std::exchange(m_heldNotifications, {}))
        response->writeEventData(message);
}

void HttpHostChannel::endStreams()
{
    if (m_notifications)
        m_notifications->end();
    const QList<Awaited> awaited = m_awaited.values();
    for (const Awaited &entry : awaited)
        endWithoutResponse(entry.id);
}

void HttpHostChannel::sendOnSessionStream(const QByteArray &message)
{
    if (m_notifications) {
        m_notifications->writeEventData(message);
        return;
    }
    if (m_heldNotifications.contains(message))
        return; // a second list_changed says nothing the first does not
    if (m_heldNotifications.size() >= MaxHeldNotifications)
        m_heldNotifications.removeFirst();
    m_heldNotifications.append(message);
}

void HttpHostChannel::send(const QByteArray &message, Role role, const QJsonValue &request)
{
    switch (role) {
    case Role::Notification:
        sendOnSessionStream(message);
        return;
    case Role::Progress:
    case Role::Request: {
        const auto it = m_awaited.find(idKey(request));
        if (it != m_awaited.end() && it->response && it->reply == Reply::Json && it->mayStream) {
            // The answer was to be one JSON object; it becomes a stream that carries this first.
            it->response->beginEventStream(it->headers);
            it->reply = Reply::EventStream;
        }
        if (it != m_awaited.end() && it->response && it->reply == Reply::EventStream)
            it->response->writeEventData(message);
        else if (role == Role::Request)
            sendOnSessionStream(message); // its request's stream is gone, or there never was one
        return;
    }
    case Role::Response:
        break;
    }
    const Awaited awaited = take(request);
    if (!awaited.response) {
        spdlog::debug("gateway: an answer for {} of http session {} has no request to go with; dropped",
                      idKey(request).toStdString(), m_sessionId.toStdString());
        return;
    }
    if (awaited.reply == Reply::EventStream) {
        awaited.response->writeEventData(message);
        awaited.response->end();
        return;
    }
    HttpHeaders headers = awaited.headers;
    headers.append("Content-Type", "application/json");
    awaited.response->send(200, headers, message);
}

void HttpHostChannel::endWithoutResponse(const QJsonValue &request)
{
    const Awaited awaited = take(request);
    if (!awaited.response)
        return;
    if (awaited.reply == Reply::EventStream)
        awaited.response->end();
    else
        awaited.response->abort(); // a JSON answer that is never coming: the connection closes unanswered
}

} // namespace Tether
