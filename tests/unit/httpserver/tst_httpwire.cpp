#include "httpserver/httpwire.h"

#include <QTest>

using namespace Tether;

Q_DECLARE_METATYPE(HttpHeaders)
Q_DECLARE_METATYPE(HttpWire::Framing)

static const QDateTime SomeTime(QDate(1994, 11, 6), QTime(8, 49, 37), Qt::UTC);

static HttpWire::Framing framing(HttpWire::Framing::Body body, qint64 length = 0, bool closeAfter = false,
                                 bool keepAliveForHttp10 = false)
{
    HttpWire::Framing framing;
    framing.body = body;
    framing.contentLength = length;
    framing.closeAfter = closeAfter;
    framing.keepAliveForHttp10 = keepAliveForHttp10;
    return framing;
}

class TestHttpWire final : public QObject
{
    Q_OBJECT

private slots:
    void responseHead_data()
    {
        using Body = HttpWire::Framing::Body;
        QTest::addColumn<int>("status");
        QTest::addColumn<HttpHeaders>("headers");
        QTest::addColumn<HttpWire::Framing>("framing");
        QTest::addColumn<QByteArray>("head");
        const QByteArray date = "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n";

        QTest::newRow("length") << 200 << HttpHeaders{{"Content-Type", "application/json"}} << framing(Body::Length, 2)
                                << "HTTP/1.1 200 OK\r\n" + date + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n";
        QTest::newRow("chunked") << 200 << HttpHeaders{{"Content-Type", "text/event-stream"}} << framing(Body::Chunked)
                                 << "HTTP/1.1 200 OK\r\n" + date + "Content-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
        QTest::newRow("until close") << 200 << HttpHeaders{} << framing(Body::UntilClose, 0, true)
                                     << "HTTP/1.1 200 OK\r\n" + date + "Connection: close\r\n\r\n";
        QTest::newRow("keep-alive for HTTP/1.0") << 202 << HttpHeaders{} << framing(Body::Length, 0, false, true)
                                                 << "HTTP/1.1 202 Accepted\r\n" + date + "Content-Length: 0\r\nConnection: keep-alive\r\n\r\n";
        QTest::newRow("204 has no length") << 204 << HttpHeaders{} << framing(Body::Length)
                                           << "HTTP/1.1 204 No Content\r\n" + date + "\r\n";
        QTest::newRow("unregistered status") << 299 << HttpHeaders{} << framing(Body::Length)
                                             << "HTTP/1.1 299 \r\n" + date + "Content-Length: 0\r\n\r\n";
        QTest::newRow("the server's fields win")
            << 200 << HttpHeaders{{"content-length", "99"}, {"Connection", "upgrade"}, {"date", "x"}, {"Transfer-Encoding", "gzip"}}
            << framing(Body::Length, 1, true) << "HTTP/1.1 200 OK\r\n" + date + "Content-Length: 1\r\nConnection: close\r\n\r\n";
        QTest::newRow("CRLF in a value left out")
            << 401 << HttpHeaders{{"X-A", "a\r\nSet-Cookie: x"}, {"WWW-Authenticate", "Bearer"}} << framing(Body::Length)
            << "HTTP/1.1 401 Unauthorized\r\n" + date + "WWW-Authenticate: Bearer\r\nContent-Length: 0\r\n\r\n";
        QTest::newRow("name not a token left out") << 200 << HttpHeaders{{"X A", "b"}, {"", "c"}} << framing(Body::Length)
                                                   << "HTTP/1.1 200 OK\r\n" + date + "Content-Length: 0\r\n\r\n";
    }

    void responseHead()
    {
        QFETCH(int, status);
        QFETCH(HttpHeaders, headers);
        QFETCH(HttpWire::Framing, framing);
        QFETCH(QByteArray, head);
        QCOMPARE(HttpWire::responseHead(status, headers, framing, SomeTime), head);
    }

    void refusedFieldsNamed()
    {
        QByteArrayList refused;
        HttpWire::responseHead(200, {{"X-A", "a\nb"}, {"X-B", "ok"}, {"X C", "d"}}, {}, SomeTime, &refused);
        QCOMPARE(refused, (QByteArrayList{"X-A", "X C"}));
    }

    void chunks()
    {
        QCOMPARE(HttpWire::chunk("hello"), QByteArray("5\r\nhello\r\n"));
        QCOMPARE(HttpWire::chunk(QByteArray(26, 'x')), "1a\r\n" + QByteArray(26, 'x') + "\r\n");
        QCOMPARE(HttpWire::chunk(""), QByteArray());
        QCOMPARE(HttpWire::LastChunk.toByteArray(), QByteArray("0\r\n\r\n"));
    }

    void eventStreamMessages_data()
    {
        QTest::addColumn<QByteArray>("data");
        QTest::addColumn<QByteArray>("message");
        QTest::newRow("compact JSON") << QByteArray(R"({"jsonrpc":"2.0","id":1,"result":{}})")
                                      << QByteArray("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n");
        QTest::newRow("empty") << QByteArray() << QByteArray("data: \n\n");
        QTest::newRow("LF") << QByteArray("a\nb") << QByteArray("data: a\ndata: b\n\n");
        QTest::newRow("CRLF") << QByteArray("a\r\nb") << QByteArray("data: a\ndata: b\n\n");
        QTest::newRow("CR") << QByteArray("a\rb") << QByteArray("data: a\ndata: b\n\n");
        QTest::newRow("trailing LF") << QByteArray("a\n") << QByteArray("data: a\ndata: \n\n");
    }

    void eventStreamMessages()
    {
        QFETCH(QByteArray, data);
        QFETCH(QByteArray, message);
        QCOMPARE(HttpWire::eventStreamMessage(data), message);
    }

    void dates()
    {
        QCOMPARE(HttpWire::httpDate(SomeTime), QByteArray("Sun, 06 Nov 1994 08:49:37 GMT"));
        QCOMPARE(HttpWire::httpDate(SomeTime.toOffsetFromUtc(3600)), QByteArray("Sun, 06 Nov 1994 08:49:37 GMT"));
    }

    void headers()
    {
        HttpHeaders headers{{"Accept", "application/json"}, {"X-Token", "a"}, {"accept", "text/event-stream"}};
        QCOMPARE(headers.value("ACCEPT"), QByteArray("application/json, text/event-stream"));
        QCOMPARE(headers.values("accept"), (QByteArrayList{"application/json", "text/event-stream"}));
        QVERIFY(headers.contains("x-token"));
        QVERIFY(!headers.contains("X-Other"));
        QCOMPARE(headers.value("X-Other"), QByteArray());
        QVERIFY(headers.hasToken("Accept", "TEXT/EVENT-STREAM"));
        QVERIFY(!headers.hasToken("Accept", "text"));
        headers.remove("ACCEPT");
        QCOMPARE(headers.size(), 1);
        QCOMPARE(headers.fields().first().first, QByteArray("X-Token"));
    }
};

QTEST_GUILESS_MAIN(TestHttpWire)
#include "tst_httpwire.moc"
