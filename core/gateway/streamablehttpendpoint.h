#pragma once

#include "config/gatewayconfig.h"
#include "protocol/jsonrpc.h"

#include <QByteArray>
#include <QHash>
#include <QMap>
#include <QObject>
#include <QString>
#include <QTimer>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace Tether {

class Gateway;
class GatewaySession;
class HttpHostChannel;
class HttpResponse;
class HttpServer;
struct HttpSessionActivity;
struct HttpReply;
struct HttpRequest;

// The gateway over Streamable HTTP (MCP 2025-11-25, transports): POST /mcp carries the host's
// messages (initialize opens a session, named by Mcp-Session-Id from then on; a tools/call with a
// progress token is answered with an event stream of its progress and its response, any other
// request with one JSON object unless a request of the gateway's must go with it first (a
// server's sampling or elicitation), notifications and responses with 202); GET /mcp is the
// session's notification stream; DELETE /mcp ends the session and cancels its calls. /healthz answers the instance id,
// /metrics the metrics source's text. Every request carries the bearer token; Origin and Host
// are checked against DNS rebinding; every refusal is an HTTP error with a JSON-RPC error body.
// The gateway must outlive the endpoint.
class StreamableHttpEndpoint final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(StreamableHttpEndpoint)

public:
    struct Options
    {
        GatewayHttpConfig http;
        QByteArray token;
        QString tokenFile;  // where the token is, for the messages that ask for it
        QString instanceId; // what /healthz answers, so that a client can tell this instance
        // Long enough for a host that keeps no GET stream open and calls nothing for a while; such a
        // host gets 404 at its next request and initializes again.
        std::chrono::milliseconds sessionIdleExpiry{30 * 60 * 1000};
        int maxSessions = 64;
    };

    StreamableHttpEndpoint(Gateway &gateway, Options options, QObject *parent = nullptr);
    ~StreamableHttpEndpoint() override;

    // The endpoint of the config file at `configPath`, listening: its token read from next to
    // the file (made on first use), /healthz answering `instanceId` (the instance's, see
    // LocalSocketEndpoint::announce). Nothing, with `error` saying why and what to do, when the
    // token cannot be used or the address cannot be listened on.
    static std::unique_ptr<StreamableHttpEndpoint> serve(Gateway &gateway, const GatewayHttpConfig &http,
                                                         const QString &configPath, const QString &instanceId,
                                                         QString *error);

    // Listens on the configured address and port (port 0: any free one), in TLS when the config
    // names the files; false with errorString() saying why and what to do.
    bool listen();
    // Ends every session (their calls are cancelled, the relayed ones' too), stops listening and
    // removes the instance record.
    void close();

    bool isListening() const;
    quint16 port() const;
    // "http://127.0.0.1:27413/mcp"; https with TLS.
    QString url() const;
    QString errorString() const { return m_error; }
    int sessionCount() const { return int(m_channels.size()); }

    // The bearer token every request must carry, and the file it is kept in.
    QByteArray token() const { return m_options.token; }
    QString tokenFile() const { return m_options.tokenFile; }
    // A new token in the token file, the only one accepted from now on: the sessions opened with
    // the old one end (relayed hosts never used it and go on). False, with `error`, when it cannot
    // be written; the old token then stays.
    bool rotateToken(QString *error);

    // What GET /metrics answers (Prometheus text); without one it answers 404. serve() sets the
    // metrics of the gateway's servers and sessions and of this endpoint's refusals.
    void setMetricsSource(std::function<QByteArray()> source);
    // The requests refused so far (every 4xx and 5xx answer), by status.
    QList<std::pair<int, quint64>> refusals() const;

signals:
    void sessionsChanged();

private:
    std::optional<HttpReply> admit(const HttpRequest &head);
    void refuse(HttpResponse &response, const HttpReply &reply);
    void handle(const HttpRequest &request, HttpResponse &response);
    void handlePost(const HttpRequest &request, HttpResponse &response);
    void openSession(const QJsonObject &initialize, HttpResponse &response);
    // A stateless host's request (MCP 2026-07-28, no session): a session of its own that lives as
    // long as the request, or, asked input_required, until the retry that continues it.
    void serveStateless(const HttpRequest &request, const QJsonObject &object, const JsonRpc::Message &message,
                        HttpResponse &response);
    void endStateless(HttpHostChannel *channel, const QString &reason);
    void endSession(HttpHostChannel *channel, const QString &reason);
    // The host's connection for a request's answer went away: the request is cancelled.
    void cancelWhenAbandoned(HttpHostChannel *channel);
    // Ends the sessions idle for sessionIdleExpiry (httpsessionexpiry.h), each said in the log.
    void expireIdleSessions();
    QList<HttpSessionActivity> sessionActivity() const;

    Gateway &m_gateway;
    Options m_options;
    std::unique_ptr<HttpServer> m_server;
    QHash<QByteArray, HttpHostChannel *> m_channels; // by session id; owned
    QHash<HttpHostChannel *, GatewaySession *> m_sessions;
    QHash<HttpHostChannel *, GatewaySession *> m_statelessSessions; // owned
    QHash<QString, HttpHostChannel *> m_parked; // by requestState: where a retry continues
    std::function<QByteArray()> m_metrics;
    QMap<int, quint64> m_refusals; // by status
    QTimer m_expiryTimer;
    QString m_error;
};

} // namespace Tether
