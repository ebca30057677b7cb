#pragma once

#include "httpreply.h"
#include "httprequestparser.h"
#include "httpwire.h"

#include <QDeadlineTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <chrono>

class QTcpSocket;

namespace Tether {

class HttpResponse;
struct HttpService;

// One accepted socket (TCP or TLS) of an HttpServer, serving its requests one at a time:
// read a head → admit it → read the body → hand request and HttpResponse to the handler →
// (keep-alive) read the next. Bytes of a pipelined request stay in the socket's bounded buffer
// until the response before it has ended, and until the peer has taken all but
// readPauseUnsentBytes of the answers before it (a peer that pipelines and never reads holds
// no more than that). Timers: the head (and every pause inside a body) has the service's head
// timeout (then 408 and close), an idle kept-alive connection has idleTimeout, and so has a
// peer that takes none of its answers; a request being answered has none, however long its
// stream stays open. After a refusal the
// connection reads and drops what still comes (the body it refused, say) until the peer
// closes, pauses for 2 s, or 10 s have passed (2 s after a 408), so that the peer reads the
// answer rather than a reset.
// Created and owned by HttpServer; it deletes itself (later) once its socket has closed.
class HttpConnection final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HttpConnection)

public:
    // Takes the socket over (as its child).
    HttpConnection(QTcpSocket *socket, const HttpService &service, QObject *parent = nullptr);
    ~HttpConnection() override;

    // Closes at once; a response still open sees aborted().
    void abort();
    // Gives the slot up to a newcomer: reads nothing more, answers `reply` after `delay` and
    // closes. Only for a connection none of whose requests was admitted (no response is open).
    void evict(const HttpReply &reply, std::chrono::milliseconds delay);

signals:
    // The first of its requests was admitted (HttpConnectionQuota counts it apart from then on).
    void admitted();
    // The socket has closed; the connection is deleted from the event loop next.
    void closed();

private:
    friend class HttpResponse;

    enum class Stage {
        ReadingHead,
        ReadingBody,
        Responding, // the handler has the request; its response has not ended
        Closing,    // the last bytes are being sent; what still comes is dropped
        Closed,
    };
    enum class Wait {
        Idle,   // for the next request on a kept-alive connection
        Head,   // for the rest of a head, from its first byte
        Body,   // for more of a body
        Drain,  // for the peer to take its answers before the next request is read
        Linger, // for a refused peer to close, dropping what it still sends
        Flush,  // for a closing peer to take the last bytes
        Evict,  // for the delay before an evicted connection's answer
    };

    void readRequests();
    bool admit();
    void dispatch();
    void refuse(const HttpReply &reply, bool keepOpen, std::chrono::milliseconds lingerLimit);
    void refuseWithError(int status, const QString &reason);
    void onTimeout();
    void onDisconnected();
    void onBytesTaken();
    void startWaiting(Wait wait);

    // For HttpResponse.
    void writeHead(int status, const HttpHeaders &headers, const HttpWire::Framing &framing);
    void writeBytes(QByteArrayView bytes);
    void endResponse(bool closeAfter);
    qint64 unsentBytes() const;

    QTcpSocket *m_socket;
    const HttpService &m_service;
    HttpRequestParser m_parser;
    QPointer<HttpResponse> m_response;
    QTimer m_timer;
    Stage m_stage = Stage::ReadingHead;
    Wait m_wait = Wait::Head;
    QDeadlineTimer m_lingerEnd;
    HttpReply m_evictionReply;
    bool m_admitted = false;
};

} // namespace Tether
