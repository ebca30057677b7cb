#include "httpserver.h"

#include "httpconnection.h"
#include "httpresponse.h"
#include "httpwire.h"

#include "common/logging.h"

#include <QSslServer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace Tether {

static HttpReply plainTextErrorReply(int status, const QString &reason)
{
    return {status, {{"Content-Type", "text/plain; charset=utf-8"}}, reason.toUtf8() + '\n'};
}

HttpServer::HttpServer(HttpServerOptions options, QObject *parent)
    : QObject(parent)
{
    m_service.options = options;
    m_service.headTimeout = options.headTimeout;
    m_service.errorReply = plainTextErrorReply;
    setHandler({});
}

HttpServer::~HttpServer()
{
    const QSet<HttpConnection *> connections = std::exchange(m_connections, {});
    qDeleteAll(connections);
}

void HttpServer::setAdmission(HttpAdmission admission)
{
    m_service.admission = std::move(admission);
}

void HttpServer::setHandler(HttpHandler handler)
{
    if (!handler) {
        handler = [this](const HttpRequest &request, HttpResponse &response) {
            const HttpReply reply = m_service.errorReply(404, u"Nothing is served at %1."_s.arg(QString::fromUtf8(request.path)));
            response.send(reply.status, reply.headers, reply.body);
        };
    }
    m_service.handler = std::move(handler);
}

void HttpServer::setErrorReply(HttpErrorReply errorReply)
{
    m_service.errorReply = errorReply ? std::move(errorReply) : plainTextErrorReply;
}

bool HttpServer::listen(const QHostAddress &address, quint16 port)
{
    m_encrypted = false;
    return listenWith(std::make_unique<QTcpServer>(), address, port);
}

bool HttpServer::listen(const QHostAddress &address, quint16 port, const QSslConfiguration &tls)
{
    auto listener = std::make_unique<QSslServer>();
    listener->setSslConfiguration(tls);
    listener->setHandshakeTimeout(int(m_service.options.tlsHandshakeTimeout.count()));
    // A failed handshake never becomes a connection; it is only worth a line in the log.
    connect(listener.get(), &QSslServer::errorOccurred, this, [](QSslSocket *socket, QAbstractSocket::SocketError) {
        spdlog::debug("TLS connection from {} failed: {}", socket->peerAddress().toString(), socket->errorString());
    });
    m_encrypted = true;
    return listenWith(std::move(listener), address, port);
}

bool HttpServer::listenWith(std::unique_ptr<QTcpServer> listener, const QHostAddress &address, quint16 port)
{
    close();
    if (!listener->listen(address, port)) {
        m_error = u"Cannot listen on %1 port %2: %3"_s.arg(address.toString()).arg(port).arg(listener->errorString());
        return false;
    }
    m_error.clear();
    connect(listener.get(), &QTcpServer::pendingConnectionAvailable, this, &HttpServer::acceptConnections);
    m_listener = std::move(listener);
    return true;
}

void HttpServer::close()
{
    m_listener.reset();
    const QSet<HttpConnection *> connections = m_connections;
    for (HttpConnection *connection : connections)
        connection->abort();
}

bool HttpServer::isListening() const
{
    return m_listener && m_listener->isListening();
}

QHostAddress HttpServer::serverAddress() const
{
    return m_listener ? m_listener->serverAddress() : QHostAddress();
}

quint16 HttpServer::serverPort() const
{
    return m_listener ? m_listener->serverPort() : 0;
}

QString HttpServer::errorString() const
{
    return m_error;
}

int HttpServer::unadmittedCount() const
{
    return int(std::count_if(m_open.cbegin(), m_open.cend(), [](const auto &open) { return !open.admitted; }));
}

void HttpServer::acceptConnections()
{
    using namespace HttpConnectionQuota;
    while (QTcpSocket *socket = m_listener->nextPendingConnection()) {
        const Clock::time_point now = Clock::now();
        const Arrival arrival = judgeArrival(m_open.values(), socket->peerAddress(), now, m_service.options);
        if (arrival.verdict == Arrival::Verdict::Refuse) {
            refuseOverLimit(socket);
            continue;
        }
        if (arrival.verdict == Arrival::Verdict::AcceptEvicting)
            evict(reinterpret_cast<HttpConnection *>(quintptr(arrival.evicted)));
        auto *connection = new HttpConnection(socket, m_service, this);
        m_connections.insert(connection);
        m_open.insert(connection, {quintptr(connection), socket->peerAddress(), now, false});
        connect(connection, &HttpConnection::admitted, this, [this, connection] {
            if (const auto open = m_open.find(connection); open != m_open.end())
                open->admitted = true;
            updateHeadTimeout();
        });
        connect(connection, &HttpConnection::closed, this, [this, connection] {
            m_connections.remove(connection);
            m_open.remove(connection);
            updateHeadTimeout();
        });
        updateHeadTimeout();
    }
}

// Its slot goes to a newcomer; it is answered 503 later (see delayRefusal) and closed.
void HttpServer::evict(HttpConnection *connection)
{
    m_open.remove(connection);
    const HttpReply reply = m_service.errorReply(
        503, u"The server is busy and this connection had sent no request it took; try again later."_s);
    connection->evict(reply, delayRefusal(connection));
}

// Answered 503 (later: see delayRefusal) without reading its request, and closed.
void HttpServer::refuseOverLimit(QTcpSocket *socket)
{
    socket->setParent(this);
    connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    const std::chrono::milliseconds delay = delayRefusal(socket);
    QTimer::singleShot(delay + m_service.options.headTimeout, socket, &QTcpSocket::abort);
    const HttpReply reply = m_service.errorReply(
        503, u"The server has %1 connections open, as many as it takes; try again later."_s.arg(m_open.size()));
    QTimer::singleShot(delay, socket, [socket, reply] {
        socket->write(HttpWire::wholeResponse(reply.status, reply.headers, reply.body, true, false, QDateTime::currentDateTimeUtc()));
        socket->disconnectFromHost();
    });
}

// A peer told at once to go away may come back at once, and again, as fast as both can: a
// refusal's answer waits a while, so that a loop of reconnections runs no faster than that.
// Waiting holds a socket each, so only so many wait; the rest are answered at once.
std::chrono::milliseconds HttpServer::delayRefusal(QObject *holder)
{
    if (m_delayedRefusals >= m_service.options.maxDelayedRefusals)
        return std::chrono::milliseconds(0);
    ++m_delayedRefusals;
    connect(holder, &QObject::destroyed, this, [this] { --m_delayedRefusals; });
    return m_service.options.refusalDelay;
}

void HttpServer::updateHeadTimeout()
{
    const int unadmitted = unadmittedCount();
    const bool pressed = HttpConnectionQuota::underPressure(unadmitted, m_service.options);
    // Said once a minute at most: the count may hover around the threshold.
    if (pressed && !m_underPressure && (!m_pressureSaid.isValid() || m_pressureSaid.hasExpired(60'000))) {
        m_pressureSaid.start();
        spdlog::info("HTTP server on {} port {}: {} connections have had no request admitted; heads now get {} ms, "
                     "and newcomers take the places of the oldest",
                     serverAddress().toString(), serverPort(), unadmitted,
                     HttpConnectionQuota::headTimeout(unadmitted, m_service.options).count());
    }
    m_underPressure = pressed;
    m_service.headTimeout = HttpConnectionQuota::headTimeout(unadmitted, m_service.options);
}

} // namespace Tether
