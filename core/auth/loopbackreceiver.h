#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QTcpServer>
#include <QUrl>

#include <chrono>

class QTcpSocket;
class QTimer;

namespace Tether {

// The redirect URI of a sign-in, http://127.0.0.1:<port>/callback (RFC 8252 §7.3), listening
// on the loopback interface alone. The first GET /callback is the browser's answer: it is
// reported and held open, so that the browser's page can say how the sign-in ended once the
// token exchange has; anything else is answered 404. Each connection may send one request
// head of at most MaxHeadBytes within the connection timeout.
class LoopbackReceiver final : public QObject
{
    Q_OBJECT

public:
    static constexpr qsizetype MaxHeadBytes = 16 * 1024;

    // What a connection has sent so far amounts to.
    struct Request
    {
        enum class Kind { Incomplete, TooLarge, Malformed, NotCallback, Callback };
        Kind kind = Kind::Incomplete;
        QByteArray query; // of a callback, as sent

        static Request read(QByteArrayView received);
    };

    explicit LoopbackReceiver(std::chrono::milliseconds connectionTimeout = std::chrono::seconds(10),
                              QObject *parent = nullptr);
    ~LoopbackReceiver() override;
    Q_DISABLE_COPY_MOVE(LoopbackReceiver)

    // On `port`, or on one the system picks when 0; false when taken (errorString() says why).
    bool listen(quint16 port = 0);
    QString errorString() const;
    QUrl redirectUri() const; // stays after the listener closed: the token request names it too

    // Answers the held callback with a page that says `text` (HTML-escaped), and stops listening.
    void finish(bool succeeded, const QString &text);

signals:
    // Once, for the first GET /callback.
    void callbackReceived(const QByteArray &query);

private:
    void accept();
    void readFrom(QTcpSocket *socket);
    static void answer(QTcpSocket *socket, QByteArrayView status, const QByteArray &html);

    QTcpServer m_server;
    QUrl m_redirectUri;
    std::chrono::milliseconds m_connectionTimeout;
    QHash<QTcpSocket *, QByteArray> m_received;
    QPointer<QTcpSocket> m_held;
    bool m_called = false;
};

} // namespace Tether
