#include "loopbackreceiver.h"

#include <QTcpSocket>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace Tether {

LoopbackReceiver::Request LoopbackReceiver::Request::read(QByteArrayView received)
{
    const qsizetype end = received.indexOf("\r\n\r\n");
    if (end < 0)
        return {received.size() > MaxHeadBytes ? Kind::TooLarge : Kind::Incomplete, {}};
    if (end + 4 > MaxHeadBytes)
        return {Kind::TooLarge, {}};
    const qsizetype lineEnd = received.indexOf("\r\n");
    const QList<QByteArray> parts = received.first(lineEnd).toByteArray().split(' ');
    if (parts.size() != 3 || !parts[2].startsWith("HTTP/1."))
        return {Kind::Malformed, {}};
    const QByteArray &target = parts[1];
    const qsizetype question = target.indexOf('?');
    const QByteArray path = question < 0 ? target : target.first(question);
    if (parts[0] != "GET" || path != "/callback")
        return {Kind::NotCallback, {}};
    return {Kind::Callback, question < 0 ? QByteArray() : target.sliced(question + 1)};
}

LoopbackReceiver::LoopbackReceiver(std::chrono::milliseconds connectionTimeout, QObject *parent)
    : QObject(parent)
    , m_connectionTimeout(connectionTimeout)
{
    connect(&m_server, &QTcpServer::newConnection, this, &LoopbackReceiver::accept);
}

LoopbackReceiver::~LoopbackReceiver() = default;

bool LoopbackReceiver::listen(quint16 port)
{
    if (!m_server.listen(QHostAddress::LocalHost, port))
        return false;
    m_redirectUri = QUrl(u"http://127.0.0.1:%1/callback"_s.arg(m_server.serverPort()));
    return true;
}

QString LoopbackReceiver::errorString() const
{
    return m_server.errorString();
}

QUrl LoopbackReceiver::redirectUri() const
{
    return m_redirectUri;
}

void LoopbackReceiver::accept()
{
    while (QTcpSocket *socket = m_server.nextPendingConnection()) {
        socket->setParent(this);
        m_received.insert(socket, {});
        auto *timer = new QTimer(socket);
        timer->setSingleShot(true);
        connect(timer, &QTimer::timeout, socket, [socket] { socket->abort(); });
        timer->start(m_connectionTimeout);
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { readFrom(socket); });
        connect(socket, &QTcpSocket::disconnected, this, [this, socket] {
            m_received.remove(socket);
            socket->deleteLater();
        });
    }
}

void LoopbackReceiver::readFrom(QTcpSocket *socket)
{
    if (!m_received.contains(socket)) {
        socket->readAll(); // past its one request: dropped, and not left to reset the connection on close
        return;
    }
    QByteArray &received = m_received[socket];
    received += socket->read(MaxHeadBytes + 4 - received.size());
    const Request request = Request::read(received);
    switch (request.kind) {
    case Request::Kind::Incomplete:
        return;
    case Request::Kind::TooLarge:
        m_received.remove(socket);
        socket->readAll();
        return answer(socket, "431 Request Header Fields Too Large", {});
    case Request::Kind::Malformed:
        m_received.remove(socket);
        return answer(socket, "400 Bad Request", {});
    case Request::Kind::NotCallback:
        m_received.remove(socket);
        return answer(socket, "404 Not Found", {});
    case Request::Kind::Callback:
        m_received.remove(socket);
        if (m_called)
            return answer(socket, "404 Not Found", {});
        m_called = true;
        // Held until finish(); the token exchange may take longer than a connection may idle.
        delete socket->findChild<QTimer *>();
        m_held = socket;
        m_server.close();
        emit callbackReceived(request.query);
        return;
    }
}

void LoopbackReceiver::finish(bool succeeded, const QString &text)
{
    m_server.close();
    if (!m_held)
        return;
    const QByteArray html = "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Tether sign-in</title></head>"
                            "<body><p>"
                            + text.toHtmlEscaped().toUtf8() + "</p></body></html>\n";
    answer(std::exchange(m_held, nullptr), succeeded ? "200 OK" : "400 Bad Request", html);
}

void LoopbackReceiver::answer(QTcpSocket *socket, QByteArrayView status, const QByteArray &html)
{
    socket->write("HTTP/1.1 " + status.toByteArray() + "\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: "
                  + QByteArray::number(html.size()) + "\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n" + html);
    // Into the kernel now: the receiver, and the socket with it, may be gone before the event loop writes.
    socket->flush();
    socket->disconnectFromHost();
}

} // namespace Tether
