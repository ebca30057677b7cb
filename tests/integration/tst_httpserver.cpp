#include "httpserver/httpresponse.h"
#include "httpserver/httpserver.h"
#include "httpserver/servertls.h"
#include "support/rawhttpclient.h"

#include <QEventLoop>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPointer>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSslCertificate>
#include <QTest>
#include <QTimer>

#include <memory>
#include <vector>

using namespace Tether;
using namespace Tether::Testing;
using namespace Qt::StringLiterals;

static QString tlsFile(const char *name)
{
    return QStringLiteral(TETHER_TEST_DATA "/tls/") + QLatin1StringView(name);
}

static QByteArray get(const QByteArray &path, const QByteArray &extraFields = {})
{
    return "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n" + extraFields + "\r\n";
}

static QByteArray post(const QByteArray &path, const QByteArray &body, const QByteArray &extraFields = {})
{
    return "POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n"
           + extraFields + "\r\n" + body;
}

static QJsonObject message(int id)
{
    return {{u"jsonrpc"_s, u"2.0"_s}, {u"method"_s, u"notifications/progress"_s}, {u"params"_s, QJsonObject{{u"progress"_s, id}}}};
}

// The event-stream bytes of message(id), as they appear inside a chunk.
static QByteArray eventOf(int id)
{
    return "data: " + QJsonDocument(message(id)).toJson(QJsonDocument::Compact) + "\n\n";
}

// Echoes each request as "METHOD path body" and remembers every request and response it got.
struct Recorder
{
    QList<HttpRequest> requests;
    QList<QPointer<HttpResponse>> responses;

    HttpHandler echo()
    {
        return [this](const HttpRequest &request, HttpResponse &response) {
            requests.append(request);
            responses.append(&response);
            response.send(200, {{"Content-Type", "text/plain"}}, request.method + ' ' + request.path + ' ' + request.body);
        };
    }
    // Keeps every response unanswered, for the test to answer.
    HttpHandler keep()
    {
        return [this](const HttpRequest &request, HttpResponse &response) {
            requests.append(request);
            responses.append(&response);
        };
    }
};

class TestHttpServer final : public QObject
{
    Q_OBJECT

private slots:
    void init()
    {
        // Whatever Qt warns about (a socket misused, a timer in the wrong thread) is a failure.
        QTest::failOnWarning(QRegularExpression(u".*"_s));
    }

    // QNetworkAccessManager: two requests, one after the other, on one kept-alive connection.
    void keepAliveReusesTheConnection()
    {
        HttpServer server;
        Recorder recorder;
        server.setHandler(recorder.echo());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        QNetworkAccessManager network;
        const QUrl url(u"http://127.0.0.1:%1/a?x=1"_s.arg(server.serverPort()));
        for (int i = 0; i < 2; ++i) {
            std::unique_ptr<QNetworkReply> reply(network.get(QNetworkRequest(url)));
            QTRY_VERIFY(reply->isFinished());
            QCOMPARE(reply->error(), QNetworkReply::NoError);
            QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
            QCOMPARE(reply->readAll(), QByteArray("GET /a "));
        }
        QCOMPARE(recorder.requests.size(), 2);
        QCOMPARE(recorder.requests[0].query, QByteArray("x=1"));
        QCOMPARE(recorder.requests[0].peerAddress, QHostAddress(QHostAddress::LocalHost));
        QCOMPARE(recorder.requests[1].peerPort, recorder.requests[0].peerPort);
        QCOMPARE(server.connectionCount(), 1);
    }

    // A raw client: three requests on one connection, each after the answer before.
    void rawKeepAlive()
    {
        HttpServer server;
        Recorder recorder;
        server.setHandler(recorder.echo());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RawHttpClient client;
        QVERIFY(client.connectTo(server.serverPort()));
        for (const QByteArray &path : {QByteArray("/1"), QByteArray("/2"), QByteArray("/3")}) {
            client.send(post(path, "body"));
            const std::optional<RawResponse> response = client.nextResponse();
            QVERIFY(response);
            QCOMPARE(response->status, 200);
            QCOMPARE(response->body, "POST " + path + " body");
            QVERIFY(!response->headers.contains("Connection"));
            QVERIFY(response->headers.contains("Date"));
        }
        QVERIFY(!client.isClosed());
    }

    // Requests sent before the answers: the second is not read before the first is answered,
    // and the answers come in order.
    void pipelinedRequestsAnsweredInOrder()
    {
        HttpServer server;
        Recorder recorder;
        server.setHandler(recorder.keep());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RawHttpClient client;
        QVERIFY(client.connectTo(server.serverPort()));
        QByteArray firstPart = get("/1") + post("/2", "two");
        firstPart.chop(1);
        client.send(firstPart);
        QTRY_COMPARE(recorder.requests.size(), 1);
        client.send("o" + get("/3", "Connection: close\r\n")); // arrives while /1 is being answered

        // A round trip on another connection: the server has run since; still one request.
        RawHttpClient other;
        QVERIFY(other.connectTo(server.serverPort()));
        other.send(get("/other"));
        QTRY_COMPARE(recorder.requests.size(), 2);
        QCOMPARE(recorder.requests[1].path, QByteArray("/other"));
        recorder.responses[1]->send(204);
        QVERIFY(other.nextResponse());
        QCOMPARE(recorder.requests.size(), 2);

        for (const int index : {0, 2, 3}) { // 1 is the other connection's
            QTRY_VERIFY(recorder.requests.size() > index);
            QVERIFY(recorder.responses[index]->send(200, {}, recorder.requests[index].path + recorder.requests[index].body));
        }
        QCOMPARE(recorder.requests[2].path, QByteArray("/2"));
        QCOMPARE(recorder.requests[3].path, QByteArray("/3"));
        for (const QByteArray &expected : {QByteArray("/1"), QByteArray("/2two"), QByteArray("/3")}) {
            const std::optional<RawResponse> response = client.nextResponse();
            QVERIFY(response);
            QCOMPARE(response->body, expected);
        }
        QVERIFY(client.waitForClosed()); // the last asked for Connection: close
    }

    // The handler returns at once; the response is answered later, through the kept pointer.
    void answeredAfterTheHandlerReturned()
    {
        HttpServer server;
        Recorder recorder;
        server.setHandler(recorder.keep());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        QNetworkAccessManager network;
        std::unique_ptr<QNetworkReply> reply(
            network.get(QNetworkRequest(QUrl(u"http://127.0.0.1:%1/later"_s.arg(server.serverPort())))));
        QTRY_COMPARE(recorder.responses.size(), 1);
        const QPointer<HttpResponse> response = recorder.responses.first();
        QVERIFY(!reply->isFinished());
        QCOMPARE(response->stage(), HttpResponse::Stage::Waiting);
        QVERIFY(response->send(200, {{"Content-Type", "application/json"}}, R"({"late":true})"));
        QVERIFY(!response->send(500)); // answered once
        QTRY_VERIFY(reply->isFinished());
        QCOMPARE(reply->readAll(), QByteArray(R"({"late":true})"));
        QTRY_VERIFY(response.isNull()); // released once answered
    }

    // An event stream read by QNetworkAccessManager as each event arrives.
    void eventStreamReadIncrementally()
    {
        HttpServer server;
        Recorder recorder;
        server.setHandler(recorder.keep());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        QNetworkAccessManager network;
        std::unique_ptr<QNetworkReply> reply(
            network.get(QNetworkRequest(QUrl(u"http://127.0.0.1:%1/stream"_s.arg(server.serverPort())))));
        QByteArray received;
        connect(reply.get(), &QNetworkReply::readyRead, this, [&] { received += reply->readAll(); });
        QTRY_COMPARE(recorder.responses.size(), 1);
        HttpResponse *response = recorder.responses.first();
        QVERIFY(response->beginEventStream({{"Mcp-Session-Id", "abc"}}));
        for (int id = 1; id <= 3; ++id) {
            QVERIFY(response->writeEvent(message(id)));
            QTRY_VERIFY(received.endsWith(eventOf(id)));
            QVERIFY(!reply->isFinished());
        }
        QCOMPARE(reply->header(QNetworkRequest::ContentTypeHeader).toString(), u"text/event-stream"_s);
        QCOMPARE(reply->rawHeader("Cache-Control"), QByteArray("no-cache"));
        QCOMPARE(reply->rawHeader("Mcp-Session-Id"), QByteArray("abc"));
        QVERIFY(response->end());
        QTRY_VERIFY(reply->isFinished());
        QCOMPARE(reply->error(), QNetworkReply::NoError);
        QCOMPARE(received, eventOf(1) + eventOf(2) + eventOf(3));
    }

    // The peer goes away mid-stream: aborted() once, writes refused, everything released.
    void peerClosingMidStreamAborts()
    {
        HttpServer server;
        Recorder recorder;
        server.setHandler(recorder.keep());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RawHttpClient client;
        QVERIFY(client.connectTo(server.serverPort()));
        client.send(get("/stream"));
        QTRY_COMPARE(recorder.responses.size(), 1);
        QPointer<HttpResponse> response = recorder.responses.first();
        QVERIFY(response->beginEventStream());
        QVERIFY(response->writeEvent(message(1)));
        QVERIFY(client.waitForBytes(eventOf(1)));
        int abortions = 0;
        bool refusedOnceAborted = false;
        connect(response, &HttpResponse::aborted, this, [&] {
            ++abortions;
            refusedOnceAborted = response->stage() == HttpResponse::Stage::Aborted && !response->writeEvent(message(2))
                                 && !response->end();
        });
        QSignalSpy destroyed(response, &QObject::destroyed);

        client.close();
        QTRY_COMPARE(abortions, 1);
        QVERIFY(refusedOnceAborted);
        QTRY_COMPARE(destroyed.size(), 1);
        QVERIFY(response.isNull());
        QCOMPARE(server.connectionCount(), 0);
        QCOMPARE(abortions, 1);
    }

    // The peer goes away before the handler answered: the same, so a pending call can be cancelled.
    void peerClosingBeforeTheAnswerAborts()
    {
        HttpServer server;
        Recorder recorder;
        server.setHandler(recorder.keep());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RawHttpClient client;
        QVERIFY(client.connectTo(server.serverPort()));
        client.send(post("/mcp", R"({"method":"tools/call"})"));
        QTRY_COMPARE(recorder.responses.size(), 1);
        QPointer<HttpResponse> response = recorder.responses.first();
        bool answerRefused = false;
        connect(response, &HttpResponse::aborted, this, [&] { answerRefused = !response->send(200); });
        client.close();
        QTRY_VERIFY(answerRefused);
        QTRY_VERIFY(response.isNull());
    }

    // A head sent a byte at a time, never finished: 408 when its time is up, however busy the
    // peer is, then closed.
    void slowlorisHeadTimesOut()
    {
        HttpServerOptions options;
        options.headTimeout = std::chrono::milliseconds(300);
        HttpServer server(options);
        Recorder recorder;
        server.setHandler(recorder.echo());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RawHttpClient client;
        QVERIFY(client.connectTo(server.serverPort()));
        client.send("GET / HTTP/1.1\r\nHost: localhost\r\n");
        QTimer dribble;
        connect(&dribble, &QTimer::timeout, this, [&client] { client.send("X"); });
        dribble.start(20);
        QVERIFY(client.waitForClosed());
        dribble.stop();
        const std::optional<RawResponse> response = takeResponse(client.received, true);
        QVERIFY(response);
        QCOMPARE(response->status, 408);
        QCOMPARE(response->headers.value("Connection"), QByteArray("close"));
        QVERIFY(recorder.requests.isEmpty());
        QTRY_COMPARE(server.connectionCount(), 0);
    }

    // A kept-alive connection with nothing in flight closes after the idle timeout.
    void idleConnectionCloses()
    {
        HttpServerOptions options;
        options.idleTimeout = std::chrono::milliseconds(200);
        HttpServer server(options);
        Recorder recorder;
        server.setHandler(recorder.echo());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RawHttpClient client;
        QVERIFY(client.connectTo(server.serverPort()));
        client.send(get("/"));
        QVERIFY(client.nextResponse());
        QVERIFY(client.waitForClosed());
        QVERIFY(client.received.isEmpty()); // closed quietly
        QTRY_COMPARE(server.connectionCount(), 0);
    }

    // An open stream outlives every timeout: keep-alive comments go out while it is silent.
    void openStreamHasNoTimeout()
    {
        HttpServerOptions options;
        options.headTimeout = std::chrono::milliseconds(100);
        options.idleTimeout = std::chrono::milliseconds(100);
        options.eventStreamKeepAlive = std::chrono::milliseconds(50);
        HttpServer server(options);
        Recorder recorder;
        server.setHandler(recorder.keep());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RawHttpClient client;
        QVERIFY(client.connectTo(server.serverPort()));
        client.send(get("/stream"));
        QTRY_COMPARE(recorder.responses.size(), 1);
        QVERIFY(recorder.responses.first()->beginEventStream());
        // Ten keep-alives take longer than both timeouts together.
        QTRY_VERIFY_WITH_TIMEOUT(client.received.count(": keepalive\n\n") >= 10, 10000);
        QVERIFY(!client.isClosed());
        QVERIFY(recorder.responses.first()->writeEvent(message(7)));
        QVERIFY(client.waitForBytes(eventOf(7)));
        QVERIFY(recorder.responses.first()->end());
        const std::optional<RawResponse> response = client.nextResponse();
        QVERIFY(response);
        QVERIFY(response->body.startsWith(": keepalive\n\n"));
        QVERIFY(response->body.endsWith(eventOf(7)));
    }

    // A Content-Length over the bound is refused from the head: no body byte was ever sent.
    void bodyOverTheLimitRefusedUnread()
    {
        HttpServer server;
        Recorder recorder;
        int admissions = 0;
        server.setAdmission([&admissions](const HttpRequest &) -> std::optional<HttpReply> {
            ++admissions;
            return std::nullopt;
        });
        server.setHandler(recorder.echo());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RawHttpClient client;
        QVERIFY(client.connectTo(server.serverPort()));
        client.send("POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 104857600\r\nExpect: 100-continue\r\n\r\n");
        const std::optional<RawResponse> response = client.nextResponse();
        QVERIFY(response);
        QCOMPARE(response->status, 413);
        QVERIFY(response->body.contains("larger than the 4194304 bytes"));
        QCOMPARE(response->headers.value("Connection"), QByteArray("close"));
        QCOMPARE(admissions, 0);
        QVERIFY(recorder.requests.isEmpty());
        QVERIFY(client.waitForClosed()); // after a pause in which no body came
        QTRY_COMPARE(server.connectionCount(), 0);
    }

    // An ordinary client that sends the whole body anyway still reads the 413.
    void bodyOverTheLimitRefusedToAnOrdinaryClient()
    {
        HttpServer server;
        Recorder recorder;
        server.setHandler(recorder.echo());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        QNetworkAccessManager network;
        QNetworkRequest request(QUrl(u"http://127.0.0.1:%1/mcp"_s.arg(server.serverPort())));
        request.setHeader(QNetworkRequest::ContentTypeHeader, u"application/json"_s);
        std::unique_ptr<QNetworkReply> reply(network.post(request, QByteArray(5 * 1024 * 1024, 'x')));
        QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 20000);
        QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 413);
        QVERIFY(recorder.requests.isEmpty());
    }

    // Admission sees the head (and the peer) before the body: a refusal goes out without
    // "100 Continue", and the handler never runs.
    void admissionRefusesBeforeTheBody()
    {
        HttpServer server;
        Recorder recorder;
        QList<HttpRequest> heads;
        server.setAdmission([&heads](const HttpRequest &head) -> std::optional<HttpReply> {
            heads.append(head);
            if (head.header("Authorization") != "Bearer right")
                return HttpReply{401, {{"WWW-Authenticate", "Bearer realm=\"tether\""}}, "no"};
            return std::nullopt;
        });
        server.setHandler(recorder.echo());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RawHttpClient client;
        QVERIFY(client.connectTo(server.serverPort()));
        client.send("POST /mcp HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer wrong\r\nExpect: 100-continue\r\n"
                    "Content-Length: 10\r\n\r\n");
        const std::optional<RawResponse> refused = client.nextResponse();
        QVERIFY(refused);
        QCOMPARE(refused->status, 401);
        QCOMPARE(refused->headers.value("WWW-Authenticate"), QByteArray("Bearer realm=\"tether\""));
        QCOMPARE(refused->headers.value("Connection"), QByteArray("close"));
        QCOMPARE(heads.size(), 1);
        QVERIFY(heads.first().body.isEmpty());
        QCOMPARE(heads.first().peerAddress, QHostAddress(QHostAddress::LocalHost));
        QVERIFY(recorder.requests.isEmpty());
        client.close(); // the server waits for that (the body it refused could still be coming)
        QTRY_COMPARE(server.connectionCount(), 0);
    }

    // A refused request without a body leaves the connection open for the next.
    void refusalWithoutABodyKeepsTheConnection()
    {
        HttpServer server;
        Recorder recorder;
        server.setAdmission([](const HttpRequest &head) -> std::optional<HttpReply> {
            if (head.path != "/mcp")
                return HttpReply{404, {}, "not here"};
            return std::nullopt;
        });
        server.setHandler(recorder.echo());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RawHttpClient client;
        QVERIFY(client.connectTo(server.serverPort()));
        client.send(get("/favicon.ico") + get("/mcp"));
        const std::optional<RawResponse> refused = client.nextResponse();
        QVERIFY(refused);
        QCOMPARE(refused->status, 404);
        QVERIFY(!refused->headers.contains("Connection"));
        const std::optional<RawResponse> answered = client.nextResponse();
        QVERIFY(answered);
        QCOMPARE(answered->body, QByteArray("GET /mcp "));
    }

    // "100 Continue" only once admitted, then the body, then the answer.
    void continueAfterAdmission()
    {
        HttpServer server;
        Recorder recorder;
        server.setAdmission([](const HttpRequest &) { return std::optional<HttpReply>(); });
        server.setHandler(recorder.echo());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RawHttpClient client;
        QVERIFY(client.connectTo(server.serverPort()));
        client.send("POST /mcp HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n");
        const std::optional<RawResponse> proceed = client.nextResponse();
        QVERIFY(proceed);
        QCOMPARE(proceed->status, 100);
        client.send("hello");
        const std::optional<RawResponse> answered = client.nextResponse();
        QVERIFY(answered);
        QCOMPARE(answered->status, 200);
        QCOMPARE(answered->body, QByteArray("POST /mcp hello"));
    }

    void malformedRequestsAnswered_data()
    {
        QTest::addColumn<QByteArray>("request");
        QTest::addColumn<int>("status");
        QTest::newRow("no Host") << QByteArray("GET / HTTP/1.1\r\n\r\n") << 400;
        QTest::newRow("chunked body") << QByteArray("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n") << 411;
        QTest::newRow("PUT") << QByteArray("PUT / HTTP/1.1\r\nHost: a\r\n\r\n") << 405;
        QTest::newRow("HTTP/2.0") << QByteArray("GET / HTTP/2.0\r\n\r\n") << 505;
        QTest::newRow("request line of 9 KiB") << "GET /" + QByteArray(9 * 1024, 'a') + " HTTP/1.1\r\n\r\n" << 414;
        QTest::newRow("101 fields") << "GET / HTTP/1.1\r\nHost: a\r\n" + QByteArray("X: y\r\n").repeated(100) + "\r\n" << 431;
        QTest::newRow("binary") << QByteArray("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n", 13) << 400;
    }

    void malformedRequestsAnswered()
    {
        QFETCH(QByteArray, request);
        QFETCH(int, status);
        HttpServer server;
        Recorder recorder;
        server.setHandler(recorder.echo());
        // As the gateway will: every refusal with a JSON-RPC error body.
        server.setErrorReply([](int errorStatus, const QString &reason) {
            const QJsonObject error{{u"code"_s, -32600}, {u"message"_s, reason}};
            return HttpReply{errorStatus, {{"Content-Type", "application/json"}},
                             QJsonDocument(QJsonObject{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, QJsonValue()}, {u"error"_s, error}})
                                 .toJson(QJsonDocument::Compact)};
        });
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RawHttpClient client;
        QVERIFY(client.connectTo(server.serverPort()));
        client.send(request);
        const std::optional<RawResponse> response = client.nextResponse();
        QVERIFY(response);
        QCOMPARE(response->status, status);
        QCOMPARE(response->headers.value("Content-Type"), QByteArray("application/json"));
        const QJsonObject body = QJsonDocument::fromJson(response->body).object();
        QVERIFY2(!body.value(u"error"_s)[u"message"_s].toString().isEmpty(), response->body.constData());
        QCOMPARE(response->headers.value("Allow"), status == 405 ? QByteArray("GET, POST, DELETE, OPTIONS") : QByteArray());
        QCOMPARE(response->headers.value("Connection"), QByteArray("close"));
        QVERIFY(recorder.requests.isEmpty());
        client.close();
        QTRY_COMPARE(server.connectionCount(), 0);
    }

    // An HTTP/1.0 peer knows no chunks: its stream is the bytes themselves, ended by the close.
    void http10StreamEndsWithTheConnection()
    {
        HttpServer server;
        Recorder recorder;
        server.setHandler(recorder.keep());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RawHttpClient client;
        QVERIFY(client.connectTo(server.serverPort()));
        client.send("GET /stream HTTP/1.0\r\n\r\n");
        QTRY_COMPARE(recorder.responses.size(), 1);
        HttpResponse *response = recorder.responses.first();
        QVERIFY(response->beginEventStream());
        QVERIFY(response->writeEvent(message(1)));
        QVERIFY(response->end());
        QVERIFY(client.waitForClosed());
        const std::optional<RawResponse> received = takeResponse(client.received, true);
        QVERIFY(received);
        QVERIFY(!received->headers.contains("Transfer-Encoding"));
        QCOMPARE(received->headers.value("Connection"), QByteArray("close"));
        QCOMPARE(received->body, eventOf(1));
    }

    // 100 event streams open at once, each getting its own events, then all ended.
    void manyConcurrentStreams()
    {
        constexpr int Streams = 100;
        HttpServer server;
        Recorder recorder;
        server.setHandler(recorder.keep());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        std::vector<std::unique_ptr<RawHttpClient>> clients;
        for (int i = 0; i < Streams; ++i) {
            clients.push_back(std::make_unique<RawHttpClient>());
            QVERIFY(clients.back()->connectTo(server.serverPort()));
            clients.back()->send(get("/stream/" + QByteArray::number(i)));
        }
        QTRY_COMPARE(recorder.responses.size(), Streams);
        QCOMPARE(server.connectionCount(), Streams);
        for (const QPointer<HttpResponse> &response : recorder.responses)
            QVERIFY(response->beginEventStream());
        for (int round = 1; round <= 2; ++round) {
            for (int i = 0; i < Streams; ++i) {
                const int id = recorder.requests[i].path.sliced(8).toInt() * 10 + round;
                QVERIFY(recorder.responses[i]->writeEvent(message(id)));
            }
        }
        for (int i = 0; i < Streams; ++i)
            QVERIFY(recorder.responses[i]->end());
        for (int i = 0; i < Streams; ++i) {
            const std::optional<RawResponse> response = clients[i]->nextResponse();
            QVERIFY(response);
            QCOMPARE(response->body, eventOf(i * 10 + 1) + eventOf(i * 10 + 2));
        }
        for (auto &client : clients)
            client->close();
        QTRY_COMPARE(server.connectionCount(), 0);
    }

    // A peer that reads nothing: once more than maxUnsentBytes wait for it, the stream is aborted.
    void slowConsumerAborted()
    {
        HttpServerOptions options;
        options.maxUnsentBytes = 256 * 1024;
        HttpServer server(options);
        Recorder recorder;
        server.setHandler(recorder.keep());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RawHttpClient client;
        QVERIFY(client.connectTo(server.serverPort()));
        client.send(get("/stream"));
        client.stopReading();
        QTRY_COMPARE(recorder.responses.size(), 1);
        QPointer<HttpResponse> response = recorder.responses.first();
        QSignalSpy aborted(response, &HttpResponse::aborted);
        QVERIFY(response->beginStream(200, {{"Content-Type", "application/octet-stream"}}));
        const QByteArray part(64 * 1024, 'x');
        QTimer writer;
        int writes = 0;
        connect(&writer, &QTimer::timeout, this, [&] {
            if (response && writes < 1024 && response->write(part)) // at most 64 MiB: far over the bound and the kernel's buffers
                ++writes;
        });
        writer.start(0);
        QTRY_COMPARE_WITH_TIMEOUT(aborted.size(), 1, 20000);
        writer.stop();
        QVERIFY(writes > 0);
        QTRY_VERIFY(response.isNull());
        QTRY_COMPARE(server.connectionCount(), 0);
    }

    // With every slot held by a connection that had a request admitted, one more is answered
    // 503 and closed; the others go on.
    void connectionLimit()
    {
        HttpServerOptions options;
        options.maxConnections = 2;
        options.refusalDelay = std::chrono::milliseconds(50);
        HttpServer server(options);
        Recorder recorder;
        server.setHandler(recorder.echo());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RawHttpClient first;
        RawHttpClient second;
        for (RawHttpClient *client : {&first, &second}) {
            QVERIFY(client->connectTo(server.serverPort()));
            client->send(get("/first"));
            QVERIFY(client->nextResponse());
        }
        QCOMPARE(server.connectionCount(), 2);
        QCOMPARE(server.unadmittedCount(), 0);
        RawHttpClient third;
        QVERIFY(third.connectTo(server.serverPort()));
        const std::optional<RawResponse> refused = third.nextResponse();
        QVERIFY(refused);
        QCOMPARE(refused->status, 503);
        QVERIFY(third.waitForClosed());
        first.send(get("/still"));
        const std::optional<RawResponse> answered = first.nextResponse();
        QVERIFY(answered);
        QCOMPARE(answered->status, 200);
        second.close();
        QTRY_COMPARE(server.connectionCount(), 1);
        RawHttpClient fourth;
        QVERIFY(fourth.connectTo(server.serverPort()));
        fourth.send(get("/again"));
        const std::optional<RawResponse> again = fourth.nextResponse();
        QVERIFY(again);
        QCOMPARE(again->status, 200);
    }

    // A full server: a newcomer takes the place of the oldest connection that had no request
    // admitted, which is answered 503 (after the refusal delay) and closed.
    void newcomerTakesAnUnadmittedPlace()
    {
        HttpServerOptions options;
        options.maxConnections = 3;
        options.refusalDelay = std::chrono::milliseconds(50);
        HttpServer server(options);
        Recorder recorder;
        server.setAdmission([](const HttpRequest &head) -> std::optional<HttpReply> {
            if (head.header("Authorization") != "Bearer right")
                return HttpReply{401, {}, "no", true};
            return std::nullopt;
        });
        server.setHandler(recorder.echo());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RawHttpClient admitted;
        QVERIFY(admitted.connectTo(server.serverPort()));
        admitted.send(get("/in", "Authorization: Bearer right\r\n"));
        QVERIFY(admitted.nextResponse());
        RawHttpClient oldest;
        RawHttpClient slow;
        QVERIFY(oldest.connectTo(server.serverPort()));
        QTRY_COMPARE(server.connectionCount(), 2);
        QVERIFY(slow.connectTo(server.serverPort()));
        slow.send("GET /slow HTTP/1.1\r\n"); // a head begun, never finished
        QTRY_COMPARE(server.connectionCount(), 3);
        QCOMPARE(server.unadmittedCount(), 2);

        RawHttpClient newcomer;
        QVERIFY(newcomer.connectTo(server.serverPort()));
        newcomer.send(get("/new", "Authorization: Bearer right\r\n"));
        const std::optional<RawResponse> answered = newcomer.nextResponse();
        QVERIFY(answered);
        QCOMPARE(answered->status, 200);
        const std::optional<RawResponse> evicted = oldest.nextResponse();
        QVERIFY(evicted);
        QCOMPARE(evicted->status, 503);
        QVERIFY(oldest.waitForClosed());
        QVERIFY(!slow.isClosed());
        QCOMPARE(server.connectionCount(), 3);
        QCOMPARE(server.unadmittedCount(), 1);
        admitted.send(get("/still", "Authorization: Bearer right\r\n"));
        QVERIFY(admitted.nextResponse());
    }

    // A refusal that closes the connection: one answer with "Connection: close", and what was
    // pipelined after it is never read.
    void refusalClosingTheConnection()
    {
        HttpServer server;
        Recorder recorder;
        int heads = 0;
        server.setAdmission([&heads](const HttpRequest &) -> std::optional<HttpReply> {
            ++heads;
            return HttpReply{401, {{"WWW-Authenticate", "Bearer"}}, "no", true};
        });
        server.setHandler(recorder.echo());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RawHttpClient client;
        QVERIFY(client.connectTo(server.serverPort()));
        client.send(get("/1") + get("/2") + get("/3"));
        const std::optional<RawResponse> refused = client.nextResponse();
        QVERIFY(refused);
        QCOMPARE(refused->status, 401);
        QCOMPARE(refused->headers.value("Connection"), QByteArray("close"));
        QVERIFY(client.waitForClosed());
        QVERIFY(client.received.isEmpty());
        QCOMPARE(heads, 1);
        QTRY_COMPARE(server.connectionCount(), 0);
    }

    // A peer that pipelines and reads none of the answers: once more than readPauseUnsentBytes
    // wait for it, no next request is read; when it reads again, every answer comes, in order.
    void unreadAnswersPauseReading()
    {
        HttpServerOptions options;
        options.readPauseUnsentBytes = 64 * 1024;
        HttpServer server(options);
        const QByteArray answer(32 * 1024, 'a');
        qint64 mostUnsent = 0;
        int handled = 0;
        server.setHandler([&](const HttpRequest &request, HttpResponse &response) {
            mostUnsent = std::max(mostUnsent, response.unsentBytes()); // what the answers before it left
            ++handled;
            response.send(200, {}, request.path + ' ' + answer);
        });
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RawHttpClient client;
        QVERIFY(client.connectTo(server.serverPort()));
        client.stopReading();
        constexpr int Requests = 1000; // 32 MB of answers, more than the kernel's buffers hold
        QByteArray requests;
        for (int i = 0; i < Requests; ++i)
            requests += get("/" + QByteArray::number(i));
        client.send(requests);
        QTRY_VERIFY(mostUnsent > 0); // the kernel's buffers are full
        // Without the pause the server would go on answering into its own memory.
        QVERIFY(!QTest::qWaitFor([&] { return mostUnsent > options.readPauseUnsentBytes; }, 500));
        QVERIFY2(handled < Requests, qPrintable(QString::number(handled)));
        // Read with an event loop of its own: a QTRY would sleep between its passes.
        QList<QByteArray> bodies;
        QEventLoop reading;
        connect(&client.socket(), &QTcpSocket::readyRead, &reading, [&] {
            while (const std::optional<RawResponse> response = takeResponse(client.received, false))
                bodies.append(response->body);
            if (bodies.size() == Requests)
                reading.quit();
        }, Qt::QueuedConnection);
        QTimer::singleShot(30000, &reading, &QEventLoop::quit);
        client.resumeReading();
        reading.exec();
        QCOMPARE(bodies.size(), Requests);
        for (int i = 0; i < Requests; ++i)
            QCOMPARE(bodies[i], "/" + QByteArray::number(i) + ' ' + answer);
        QCOMPARE(handled, Requests);
        QVERIFY2(mostUnsent <= options.readPauseUnsentBytes, qPrintable(QString::number(mostUnsent)));
    }

    // TLS with a self-signed certificate (tests/data/tls): an ordinary client that trusts it,
    // and a raw one reading an event stream.
    void tls()
    {
        QString error;
        const std::optional<QSslConfiguration> configuration =
            loadServerTls(tlsFile("certificate.pem"), tlsFile("key.pem"), &error);
        QVERIFY2(configuration, qPrintable(error));
        HttpServer server;
        Recorder recorder;
        server.setHandler([&recorder](const HttpRequest &request, HttpResponse &response) {
            recorder.requests.append(request);
            recorder.responses.append(&response);
            if (request.path == "/stream")
                return;
            response.send(200, {}, request.encrypted ? "encrypted" : "plain");
        });
        QVERIFY2(server.listen(QHostAddress::LocalHost, 0, *configuration), qPrintable(server.errorString()));
        QVERIFY(server.isEncrypted());
        const QList<QSslCertificate> ca = QSslCertificate::fromPath(tlsFile("certificate.pem"));

        QNetworkAccessManager network;
        QNetworkRequest request(QUrl(u"https://127.0.0.1:%1/mcp"_s.arg(server.serverPort())));
        QSslConfiguration trusting = QSslConfiguration::defaultConfiguration();
        trusting.setCaCertificates(ca);
        request.setSslConfiguration(trusting);
        std::unique_ptr<QNetworkReply> reply(network.get(request));
        QTRY_VERIFY(reply->isFinished());
        QCOMPARE(reply->error(), QNetworkReply::NoError);
        QCOMPARE(reply->readAll(), QByteArray("encrypted"));

        RawHttpClient client(ca);
        QVERIFY(client.connectTo(server.serverPort()));
        client.send(get("/stream"));
        QTRY_COMPARE(recorder.responses.size(), 2);
        QPointer<HttpResponse> stream = recorder.responses.last();
        QVERIFY(stream->beginEventStream());
        QVERIFY(stream->writeEvent(message(5)));
        QVERIFY(client.waitForBytes(eventOf(5)));
        QSignalSpy aborted(stream, &HttpResponse::aborted);
        client.close();
        QTRY_COMPARE(aborted.size(), 1);
        QTRY_VERIFY(stream.isNull());
    }

    // A client that does not speak TLS on the TLS port gets nowhere, and breaks nothing.
    void plainClientOnTheTlsPort()
    {
        QString error;
        const std::optional<QSslConfiguration> configuration =
            loadServerTls(tlsFile("certificate.pem"), tlsFile("key.pem"), &error);
        QVERIFY2(configuration, qPrintable(error));
        HttpServer server;
        Recorder recorder;
        server.setHandler(recorder.echo());
        QVERIFY(server.listen(QHostAddress::LocalHost, 0, *configuration));
        RawHttpClient plain;
        QVERIFY(plain.connectTo(server.serverPort()));
        plain.send(get("/"));
        QVERIFY(plain.waitForClosed());
        QVERIFY(!plain.received.startsWith("HTTP/"));
        QVERIFY(recorder.requests.isEmpty());
        QCOMPARE(server.connectionCount(), 0);
    }

    void tlsFilesThatCannotBeUsed_data()
    {
        QTest::addColumn<QString>("certificate");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("message");
        QTest::newRow("no certificate") << u"/nonexistent/cert.pem"_s << tlsFile("key.pem")
                                        << u"Cannot read the TLS certificate /nonexistent/cert.pem"_s;
        QTest::newRow("key for a certificate") << tlsFile("key.pem") << tlsFile("key.pem") << u"holds no PEM certificate"_s;
        QTest::newRow("certificate for a key") << tlsFile("certificate.pem") << tlsFile("certificate.pem")
                                               << u"holds no unencrypted RSA or EC private key"_s;
    }

    void tlsFilesThatCannotBeUsed()
    {
        QFETCH(QString, certificate);
        QFETCH(QString, key);
        QFETCH(QString, message);
        QString error;
        QVERIFY(!loadServerTls(certificate, key, &error));
        QVERIFY2(error.contains(message), qPrintable(error));
    }

    // close() ends every connection: an open stream sees aborted().
    void closeAbortsOpenResponses()
    {
        HttpServer server;
        Recorder recorder;
        server.setHandler(recorder.keep());
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RawHttpClient client;
        QVERIFY(client.connectTo(server.serverPort()));
        client.send(get("/stream"));
        QTRY_COMPARE(recorder.responses.size(), 1);
        QPointer<HttpResponse> response = recorder.responses.first();
        QVERIFY(response->beginEventStream());
        QSignalSpy aborted(response, &HttpResponse::aborted);
        server.close();
        QVERIFY(!server.isListening());
        QCOMPARE(aborted.size(), 0); // from the event loop, not inside close()
        QTRY_COMPARE(aborted.size(), 1);
        QVERIFY(client.waitForClosed());
        QCOMPARE(server.connectionCount(), 0);
    }

    // Over the wire as in the unit test: header fields that could forge others never leave.
    void forgedFieldsLeftOut()
    {
        HttpServer server;
        server.setHandler([](const HttpRequest &, HttpResponse &response) {
            response.send(200, {{"X-Injected", "a\r\nSet-Cookie: stolen=1"}, {"X-Fine", "b"}}, "ok");
        });
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RawHttpClient client;
        QVERIFY(client.connectTo(server.serverPort()));
        client.send(get("/"));
        const std::optional<RawResponse> response = client.nextResponse();
        QVERIFY(response);
        QVERIFY(!response->headers.contains("Set-Cookie"));
        QVERIFY(!response->headers.contains("X-Injected"));
        QCOMPARE(response->headers.value("X-Fine"), QByteArray("b"));
    }
};

QTEST_GUILESS_MAIN(TestHttpServer)
#include "tst_httpserver.moc"
