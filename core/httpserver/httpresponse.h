#pragma once

#include "httpheaders.h"
#include "httprequest.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QObject>
#include <QPointer>
#include <QTimer>

class QJsonObject;

namespace Tether {

class HttpConnection;
struct HttpServerOptions;

// The answer to one request, handed to the HttpServer's handler with the request. Answer at
// once or later: the handler may return first and keep the response as a QPointer<HttpResponse>,
// which becomes null once the response is done with (ended, aborted, or its connection gone);
// it never points at a freed socket. The object is deleted only from the event loop, never
// during a call of yours, so a plain pointer is good until you return to the loop.
//
// Answer with exactly one of:
//   send(status, headers, body)          a whole response (Content-Length)
//   beginStream(status, headers)         a body written in parts: write() each, then end()
//                                        (chunked for HTTP/1.1; for HTTP/1.0 the connection
//                                        closes at the end)
//   beginEventStream(headers)            200 text/event-stream: writeEvent() each JSON-RPC
//                                        message as "data: <compact JSON>\n\n", then end().
//                                        While no event is written for eventStreamKeepAlive,
//                                        a ": keepalive" comment goes out, which also finds a
//                                        peer that has gone.
// Content-Length, Transfer-Encoding, Connection and Date are the server's: given ones are left
// out; so is a field whose name is not a token or whose value holds CR or LF (logged).
//
// aborted() tells that the response can no longer reach its peer: the peer closed the
// connection (also while the handler had not answered yet), more than maxUnsentBytes of a
// stream were waiting for a peer that reads too slowly, or the server was closed. It comes
// once, from the event loop, and never after the response ended or after your own abort().
// From then on every call returns false and does nothing. A response never answered holds its
// connection (no timeout applies while a request is being answered) until the peer goes.
class HttpResponse final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HttpResponse)

public:
    enum class Stage {
        Waiting,   // nothing sent yet
        Streaming, // the head is sent; parts follow until end()
        Finished,  // sent whole, or ended
        Aborted,   // the peer is gone or abort() was called
    };

    ~HttpResponse() override;

    const HttpRequest &request() const { return m_request; }
    Stage stage() const { return m_stage; }
    // Bytes written and not yet taken by the peer's connection.
    qint64 unsentBytes() const;

    // Each returns false, doing nothing, when the response is not at a stage it applies to.
    bool send(int status, const HttpHeaders &headers = {}, const QByteArray &body = {});
    bool beginStream(int status, const HttpHeaders &headers = {});
    bool write(QByteArrayView bytes);
    bool beginEventStream(const HttpHeaders &headers = {});
    bool writeEvent(const QJsonObject &message);
    // An event of data that is already compact JSON (or any text: each of its lines becomes a data line).
    bool writeEventData(QByteArrayView data);
    bool end();
    // Closes the connection without (the rest of) a response, as when the answer is never
    // coming. No aborted() follows.
    void abort();

signals:
    void aborted();

private:
    friend class HttpConnection;

    HttpResponse(HttpRequest request, HttpConnection *connection, const HttpServerOptions &options);

    void logRefused(const QByteArrayList &refused) const;
    bool writeToPeer(QByteArrayView bytes);
    bool markAborted(); // by the connection: true when the response was still open (aborted() is owed)

    HttpRequest m_request;
    QPointer<HttpConnection> m_connection;
    qint64 m_maxUnsentBytes;
    QTimer m_keepAlive; // event streams: restarted by every write
    Stage m_stage = Stage::Waiting;
    bool m_chunked = false;
    bool m_eventStream = false;
    bool m_closeAfter = false;
};

} // namespace Tether
