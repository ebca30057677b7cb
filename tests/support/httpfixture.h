#pragma once

#include <QElapsedTimer>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>
#include <QUrl>

#include <functional>

namespace Tether::Testing {

// One request as the fixture received it; header names in lower case.
struct FixtureRequest
{
    QByteArray method;
    QByteArray path; // with the query
    QHash<QByteArray, QByteArray> headers;
    QByteArray body;
    qint64 receivedAtMs = 0; // on the fixture's clock

    QByteArray header(const QByteArray &name) const { return headers.value(name.toLower()); }
    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QString rpcMethod() const { return json().value(QLatin1StringView("method")).toString(); }
};

struct FixtureReply
{
    enum class Delivery {
        Whole,       // with Content-Length, then the connection closes
        ByteAtATime, // with Content-Length; the headers at once, the body one byte per event-loop turn
        Stream,      // no Content-Length; the body so far is sent and the connection stays open
        Cut,         // no Content-Length; the body is sent and the connection closes: a stream cut off
        Drop,        // the connection closes with no response at all
    };

    int status = 200;
    QList<std::pair<QByteArray, QByteArray>> headers;
    QByteArray body;
    Delivery delivery = Delivery::Whole;
};

// A scripted HTTP/1.1 server on loopback that answers each request with what the test's
// handler returns, byte for byte, and records every request. Every reply closes its
// connection (or stays open as a stream the test writes to), so timing and bytes are exactly
// the test's.
class HttpFixture final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HttpFixture)

public:
    using Handler = std::function<FixtureReply(const FixtureRequest &)>;

    HttpFixture()
    {
        m_clock.start();
        m_server.listen(QHostAddress::LocalHost);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                // Each dribbled byte leaves at once instead of waiting for the previous one's ACK.
                socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onData(socket); });
            }
        });
    }

    void setHandler(Handler handler) { m_handler = std::move(handler); }
    QUrl url(const QString &path = QStringLiteral("/mcp")) const
    {
        return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(m_server.serverPort()).arg(path));
    }
    qint64 now() const { return m_clock.elapsed(); }

    QList<FixtureRequest> requests;

    QList<FixtureRequest> requestsFor(const QByteArray &method) const
    {
        QList<FixtureRequest> found;
        for (const FixtureRequest &request : requests) {
            if (request.method == method)
                found.append(request);
        }
        return found;
    }
    // The POSTed JSON-RPC messages with this method.
    QList<FixtureRequest> posts(const QString &rpcMethod) const
    {
        QList<FixtureRequest> found;
        for (const FixtureRequest &request : requests) {
            if (request.method == "POST" && request.rpcMethod() == rpcMethod)
                found.append(request);
        }
        return found;
    }

    // Writes to the streams left open (Delivery::Stream), newest last.
    int openStreamCount() const { return int(std::count_if(m_streams.cbegin(), m_streams.cend(), [](const auto &s) { return !s.isNull(); })); }
    void writeToStream(const QByteArray &bytes)
    {
        if (QTcpSocket *stream = lastStream())
            stream->write(bytes);
    }
    // Writes to the open stream `index`, counted from the oldest still open.
    void writeToStream(const QByteArray &bytes, int index)
    {
        QList<QTcpSocket *> open;
        for (const QPointer<QTcpSocket> &stream : std::as_const(m_streams)) {
            if (stream)
                open.append(stream);
        }
        if (index >= 0 && index < open.size())
            open.at(index)->write(bytes);
    }
    // Ends the newest open stream; returns when that happened on the fixture's clock.
    qint64 closeStream()
    {
        if (QTcpSocket *stream = lastStream())
            stream->disconnectFromHost();
        return now();
    }

private:
    QTcpSocket *lastStream() const
    {
        for (auto it = m_streams.crbegin(); it != m_streams.crend(); ++it) {
            if (*it)
                return *it;
        }
        return nullptr;
    }

    void onData(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer.append(socket->readAll());
        const qsizetype headerEnd = buffer.indexOf("\r\n\r\n");
        if (headerEnd < 0)
            return;
        FixtureRequest request;
        const QList<QByteArray> lines = buffer.first(headerEnd).split('\n');
        const QList<QByteArray> requestLine = lines.first().trimmed().split(' ');
        request.method = requestLine.value(0);
        request.path = requestLine.value(1);
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const qsizetype colon = lines[i].indexOf(':');
            if (colon > 0)
                request.headers.insert(lines[i].first(colon).trimmed().toLower(), lines[i].sliced(colon + 1).trimmed());
        }
        const qsizetype length = request.header("content-length").toLongLong();
        if (buffer.size() < headerEnd + 4 + length)
            return;
        request.body = buffer.sliced(headerEnd + 4, length);
        request.receivedAtMs = now();
        m_buffers.remove(socket);
        requests.append(request);
        respond(socket, m_handler ? m_handler(request) : FixtureReply{404, {}, {}, FixtureReply::Delivery::Whole});
    }

    void respond(QTcpSocket *socket, const FixtureReply &reply)
    {
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        if (reply.delivery == FixtureReply::Delivery::Drop) {
            socket->disconnectFromHost();
            return;
        }
        QByteArray head = "HTTP/1.1 " + QByteArray::number(reply.status) + ' ' + reasonPhrase(reply.status) + "\r\n";
        for (const auto &[name, value] : reply.headers)
            head += name + ": " + value + "\r\n";
        head += "Connection: close\r\n";
        if (reply.delivery == FixtureReply::Delivery::Whole || reply.delivery == FixtureReply::Delivery::ByteAtATime)
            head += "Content-Length: " + QByteArray::number(reply.body.size()) + "\r\n";
        head += "\r\n";
        switch (reply.delivery) {
        case FixtureReply::Delivery::Whole:
        case FixtureReply::Delivery::Cut:
            socket->write(head + reply.body);
            socket->disconnectFromHost();
            break;
        case FixtureReply::Delivery::Stream:
            socket->write(head + reply.body);
            m_streams.append(socket);
            break;
        case FixtureReply::Delivery::ByteAtATime:
            socket->write(head);
            dribble(socket, reply.body);
            break;
        case FixtureReply::Delivery::Drop:
            break;
        }
    }

    void dribble(QPointer<QTcpSocket> socket, QByteArray bytes)
    {
        if (!socket)
            return;
        if (bytes.isEmpty()) {
            socket->disconnectFromHost();
            return;
        }
        socket->write(bytes.first(1));
        socket->flush();
        QTimer::singleShot(0, this, [this, socket, rest = bytes.sliced(1)] { dribble(socket, rest); });
    }

    static QByteArray reasonPhrase(int status)
    {
        switch (status) {
        case 200: return "OK";
        case 202: return "Accepted";
        case 302: return "Found";
        case 307: return "Temporary Redirect";
        case 400: return "Bad Request";
        case 401: return "Unauthorized";
        case 403: return "Forbidden";
        case 404: return "Not Found";
        case 405: return "Method Not Allowed";
        case 500: return "Internal Server Error";
        case 502: return "Bad Gateway";
        case 503: return "Service Unavailable";
        default: return "Status";
        }
    }

    QTcpServer m_server;
    QElapsedTimer m_clock;
    Handler m_handler;
    QHash<QTcpSocket *, QByteArray> m_buffers;
    QList<QPointer<QTcpSocket>> m_streams;
};

} // namespace Tether::Testing
