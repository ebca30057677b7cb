#pragma once

#include "httpconnectionquota.h"
#include "httpservice.h"

#include <QElapsedTimer>
#include <QHash>
#include <QHostAddress>
#include <QObject>
#include <QSet>
#include <QString>

#include <memory>

class QSslConfiguration;
class QTcpServer;
class QTcpSocket;

namespace Tether {

class HttpConnection;

// A small HTTP/1.1 server for one service on one address, in plain TCP or in TLS, made to
// serve long event streams safely (Qt 6.4's QHttpServer cannot: see docs/development.md,
// Architecture). It knows no application protocol: you give it three functions (httpservice.h).
//
//   HttpServer server;
//   server.setAdmission([](const HttpRequest &head) -> std::optional<HttpReply> {
//       if (!tokenMatches(head.header("Authorization")))   // compared in constant time
//           return HttpReply{401, {{"WWW-Authenticate", "Bearer"}}, "..."};
//       return std::nullopt;                                // admitted: the body is read next
//   });
//   server.setHandler([this](const HttpRequest &request, HttpResponse &response) {
//       if (request.method == "GET") {                      // a stream that outlives the handler
//           response.beginEventStream({{"Mcp-Session-Id", id}});
//           m_stream = &response;                           // a QPointer<HttpResponse>
//           connect(&response, &HttpResponse::aborted, this, [] { /* the peer went away */ });
//           return;
//       }
//       response.send(200, {{"Content-Type", "application/json"}}, R"({"ok":true})");
//   });
//   server.listen(QHostAddress::LocalHost, 27413);
//   ...
//   if (m_stream)
//       m_stream->writeEvent(notification);                 // later, from anywhere in this thread
//
// For each request: the parser checks syntax and bounds (HttpRequestParser; refusals go
// through the error reply, plain text by default); the admission function sees the head
// before a byte of the body is read (and before "100 Continue" is sent), and may refuse it;
// the handler gets the whole request and an HttpResponse to answer with, now or later. One
// request is answered at a time per connection; connections are kept alive between requests.
// The options bound sizes, time and the number of connections (httpservice.h); who may hold
// the connections is HttpConnectionQuota's to say: a connection counts as admitted once one of
// its requests was, and newcomers take the places of connections not admitted. Without a
// handler every request is answered 404. Everything happens in the server's thread: the
// functions are called there, and responses are written from there.
class HttpServer final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HttpServer)

public:
    explicit HttpServer(HttpServerOptions options = {}, QObject *parent = nullptr);
    // Closes every connection without aborted() signals: call close() first to have them.
    ~HttpServer() override;

    void setAdmission(HttpAdmission admission);
    void setHandler(HttpHandler handler);
    void setErrorReply(HttpErrorReply errorReply);

    // Listens in plain TCP; port 0 picks a free one. False with errorString() when it cannot.
    // Listening again first closes what was open.
    bool listen(const QHostAddress &address, quint16 port = 0);
    // Listens in TLS with this configuration (loadServerTls() makes one from PEM files).
    bool listen(const QHostAddress &address, quint16 port, const QSslConfiguration &tls);
    // Stops listening and closes every connection; responses still open see aborted().
    void close();

    bool isListening() const;
    bool isEncrypted() const { return m_encrypted; }
    QHostAddress serverAddress() const;
    quint16 serverPort() const;
    QString errorString() const;
    const HttpServerOptions &options() const { return m_service.options; }
    // Connections open now (those refused for being one too many, or evicted, are not counted).
    int connectionCount() const { return int(m_open.size()); }
    // Of those, the ones none of whose requests was admitted yet.
    int unadmittedCount() const;

private:
    bool listenWith(std::unique_ptr<QTcpServer> listener, const QHostAddress &address, quint16 port);
    void acceptConnections();
    void evict(HttpConnection *connection);
    void refuseOverLimit(QTcpSocket *socket);
    // The delay before a refusal's answer, counting it among those waiting until `holder` goes.
    std::chrono::milliseconds delayRefusal(QObject *holder);
    void updateHeadTimeout();

    HttpService m_service;
    std::unique_ptr<QTcpServer> m_listener;
    QSet<HttpConnection *> m_connections; // every one alive, evicted ones among them
    QHash<HttpConnection *, HttpConnectionQuota::OpenConnection> m_open; // those that hold a slot
    int m_delayedRefusals = 0;
    bool m_underPressure = false;
    QElapsedTimer m_pressureSaid;
    QString m_error;
    bool m_encrypted = false;
};

} // namespace Tether
