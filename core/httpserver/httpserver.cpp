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

void HttpServer::acceptConnections()
{
    while (QTcpSocket *socket = m_listener->nextPendingConnection()) {
        if (m_connections.size() >= m_service.options.maxConnections) {
            refuseOverLimit(socket);
            continue;
        }
        auto *connection = new HttpConnection(socket, m_service, this);
        m_connections.insert(connection);
        connect(connection, &HttpConnection::closed, this, [this, connection] { m_connections.remove(connection); });
    }
}

// Answered 503 at once, without reading its request, and closed.
void HttpServer::refuseOverLimit(QTcpSocket *socket)
{
    socket->setParent(this);
    connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    QTimer::singleShot(m_service.options.headTimeout, socket, &QTcpSocket::abort);
    const HttpReply reply = m_service.errorReply(
        503, u"The server has %1 connections open, as many as it takes; try again later."_s.arg(m_connections.size()));
    socket->write(HttpWire::wholeResponse(reply.status, reply.headers, reply.body, true, false, QDateTime::currentDateTimeUtc()));
    socket->disconnectFromHost();
}

} // namespace Tether
