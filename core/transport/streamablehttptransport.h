#pragma once

#include "httpendpoint.h"
#include "sseparser.h"
#include "transport.h"

#include <QJsonValue>
#include <QNetworkAccessManager>
#include <QTimer>

#include <map>
#include <memory>
#include <vector>

namespace Tether {

// An MCP server behind one URL speaking Streamable HTTP (protocol 2025-03-26 and later): each
// message is POSTed; a reply is JSON or an event stream that may carry server requests and
// notifications before the response; the GET stream carries the server's own messages. The
// session id of the initialize reply and the negotiated protocol version go with every later
// request. A stream cut before its response is resumed with Last-Event-ID after the server's
// retry: delay; what the session sends after notifications/initialized waits until the GET
// stream is answered (briefly), so that a call's resumption never finds the server handing its
// answer to a GET stream that opened later. A failed request is answered with a JSON-RPC error for its id, so only that
// request fails; the connection itself ends when the session is lost (404), when the server
// cannot be reached, or when the GET stream cannot be resumed. Closing DELETEs the session.
// HttpFallbackTransport tries HTTP+SSE when the server rejects the initialize.
class StreamableHttpTransport final : public Transport
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(StreamableHttpTransport)

public:
    explicit StreamableHttpTransport(HttpServerEndpoint endpoint, HttpTransportOptions options = {},
                                     QObject *parent = nullptr);
    ~StreamableHttpTransport() override;

    void start() override;
    void send(const QJsonObject &message) override;
    void close() override;

    bool isOpen() const override;
    QString description() const override; // "http: https://host/mcp"
    bool signsIn() const override { return m_endpoint.signsIn(); }

    const QByteArray &sessionId() const { return m_sessionId; }
    const QString &protocolVersion() const { return m_protocolVersion; }

signals:
    // The server answered the initialize with an HTTP error status, as one that speaks only the
    // older HTTP+SSE transport does (404, 405). Unless a receiver closes this transport, the
    // initialize then fails with that error.
    void initializeRejected(int status);

private:
    enum class Stage { Idle, Open, Closing, Closed };

    // What one connection of an event stream hands on to the next when the stream is reopened.
    // SSE keeps the retry: delay per stream, across its reconnections.
    struct StreamPosition
    {
        QByteArray lastEventId;                 // sent as Last-Event-ID; empty before any event id
        std::chrono::milliseconds retryDelay{}; // the stream's own retry:, else the transport's default
        int failedConnects = 0;                 // reopenings in a row that could not connect
        int idleReopens = 0;                    // reopenings in a row that brought nothing new
    };

    struct Exchange
    {
        enum class Kind { Post, ServerStream, Resume };

        Kind kind = Kind::Post;
        QNetworkReply *reply = nullptr;
        QJsonValue requestId;    // the request this POST carries, or whose stream this GET resumes
        QString method;          // of the message POSTed, or of the request resumed
        bool carriedSession = false;
        bool classified = false; // the status and content type are known
        bool stream = false;     // a 2xx text/event-stream
        SseParser events;
        StreamPosition position; // where this stream started; its retry: as the server said it
        bool brought = false;    // a message arrived on this stream
        QByteArray body;
        QByteArray payload;       // of a POST of a server with a sign-in: sent again after a renewal
        QByteArray authorization; // the sign-in's, as sent
        bool renewed = false;     // sent again after a 401 and a renewal
        bool steppedUp = false;   // sent again after a 403 insufficient_scope and a step-up
        QString mcpName;          // stateless: what Mcp-Name says
    };

    // A request of the session with the session's headers and the sign-in's Authorization.
    QNetworkRequest request(const QByteArray &accept);
    void post(const QByteArray &payload, const QJsonValue &requestId, const QString &method, const QString &mcpName = {},
              bool renewed = false, bool steppedUp = false);
    void openStream(Exchange::Kind kind, const QJsonValue &requestId, const StreamPosition &position,
                    bool renewed = false);
    void scheduleStream(Exchange::Kind kind, const QJsonValue &requestId, const StreamPosition &position);
    // Where the next connection of the stream of `exchange` starts.
    static StreamPosition positionAfter(const Exchange &exchange);
    void track(std::unique_ptr<Exchange> exchange);
    QNetworkAccessManager &network();
    void addSessionHeaders(QNetworkRequest &request) const;

    void onReadyRead(QNetworkReply *reply);
    void onFinished(QNetworkReply *reply);
    void classify(Exchange &exchange);
    void onStreamEnded(const Exchange &exchange);
    // Tether stops reading `reply` before it finished, for `why`.
    void giveUp(QNetworkReply *reply, const QString &why);
    void onFailure(const Exchange &exchange, const QString &why);
    void onNetworkFailure(const Exchange &exchange, QNetworkReply::NetworkError error, const QString &detail);
    void onBody(const Exchange &exchange, const QNetworkReply &reply);
    void onHttpError(const Exchange &exchange, const QNetworkReply &reply);
    // A 401 to a request of a server with a sign-in: renewed and sent once more, or the end.
    void onUnauthorized(const Exchange &exchange, const QNetworkReply &reply);
    // A 403 insufficient_scope to a POST of a server with a sign-in: stepped up and sent once
    // more, or failed.
    void onInsufficientScope(const Exchange &exchange, const QNetworkReply &reply);
    void onStreamLost(const Exchange &exchange, const QString &why);
    void onPostAccepted(const Exchange &exchange);
    // Sends what waited for the server's own stream to be answered (or refused, or for too long).
    void releaseHeldMessages();

    // Emits what a payload holds; false when a receiver closed this transport (or the reply
    // `from`, when given) meanwhile.
    // `stream`: the request whose stream it came on (undefined: the session's own stream).
    bool deliver(QByteArrayView payload, const QString &source, QNetworkReply *from,
                 const QJsonValue &stream = QJsonValue(QJsonValue::Undefined));
    // A request the transport failed; `httpStatus`, when the server answered one, goes in the
    // error's data.
    void answerWithError(const QJsonValue &requestId, const QString &error, int httpStatus = 0);
    // An HTTP 400 or 404 whose body is the server's JSON-RPC error for the request (a stateless
    // server answers -32022, -32020 or -32601 so): that error answers it. False when the body is
    // something else.
    bool answerWithServerError(const Exchange &exchange, int httpStatus);
    void forgetRequest(const QJsonValue &requestId);
    bool isAwaited(const QJsonValue &requestId) const;
    bool isAlive(QNetworkReply *reply) const;
    QString what(const Exchange &exchange) const;

    void closeWithError(const QString &error);
    void closeForSignIn(const BearerChallenge &challenge, const QString &reason);
    void beginClose();
    void abortAll();
    void finish();

    // Qt 6.4 opens at most 6 connections per host for one QNetworkAccessManager (fixed until
    // Qt 6.8) and queues the rest, and an event stream holds its connection as long as it
    // runs. So a request goes to a manager with fewer than 6 replies in flight, a new one when
    // all are busy: a call never waits behind the GET stream and long-running calls, and
    // neither does a heartbeat ping.
    std::vector<std::unique_ptr<QNetworkAccessManager>> m_networks;
    HttpServerEndpoint m_endpoint;
    HttpTransportOptions m_options;
    std::map<QNetworkReply *, std::unique_ptr<Exchange>> m_exchanges;
    std::map<QString, QString> m_awaited; // request ids sent and not answered yet -> method
    QJsonValue m_initializeId;
    QByteArray m_sessionId;
    QString m_protocolVersion;
    // Stateless: the version the requests' envelopes name, sent as MCP-Protocol-Version.
    QByteArray m_statelessVersion;
    bool m_sessionLost = false;
    bool m_serverStreamRequested = false;
    bool m_serverStreamOpened = false;
    // From notifications/initialized until the GET stream is answered: messages sent meanwhile.
    bool m_holdingForServerStream = false;
    QList<QJsonObject> m_heldMessages;
    QTimer m_serverStreamWait;
    int m_networkFailuresInRow = 0; // POSTs in a row that got no HTTP answer at all
    QNetworkReply *m_deleteReply = nullptr;
    QTimer m_closeTimer;
    TransportClosure m_closure;
    Stage m_stage = Stage::Idle;
};

} // namespace Tether
