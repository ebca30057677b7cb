#pragma once

#include "httpserver/httpheaders.h"

#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslSocket>
#include <QTcpSocket>
#include <QTest>

#include <memory>
#include <optional>

namespace Tether::Testing {

// One response as a raw client read it; a chunked body de-chunked.
struct RawResponse
{
    int status = 0;
    HttpHeaders headers;
    QByteArray body;
};

// Takes the first whole response off the front of the bytes received, if it is there. A body
// with neither Content-Length nor chunks runs until the connection closed.
inline std::optional<RawResponse> takeResponse(QByteArray &bytes, bool closed)
{
    const qsizetype headEnd = bytes.indexOf("\r\n\r\n");
    if (headEnd < 0)
        return std::nullopt;
    RawResponse response;
    const QList<QByteArray> lines = bytes.first(headEnd).split('\n');
    response.status = lines.first().split(' ').value(1).toInt();
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const qsizetype colon = lines[i].indexOf(':');
        response.headers.append(lines[i].first(colon), lines[i].sliced(colon + 1).trimmed());
    }
    qsizetype at = headEnd + 4;
    const bool bodiless = response.status < 200 || response.status == 204 || response.status == 304;
    if (response.headers.hasToken("Transfer-Encoding", "chunked")) {
        for (;;) {
            const qsizetype sizeEnd = bytes.indexOf("\r\n", at);
            if (sizeEnd < 0)
                return std::nullopt;
            bool ok = false;
            const qsizetype size = bytes.sliced(at, sizeEnd - at).toLongLong(&ok, 16);
            if (!ok || bytes.size() < sizeEnd + 2 + size + 2)
                return std::nullopt;
            response.body += bytes.sliced(sizeEnd + 2, size);
            at = sizeEnd + 2 + size + 2;
            if (size == 0)
                break;
        }
    } else if (response.headers.contains("Content-Length") || bodiless) {
        const qsizetype length = response.headers.value("Content-Length").toLongLong();
        if (bytes.size() < at + length)
            return std::nullopt;
        response.body = bytes.sliced(at, length);
        at += length;
    } else {
        if (!closed)
            return std::nullopt;
        response.body = bytes.sliced(at);
        at = bytes.size();
    }
    bytes.remove(0, at);
    return response;
}

// An HTTP client on one socket that sends exactly the bytes it is given and reads exactly what
// comes back: for requests no ordinary client would send, pipelining, and many connections.
class RawHttpClient final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RawHttpClient)

public:
    // Plain TCP; with a CA certificate, TLS checked against it.
    explicit RawHttpClient(const QList<QSslCertificate> &caCertificates = {})
    {
        if (caCertificates.isEmpty()) {
            m_socket = std::make_unique<QTcpSocket>();
        } else {
            auto tls = std::make_unique<QSslSocket>();
            QSslConfiguration configuration = tls->sslConfiguration();
            configuration.setCaCertificates(caCertificates);
            tls->setSslConfiguration(configuration);
            m_socket = std::move(tls);
        }
        m_reading = connect(m_socket.get(), &QTcpSocket::readyRead, this, [this] { received += m_socket->readAll(); });
        connect(m_socket.get(), &QTcpSocket::disconnected, this, [this] {
            if (m_socket->isReadable())
                received += m_socket->readAll();
            m_closed = true;
        });
    }

    // Connects (TLS: and shakes hands); false when that did not happen within the time.
    bool connectTo(quint16 port, int timeoutMs = 5000)
    {
        if (auto *tls = qobject_cast<QSslSocket *>(m_socket.get())) {
            tls->connectToHostEncrypted(QStringLiteral("127.0.0.1"), port);
            return QTest::qWaitFor([tls] { return tls->isEncrypted(); }, timeoutMs);
        }
        m_socket->connectToHost(QHostAddress::LocalHost, port);
        return QTest::qWaitFor([this] { return m_socket->state() == QAbstractSocket::ConnectedState; }, timeoutMs);
    }

    // Nothing once the connection has closed.
    void send(const QByteArray &bytes)
    {
        if (m_socket->state() == QAbstractSocket::ConnectedState)
            m_socket->write(bytes);
    }
    // From now on nothing more is read: the peer's bytes pile up in the kernel's buffers, as
    // with a peer that has stopped reading.
    void stopReading()
    {
        disconnect(m_reading);
        m_socket->setReadBufferSize(1);
    }
    // Reads again, first what piled up.
    void resumeReading()
    {
        m_socket->setReadBufferSize(0);
        m_reading = connect(m_socket.get(), &QTcpSocket::readyRead, this, [this] { received += m_socket->readAll(); });
        received += m_socket->readAll();
    }
    void close() { m_socket->abort(); }

    // The next whole response, waiting for it; nothing when none came within the time.
    std::optional<RawResponse> nextResponse(int timeoutMs = 5000)
    {
        std::optional<RawResponse> response;
        if (!QTest::qWaitFor([this, &response] { return (response = takeResponse(received, m_closed)).has_value(); }, timeoutMs))
            return std::nullopt;
        return response;
    }

    bool waitForClosed(int timeoutMs = 5000)
    {
        return QTest::qWaitFor([this] { return m_closed; }, timeoutMs);
    }
    bool waitForBytes(QByteArrayView bytes, int timeoutMs = 5000)
    {
        return QTest::qWaitFor([this, bytes] { return received.contains(bytes); }, timeoutMs);
    }

    bool isClosed() const { return m_closed; }
    QTcpSocket &socket() { return *m_socket; }

    QByteArray received; // what came and no nextResponse() took yet

private:
    std::unique_ptr<QTcpSocket> m_socket;
    QMetaObject::Connection m_reading;
    bool m_closed = false;
};

} // namespace Tether::Testing
