#include "httpconnection.h"

#include "httpresponse.h"
#include "httpservice.h"

#include "common/logging.h"

#include <QSslSocket>
#include <QTcpSocket>

using namespace Qt::StringLiterals;

namespace Tether {

// What is read from the socket at once, and what its buffer holds while a response is being
// written: so a pipelined request waits there, bounded, until the response before it has ended.
static constexpr qint64 ReadChunkBytes = 64 * 1024;
// A refused request's unread rest is read and dropped until the peer closes, pauses this long,
// or this much time has passed in all.
static constexpr std::chrono::milliseconds LingerPause{2000};
static constexpr std::chrono::milliseconds LingerLimit{10'000};

HttpConnection::HttpConnection(QTcpSocket *socket, const HttpService &service, QObject *parent)
    : QObject(parent)
    , m_socket(socket)
    , m_service(service)
    , m_parser(service.options.limits)
{
    m_socket->setParent(this);
    // A small response leaves at once instead of waiting for the ACK of the one before.
    m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    m_socket->setReadBufferSize(ReadChunkBytes);
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &HttpConnection::onTimeout);
    connect(m_socket, &QTcpSocket::readyRead, this, &HttpConnection::readRequests);
    connect(m_socket, &QTcpSocket::disconnected, this, &HttpConnection::onDisconnected);
    connect(m_socket, &QTcpSocket::bytesWritten, this, &HttpConnection::onBytesTaken);
    if (auto *tls = qobject_cast<QSslSocket *>(m_socket))
        connect(tls, &QSslSocket::encryptedBytesWritten, this, &HttpConnection::onBytesTaken);
    startWaiting(Wait::Head);
    // A TLS handshake may have brought the request along, or the peer may already be gone.
    if (m_socket->state() != QAbstractSocket::ConnectedState)
        QMetaObject::invokeMethod(this, &HttpConnection::onDisconnected, Qt::QueuedConnection);
    else if (m_socket->bytesAvailable() > 0)
        QMetaObject::invokeMethod(this, &HttpConnection::readRequests, Qt::QueuedConnection);
}

HttpConnection::~HttpConnection()
{
    // Deleted with its server: the socket closes without telling anyone.
    disconnect(m_socket, nullptr, this, nullptr);
}

void HttpConnection::abort()
{
    m_socket->abort();
    onDisconnected(); // in case the socket had closed already
}

// ReadingHead -> Closing
void HttpConnection::evict(const HttpReply &reply, std::chrono::milliseconds delay)
{
    if (m_stage == Stage::Closing) {
        abort(); // refused already: it has had its answer
        return;
    }
    if (m_stage != Stage::ReadingHead)
        return;
    m_stage = Stage::Closing;
    m_parser = HttpRequestParser(m_service.options.limits);
    m_evictionReply = reply;
    m_wait = Wait::Evict;
    m_timer.start(delay);
}

// ReadingHead | ReadingBody -> ReadingBody (admitted) | Responding (whole) | Closing (refused)
void HttpConnection::readRequests()
{
    if (m_stage == Stage::Closing) {
        m_socket->skip(m_socket->bytesAvailable()); // the rest of a refused request
        if (m_wait == Wait::Linger)
            startWaiting(Wait::Linger); // the pause starts again, within the limit
        return;
    }
    if (m_stage != Stage::ReadingHead && m_stage != Stage::ReadingBody)
        return; // a pipelined request waits in the socket's buffer
    if (m_stage == Stage::ReadingHead && unsentBytes() > m_service.options.readPauseUnsentBytes) {
        if (m_wait != Wait::Drain)
            startWaiting(Wait::Drain); // onBytesTaken() reads on
        return;
    }
    QByteArray bytes; // nothing at first: the parser may hold a pipelined request already
    for (;;) {
        switch (m_parser.push(bytes)) {
        case HttpRequestParser::Progress::NeedMore:
            if (!bytes.isEmpty() && (m_stage == Stage::ReadingBody || m_wait == Wait::Idle))
                startWaiting(m_stage == Stage::ReadingBody ? Wait::Body : Wait::Head);
            break;
        case HttpRequestParser::Progress::HeadReady:
            if (!admit())
                return;
            bytes.clear();
            continue;
        case HttpRequestParser::Progress::Complete:
            dispatch();
            return;
        case HttpRequestParser::Progress::Failed:
            refuseWithError(m_parser.error().status, m_parser.error().reason);
            return;
        }
        if (m_socket->bytesAvailable() <= 0)
            return;
        bytes = m_socket->read(ReadChunkBytes);
    }
}

static HttpRequest fromPeer(HttpRequest request, const QTcpSocket &socket)
{
    request.peerAddress = socket.peerAddress();
    request.peerPort = socket.peerPort();
    request.encrypted = qobject_cast<const QSslSocket *>(&socket) != nullptr;
    return request;
}

bool HttpConnection::admit()
{
    const HttpRequest head = fromPeer(m_parser.request(), *m_socket);
    const std::optional<HttpReply> refusal = m_service.admission ? m_service.admission(head) : std::nullopt;
    if (m_stage == Stage::Closed)
        return false; // the admission closed the server
    if (refusal) {
        const bool bodiless = head.contentLength == 0;
        // Closing after a refusal of the peer itself, it still gets a moment to read it.
        refuse(*refusal, !refusal->closeConnection && bodiless && head.keepAlive(),
               refusal->closeConnection && bodiless ? LingerPause : LingerLimit);
        return false;
    }
    if (!m_admitted) {
        m_admitted = true;
        emit admitted();
    }
    m_stage = Stage::ReadingBody;
    startWaiting(Wait::Body);
    if (head.expectsContinue() && head.contentLength > 0 && !m_parser.hasWholeBody())
        m_socket->write(HttpWire::ContinueResponse.data(), HttpWire::ContinueResponse.size());
    return true;
}

// ReadingBody -> Responding
void HttpConnection::dispatch()
{
    m_timer.stop();
    m_stage = Stage::Responding;
    auto *response = new HttpResponse(fromPeer(m_parser.takeRequest(), *m_socket), this, m_service.options);
    m_response = response;
    m_service.handler(response->request(), *response);
}

// -> Closing, or ReadingHead when the refused request has no body and the peer keeps the connection
void HttpConnection::refuse(const HttpReply &reply, bool keepOpen, std::chrono::milliseconds lingerLimit)
{
    writeBytes(HttpWire::wholeResponse(reply.status, reply.headers, reply.body, !keepOpen,
                                       keepOpen && m_parser.request().minorVersion == 0, QDateTime::currentDateTimeUtc()));
    if (keepOpen) {
        m_parser.push({}); // the empty body: Complete
        m_parser.takeRequest();
        endResponse(false);
        return;
    }
    m_stage = Stage::Closing;
    m_parser = HttpRequestParser(m_service.options.limits); // frees what it held
    // The peer may still be sending the body (a half-close would not help: Qt's own client
    // takes it for an error while it uploads). Closing now could reset the connection before it
    // reads the answer, so read and drop until it closes, for a while.
    m_lingerEnd = QDeadlineTimer(lingerLimit);
    startWaiting(Wait::Linger);
    readRequests();
}

void HttpConnection::refuseWithError(int status, const QString &reason)
{
    spdlog::debug("HTTP request from {} refused with {}: {}", m_socket->peerAddress().toString(), status, reason);
    HttpReply reply = m_service.errorReply(status, reason);
    if (status == 405)
        reply.headers.append("Allow", HttpRequestParser::AllowedMethods.toByteArray());
    // A peer too slow on purpose gets no more than one pause to read its 408.
    refuse(reply, false, status == 408 ? LingerPause : LingerLimit);
}

void HttpConnection::onTimeout()
{
    switch (m_wait) {
    case Wait::Idle:
        m_stage = Stage::Closing;
        m_socket->disconnectFromHost();
        startWaiting(Wait::Flush);
        break;
    case Wait::Head:
        refuseWithError(408, u"No whole request head came within %1 ms."_s.arg(m_timer.intervalAsDuration().count()));
        break;
    case Wait::Body:
        refuseWithError(408, u"The request body paused for more than %1 ms."_s.arg(m_timer.intervalAsDuration().count()));
        break;
    case Wait::Drain:
        spdlog::debug("HTTP connection from {} closed: its peer took none of its answers for {} ms",
                      m_socket->peerAddress().toString(), m_service.options.idleTimeout.count());
        abort();
        break;
    case Wait::Linger:
    case Wait::Flush:
        abort();
        break;
    case Wait::Evict:
        writeBytes(HttpWire::wholeResponse(m_evictionReply.status, m_evictionReply.headers, m_evictionReply.body, true,
                                           false, QDateTime::currentDateTimeUtc()));
        m_evictionReply = {};
        m_socket->disconnectFromHost();
        startWaiting(Wait::Flush);
        break;
    }
}

void HttpConnection::startWaiting(Wait wait)
{
    m_wait = wait;
    switch (wait) {
    case Wait::Idle:
    case Wait::Drain:
    case Wait::Flush:
        m_timer.start(m_service.options.idleTimeout);
        break;
    case Wait::Head:
        m_timer.start(m_service.headTimeout);
        break;
    case Wait::Body:
        m_timer.start(m_service.options.headTimeout);
        break;
    case Wait::Evict:
        break; // started by evict(), with its delay
    case Wait::Linger:
        m_timer.start(std::min<std::chrono::milliseconds>(
            LingerPause, std::chrono::ceil<std::chrono::milliseconds>(m_lingerEnd.remainingTimeAsDuration())));
        break;
    }
}

// Any stage -> Closed. aborted() and the deletion follow from the event loop, so that no
// caller of abort() or write() sees them happen inside its call.
void HttpConnection::onDisconnected()
{
    if (m_stage == Stage::Closed)
        return;
    m_stage = Stage::Closed;
    m_timer.stop();
    const bool abortedOwed = m_response && m_response->markAborted();
    emit closed();
    QMetaObject::invokeMethod(
        this,
        [this, abortedOwed] {
            if (abortedOwed && m_response)
                emit m_response->aborted();
            deleteLater();
        },
        Qt::QueuedConnection);
}

void HttpConnection::writeBytes(QByteArrayView bytes)
{
    if (m_stage != Stage::Closed)
        m_socket->write(bytes.data(), bytes.size());
}

// Responding -> ReadingHead (the next request, maybe pipelined already) | Closing
void HttpConnection::endResponse(bool closeAfter)
{
    if (m_response) {
        m_response->deleteLater();
        m_response = nullptr;
    }
    if (m_stage == Stage::Closed)
        return;
    if (closeAfter) {
        m_stage = Stage::Closing;
        m_socket->disconnectFromHost(); // after the bytes still to write
        startWaiting(Wait::Flush);      // a peer that never takes them does not hold the socket forever
        return;
    }
    m_stage = Stage::ReadingHead;
    startWaiting(m_parser.bufferedBytes() > 0 || m_socket->bytesAvailable() > 0 ? Wait::Head : Wait::Idle);
    QMetaObject::invokeMethod(this, &HttpConnection::readRequests, Qt::QueuedConnection);
}

// Drain -> Drain (some taken: the wait starts again) | Head | Idle (taken enough: the next request is read)
void HttpConnection::onBytesTaken()
{
    if (m_wait != Wait::Drain)
        return;
    if (unsentBytes() > m_service.options.readPauseUnsentBytes) {
        startWaiting(Wait::Drain);
        return;
    }
    startWaiting(m_parser.bufferedBytes() > 0 || m_socket->bytesAvailable() > 0 ? Wait::Head : Wait::Idle);
    readRequests();
}

qint64 HttpConnection::unsentBytes() const
{
    const auto *tls = qobject_cast<const QSslSocket *>(m_socket);
    return m_socket->bytesToWrite() + (tls ? tls->encryptedBytesToWrite() : 0);
}

} // namespace Tether
