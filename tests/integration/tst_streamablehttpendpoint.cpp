// The Streamable HTTP endpoint in-process, spoken to byte by byte: a session's life (initialize,
// 202 for notifications, JSON answers, the GET stream, DELETE), idle sessions expiring, the cap
// on sessions (an idle one gives way, else 503), a refused initialize opening nothing, and TLS.
#include "gateway/gateway.h"
#include "gateway/streamablehttpendpoint.h"

#include "support/rawhttpclient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QScopeGuard>
#include <QTest>

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

const QByteArray Token = "test-token-0123456789abcdef";
const QByteArray Initialize = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}})";
const QByteArray Ping = R"({"jsonrpc":"2.0","id":"p","method":"ping"})";

QString tlsFile(const char *name)
{
    return QStringLiteral(TETHER_TEST_DATA "/tls/") + QLatin1StringView(name);
}

StreamableHttpEndpoint::Options options(std::chrono::milliseconds expiry = std::chrono::minutes(30), int maxSessions = 64)
{
    StreamableHttpEndpoint::Options options;
    options.http.port = 0;
    options.token = Token;
    options.tokenFile = u"/tmp/gateway-token"_s;
    options.instanceId = u"instance"_s;
    options.sessionIdleExpiry = expiry;
    options.maxSessions = maxSessions;
    return options;
}

// One connection to the endpoint, with the headers an SDK client sends.
class Client final
{
public:
    explicit Client(const StreamableHttpEndpoint &endpoint, const QList<QSslCertificate> &ca = {})
        : m_raw(ca)
        , m_port(endpoint.port())
    {
        m_connected = m_raw.connectTo(m_port);
    }

    std::optional<RawResponse> request(const QByteArray &method, const QByteArray &sessionId = {},
                                       const QByteArray &body = {})
    {
        send(method, sessionId, body);
        return m_raw.nextResponse();
    }

    void send(const QByteArray &method, const QByteArray &sessionId = {}, const QByteArray &body = {})
    {
        QByteArray request = method + " /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(m_port)
                             + "\r\nAuthorization: Bearer " + Token
                             + "\r\nAccept: " + (method == "GET" ? "text/event-stream" : "application/json, text/event-stream")
                             + "\r\n";
        if (!sessionId.isEmpty())
            request += "Mcp-Session-Id: " + sessionId + "\r\n";
        if (method == "POST")
            request += "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n";
        m_raw.send(request + "\r\n" + body);
    }

    // Opens a session: its id.
    QByteArray initialize()
    {
        const auto response = request("POST", {}, Initialize);
        return response && response->status == 200 ? response->headers.value("Mcp-Session-Id") : QByteArray();
    }

    bool connected() const { return m_connected; }
    RawHttpClient &raw() { return m_raw; }

private:
    RawHttpClient m_raw;
    quint16 m_port;
    bool m_connected = false;
};

} // namespace

class TestStreamableHttpEndpoint final : public QObject
{
    Q_OBJECT

private:
    ServerManager m_manager; // no servers: the sessions are what is tested
    Gateway m_gateway{m_manager};

private slots:
    void aSessionFromInitializeToDelete()
    {
        StreamableHttpEndpoint endpoint(m_gateway, options());
        QVERIFY2(endpoint.listen(), qPrintable(endpoint.errorString()));
        QCOMPARE(endpoint.url(), u"http://127.0.0.1:%1/mcp"_s.arg(endpoint.port()));
        Client client(endpoint);
        QVERIFY(client.connected());

        const auto initialized = client.request("POST", {}, Initialize);
        QVERIFY(initialized);
        QCOMPARE(initialized->status, 200);
        QCOMPARE(initialized->headers.value("Content-Type"), QByteArray("application/json"));
        const QByteArray sessionId = initialized->headers.value("Mcp-Session-Id");
        QCOMPARE(sessionId.size(), 32);
        QCOMPARE(QJsonDocument::fromJson(initialized->body).object().value(u"result").toObject().value(u"protocolVersion"),
                 u"2025-06-18"_s);
        QCOMPARE(endpoint.sessionCount(), 1);

        const auto notified = client.request("POST", sessionId, R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
        QVERIFY(notified);
        QCOMPARE(notified->status, 202);
        QVERIFY(notified->body.isEmpty());
        const auto listed = client.request("POST", sessionId, R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})");
        QVERIFY(listed);
        QCOMPARE(listed->status, 200);
        QCOMPARE(QJsonDocument::fromJson(listed->body).object().value(u"result").toObject().value(u"tools").toArray(),
                 QJsonArray());
        // The same id while the first is answered already: fine.
        const auto again = client.request("POST", sessionId, R"({"jsonrpc":"2.0","id":2,"method":"ping"})");
        QVERIFY(again && again->status == 200);

        // The notification stream stays open until the session ends.
        Client stream(endpoint);
        stream.send("GET", sessionId);
        QVERIFY(stream.raw().waitForBytes("text/event-stream"));
        QVERIFY(!stream.raw().received.contains("0\r\n\r\n"));
        const auto deleted = client.request("DELETE", sessionId);
        QVERIFY(deleted);
        QCOMPARE(deleted->status, 200);
        QVERIFY(stream.raw().waitForBytes("0\r\n\r\n"));
        QCOMPARE(endpoint.sessionCount(), 0);
        const auto gone = client.request("POST", sessionId, Ping);
        QVERIFY(gone);
        QCOMPARE(gone->status, 404);
        QVERIFY(QJsonDocument::fromJson(gone->body).object().value(u"error").toObject().value(u"message").toString().contains(
            u"initialize a new session"_s));
    }

    void aSessionEndedWhileABodyCameIsNotFound()
    {
        StreamableHttpEndpoint endpoint(m_gateway, options());
        QVERIFY(endpoint.listen());
        Client client(endpoint);
        const QByteArray sessionId = client.initialize();
        QVERIFY(!sessionId.isEmpty());
        // The head is admitted (the session exists: "100 Continue" says so); the body comes later.
        Client slow(endpoint);
        slow.raw().send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(endpoint.port())
                        + "\r\nAuthorization: Bearer " + Token + "\r\nMcp-Session-Id: " + sessionId
                        + "\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: "
                        + QByteArray::number(Ping.size()) + "\r\n\r\n");
        QVERIFY(slow.raw().waitForBytes("HTTP/1.1 100 Continue\r\n\r\n"));
        slow.raw().received.clear();
        QCOMPARE(client.request("DELETE", sessionId)->status, 200);
        slow.raw().send(Ping);
        const auto response = slow.raw().nextResponse();
        QVERIFY(response);
        QCOMPARE(response->status, 404);
    }

    void aRefusedInitializeOpensNothing()
    {
        StreamableHttpEndpoint endpoint(m_gateway, options());
        QVERIFY(endpoint.listen());
        Client client(endpoint);
        const auto refused = client.request("POST", {}, R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})");
        QVERIFY(refused);
        QCOMPARE(refused->status, 200);
        QCOMPARE(QJsonDocument::fromJson(refused->body).object().value(u"error").toObject().value(u"code").toInt(), -32602);
        QVERIFY(!refused->headers.contains("Mcp-Session-Id"));
        QCOMPARE(endpoint.sessionCount(), 0);
    }

    void idleSessionsExpire()
    {
        const auto log = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(64);
        const std::shared_ptr<spdlog::logger> previous = spdlog::default_logger();
        spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", log));
        const auto restore = qScopeGuard([&previous] { spdlog::set_default_logger(previous); });
        StreamableHttpEndpoint endpoint(m_gateway, options(std::chrono::milliseconds(300)));
        QVERIFY(endpoint.listen());
        Client client(endpoint);
        const QByteArray idle = client.initialize();
        const QByteArray listening = client.initialize();
        QVERIFY(!idle.isEmpty() && !listening.isEmpty());
        // A session with its stream open is not idle, however long it is quiet.
        Client stream(endpoint);
        stream.send("GET", listening);
        QVERIFY(stream.raw().waitForBytes("text/event-stream"));
        QTRY_COMPARE_WITH_TIMEOUT(endpoint.sessionCount(), 1, 5000);
        QCOMPARE(client.request("POST", listening, Ping)->status, 200);
        QCOMPARE(client.request("POST", idle, Ping)->status, 404); // a refusal with a body closes the connection
        // One line in the log says which session ended, and how long it had been idle.
        QStringList ended;
        for (const std::string &line : log->last_formatted()) {
            if (QString::fromStdString(line).contains(u"left (http session"_s))
                ended.append(QString::fromStdString(line));
        }
        QCOMPARE(ended.size(), 1);
        QVERIFY2(ended.first().contains(u"raw 1 left (http session %1…, idle for "_s.arg(QString::fromLatin1(idle.first(8)))),
                 qPrintable(ended.first()));
        QVERIFY2(ended.first().contains(u": no request and no stream open for 300 ms"_s), qPrintable(ended.first()));
    }

    void theSessionCapGivesWayToIdleSessionsOnly()
    {
        StreamableHttpEndpoint endpoint(m_gateway, options(std::chrono::minutes(30), 2));
        QVERIFY(endpoint.listen());
        Client client(endpoint);
        const QByteArray first = client.initialize();
        const QByteArray second = client.initialize();
        QVERIFY(!first.isEmpty() && !second.isEmpty());
        Client firstStream(endpoint);
        firstStream.send("GET", first);
        QVERIFY(firstStream.raw().waitForBytes("text/event-stream"));
        Client secondStream(endpoint);
        secondStream.send("GET", second);
        QVERIFY(secondStream.raw().waitForBytes("text/event-stream"));

        const auto full = client.request("POST", {}, Initialize);
        QVERIFY(full);
        QCOMPARE(full->status, 503);
        QVERIFY(QJsonDocument::fromJson(full->body).object().value(u"error").toObject().value(u"message").toString().contains(
            u"2 hosts are connected, as many as Tether serves at once"_s));

        // The second host goes away: its session is idle, and gives way to a new one.
        secondStream.raw().close();
        QByteArray third;
        QTRY_VERIFY_WITH_TIMEOUT(!(third = Client(endpoint).initialize()).isEmpty(), 5000);
        QCOMPARE(endpoint.sessionCount(), 2);
        QCOMPARE(Client(endpoint).request("POST", first, Ping)->status, 200);
        QCOMPARE(Client(endpoint).request("POST", second, Ping)->status, 404);
    }

    void aNewGetStreamReplacesTheOld()
    {
        // The old one may be a socket whose peer is gone without a word: the new one wins.
        StreamableHttpEndpoint endpoint(m_gateway, options());
        QVERIFY(endpoint.listen());
        Client client(endpoint);
        const QByteArray session = client.initialize();
        Client stream(endpoint);
        stream.send("GET", session);
        QVERIFY(stream.raw().waitForBytes("text/event-stream"));
        Client replacement(endpoint);
        replacement.send("GET", session);
        QVERIFY(replacement.raw().waitForBytes("text/event-stream"));
        QVERIFY(stream.raw().waitForBytes("0\r\n\r\n"));
        QVERIFY(!replacement.raw().received.contains("0\r\n\r\n"));
    }

    void metricsAnswerTheSourceOnceThereIsOne()
    {
        StreamableHttpEndpoint endpoint(m_gateway, options());
        QVERIFY(endpoint.listen());
        const QByteArray request = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(endpoint.port())
                                   + "\r\nAuthorization: Bearer " + Token + "\r\n\r\n";
        Client client(endpoint);
        client.raw().send(request);
        const auto none = client.raw().nextResponse();
        QVERIFY(none);
        QCOMPARE(none->status, 404);
        endpoint.setMetricsSource([] { return QByteArray("tether_build_info{version=\"0.1.0\"} 1\n"); });
        client.raw().send(request);
        const auto metrics = client.raw().nextResponse();
        QVERIFY(metrics);
        QCOMPARE(metrics->status, 200);
        QCOMPARE(metrics->headers.value("Content-Type"), QByteArray("text/plain; version=0.0.4; charset=utf-8"));
        QCOMPARE(metrics->body, QByteArray("tether_build_info{version=\"0.1.0\"} 1\n"));
    }

    void servesOverTls()
    {
        StreamableHttpEndpoint::Options tls = options();
        tls.http.tlsCertificate = tlsFile("certificate.pem");
        tls.http.tlsKey = tlsFile("key.pem");
        StreamableHttpEndpoint endpoint(m_gateway, tls);
        QVERIFY2(endpoint.listen(), qPrintable(endpoint.errorString()));
        QCOMPARE(endpoint.url(), u"https://127.0.0.1:%1/mcp"_s.arg(endpoint.port()));
        Client client(endpoint, QSslCertificate::fromPath(tlsFile("certificate.pem")));
        QVERIFY(client.connected());
        QVERIFY(!client.initialize().isEmpty());

        StreamableHttpEndpoint::Options broken = options();
        broken.http.tlsCertificate = u"/nonexistent/cert.pem"_s;
        broken.http.tlsKey = tlsFile("key.pem");
        StreamableHttpEndpoint refused(m_gateway, broken);
        QVERIFY(!refused.listen());
        QVERIFY2(refused.errorString().startsWith(u"gateway.http.tls: Cannot read the TLS certificate /nonexistent/cert.pem"_s),
                 qPrintable(refused.errorString()));
    }
};

QTEST_GUILESS_MAIN(TestStreamableHttpEndpoint)
#include "tst_streamablehttpendpoint.moc"
