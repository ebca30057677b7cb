#pragma once

#include "httpendpoint.h"
#include "sseparser.h"
#include "transport.h"

#include <QJsonValue>
#include <QNetworkAccessManager>
#include <QTimer>

#include <functional>
#include <map>

namespace Tether {

// An MCP server speaking the older HTTP+SSE transport (protocol 2024-11-05): one long GET
// event stream whose first event, `endpoint`, names the URL to POST messages to; everything
// the server says arrives on that stream. The stream ending is the connection ending.
class HttpSseTransport final : public Transport
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HttpSseTransport)

public:
    explicit HttpSseTransport(HttpServerEndpoint endpoint, HttpTransportOptions options = {},
                              QObject *parent = nullptr);
    ~HttpSseTransport() override;

    void start() override;
    void send(const QJsonObject &message) override;
    void close() override;

    bool isOpen() const override { return m_stage == Stage::Open; }
    QString description() const override; // "sse: https://host/sse"
    bool signsIn() const override { return m_endpoint.signsIn(); }

    const QUrl &messageUrl() const { return m_messageUrl; }

private:
    enum class Stage { Idle, Connecting, Open, Closed };

    struct Post
    {
        QJsonValue requestId;
        QString method;
        QByteArray body;
        QByteArray payload;       // of a server with a sign-in: sent again after a renewal
        QByteArray authorization; // the sign-in's, as sent
        bool renewed = false;     // sent again after a 401 and a renewal
        bool steppedUp = false;   // sent again after a 403 for want of scope and a step-up sign-in
    };

    // A request with the configured headers and the sign-in's Authorization.
    QNetworkRequest request(const QUrl &target, const QByteArray &accept);
    void openStream(bool renewed);
    void post(const QByteArray &payload, const QJsonValue &requestId, const QString &method, bool renewed,
              bool steppedUp = false);
    // A 401 to a request of a server with a sign-in: renewed and sent once more, or the end.
    void onUnauthorized(const QNetworkReply &reply, const QByteArray &authorization, bool renewed,
                        std::function<void()> sendAgain);
    // A 403 for want of scope to a message (MCP 2025-11-25 §Step-Up Authorization Flow): sent once
    // more when a new sign-in has the scope, else failed with the refusal.
    void onInsufficientScope(const QNetworkReply &reply, const Post &post);
    static QString whatWasPosted(const Post &post);
    void onStreamData();
    void onStreamFinished();
    void onEndpoint(QByteArrayView data);
    void onPostFinished(QNetworkReply *reply);
    void answerWithError(const QJsonValue &requestId, const QString &error);
    void closeWithError(const QString &error);
    void abortAll();

    QNetworkAccessManager m_network;
    HttpServerEndpoint m_endpoint;
    HttpTransportOptions m_options;
    QNetworkReply *m_stream = nullptr;
    QByteArray m_streamAuthorization; // the sign-in's, as sent with the stream request
    bool m_streamRenewed = false;
    SseParser m_events;
    QByteArray m_streamBody; // of a stream request that failed, for the error message
    QUrl m_messageUrl;
    std::map<QNetworkReply *, Post> m_posts;
    QTimer m_endpointTimer;
    TransportClosure m_closure;
    Stage m_stage = Stage::Idle;
};

} // namespace Tether
