#pragma once

#include "hostchannel.h"

#include "httpserver/httpheaders.h"

#include <QByteArray>
#include <QHash>
#include <QObject>
#include <QPointer>

#include <chrono>

namespace Tether {

class HttpResponse;

// One host's Streamable HTTP session as a HostChannel: each request's answer goes on the
// response of the POST that carried it (one JSON object, or an event stream of its progress and
// then its response), the session's own notifications on its GET stream (held back while none
// is open).
class HttpHostChannel final : public QObject, public HostChannel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HttpHostChannel)

public:
    enum class Reply {
        Json,        // the response as one JSON object; progress is not sent
        EventStream, // an event stream, already begun: progress, then the response, then its end
    };

    explicit HttpHostChannel(QByteArray sessionId, QObject *parent = nullptr);
    ~HttpHostChannel() override;

    const QByteArray &sessionId() const { return m_sessionId; }

    // Whether the request `id` of the host is still being answered.
    bool isAwaiting(const QJsonValue &id) const;
    // The answer to the request `id` goes on `response`, with `headers` besides the content type.
    // With `mayStream` (the host accepts event streams), a JSON answer turns into an event stream
    // when a request of the gateway's belongs with it (a server's sampling or elicitation while
    // the host's call runs).
    void await(const QJsonValue &id, HttpResponse *response, Reply reply, const HttpHeaders &headers = {},
               bool mayStream = false);
    // The GET stream: notifications go there from now on (a stream opened before ends).
    void openNotificationStream(HttpResponse *response);
    // The session has ended: its notification stream ends, and requests still awaited are cut.
    void endStreams();

    // No stream open and no request awaiting an answer: nothing tells whether the host is still there.
    bool isIdle() const;
    std::chrono::steady_clock::time_point lastActivity() const { return m_lastActivity; }
    void touch();

    QString transportName() const override;
    void send(const QByteArray &message, Role role, const QJsonValue &request) override;
    void endWithoutResponse(const QJsonValue &request) override;

signals:
    // The host's connection for the answer to `id` went away before it came: the answer can
    // never reach it (Tether sends no event ids, so the stream cannot be resumed).
    void requestAbandoned(const QJsonValue &id);

private:
    struct Awaited
    {
        QJsonValue id;
        QPointer<HttpResponse> response;
        Reply reply = Reply::Json;
        HttpHeaders headers;
        QMetaObject::Connection abortion;
        bool mayStream = false;
    };

    // On the session's GET stream, or held until one opens.
    void sendOnSessionStream(const QByteArray &message);

    // The answer awaited for `id`, taken out; a null response when there is none.
    Awaited take(const QJsonValue &id);

    QByteArray m_sessionId;
    QHash<QByteArray, Awaited> m_awaited; // by the request id as JSON
    QPointer<HttpResponse> m_notifications;
    QByteArrayList m_heldNotifications;   // while no GET stream is open; the oldest go first past the bound
    std::chrono::steady_clock::time_point m_lastActivity;
};

} // namespace Tether
