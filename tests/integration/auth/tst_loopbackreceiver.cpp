// The redirect URI's listener: 127.0.0.1 only, one request head per connection within a cap and
// a time, 404 for all but GET /callback, and the browser's callback held until the sign-in
// ended, then answered with the outcome.
#include "auth/loopbackreceiver.h"

#include "support/rawhttpclient.h"

#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

class TestLoopbackReceiver final : public QObject
{
    Q_OBJECT

private slots:
    void listensOnLoopbackAlone()
    {
        LoopbackReceiver receiver;
        QVERIFY(receiver.listen());
        const QUrl uri = receiver.redirectUri();
        QCOMPARE(uri.scheme(), u"http"_s);
        QCOMPARE(uri.host(), u"127.0.0.1"_s);
        QCOMPARE(uri.path(), u"/callback"_s);
        QVERIFY(uri.port() > 0);
        // The given port, while it is free.
        const quint16 port = quint16(uri.port());
        LoopbackReceiver second;
        QVERIFY(!second.listen(port));
        QVERIFY(!second.errorString().isEmpty());
    }

    void givenPort()
    {
        quint16 port = 0;
        {
            LoopbackReceiver first;
            QVERIFY(first.listen());
            port = quint16(first.redirectUri().port());
        }
        LoopbackReceiver receiver;
        QVERIFY(receiver.listen(port));
        QCOMPARE(receiver.redirectUri().port(), int(port));
    }

    void callbackHeldUntilFinished()
    {
        LoopbackReceiver receiver;
        QVERIFY(receiver.listen());
        QSignalSpy callbacks(&receiver, &LoopbackReceiver::callbackReceived);
        RawHttpClient browser;
        RawHttpClient other; // connected before the callback came
        QVERIFY(browser.connectTo(quint16(receiver.redirectUri().port())));
        QVERIFY(other.connectTo(quint16(receiver.redirectUri().port())));
        browser.send("GET /callback?code=a%2Bb&state=s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        QVERIFY(callbacks.wait(5000));
        QCOMPARE(callbacks.at(0).at(0).toByteArray(), QByteArray("code=a%2Bb&state=s"));
        // A second callback is not the browser's answer, and no one else may connect now.
        other.send("GET /callback?code=x&state=s HTTP/1.1\r\n\r\n");
        const std::optional<RawResponse> refused = other.nextResponse();
        QVERIFY(refused);
        QCOMPARE(refused->status, 404);
        QTcpSocket late;
        late.connectToHost(QHostAddress::LocalHost, quint16(receiver.redirectUri().port()));
        QVERIFY(!late.waitForConnected(2000));
        QVERIFY(browser.received.isEmpty());
        receiver.finish(true, u"Signed in to <docs>."_s);
        const std::optional<RawResponse> page = browser.nextResponse();
        QVERIFY(page);
        QCOMPARE(page->status, 200);
        QVERIFY(page->body.contains("Signed in to &lt;docs&gt;."));
        QVERIFY(browser.waitForClosed());
        QCOMPARE(callbacks.size(), 1);
    }

    void failureAnswered()
    {
        LoopbackReceiver receiver;
        QVERIFY(receiver.listen());
        QSignalSpy callbacks(&receiver, &LoopbackReceiver::callbackReceived);
        RawHttpClient browser;
        QVERIFY(browser.connectTo(quint16(receiver.redirectUri().port())));
        browser.send("GET /callback?error=access_denied HTTP/1.1\r\n\r\n");
        QVERIFY(callbacks.wait(5000));
        receiver.finish(false, u"Sign-in to docs failed: no"_s);
        const std::optional<RawResponse> page = browser.nextResponse();
        QVERIFY(page);
        QCOMPARE(page->status, 400);
        QVERIFY(page->body.contains("Sign-in to docs failed: no"));
    }

    void othersNotFound_data()
    {
        QTest::addColumn<QByteArray>("request");
        QTest::addColumn<int>("status");
        QTest::newRow("favicon") << QByteArray("GET /favicon.ico HTTP/1.1\r\n\r\n") << 404;
        QTest::newRow("post to callback") << QByteArray("POST /callback?code=c HTTP/1.1\r\nContent-Length: 0\r\n\r\n") << 404;
        QTest::newRow("callback prefix") << QByteArray("GET /callbacks?code=c HTTP/1.1\r\n\r\n") << 404;
        QTest::newRow("not http") << QByteArray("HELLO\r\n\r\n") << 400;
        QTest::newRow("head too large") << "GET /callback?code=c HTTP/1.1\r\nX: " + QByteArray(16 * 1024, 'a') << 431;
    }

    void othersNotFound()
    {
        QFETCH(QByteArray, request);
        QFETCH(int, status);
        LoopbackReceiver receiver;
        QVERIFY(receiver.listen());
        QSignalSpy callbacks(&receiver, &LoopbackReceiver::callbackReceived);
        RawHttpClient client;
        QVERIFY(client.connectTo(quint16(receiver.redirectUri().port())));
        client.send(request);
        const std::optional<RawResponse> response = client.nextResponse();
        QVERIFY(response);
        QCOMPARE(response->status, status);
        QVERIFY(client.waitForClosed());
        QVERIFY(callbacks.isEmpty());
    }

    void idleConnectionClosed()
    {
        LoopbackReceiver receiver(std::chrono::milliseconds(200));
        QVERIFY(receiver.listen());
        RawHttpClient client;
        QVERIFY(client.connectTo(quint16(receiver.redirectUri().port())));
        client.send("GET /callback?code=c HTTP/1.1\r\n"); // the head never ends
        QVERIFY(client.waitForClosed());
        QVERIFY(client.received.isEmpty());
    }

    void stopsListeningWhenFinished()
    {
        LoopbackReceiver receiver;
        QVERIFY(receiver.listen());
        const quint16 port = quint16(receiver.redirectUri().port());
        receiver.finish(false, u"timed out"_s);
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, port);
        QVERIFY(!socket.waitForConnected(2000));
    }
};

QTEST_GUILESS_MAIN(TestLoopbackReceiver)
#include "tst_loopbackreceiver.moc"
