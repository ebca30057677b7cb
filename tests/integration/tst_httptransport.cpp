// The HTTP transports against a scripted server that does on demand what real servers do
// only sometimes: expire sessions, fail one request, answer with an HTML page, cut a stream
// in the middle of an event, dribble a reply byte by byte, send too much.
#include "common/displaytext.h"
#include "config/serverconfig.h"
#include "manager/transportfactory.h"
#include "session/mcpclientsession.h"
#include "support/awaitreply.h"
#include "support/httpfixture.h"
#include "support/openready.h"
#include "transport/httpfallbacktransport.h"
#include "transport/httpssetransport.h"
#include "transport/streamablehttptransport.h"

#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <optional>

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;
using namespace std::chrono_literals;

using Delivery = FixtureReply::Delivery;

static FixtureReply json(const QJsonObject &message, QList<std::pair<QByteArray, QByteArray>> headers = {})
{
    headers.append(std::pair<QByteArray, QByteArray>("Content-Type", "application/json"));
    return {200, headers, JsonRpc::serialize(message), Delivery::Whole};
}

static FixtureReply events(const QByteArray &body, Delivery delivery = Delivery::Cut)
{
    return {200, {{"Content-Type", "text/event-stream"}}, body, delivery};
}

static QByteArray sseEvent(const QJsonObject &message, const QByteArray &id = {})
{
    return (id.isEmpty() ? QByteArray() : "id: " + id + "\n") + "data: " + JsonRpc::serialize(message) + "\n\n";
}

static QJsonObject toolResult(const QJsonValue &id, const QString &text)
{
    return JsonRpc::makeResult(id, QJsonObject{{u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, text}}}}});
}

// A small MCP server: what a test does not override is answered the ordinary way.
class ScriptedServer
{
public:
    using Override = std::function<FixtureReply(const FixtureRequest &)>;

    explicit ScriptedServer(HttpFixture &fixture)
    {
        fixture.setHandler([this](const FixtureRequest &request) { return answer(request); });
    }

    QHash<QString, Override> overrides; // by JSON-RPC method, or "GET" / "DELETE"
    // Asked first about every request: a reply it gives is the answer.
    std::function<std::optional<FixtureReply>(const FixtureRequest &)> gate;

private:
    FixtureReply answer(const FixtureRequest &request)
    {
        const QString key = request.method == "POST" ? request.rpcMethod() : QString::fromLatin1(request.method);
        if (gate) {
            if (std::optional<FixtureReply> reply = gate(request))
                return *reply;
        }
        if (const auto it = overrides.constFind(key); it != overrides.cend())
            return (*it)(request);
        if (request.method == "GET")
            return {405, {}, {}, Delivery::Whole};
        if (request.method == "DELETE")
            return {200, {}, {}, Delivery::Whole};
        const QJsonObject message = request.json();
        const QJsonValue id = message.value(u"id");
        if (id.isUndefined())
            return {202, {}, {}, Delivery::Whole};
        if (key == u"initialize") {
            return json(JsonRpc::makeResult(id, QJsonObject{{u"protocolVersion"_s, u"2025-11-25"_s},
                                                            {u"capabilities"_s, QJsonObject{{u"tools"_s, QJsonObject{}}}},
                                                            {u"serverInfo"_s, QJsonObject{{u"name"_s, u"fixture"_s},
                                                                                          {u"version"_s, u"1"_s}}}}),
                        {{"Mcp-Session-Id", "session-1"}});
        }
        if (key == u"tools/list") {
            const QJsonObject echo{{u"name"_s, u"echo"_s}, {u"inputSchema"_s, QJsonObject{{u"type"_s, u"object"_s}}}};
            return json(JsonRpc::makeResult(id, QJsonObject{{u"tools"_s, QJsonArray{echo}}}));
        }
        if (key == u"tools/call")
            return json(toolResult(id, u"ok"_s));
        return json(JsonRpc::makeResult(id, QJsonObject{}));
    }
};

// A small HTTP+SSE (2024-11-05) server at /sse: the event stream names /messages, and what is
// POSTed there is answered on the stream.
class LegacyServer
{
public:
    explicit LegacyServer(HttpFixture &fixture)
        : m_fixture(fixture)
    {
        fixture.setHandler([this](const FixtureRequest &request) { return answer(request); });
    }

    // Asked first about every request: a reply it gives is the answer.
    std::function<std::optional<FixtureReply>(const FixtureRequest &)> gate;

private:
    FixtureReply answer(const FixtureRequest &request)
    {
        if (gate) {
            if (std::optional<FixtureReply> reply = gate(request))
                return *reply;
        }
        if (request.method == "GET")
            return events("event: endpoint\ndata: /messages\n\n", Delivery::Stream);
        const QJsonObject message = request.json();
        const QJsonValue id = message.value(u"id");
        const QString method = message.value(u"method").toString();
        if (method == u"initialize") {
            m_fixture.writeToStream(sseEvent(JsonRpc::makeResult(
                id, QJsonObject{{u"protocolVersion"_s, u"2024-11-05"_s}, {u"capabilities"_s, QJsonObject{}},
                                {u"serverInfo"_s, QJsonObject{{u"name"_s, u"legacy"_s}}}})));
        } else if (method == u"tools/list") {
            m_fixture.writeToStream(sseEvent(JsonRpc::makeResult(id, QJsonObject{{u"tools"_s, QJsonArray{}}})));
        } else if (method == u"tools/call") {
            m_fixture.writeToStream(sseEvent(toolResult(id, u"ok"_s)));
        }
        return FixtureReply{202, {}, {}};
    }

    HttpFixture &m_fixture;
};

// A sign-in as the test scripts it: the Authorization it hands out, and what a renewal does:
// another token, or none (the user must sign in). It answers from the event loop, as one that
// asks an authorization server would.
class ScriptedCredentials final : public ServerCredentials
{
public:
    ScriptedCredentials(QByteArray first, std::optional<QByteArray> afterRenewal)
        : current(std::move(first))
        , renewed(std::move(afterRenewal))
    {
    }

    QByteArray authorization() const override { return current; }
    void renew(const BearerChallenge &challenge, const QByteArray &rejected, RenewalDone done) override
    {
        challenges.append(challenge);
        rejectedValues.append(rejected);
        QTimer::singleShot(0, QCoreApplication::instance(), [this, done = std::move(done)] {
            if (!renewed) {
                done(Renewal::NeedsSignIn, u"no refresh token"_s);
                return;
            }
            current = *renewed;
            done(Renewal::Renewed, {});
        });
    }

    QByteArray current;
    std::optional<QByteArray> renewed;
    QList<BearerChallenge> challenges;
    QList<QByteArray> rejectedValues;
};

// What a resource server answers a request without a usable token (MCP 2025-11-25, RFC 9728 §5.1).
static FixtureReply unauthorized()
{
    return {401,
            {{"WWW-Authenticate", R"(Bearer error="invalid_token", scope="mcp:read", )"
                                  R"(resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp")"}},
            R"({"error":"invalid_token"})"};
}

// What a request is, for the tests of signing in: its JSON-RPC method, or "GET" / "DELETE".
static QString keyOf(const FixtureRequest &request)
{
    return request.method == "POST" ? request.rpcMethod() : QString::fromLatin1(request.method);
}

class TestHttpTransport final : public QObject
{
    Q_OBJECT

private:
    static HttpTransportOptions fastOptions()
    {
        HttpTransportOptions options;
        options.requestTimeout = 10s;
        options.resumeDelay = 20ms;
        options.closeTimeout = 2s;
        return options;
    }

    static std::unique_ptr<McpClientSession> session(std::unique_ptr<Transport> transport)
    {
        return std::make_unique<McpClientSession>(std::move(transport), SessionOptions{u"remote"_s, 10s});
    }

    static std::unique_ptr<McpClientSession> streamable(const HttpFixture &fixture,
                                                        HttpTransportOptions options = fastOptions(),
                                                        QList<std::pair<QString, QString>> headers = {})
    {
        HttpServerEndpoint endpoint{fixture.url(), std::move(headers), {}};
        return session(std::make_unique<StreamableHttpTransport>(endpoint, options));
    }

    static std::unique_ptr<McpClientSession> fallingBack(const HttpFixture &fixture)
    {
        return session(std::make_unique<HttpFallbackTransport>(HttpServerEndpoint{fixture.url(), {}, {}}, fastOptions()));
    }

    // A session with a sign-in over "http" (Streamable HTTP at /mcp), "sse" (HTTP+SSE at /sse)
    // or "fallback" (Streamable HTTP at /mcp, then HTTP+SSE).
    static std::unique_ptr<McpClientSession> signedIn(const HttpFixture &fixture, const QString &transport,
                                                      std::shared_ptr<ServerCredentials> credentials,
                                                      QList<std::pair<QString, QString>> headers = {})
    {
        HttpServerEndpoint endpoint{fixture.url(transport == u"sse" ? u"/sse"_s : u"/mcp"_s), std::move(headers), {}};
        endpoint.credentials = std::move(credentials);
        if (transport == u"sse")
            return session(std::make_unique<HttpSseTransport>(endpoint, fastOptions()));
        if (transport == u"fallback")
            return session(std::make_unique<HttpFallbackTransport>(endpoint, fastOptions()));
        return session(std::make_unique<StreamableHttpTransport>(endpoint, fastOptions()));
    }

    static ToolCallReply call(McpClientSession &client)
    {
        return awaitToolCall([&](ToolCallHandler onReply) { client.callTool(u"echo"_s, {}, std::move(onReply)); }, 10000);
    }

    static QString closeError(QSignalSpy &closed)
    {
        return closed.first().first().value<SessionClosure>().transport.error;
    }

    // A QTRY that saw one emission cannot tell a second one coming later: run the event loop
    // through a real loopback exchange before counting again.
    static void letNetworkEventsRun()
    {
        HttpFixture probe;
        QNetworkAccessManager network;
        std::unique_ptr<QNetworkReply> reply(network.head(QNetworkRequest(probe.url())));
        QSignalSpy finished(reply.get(), &QNetworkReply::finished);
        QVERIFY(finished.wait(5000));
    }

private slots:
    void initTestCase() { qRegisterMetaType<SessionClosure>(); }

    // Qt 6.4 prints this when a reply gets a second error, as when Tether aborted a reply whose
    // HTTP error Qt's network thread had already queued, or when Qt follows a redirect loop.
    void init() { QTest::failOnWarning("QNetworkReplyImplPrivate::error: Internal problem, this method must only be called once."); }

    void handshakeSendsSessionHeadersAndDeletesTheSessionOnClose()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        auto client = streamable(fixture, fastOptions(), {{u"Authorization"_s, u"Bearer secret-token"_s}});
        QVERIFY(openReady(*client, 10000));
        QCOMPARE(renderContent(call(*client).result.content), u"ok"_s);

        const FixtureRequest initialize = fixture.posts(u"initialize"_s).first();
        QCOMPARE(initialize.header("accept"), QByteArray("application/json, text/event-stream"));
        QCOMPARE(initialize.header("content-type"), QByteArray("application/json"));
        QCOMPARE(initialize.header("authorization"), QByteArray("Bearer secret-token"));
        QVERIFY(initialize.header("mcp-session-id").isEmpty());
        QVERIFY(initialize.header("mcp-protocol-version").isEmpty());
        for (const QString &method : {u"notifications/initialized"_s, u"tools/call"_s}) {
            const FixtureRequest later = fixture.posts(method).first();
            QCOMPARE(later.header("mcp-session-id"), QByteArray("session-1"));
            QCOMPARE(later.header("mcp-protocol-version"), QByteArray("2025-11-25"));
            QCOMPARE(later.header("authorization"), QByteArray("Bearer secret-token"));
        }
        // The GET stream is asked for once the handshake is over; 405 means there is none.
        QTRY_COMPARE(fixture.requestsFor("GET").size(), 1);
        const FixtureRequest get = fixture.requestsFor("GET").first();
        QCOMPARE(get.header("accept"), QByteArray("text/event-stream"));
        QCOMPARE(get.header("mcp-session-id"), QByteArray("session-1"));
        QCOMPARE(get.header("mcp-protocol-version"), QByteArray("2025-11-25"));

        QSignalSpy closed(client.get(), &McpClientSession::closed);
        client->close();
        QTRY_COMPARE(closed.size(), 1);
        letNetworkEventsRun();
        QCOMPARE(closed.size(), 1);
        const QList<FixtureRequest> deletes = fixture.requestsFor("DELETE");
        QCOMPARE(deletes.size(), 1);
        QCOMPARE(deletes.first().header("mcp-session-id"), QByteArray("session-1"));
        QCOMPARE(deletes.first().header("mcp-protocol-version"), QByteArray("2025-11-25"));
        QCOMPARE(deletes.first().header("authorization"), QByteArray("Bearer secret-token"));
        QCOMPARE(client->transport()->description(), u"http: "_s + fixture.url().toString());
        QVERIFY(!client->transport()->description().contains(u"secret"_s));
        QCOMPARE(client->transport()->processId(), 0);
    }

    void notFoundWithTheSessionIsALostSession()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        auto client = streamable(fixture);
        QVERIFY(openReady(*client, 10000));
        server.overrides.insert(u"tools/call"_s, [](const FixtureRequest &) {
            return FixtureReply{404, {{"Content-Type", "application/json"}},
                                R"({"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null})"};
        });
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        const ToolCallReply reply = call(*client);
        QVERIFY(reply.error);
        QTRY_COMPARE(closed.size(), 1);
        letNetworkEventsRun();
        QCOMPARE(closed.size(), 1);
        QVERIFY2(closeError(closed).startsWith(u"session lost"_s), qPrintable(closeError(closed)));
        QVERIFY(!closed.first().first().value<SessionClosure>().transport.requested);
        // A session the server no longer knows is not DELETEd.
        QVERIFY(fixture.requestsFor("DELETE").isEmpty());
    }

    void serverErrorFailsOnlyThatRequest()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        auto client = streamable(fixture);
        QVERIFY(openReady(*client, 10000));
        server.overrides.insert(u"tools/call"_s, [](const FixtureRequest &) {
            return FixtureReply{500, {{"Content-Type", "application/json"}},
                                R"({"jsonrpc":"2.0","error":{"code":-32603,"message":"database is down"},"id":null})"};
        });
        const ToolCallReply failed = call(*client);
        QVERIFY(failed.error);
        QVERIFY2(failed.error->message.contains(u"HTTP 500"_s), qPrintable(failed.error->message));
        QVERIFY2(failed.error->message.contains(u"database is down"_s), qPrintable(failed.error->message));
        QVERIFY(client->isReady());

        server.overrides.remove(u"tools/call"_s);
        const ToolCallReply next = call(*client);
        QVERIFY(!next.error);
        QCOMPARE(renderContent(next.result.content), u"ok"_s);
    }

    void htmlPageIsQuoted_data()
    {
        QTest::addColumn<int>("status");
        QTest::newRow("200 with an HTML page") << 200;
        QTest::newRow("502 from a proxy") << 502;
    }

    void htmlPageIsQuoted()
    {
        QFETCH(int, status);
        HttpFixture fixture;
        ScriptedServer server(fixture);
        auto client = streamable(fixture);
        QVERIFY(openReady(*client, 10000));
        server.overrides.insert(u"tools/call"_s, [status](const FixtureRequest &) {
            return FixtureReply{status, {{"Content-Type", "text/html"}}, "<!DOCTYPE html><html><body>Gateway</body></html>"};
        });
        const ToolCallReply reply = call(*client);
        QVERIFY(reply.error);
        QVERIFY2(reply.error->message.contains(u"'<!DOCTYPE html><html>"_s), qPrintable(reply.error->message));
        QVERIFY2(reply.error->message.contains(fixture.url().toString()), qPrintable(reply.error->message));
        QVERIFY(client->isReady());
    }

    void streamCutMidEventIsResumedWithLastEventIdAfterRetry()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        auto client = streamable(fixture);
        QVERIFY(openReady(*client, 10000));

        qint64 cutAt = 0;
        QJsonValue callId;
        server.overrides.insert(u"tools/call"_s, [&](const FixtureRequest &request) {
            callId = request.json().value(u"id");
            const QJsonObject progress = JsonRpc::makeNotification(
                u"notifications/progress"_s,
                {{u"progressToken"_s, request.json().value(u"params").toObject().value(u"_meta").toObject().value(u"progressToken")},
                 {u"progress"_s, 1},
                 {u"total"_s, 2}});
            const QByteArray response = sseEvent(toolResult(callId, u"resumed"_s), "e3");
            cutAt = fixture.now();
            // Priming event with the retry delay, a progress notification, then half the response.
            return events("id: e1\nretry: 300\ndata: \n\n" + sseEvent(progress, "e2") + response.first(response.size() / 2));
        });
        server.overrides.insert(u"GET"_s, [&](const FixtureRequest &request) {
            if (request.header("last-event-id").isEmpty())
                return FixtureReply{405, {}, {}, Delivery::Whole};
            return events(sseEvent(toolResult(callId, u"resumed"_s), "e3"));
        });

        QList<ProgressUpdate> progress;
        const ToolCallReply reply = awaitToolCall([&](ToolCallHandler onReply) {
            client->callTool(u"echo"_s, {}, std::move(onReply), [&](const ProgressUpdate &update) { progress.append(update); });
        }, 10000);
        QVERIFY2(!reply.error, reply.error ? qPrintable(reply.error->message) : "");
        QCOMPARE(renderContent(reply.result.content), u"resumed"_s);
        QCOMPARE(progress.size(), 1);

        QList<FixtureRequest> resumes;
        for (const FixtureRequest &get : fixture.requestsFor("GET")) {
            if (!get.header("last-event-id").isEmpty())
                resumes.append(get);
        }
        QCOMPARE(resumes.size(), 1);
        QCOMPARE(resumes.first().header("last-event-id"), QByteArray("e2"));
        QCOMPARE(resumes.first().header("mcp-session-id"), QByteArray("session-1"));
        QCOMPARE(resumes.first().header("mcp-protocol-version"), QByteArray("2025-11-25"));
        QCOMPARE(resumes.first().header("mcp-session-id"), QByteArray("session-1"));
        // The server asked for 300 ms; the transport's own default here is 20 ms.
        QVERIFY2(resumes.first().receivedAtMs - cutAt >= 300,
                 qPrintable(QString::number(resumes.first().receivedAtMs - cutAt)));
        QVERIFY(client->isReady());
    }

    // MCP 2025-11-25, Streamable HTTP, "Resumability and Redelivery": a server may close a POST's
    // stream after a priming event (an event id and a retry: delay, no message) and again
    // after any later event; the client resumes it each time with a GET carrying the last
    // Last-Event-ID of that stream, no sooner than that stream's retry: delay, whatever other
    // streams of the session say.
    void primedStreamIsResumedAfterItsOwnRetry_data()
    {
        QTest::addColumn<QByteArray>("priming");
        QTest::newRow("id and retry") << QByteArray("id: p1\nretry: 400\n\n");
        QTest::newRow("id, retry and empty data") << QByteArray("id: p1\nretry: 400\ndata:\n\n");
        QTest::newRow("retry first, CRLF") << QByteArray("retry: 400\r\nid: p1\r\n\r\n");
    }

    void primedStreamIsResumedAfterItsOwnRetry()
    {
        QFETCH(QByteArray, priming);
        HttpFixture fixture;
        ScriptedServer server(fixture);
        QJsonValue callId;
        server.overrides.insert(u"tools/call"_s, [&](const FixtureRequest &request) {
            callId = request.json().value(u"id");
            return events(priming, Delivery::Stream);
        });
        server.overrides.insert(u"GET"_s, [&](const FixtureRequest &request) {
            const QByteArray lastEventId = request.header("last-event-id");
            if (lastEventId.isEmpty()) // the server's own stream, with a retry: of its own
                return events("retry: 50\n\n", Delivery::Stream);
            if (lastEventId == "p1") // a progress notification, then the connection is closed again
                return events(sseEvent(JsonRpc::makeNotification(u"notifications/message"_s, {{u"level"_s, u"info"_s}}),
                                       "p2"),
                              Delivery::Stream);
            return events(sseEvent(toolResult(callId, u"resumed"_s), "p3"));
        });
        auto client = streamable(fixture); // its own resume delay is 20 ms
        QVERIFY(openReady(*client, 10000));
        QTRY_COMPARE(fixture.openStreamCount(), 1);
        const auto resumesFrom = [&fixture](const QByteArray &lastEventId) {
            QList<FixtureRequest> found;
            for (const FixtureRequest &get : fixture.requestsFor("GET")) {
                if (get.header("last-event-id") == lastEventId)
                    found.append(get);
            }
            return found;
        };

        std::optional<ToolCallReply> reply;
        client->callTool(u"echo"_s, {}, [&](const ToolCallReply &r) { reply = r; });
        QTRY_COMPARE(fixture.openStreamCount(), 2);
        letNetworkEventsRun(); // the priming event is read
        const qint64 firstCut = fixture.closeStream();
        QTRY_COMPARE_WITH_TIMEOUT(resumesFrom("p1").size(), 1, 10000);
        QTRY_COMPARE(fixture.openStreamCount(), 2);
        letNetworkEventsRun(); // the notification is read
        // The server's own stream speaks meanwhile: its retry: is not the one of the call's stream.
        fixture.writeToStream(": keep-alive\n\n", 0);
        letNetworkEventsRun();
        const qint64 secondCut = fixture.closeStream();
        QTRY_VERIFY_WITH_TIMEOUT(reply.has_value(), 10000);
        QVERIFY2(!reply->error, reply->error ? qPrintable(reply->error->message) : "");
        QCOMPARE(renderContent(reply->result.content), u"resumed"_s);

        const QList<FixtureRequest> first = resumesFrom("p1");
        const QList<FixtureRequest> second = resumesFrom("p2");
        QCOMPARE(first.size(), 1);
        QCOMPARE(second.size(), 1);
        for (const FixtureRequest &resume : {first.first(), second.first()}) {
            QCOMPARE(resume.header("accept"), QByteArray("text/event-stream"));
            QCOMPARE(resume.header("mcp-session-id"), QByteArray("session-1"));
            QCOMPARE(resume.header("mcp-protocol-version"), QByteArray("2025-11-25"));
        }
        QVERIFY2(first.first().receivedAtMs - firstCut >= 400, qPrintable(QString::number(first.first().receivedAtMs - firstCut)));
        QVERIFY2(second.first().receivedAtMs - secondCut >= 400,
                 qPrintable(QString::number(second.first().receivedAtMs - secondCut)));
        QVERIFY(client->isReady());
    }

    // A call made as soon as the session is ready, whose stream the server closes after priming
    // it, is resumed by a GET with that stream's Last-Event-ID after its retry: and gets its
    // answer there. The server's own GET stream is already open by the time the call reaches
    // the server, so a server that hands a pending answer to whatever GET comes next (as the
    // conformance suite's sse-retry does) cannot give it to that stream instead.
    void callAtReadyIsResumedNotAnsweredOnTheServerStream()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        QJsonValue pendingCall;
        qint64 cutAt = 0;
        bool answeredOnServerStream = false;
        server.overrides.insert(u"tools/call"_s, [&](const FixtureRequest &request) {
            pendingCall = request.json().value(u"id");
            cutAt = fixture.now();
            return events("id: c1\nretry: 300\n\n", Delivery::Cut);
        });
        server.overrides.insert(u"GET"_s, [&](const FixtureRequest &request) {
            QByteArray body = "id: g1\nretry: 50\n\n";
            if (!pendingCall.isUndefined()) {
                body += sseEvent(toolResult(pendingCall, u"resumed"_s), "c2");
                answeredOnServerStream = request.header("last-event-id").isEmpty();
                pendingCall = QJsonValue::Undefined;
            }
            return events(body, Delivery::Stream);
        });
        auto client = streamable(fixture); // its own resume delay is 20 ms
        std::optional<ToolCallReply> reply;
        QObject::connect(client.get(), &McpClientSession::ready, client.get(), [&] {
            client->callTool(u"echo"_s, {}, [&](const ToolCallReply &r) { reply = r; });
        });
        client->open();
        QTRY_VERIFY_WITH_TIMEOUT(reply.has_value(), 10000);
        QVERIFY2(!reply->error, reply->error ? qPrintable(reply->error->message) : "");
        QCOMPARE(renderContent(reply->result.content), u"resumed"_s);

        const QList<FixtureRequest> gets = fixture.requestsFor("GET");
        QCOMPARE(gets.size(), 2);
        QCOMPARE(gets.first().header("last-event-id"), QByteArray());
        QVERIFY2(gets.first().receivedAtMs <= fixture.posts(u"tools/call"_s).first().receivedAtMs,
                 "the call reached the server before the server's own stream");
        QCOMPARE(gets.last().header("last-event-id"), QByteArray("c1"));
        QVERIFY2(gets.last().receivedAtMs - cutAt >= 300, qPrintable(QString::number(gets.last().receivedAtMs - cutAt)));
        QVERIFY(!answeredOnServerStream);
    }

    // An event that cannot be parsed but shows the id of the request it answers fails that
    // request at once, though the stream stays open.
    void damagedEventFailsItsRequestAtOnce()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        server.overrides.insert(u"tools/call"_s, [](const FixtureRequest &request) {
            const QByteArray id = QByteArray::number(request.json().value(u"id").toInteger());
            return events("data: {\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"content\":\"caf\xe9\"}}\n\n",
                          Delivery::Stream);
        });
        auto client = streamable(fixture);
        QVERIFY(openReady(*client, 10000));
        const ToolCallReply reply = call(*client);
        QVERIFY(reply.error);
        QCOMPARE(reply.error->code, int(JsonRpc::InvalidReply));
        QVERIFY2(reply.error->message.contains(u"answered with an event from %1 that is not JSON (invalid UTF8 string"_s.arg(
                     fixture.url().toString())),
                 qPrintable(reply.error->message));
        QVERIFY(client->isReady());
        QTRY_COMPARE(fixture.openStreamCount(), 0); // nobody waits for that stream any more
    }

    void streamWithoutEventIdsFailsOnlyItsRequest()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        auto client = streamable(fixture);
        QVERIFY(openReady(*client, 10000));
        server.overrides.insert(u"tools/call"_s, [](const FixtureRequest &) { return events("data: {\"jsonrpc\":"); });
        const ToolCallReply reply = call(*client);
        QVERIFY(reply.error);
        QVERIFY2(reply.error->message.contains(u"before it sent the response"_s), qPrintable(reply.error->message));
        QVERIFY(client->isReady());
    }

    void byteAtATimeReplies()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        server.overrides.insert(u"initialize"_s, [](const FixtureRequest &request) {
            FixtureReply reply = json(JsonRpc::makeResult(request.json().value(u"id"),
                                                          QJsonObject{{u"protocolVersion"_s, u"2025-06-18"_s},
                                                                      {u"capabilities"_s, QJsonObject{}},
                                                                      {u"serverInfo"_s, QJsonObject{{u"name"_s, u"s"_s}}}}),
                                      {{"Mcp-Session-Id", "dribbled"}});
            reply.delivery = Delivery::ByteAtATime;
            return reply;
        });
        server.overrides.insert(u"tools/call"_s, [](const FixtureRequest &request) {
            const QJsonObject log = JsonRpc::makeNotification(u"notifications/message"_s, {{u"data"_s, u"busy"_s}});
            FixtureReply reply = events("id: 1\r\n" "data: " + JsonRpc::serialize(log) + "\r\n\r\n"
                                        + sseEvent(toolResult(request.json().value(u"id"), u"dribbled"_s), "2"));
            reply.delivery = Delivery::ByteAtATime;
            return reply;
        });
        auto client = streamable(fixture);
        QSignalSpy logs(client.get(), &McpClientSession::logMessage);
        QVERIFY(openReady(*client, 10000));
        QCOMPARE(client->serverIdentity().protocolVersion, u"2025-06-18"_s);
        QCOMPARE(renderContent(call(*client).result.content), u"dribbled"_s);
        QCOMPARE(logs.size(), 1);
        QCOMPARE(fixture.posts(u"tools/call"_s).first().header("mcp-session-id"), QByteArray("dribbled"));
        QCOMPARE(fixture.posts(u"tools/call"_s).first().header("mcp-protocol-version"), QByteArray("2025-06-18"));
    }

    void bodyOverTheLimitFailsThatRequest_data()
    {
        QTest::addColumn<bool>("asEvent");
        QTest::newRow("JSON body") << false;
        QTest::newRow("one event") << true;
    }

    void bodyOverTheLimitFailsThatRequest()
    {
        QFETCH(bool, asEvent);
        HttpFixture fixture;
        ScriptedServer server(fixture);
        HttpTransportOptions options = fastOptions();
        options.maxMessageBytes = 4096;
        auto client = streamable(fixture, options);
        QVERIFY(openReady(*client, 10000));
        server.overrides.insert(u"tools/call"_s, [asEvent](const FixtureRequest &request) {
            const QJsonObject big = toolResult(request.json().value(u"id"), QString(8000, u'x'));
            return asEvent ? events(sseEvent(big, "1")) : json(big);
        });
        const ToolCallReply reply = call(*client);
        QVERIFY(reply.error);
        QVERIFY2(reply.error->message.contains(u"more than 4096 bytes"_s), qPrintable(reply.error->message));
        QVERIFY(client->isReady());
        server.overrides.remove(u"tools/call"_s);
        QVERIFY(!call(*client).error);
    }

    void unauthorizedSaysWhichHeaderToSet()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        server.overrides.insert(u"initialize"_s, [](const FixtureRequest &) {
            return FixtureReply{401, {{"WWW-Authenticate", "Bearer realm=\"mcp\""}}, {}};
        });
        auto client = streamable(fixture);
        QSignalSpy failed(client.get(), &McpClientSession::failed);
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        client->open();
        QTRY_COMPARE(failed.size(), 1);
        letNetworkEventsRun();
        QCOMPARE(failed.size(), 1);
        const QString reason = failed.first().first().toString();
        QVERIFY2(reason.contains(u"HTTP 401"_s), qPrintable(reason));
        QVERIFY2(reason.contains(u"needs credentials"_s), qPrintable(reason));
        QVERIFY2(reason.contains(u"\"headers\""_s) && reason.contains(u"Authorization"_s), qPrintable(reason));
        QVERIFY2(reason.contains(u"tetherctl's --header"_s), qPrintable(reason));
        QVERIFY2(reason.contains(u"Bearer"_s), qPrintable(reason));
        QTRY_COMPARE(closed.size(), 1);
        letNetworkEventsRun();
        QCOMPARE(closed.size(), 1);
    }

    void connectionRefused_data()
    {
        QTest::addColumn<QString>("transport");
        QTest::newRow("Streamable HTTP") << u"http"_s;
        QTest::newRow("HTTP+SSE") << u"sse"_s;
        QTest::newRow("fallback") << u"fallback"_s;
    }

    // A connection that never opened says so plainly: where it was refused, nothing of a close.
    void connectionRefused()
    {
        QFETCH(QString, transport);
        std::unique_ptr<McpClientSession> client;
        QUrl url;
        {
            HttpFixture gone; // listened once, so the port was free; nothing listens there now
            client = signedIn(gone, transport, nullptr);
            url = gone.url(transport == u"sse" ? u"/sse"_s : u"/mcp"_s);
        }
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        client->open();
        QTRY_COMPARE(closed.size(), 1);
        letNetworkEventsRun();
        QCOMPARE(closed.size(), 1);
        const SessionClosure closure = closed.first().first().value<SessionClosure>();
        QVERIFY(closure.transport.unreached);
        QCOMPARE(closure.describe(), u"could not connect to %1: connection refused; is the server running and listening "
                                     "there?"_s.arg(url.toString()));
    }

    void serverStreamDeliversNotificationsAndItsLossEndsTheConnection()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        int gets = 0;
        server.overrides.insert(u"GET"_s, [&](const FixtureRequest &) {
            ++gets;
            if (gets == 1) {
                const QJsonObject log = JsonRpc::makeNotification(
                    u"notifications/message"_s, {{u"level"_s, u"notice"_s}, {u"data"_s, u"from the GET stream"_s}});
                return events("retry: 50\n\n" + sseEvent(log, "g1"), Delivery::Stream);
            }
            // The server restarted and no longer knows the session (server-everything says 400).
            return FixtureReply{400, {{"Content-Type", "application/json"}},
                                R"({"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null})"};
        });
        auto client = streamable(fixture);
        QSignalSpy logs(client.get(), &McpClientSession::logMessage);
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        QVERIFY(openReady(*client, 10000));
        QTRY_COMPARE(logs.size(), 1);
        letNetworkEventsRun();
        QCOMPARE(logs.size(), 1);
        QCOMPARE(logs.first().at(2).toJsonValue().toString(), u"from the GET stream"_s);

        fixture.closeStream();
        QTRY_COMPARE(closed.size(), 1);
        letNetworkEventsRun();
        QCOMPARE(closed.size(), 1);
        QCOMPARE(gets, 2);
        QCOMPARE(fixture.requestsFor("GET").last().header("last-event-id"), QByteArray("g1"));
        QVERIFY2(closeError(closed).contains(u"could not be resumed"_s), qPrintable(closeError(closed)));
        QVERIFY2(closeError(closed).contains(u"No valid session ID"_s), qPrintable(closeError(closed)));
    }

    void unreachableStreamIsRetriedThenGivenUp()
    {
        auto fixture = std::make_unique<HttpFixture>();
        ScriptedServer server(*fixture);
        server.overrides.insert(u"GET"_s, [](const FixtureRequest &) { return events("id: s1\n\n", Delivery::Stream); });
        auto client = streamable(*fixture);
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        QVERIFY(openReady(*client, 10000));
        QTRY_COMPARE(fixture->openStreamCount(), 1);
        fixture.reset(); // the server is gone: its stream ends and nothing listens any more
        QTRY_COMPARE_WITH_TIMEOUT(closed.size(), 1, 5000);
        QVERIFY2(closeError(closed).contains(u"after 3 attempts"_s), qPrintable(closeError(closed)));
        QVERIFY2(closeError(closed).contains(u"connection refused"_s), qPrintable(closeError(closed)));
    }

    void initializeRejectedFallsBackToHttpSse_data()
    {
        QTest::addColumn<int>("status");
        QTest::newRow("405") << 405;
        QTest::newRow("404") << 404;
    }

    void initializeRejectedFallsBackToHttpSse()
    {
        QFETCH(int, status);
        HttpFixture fixture;
        fixture.setHandler([&](const FixtureRequest &request) {
            if (request.method == "GET")
                return events("event: endpoint\ndata: /messages?session=7\n\n", Delivery::Stream);
            if (request.path == "/mcp")
                return FixtureReply{status, {}, {}};
            const QJsonObject message = request.json();
            const QJsonValue id = message.value(u"id");
            if (message.value(u"method").toString() == u"initialize") {
                fixture.writeToStream("event: message\n" + sseEvent(JsonRpc::makeResult(
                    id, QJsonObject{{u"protocolVersion"_s, u"2024-11-05"_s}, {u"capabilities"_s, QJsonObject{}},
                                    {u"serverInfo"_s, QJsonObject{{u"name"_s, u"legacy"_s}}}})));
            } else if (message.value(u"method").toString() == u"tools/list") {
                fixture.writeToStream(sseEvent(JsonRpc::makeResult(id, QJsonObject{{u"tools"_s, QJsonArray{}}})));
            } else if (message.value(u"method").toString() == u"tools/call") {
                fixture.writeToStream(sseEvent(toolResult(id, u"legacy ok"_s)));
            }
            return FixtureReply{202, {}, "Accepted"};
        });
        auto client = fallingBack(fixture);
        QSignalSpy lines(client.get(), &McpClientSession::stderrLine);
        QVERIFY(openReady(*client, 10000));
        QCOMPARE(client->serverIdentity().protocolVersion, u"2024-11-05"_s);
        QCOMPARE(renderContent(call(*client).result.content), u"legacy ok"_s);
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines.first().first().toString().contains(u"HTTP+SSE"_s), qPrintable(lines.first().first().toString()));
        QCOMPARE(fixture.posts(u"initialize"_s).size(), 2);
        QCOMPARE(fixture.posts(u"initialize"_s).last().path, QByteArray("/messages?session=7"));
        QVERIFY(static_cast<HttpFallbackTransport *>(client->transport())->fellBackToHttpSse());

        QSignalSpy closed(client.get(), &McpClientSession::closed);
        client->close();
        QTRY_COMPARE(closed.size(), 1);
        letNetworkEventsRun();
        QCOMPARE(closed.size(), 1);
    }

    void httpSseStreamEndIsAConnectionLoss()
    {
        HttpFixture fixture;
        fixture.setHandler([&](const FixtureRequest &request) {
            if (request.method == "GET")
                return events("event: endpoint\ndata: http://127.0.0.1:" + QByteArray::number(fixture.url().port())
                                  + "/messages\n\n",
                              Delivery::Stream);
            const QJsonObject message = request.json();
            if (message.value(u"method").toString() == u"initialize") {
                fixture.writeToStream(sseEvent(JsonRpc::makeResult(
                    message.value(u"id"), QJsonObject{{u"protocolVersion"_s, u"2024-11-05"_s},
                                                      {u"capabilities"_s, QJsonObject{}},
                                                      {u"serverInfo"_s, QJsonObject{{u"name"_s, u"legacy"_s}}}})));
            } else if (message.value(u"method").toString() == u"tools/list") {
                fixture.writeToStream(sseEvent(JsonRpc::makeResult(message.value(u"id"), QJsonObject{{u"tools"_s, QJsonArray{}}})));
            }
            return FixtureReply{202, {}, {}};
        });
        auto client = session(std::make_unique<HttpSseTransport>(HttpServerEndpoint{fixture.url(u"/sse"_s), {}, {}},
                                                                 fastOptions()));
        QVERIFY(openReady(*client, 10000));
        QCOMPARE(client->transport()->description(), u"sse: "_s + fixture.url(u"/sse"_s).toString());
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        fixture.closeStream();
        QTRY_COMPARE(closed.size(), 1);
        letNetworkEventsRun();
        QCOMPARE(closed.size(), 1);
        QVERIFY2(closeError(closed).contains(u"ended its event stream"_s), qPrintable(closeError(closed)));
    }

    void httpSseDroppedPostFailsOnlyThatRequest()
    {
        HttpFixture fixture;
        fixture.setHandler([&](const FixtureRequest &request) {
            if (request.method == "GET")
                return events("event: endpoint\ndata: /messages\n\n", Delivery::Stream);
            const QJsonObject message = request.json();
            const QString method = message.value(u"method").toString();
            if (method == u"tools/call")
                return FixtureReply{200, {}, {}, Delivery::Drop};
            if (method == u"initialize") {
                fixture.writeToStream(sseEvent(JsonRpc::makeResult(
                    message.value(u"id"), QJsonObject{{u"protocolVersion"_s, u"2024-11-05"_s}, {u"capabilities"_s, QJsonObject{}},
                                                      {u"serverInfo"_s, QJsonObject{{u"name"_s, u"legacy"_s}}}})));
            } else if (method == u"tools/list") {
                fixture.writeToStream(sseEvent(JsonRpc::makeResult(message.value(u"id"), QJsonObject{{u"tools"_s, QJsonArray{}}})));
            }
            return FixtureReply{202, {}, {}};
        });
        auto client = session(std::make_unique<HttpSseTransport>(HttpServerEndpoint{fixture.url(u"/sse"_s), {}, {}},
                                                                 fastOptions()));
        QVERIFY(openReady(*client, 10000));
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        const ToolCallReply reply = call(*client);
        QVERIFY(reply.error);
        QCOMPARE(reply.error->code, int(JsonRpc::TransportError));
        letNetworkEventsRun();
        QVERIFY(closed.isEmpty());
        QVERIFY(client->isReady());
    }

    // A page that never ends instead of the event stream is refused at once, not read for ever.
    void httpSseEndlessPageIsRefusedAtOnce()
    {
        HttpFixture fixture;
        fixture.setHandler([](const FixtureRequest &) {
            return FixtureReply{200, {{"Content-Type", "text/html"}}, "<html><body>loading", Delivery::Stream};
        });
        HttpTransportOptions options = fastOptions();
        options.requestTimeout = 60s;
        auto client = session(std::make_unique<HttpSseTransport>(HttpServerEndpoint{fixture.url(u"/sse"_s), {}, {}}, options));
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        client->open();
        QTRY_COMPARE(closed.size(), 1);
        QVERIFY2(closeError(closed).contains(u"Content-Type 'text/html'"_s), qPrintable(closeError(closed)));
        QTRY_COMPARE(fixture.openStreamCount(), 0);
    }

    void httpSseRefusesAnEndpointOnAnotherHost()
    {
        HttpFixture fixture;
        fixture.setHandler([](const FixtureRequest &) {
            return events("event: endpoint\ndata: https://elsewhere.example/messages\n\n", Delivery::Stream);
        });
        auto client = session(std::make_unique<HttpSseTransport>(HttpServerEndpoint{fixture.url(u"/sse"_s), {}, {}},
                                                                 fastOptions()));
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        client->open();
        QTRY_COMPARE(closed.size(), 1);
        letNetworkEventsRun();
        QCOMPARE(closed.size(), 1);
        QVERIFY2(closeError(closed).contains(u"not on the same host"_s), qPrintable(closeError(closed)));
    }

    // Only an answer of the server is one: a proxy's 502 or a dropped request is the transport's.
    void transportFailuresHaveTheirOwnCode()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        auto client = streamable(fixture);
        QVERIFY(openReady(*client, 10000));
        server.overrides.insert(u"tools/call"_s, [](const FixtureRequest &) {
            return FixtureReply{502, {{"Content-Type", "text/html"}}, "<html>Bad Gateway</html>"};
        });
        const ToolCallReply reply = call(*client);
        QVERIFY(reply.error);
        QCOMPARE(reply.error->code, int(JsonRpc::TransportError));
        QVERIFY2(reply.error->message.contains(u"HTTP 502"_s), qPrintable(reply.error->message));
    }

    // A ping carries nothing a server could find wrong: a 400 to it refuses the session.
    void badRequestToAPingIsALostSession()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        auto client = streamable(fixture);
        QVERIFY(openReady(*client, 10000));
        server.overrides.insert(u"ping"_s, [](const FixtureRequest &) {
            return FixtureReply{400, {{"Content-Type", "application/json"}},
                                R"({"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null})"};
        });
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        std::optional<RpcReply> pinged;
        client->ping([&](const RpcReply &reply) { pinged = reply; }, 5s);
        QTRY_COMPARE(closed.size(), 1);
        letNetworkEventsRun();
        QCOMPARE(closed.size(), 1);
        QVERIFY2(closeError(closed).startsWith(u"session lost"_s) && closeError(closed).contains(u"HTTP 400"_s),
                 qPrintable(closeError(closed)));
        QVERIFY(pinged && pinged->error);
        // A lost session is not ended with a DELETE.
        QVERIFY(fixture.requestsFor("DELETE").isEmpty());

        // A 400 to a request with content fails only that request.
        HttpFixture other;
        ScriptedServer otherServer(other);
        otherServer.overrides.insert(u"tools/call"_s, [](const FixtureRequest &) { return FixtureReply{400, {}, "bad arguments"}; });
        auto otherClient = streamable(other);
        QVERIFY(openReady(*otherClient, 10000));
        QVERIFY(call(*otherClient).error);
        QVERIFY(otherClient->isReady());
    }

    // Qt's timers take int milliseconds: 2^31 would be negative (never reopened), 2^32 zero (a tight loop).
    void hugeRetryIsClamped_data()
    {
        QTest::addColumn<QByteArray>("retry");
        QTest::newRow("2^31") << QByteArray("2147483648");
        QTest::newRow("2^32") << QByteArray("4294967296");
    }

    void hugeRetryIsClamped()
    {
        QFETCH(QByteArray, retry);
        HttpFixture fixture;
        ScriptedServer server(fixture);
        server.overrides.insert(u"GET"_s, [&](const FixtureRequest &) {
            return events("retry: " + retry + "\n\n" + sseEvent(JsonRpc::makeNotification(u"notifications/tools/list_changed"_s), "g1"),
                          Delivery::Cut);
        });
        HttpTransportOptions options = fastOptions();
        options.longestResumeDelay = 300ms;
        auto client = streamable(fixture, options);
        QVERIFY(openReady(*client, 10000));
        QTRY_COMPARE_WITH_TIMEOUT(fixture.requestsFor("GET").size(), 3, 5000);
        const QList<FixtureRequest> gets = fixture.requestsFor("GET");
        for (qsizetype i = 1; i < gets.size(); ++i) {
            const qint64 gap = gets[i].receivedAtMs - gets[i - 1].receivedAtMs;
            QVERIFY2(gap >= 250, qPrintable(QString::number(gap)));
        }
    }

    // A server that ends its stream at once, with nothing on it, is asked ever more slowly.
    void emptyReopeningsBackOff()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        server.overrides.insert(u"GET"_s, [](const FixtureRequest &) { return events("retry: 0\n\n", Delivery::Cut); });
        HttpTransportOptions options = fastOptions();
        options.shortestResumeDelay = 25ms;
        auto client = streamable(fixture, options);
        QVERIFY(openReady(*client, 10000));
        QTRY_COMPARE_WITH_TIMEOUT(fixture.requestsFor("GET").size(), 4, 5000);
        const QList<FixtureRequest> gets = fixture.requestsFor("GET");
        const qint64 first = gets[2].receivedAtMs - gets[1].receivedAtMs;
        const qint64 second = gets[3].receivedAtMs - gets[2].receivedAtMs;
        // retry: 0 counts as the shortest delay, doubled for every empty stream in a row: 100, 200 ms.
        QVERIFY2(first >= 90 && second >= 190, qPrintable(u"%1 %2"_s.arg(first).arg(second)));
        QVERIFY(client->isReady());
    }

    // Express's res.sendStatus(202) says "Accepted" in a text/plain body.
    void acceptedWithABodyIsAccepted()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        server.overrides.insert(u"notifications/initialized"_s, [](const FixtureRequest &) {
            return FixtureReply{202, {{"Content-Type", "text/plain; charset=utf-8"}}, "Accepted"};
        });
        server.overrides.insert(u"GET"_s, [](const FixtureRequest &) { return events(": open\n\n", Delivery::Stream); });
        auto client = streamable(fixture);
        QVERIFY(openReady(*client, 10000));
        QTRY_COMPARE(fixture.requestsFor("GET").size(), 1);
    }

    // Qt would send the Authorization header along to wherever a redirect points.
    void redirectToAnotherOriginIsRefused()
    {
        HttpFixture elsewhere;
        ScriptedServer elsewhereServer(elsewhere);
        HttpFixture fixture;
        const QByteArray location = elsewhere.url().toEncoded() + "?token=leaked";
        fixture.setHandler([&](const FixtureRequest &) {
            return FixtureReply{307, {{"Location", location}}, {}};
        });
        auto client = streamable(fixture, fastOptions(), {{u"Authorization"_s, u"Bearer secret-token"_s}});
        QSignalSpy failed(client.get(), &McpClientSession::failed);
        client->open();
        QTRY_COMPARE(failed.size(), 1);
        letNetworkEventsRun();
        QCOMPARE(failed.size(), 1);
        const QString reason = failed.first().first().toString();
        QVERIFY2(reason.contains(u"HTTP 307"_s) && reason.contains(elsewhere.url().toString())
                     && reason.contains(u"another origin"_s),
                 qPrintable(reason));
        QVERIFY2(!reason.contains(u"leaked"_s) && !reason.contains(u"secret-token"_s), qPrintable(reason));
        QVERIFY(elsewhere.requests.isEmpty());
    }

    void redirectWithinTheOrigin()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        server.overrides.insert(u"initialize"_s, [&](const FixtureRequest &request) {
            if (request.path == "/mcp")
                return FixtureReply{307, {{"Location", "/mcp/"}}, {}};
            return json(JsonRpc::makeResult(request.json().value(u"id"),
                                            QJsonObject{{u"protocolVersion"_s, u"2025-11-25"_s},
                                                        {u"capabilities"_s, QJsonObject{}},
                                                        {u"serverInfo"_s, QJsonObject{{u"name"_s, u"moved"_s}}}}));
        });
        auto client = streamable(fixture);
        QVERIFY(openReady(*client, 10000));
        QCOMPARE(fixture.posts(u"initialize"_s).last().path, QByteArray("/mcp/"));

        // A 302 would turn the POST into a GET, and the GET's 405 would read as an old server.
        HttpFixture moved;
        moved.setHandler([](const FixtureRequest &request) {
            if (request.method == "POST")
                return FixtureReply{302, {{"Location", "/login"}}, {}};
            return FixtureReply{405, {}, {}};
        });
        auto movedClient = fallingBack(moved);
        QSignalSpy failed(movedClient.get(), &McpClientSession::failed);
        QSignalSpy lines(movedClient.get(), &McpClientSession::stderrLine);
        movedClient->open();
        QTRY_COMPARE(failed.size(), 1);
        letNetworkEventsRun();
        QCOMPARE(failed.size(), 1);
        const QString reason = failed.first().first().toString();
        QVERIFY2(reason.contains(u"HTTP 302"_s) && reason.contains(u"turn the POST into a GET"_s), qPrintable(reason));
        QVERIFY(lines.isEmpty());
        QVERIFY(moved.requestsFor("GET").isEmpty());
    }

    // A redirect loop is refused when it closes, and says so; Qt is not left to follow it (see
    // init(): no test may make Qt report an internal problem).
    void redirectLoopIsRefused()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        server.overrides.insert(u"initialize"_s, [](const FixtureRequest &request) {
            return FixtureReply{307, {{"Location", request.path == "/mcp" ? "/mcp/" : "/mcp"}}, {}};
        });
        auto client = streamable(fixture);
        QSignalSpy failed(client.get(), &McpClientSession::failed);
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        client->open();
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 10000);
        const QString reason = failed.first().first().toString();
        QVERIFY2(reason.contains(u"HTTP 307, a redirect to "_s + fixture.url().toString()) && reason.contains(u"a redirect loop"_s),
                 qPrintable(reason));
        QTRY_COMPARE(closed.size(), 1);
        letNetworkEventsRun();
        QCOMPARE(fixture.posts(u"initialize"_s).size(), 2);
    }

    void shownUrlHidesSecrets_data()
    {
        QTest::addColumn<QString>("written");
        QTest::addColumn<QString>("shown");
        QTest::newRow("query") << u"https://h.example/mcp?api_key=sk-123&mode=x"_s << u"https://h.example/mcp?api_key=…&mode=…"_s;
        QTest::newRow("env reference") << u"https://h.example/mcp?api_key=${env:KEY}"_s
                                       << u"https://h.example/mcp?api_key=${env:KEY}"_s;
        QTest::newRow("user info") << u"https://me:pw@h.example:8443/mcp"_s << u"https://…:…@h.example:8443/mcp"_s;
        QTest::newRow("token as user") << u"https://tok@h.example/mcp#x"_s << u"https://…@h.example/mcp#x"_s;
        QTest::newRow("plain") << u"http://127.0.0.1:3001/mcp"_s << u"http://127.0.0.1:3001/mcp"_s;
    }

    void shownUrlHidesSecrets()
    {
        QFETCH(QString, written);
        QFETCH(QString, shown);
        QCOMPARE(redactedUrl(written), shown);

        ServerConfig config;
        config.name = u"remote"_s;
        config.transport = TransportKind::StreamableHttp;
        config.url = QString(written).replace(u"${env:KEY}"_s, u"sk-from-env"_s);
        config.urlAsWritten = written;
        const std::unique_ptr<Transport> transport = transportFactoryFor(config)();
        QCOMPARE(transport->description(), u"http: "_s + shown);
    }

    // A connection cut under one request fails that request only; it takes a few in a row to
    // show that the server is out of reach.
    void droppedRequestFailsOnlyThatRequest()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        auto client = streamable(fixture);
        QVERIFY(openReady(*client, 10000));
        server.overrides.insert(u"tools/call"_s, [](const FixtureRequest &) { return FixtureReply{200, {}, {}, Delivery::Drop}; });
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        const ToolCallReply dropped = call(*client);
        QVERIFY(dropped.error);
        QCOMPARE(dropped.error->code, int(JsonRpc::TransportError));
        QVERIFY2(dropped.error->message.contains(u"closed the connection"_s), qPrintable(dropped.error->message));
        server.overrides.remove(u"tools/call"_s);
        QVERIFY(!call(*client).error);
        QVERIFY(closed.isEmpty());

        server.overrides.insert(u"tools/call"_s, [](const FixtureRequest &) { return FixtureReply{200, {}, {}, Delivery::Drop}; });
        QVERIFY(call(*client).error);
        QVERIFY(call(*client).error);
        QVERIFY(closed.isEmpty());
        call(*client);
        QTRY_COMPARE(closed.size(), 1);
        letNetworkEventsRun();
        QCOMPARE(closed.size(), 1);
        QVERIFY2(closeError(closed).contains(u"3 requests in a row"_s), qPrintable(closeError(closed)));
    }

    void sameOriginWithDefaultPorts()
    {
        QVERIFY(isSameOrigin(QUrl(u"http://h.example/sse"_s), QUrl(u"http://h.example:80/messages"_s)));
        QVERIFY(isSameOrigin(QUrl(u"https://H.example:443/sse"_s), QUrl(u"https://h.example/messages"_s)));
        QVERIFY(!isSameOrigin(QUrl(u"https://h.example/sse"_s), QUrl(u"http://h.example/messages"_s)));
        QVERIFY(!isSameOrigin(QUrl(u"http://h.example/sse"_s), QUrl(u"http://h.example:8080/messages"_s)));
    }

    // Once a server turned out to speak HTTP+SSE only, later connections go there at once, for
    // as long as its config stands: a changed config builds a new factory, which tries
    // Streamable HTTP again.
    void fallbackIsRememberedByItsFactory()
    {
        HttpFixture fixture;
        fixture.setHandler([&](const FixtureRequest &request) {
            if (request.method == "GET")
                return events("event: endpoint\ndata: /messages\n\n", Delivery::Stream);
            if (request.path == "/mcp")
                return FixtureReply{405, {}, {}};
            const QJsonObject message = request.json();
            if (message.value(u"method").toString() == u"initialize") {
                fixture.writeToStream("event: message\n" + sseEvent(JsonRpc::makeResult(
                    message.value(u"id"), QJsonObject{{u"protocolVersion"_s, u"2024-11-05"_s}, {u"capabilities"_s, QJsonObject{}},
                                                      {u"serverInfo"_s, QJsonObject{{u"name"_s, u"legacy"_s}}}})));
            }
            return FixtureReply{202, {}, {}};
        });
        ServerConfig config;
        config.name = u"legacy"_s;
        config.transport = TransportKind::StreamableHttp;
        config.url = fixture.url().toString();
        const TransportFactory factory = transportFactoryFor(config);
        auto first = session(factory());
        QVERIFY(openReady(*first, 10000));
        QSignalSpy closed(first.get(), &McpClientSession::closed);
        first->close();
        QTRY_COMPARE(closed.size(), 1);
        letNetworkEventsRun();
        QCOMPARE(closed.size(), 1);
        QCOMPARE(fixture.posts(u"initialize"_s).size(), 2);

        auto second = session(factory());
        QVERIFY(second->transport()->description().startsWith(u"sse: "_s));
        QSignalSpy lines(second.get(), &McpClientSession::stderrLine);
        QVERIFY(openReady(*second, 10000));
        QCOMPARE(fixture.posts(u"initialize"_s).size(), 3);
        QCOMPARE(fixture.posts(u"initialize"_s).last().path, QByteArray("/messages"));
        QVERIFY(lines.isEmpty());

        auto changed = session(transportFactoryFor(config)());
        QVERIFY(changed->transport()->description().startsWith(u"http: "_s));
        QSignalSpy changedLines(changed.get(), &McpClientSession::stderrLine);
        QVERIFY(openReady(*changed, 10000));
        QCOMPARE(fixture.posts(u"initialize"_s).size(), 5);
        QCOMPARE(fixture.posts(u"initialize"_s).at(3).path, QByteArray("/mcp"));
        QCOMPARE(fixture.posts(u"initialize"_s).last().path, QByteArray("/messages"));
        QCOMPARE(changedLines.size(), 1);
        QVERIFY(static_cast<HttpFallbackTransport *>(changed->transport())->fellBackToHttpSse());
    }

    // tetherctl --transport http: an initialize answered 405 is that server's answer, and no
    // HTTP+SSE is tried.
    void streamableHttpOnlyDoesNotFallBack()
    {
        HttpFixture fixture;
        fixture.setHandler([](const FixtureRequest &) { return FixtureReply{405, {}, {}}; });
        ServerConfig config;
        config.name = u"legacy"_s;
        config.transport = TransportKind::StreamableHttp;
        config.url = fixture.url().toString();
        auto client = session(transportFactoryFor(config, HttpFallback::None)());
        QSignalSpy failed(client.get(), &McpClientSession::failed);
        QSignalSpy lines(client.get(), &McpClientSession::stderrLine);
        client->open();
        QTRY_COMPARE(failed.size(), 1);
        const QString reason = failed.first().first().toString();
        QVERIFY2(reason.contains(u"HTTP 405"_s), qPrintable(reason));
        QVERIFY(lines.isEmpty());
        QVERIFY(fixture.requestsFor("GET").isEmpty());
        QCOMPARE(fixture.posts(u"initialize"_s).size(), 1);
    }

    // A GET stream the server refuses for a moment (409, 5xx) is tried again like a cut one.
    void serverStreamRefusedForAMomentIsRetried()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        int gets = 0;
        server.overrides.insert(u"GET"_s, [&](const FixtureRequest &) {
            ++gets;
            if (gets == 2)
                return FixtureReply{409, {}, "Conflict: Only one SSE stream is allowed per session"};
            if (gets == 3)
                return FixtureReply{503, {}, {}};
            return events("id: g" + QByteArray::number(gets) + "\ndata: \n\n", Delivery::Stream);
        });
        auto client = streamable(fixture);
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        QVERIFY(openReady(*client, 10000));
        QTRY_COMPARE(fixture.openStreamCount(), 1);
        fixture.closeStream();
        QTRY_COMPARE(gets, 4);
        QTRY_COMPARE(fixture.openStreamCount(), 1);
        QVERIFY(closed.isEmpty());
        QVERIFY(!call(*client).error);
    }

    // A server may keep a POST's stream open with keep-alive comments after the response.
    void postStreamEndsWithItsResponse()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        server.overrides.insert(u"tools/call"_s, [](const FixtureRequest &request) {
            return events(sseEvent(toolResult(request.json().value(u"id"), u"streamed"_s)) + ": keep-alive\n\n",
                          Delivery::Stream);
        });
        auto client = streamable(fixture);
        QVERIFY(openReady(*client, 10000));
        QCOMPARE(renderContent(call(*client).result.content), u"streamed"_s);
        QTRY_COMPARE(fixture.openStreamCount(), 0);
    }

    // A version Tether does not speak is refused by the session, and goes into no header.
    void unknownProtocolVersionIsNotSent()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        server.overrides.insert(u"initialize"_s, [](const FixtureRequest &request) {
            return json(JsonRpc::makeResult(request.json().value(u"id"),
                                            QJsonObject{{u"protocolVersion"_s, u"1999-01-01\r\nX-Injected: 1"_s},
                                                        {u"capabilities"_s, QJsonObject{}},
                                                        {u"serverInfo"_s, QJsonObject{{u"name"_s, u"future"_s}}}}),
                        {{"Mcp-Session-Id", "session-9"}});
        });
        auto client = streamable(fixture);
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        QVERIFY(!openReady(*client, 10000));
        QTRY_COMPARE(closed.size(), 1);
        letNetworkEventsRun();
        QCOMPARE(closed.size(), 1);
        for (const FixtureRequest &request : std::as_const(fixture.requests)) {
            QVERIFY(request.header("mcp-protocol-version").isEmpty());
            QVERIFY(request.header("x-injected").isEmpty());
        }
    }

    void silentRequestTimesOutAtTheTransport()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        HttpTransportOptions options = fastOptions();
        options.requestTimeout = 300ms;
        auto client = streamable(fixture, options);
        QVERIFY(openReady(*client, 10000));
        server.overrides.insert(u"tools/call"_s, [](const FixtureRequest &) { return events({}, Delivery::Stream); });
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        const ToolCallReply reply = call(*client);
        QVERIFY(reply.error);
        QCOMPARE(reply.error->code, int(JsonRpc::TransportError));
        QVERIFY2(reply.error->message.contains(u"did not answer in time"_s), qPrintable(reply.error->message));
        QVERIFY(client->isReady());
        QVERIFY(closed.isEmpty());
    }

    // Every request in flight is answered once when the connection closes, and a DELETE that
    // never gets an answer does not hold the close up beyond its bound.
    void closeWithRequestsInFlight()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        HttpTransportOptions options = fastOptions();
        options.closeTimeout = 300ms;
        auto client = streamable(fixture, options);
        QVERIFY(openReady(*client, 10000));
        server.overrides.insert(u"tools/call"_s, [](const FixtureRequest &) { return events(": working\n\n", Delivery::Stream); });
        server.overrides.insert(u"DELETE"_s, [](const FixtureRequest &) { return events({}, Delivery::Stream); });
        QList<int> answers(3, 0);
        for (int i = 0; i < 3; ++i)
            client->callTool(u"echo"_s, {}, [&answers, i](const ToolCallReply &) { ++answers[i]; });
        QTRY_COMPARE(fixture.posts(u"tools/call"_s).size(), 3);
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        const qint64 closing = fixture.now();
        client->close();
        QTRY_COMPARE(closed.size(), 1);
        letNetworkEventsRun();
        QCOMPARE(closed.size(), 1);
        QVERIFY2(fixture.now() - closing < 2000, qPrintable(QString::number(fixture.now() - closing)));
        QCOMPARE(fixture.requestsFor("DELETE").size(), 1);
        // Let the event loop run until a later, unrelated signal: no second answer came meanwhile.
        auto later = streamable(fixture);
        QVERIFY(openReady(*later, 10000));
        QCOMPARE(answers, (QList<int>{1, 1, 1}));
    }

    void forbiddenAndServerErrorTexts_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("says");
        QTest::newRow("403") << 403 << u"refused the credentials or they lack permission"_s;
        QTest::newRow("500") << 500 << u"a failure on the server's side"_s;
        QTest::newRow("503") << 503 << u"a failure on the server's side"_s;
    }

    void forbiddenAndServerErrorTexts()
    {
        QFETCH(int, status);
        QFETCH(QString, says);
        HttpFixture fixture;
        ScriptedServer server(fixture);
        auto client = streamable(fixture, fastOptions(), {{u"Authorization"_s, u"Bearer secret-token"_s}});
        QSignalSpy lines(client.get(), &McpClientSession::stderrLine);
        QVERIFY(openReady(*client, 10000));
        server.overrides.insert(u"tools/call"_s, [status](const FixtureRequest &) { return FixtureReply{status, {}, "no"}; });
        const ToolCallReply reply = call(*client);
        QVERIFY(reply.error);
        QVERIFY2(reply.error->message.contains(u"HTTP %1"_s.arg(status)) && reply.error->message.contains(says),
                 qPrintable(reply.error->message));
        QVERIFY(!reply.error->message.contains(u"secret-token"_s));

        // Nor in the closure, the description or any line the transport reports.
        server.overrides.insert(u"tools/call"_s, [](const FixtureRequest &) {
            return FixtureReply{404, {}, "Bearer secret-token is unknown here"};
        });
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        call(*client);
        QTRY_COMPARE(closed.size(), 1);
        letNetworkEventsRun();
        QCOMPARE(closed.size(), 1);
        QVERIFY2(!closed.first().first().value<SessionClosure>().describe().contains(u"secret-token"_s),
                 qPrintable(closed.first().first().value<SessionClosure>().describe()));
        QVERIFY(!client->transport()->description().contains(u"secret-token"_s));
        for (const QList<QVariant> &line : std::as_const(lines))
            QVERIFY(!line.first().toString().contains(u"secret-token"_s));
    }

    // A server that quotes the request it refuses, its credentials among it, in its error body.
    static FixtureReply reflectingHeaders(int status, const FixtureRequest &request)
    {
        const QByteArray body = "refused: x-api-key: " + request.header("X-Api-Key") + "; authorization: "
                                + request.header("Authorization");
        return FixtureReply{status, {{"Content-Type", "text/plain"}}, body};
    }

    static QList<std::pair<QString, QString>> secretHeaders()
    {
        return {{u"X-Api-Key"_s, u"SECRET-TOKEN-123"_s}, {u"Authorization"_s, u"Bearer bearer-token-456"_s}};
    }

    static void verifyNoSecretIn(const QString &text)
    {
        QVERIFY2(!text.isEmpty(), "nothing to look at");
        for (const QString &secret : {u"SECRET-TOKEN-123"_s, u"bearer-token-456"_s})
            QVERIFY2(!text.contains(secret), qPrintable(text));
    }

    void errorBodiesLoseTheConfiguredSecrets()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        auto client = streamable(fixture, fastOptions(), secretHeaders());
        QVERIFY(openReady(*client, 10000));
        const auto log = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(16);
        spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", log));
        log->set_level(spdlog::level::debug);
        spdlog::set_level(spdlog::level::debug);
        server.overrides.insert(u"tools/call"_s, [](const FixtureRequest &request) { return reflectingHeaders(400, request); });
        server.overrides.insert(u"notifications/roots/list_changed"_s,
                                [](const FixtureRequest &request) { return reflectingHeaders(500, request); });

        const ToolCallReply reply = call(*client);
        QVERIFY(reply.error);
        QVERIFY2(reply.error->message.contains(u"x-api-key: …; authorization: …'"_s), qPrintable(reply.error->message));
        verifyNoSecretIn(reply.error->message);

        client->notify(u"notifications/roots/list_changed"_s);
        QTRY_VERIFY(!fixture.posts(u"notifications/roots/list_changed"_s).isEmpty());
        letNetworkEventsRun();
        QString logged;
        for (const std::string &line : log->last_formatted())
            logged += QString::fromStdString(line);
        QVERIFY2(logged.contains(u"HTTP 500"_s), qPrintable(logged));
        verifyNoSecretIn(logged);
    }

    void httpSseErrorBodyLosesTheConfiguredSecrets()
    {
        HttpFixture fixture;
        fixture.setHandler([](const FixtureRequest &request) { return reflectingHeaders(403, request); });
        auto client = session(std::make_unique<HttpSseTransport>(HttpServerEndpoint{fixture.url(u"/sse"_s), secretHeaders(), {}},
                                                                 fastOptions()));
        QSignalSpy failed(client.get(), &McpClientSession::failed);
        client->open();
        QTRY_COMPARE(failed.size(), 1);
        QVERIFY2(failed.first().first().toString().contains(u"HTTP 403"_s), qPrintable(failed.first().first().toString()));
        verifyNoSecretIn(failed.first().first().toString());
    }

    // The config refuses a header with a line break; one that reaches a transport anyway is not
    // sent, rather than sent as two.
    void headerWithALineBreakIsNeverSent()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        auto client = streamable(fixture, fastOptions(),
                                 {{u"X-Bad"_s, u"v\r\nInjected: 1"_s}, {u"X-Bad\r\nName"_s, u"v"_s}, {u"X-Good"_s, u"fine"_s}});
        QVERIFY(openReady(*client, 10000));
        const FixtureRequest initialize = fixture.posts(u"initialize"_s).value(0);
        QCOMPARE(initialize.header("X-Good"), QByteArray("fine"));
        QVERIFY(!initialize.headers.contains("injected"));
        QVERIFY(!initialize.headers.contains("x-bad"));
        QVERIFY(!initialize.headers.contains("name"));
    }

    void networkErrorTexts()
    {
        const HttpServerEndpoint endpoint{QUrl(u"https://mcp.example.com/mcp?token=abc"_s), {}, {}};
        const QString dns = HttpErrors::networkFailure(endpoint, QNetworkReply::HostNotFoundError, u"Host not found"_s);
        QVERIFY2(dns.contains(u"could not be resolved (DNS)"_s) && dns.contains(u"'mcp.example.com'"_s), qPrintable(dns));
        const QString tls = HttpErrors::networkFailure(endpoint, QNetworkReply::SslHandshakeFailedError,
                                                       u"The issuer certificate could not be found"_s);
        QVERIFY2(tls.startsWith(u"TLS error talking to https://mcp.example.com/mcp:"_s), qPrintable(tls));
        // The query may hold a token: messages leave it out.
        QVERIFY(!dns.contains(u"abc"_s) && !tls.contains(u"abc"_s));
    }

    // MCP 2025-11-25 §Token Requirements: the token goes with every HTTP request: each POST, the
    // GET stream and its reopening, the resumption of a POST's stream, the DELETE of the session.
    void signedInRequestsCarryTheToken()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        QJsonValue callId;
        server.overrides.insert(u"tools/call"_s, [&](const FixtureRequest &request) {
            callId = request.json().value(u"id");
            return events("id: c1\nretry: 20\n\n"); // primed, then cut before the response
        });
        server.overrides.insert(u"GET"_s, [&](const FixtureRequest &request) {
            const QByteArray lastEventId = request.header("last-event-id");
            if (lastEventId == "c1")
                return events(sseEvent(toolResult(callId, u"resumed"_s), "c2"));
            if (lastEventId.isEmpty())
                return events("id: g1\nretry: 20\n\n"); // the server stream, cut at once
            return events({}, Delivery::Stream);
        });
        const auto credentials = std::make_shared<ScriptedCredentials>("Bearer token-one", std::nullopt);
        auto client = signedIn(fixture, u"http"_s, credentials);
        QVERIFY(openReady(*client, 10000));
        QCOMPARE(renderContent(call(*client).result.content), u"resumed"_s);
        QTRY_VERIFY(std::any_of(fixture.requests.cbegin(), fixture.requests.cend(), [](const FixtureRequest &request) {
            return request.header("last-event-id") == "g1";
        }));
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        client->close();
        QTRY_COMPARE(closed.size(), 1);

        QStringList seen;
        for (const FixtureRequest &request : std::as_const(fixture.requests)) {
            QCOMPARE(request.header("authorization"), QByteArray("Bearer token-one"));
            seen.append(keyOf(request) + u' ' + QString::fromLatin1(request.header("last-event-id")));
        }
        for (const QString &kind : {u"initialize "_s, u"notifications/initialized "_s, u"tools/call "_s, u"GET "_s,
                                    u"GET g1"_s, u"GET c1"_s, u"DELETE "_s})
            QVERIFY2(seen.contains(kind), qPrintable(kind + u" not in "_s + seen.join(u", "_s)));
        QVERIFY(credentials->rejectedValues.isEmpty());
    }

    void signedInHttpSseRequestsCarryTheToken()
    {
        HttpFixture fixture;
        LegacyServer server(fixture);
        const auto credentials = std::make_shared<ScriptedCredentials>("Bearer token-one", std::nullopt);
        auto client = signedIn(fixture, u"sse"_s, credentials);
        QVERIFY(openReady(*client, 10000));
        QCOMPARE(renderContent(call(*client).result.content), u"ok"_s);
        QStringList seen;
        for (const FixtureRequest &request : std::as_const(fixture.requests)) {
            QCOMPARE(request.header("authorization"), QByteArray("Bearer token-one"));
            seen.append(keyOf(request));
        }
        QCOMPARE(seen, (QStringList{u"GET"_s, u"initialize"_s, u"notifications/initialized"_s, u"tools/call"_s}));
    }

    // MCP 2025-11-25 §Token Handling: a 401 to a request that carried token T asks the sign-in to
    // renew; the request, which the server did not process, is sent once more with the new token.
    void unauthorizedIsRenewedAndSentOnceMore_data()
    {
        QTest::addColumn<QString>("transport");
        QTest::addColumn<QString>("refused"); // the request the server answers 401 while it carries the old token
        QTest::newRow("http initialize") << u"http"_s << u"initialize"_s;
        QTest::newRow("http tools/call") << u"http"_s << u"tools/call"_s;
        QTest::newRow("http GET stream") << u"http"_s << u"GET"_s;
        QTest::newRow("sse initialize") << u"sse"_s << u"initialize"_s;
        QTest::newRow("sse tools/call") << u"sse"_s << u"tools/call"_s;
        QTest::newRow("sse GET stream") << u"sse"_s << u"GET"_s;
        QTest::newRow("fallback initialize") << u"fallback"_s << u"initialize"_s;
    }

    void unauthorizedIsRenewedAndSentOnceMore()
    {
        QFETCH(QString, transport);
        QFETCH(QString, refused);
        HttpFixture fixture;
        const auto gate = [&](const FixtureRequest &request) -> std::optional<FixtureReply> {
            if (keyOf(request) == refused && request.header("authorization") == "Bearer old-token")
                return unauthorized();
            return std::nullopt;
        };
        std::optional<ScriptedServer> streamable;
        std::optional<LegacyServer> legacy;
        if (transport == u"sse") {
            legacy.emplace(fixture);
            legacy->gate = gate;
        } else {
            streamable.emplace(fixture);
            streamable->gate = gate;
            // The server's own stream, with a message on it, so that its reopening shows.
            streamable->overrides.insert(u"GET"_s, [](const FixtureRequest &) {
                return events(sseEvent(JsonRpc::makeNotification(u"notifications/message"_s,
                                                                 {{u"level"_s, u"info"_s}, {u"data"_s, u"on the stream"_s}})),
                              Delivery::Stream);
            });
        }
        const auto credentials = std::make_shared<ScriptedCredentials>("Bearer old-token", "Bearer new-token");
        auto client = signedIn(fixture, transport, credentials);
        QSignalSpy logs(client.get(), &McpClientSession::logMessage);
        QVERIFY(openReady(*client, 10000));
        QCOMPARE(renderContent(call(*client).result.content), u"ok"_s);
        if (refused == u"GET" && transport == u"http")
            QTRY_COMPARE(logs.size(), 1);
        letNetworkEventsRun();
        QVERIFY(client->isReady());

        QCOMPARE(credentials->rejectedValues, (QList<QByteArray>{"Bearer old-token"}));
        const BearerChallenge &challenge = credentials->challenges.first();
        QCOMPARE(challenge.status, 401);
        QCOMPARE(challenge.error, u"invalid_token"_s);
        QCOMPARE(challenge.scope, u"mcp:read"_s);
        QCOMPARE(challenge.resourceMetadata, QUrl(u"http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp"_s));
        QList<QByteArray> sent;
        for (const FixtureRequest &request : std::as_const(fixture.requests)) {
            if (keyOf(request) == refused)
                sent.append(request.header("authorization"));
        }
        QCOMPARE(sent, (QList<QByteArray>{"Bearer old-token", "Bearer new-token"}));
    }

    // No token at all, or a renewal that cannot be had without the user: the connection ends at
    // once, saying so, with the server's challenge; nothing is sent again and nothing falls back.
    void withoutARenewalTheServerNeedsASignIn_data()
    {
        QTest::addColumn<QString>("transport");
        QTest::addColumn<QByteArray>("token");
        QTest::newRow("http, no token") << u"http"_s << QByteArray();
        QTest::newRow("http, token refused") << u"http"_s << QByteArray("Bearer expired");
        QTest::newRow("sse, no token") << u"sse"_s << QByteArray();
        QTest::newRow("sse, token refused") << u"sse"_s << QByteArray("Bearer expired");
        QTest::newRow("fallback, no token") << u"fallback"_s << QByteArray();
    }

    void withoutARenewalTheServerNeedsASignIn()
    {
        QFETCH(QString, transport);
        QFETCH(QByteArray, token);
        HttpFixture fixture;
        fixture.setHandler([](const FixtureRequest &) { return unauthorized(); });
        const auto credentials = std::make_shared<ScriptedCredentials>(token, std::nullopt);
        auto client = signedIn(fixture, transport, credentials);
        QSignalSpy failed(client.get(), &McpClientSession::failed);
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        client->open();
        QTRY_COMPARE(closed.size(), 1);
        letNetworkEventsRun();
        QCOMPARE(closed.size(), 1);
        QCOMPARE(failed.size(), 1);

        const TransportClosure closure = closed.first().first().value<SessionClosure>().transport;
        QVERIFY(closure.signIn);
        QCOMPARE(closure.signIn->challenge.scope, u"mcp:read"_s);
        QCOMPARE(closure.signIn->reason, u"no refresh token"_s);
        QCOMPARE(closure.error, fixture.url(transport == u"sse" ? u"/sse"_s : u"/mcp"_s).toString()
                                    + u" asks for sign-in (scope mcp:read)"_s);
        QCOMPARE(credentials->rejectedValues, QList<QByteArray>{token});
        QCOMPARE(fixture.requests.size(), 1); // not again, and no HTTP+SSE after a 401
        QCOMPARE(fixture.requests.first().header("authorization"), token);
        QCOMPARE(fixture.requests.first().method, transport == u"sse" ? QByteArray("GET") : QByteArray("POST"));
    }

    // The renewed token refused too: the user must sign in; the request is not sent a third time.
    void secondUnauthorizedNeedsASignIn_data()
    {
        QTest::addColumn<QString>("transport");
        QTest::newRow("http") << u"http"_s;
        QTest::newRow("sse") << u"sse"_s;
    }

    void secondUnauthorizedNeedsASignIn()
    {
        QFETCH(QString, transport);
        HttpFixture fixture;
        fixture.setHandler([](const FixtureRequest &) { return unauthorized(); });
        const auto credentials = std::make_shared<ScriptedCredentials>("Bearer old-token", "Bearer new-token");
        auto client = signedIn(fixture, transport, credentials);
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        client->open();
        QTRY_COMPARE(closed.size(), 1);
        letNetworkEventsRun();
        const TransportClosure closure = closed.first().first().value<SessionClosure>().transport;
        QVERIFY(closure.signIn);
        QCOMPARE(closure.signIn->reason, u"the server refused the renewed token too"_s);
        QVERIFY2(closure.error.endsWith(u"asks for sign-in (scope mcp:read)"_s), qPrintable(closure.error));
        QCOMPARE(credentials->rejectedValues.size(), 1);
        QCOMPARE(fixture.requests.size(), 2);
        QCOMPARE(fixture.requests.at(0).header("authorization"), QByteArray("Bearer old-token"));
        QCOMPARE(fixture.requests.at(1).header("authorization"), QByteArray("Bearer new-token"));
    }

    // An Authorization in the config is the user's credentials: sent as it is, never replaced or
    // renewed, and a 401 says which header to set, as without a sign-in.
    void configuredAuthorizationIsNeverReplaced_data()
    {
        QTest::addColumn<QString>("transport");
        QTest::newRow("http") << u"http"_s;
        QTest::newRow("sse") << u"sse"_s;
    }

    void configuredAuthorizationIsNeverReplaced()
    {
        QFETCH(QString, transport);
        HttpFixture fixture;
        fixture.setHandler([](const FixtureRequest &) { return unauthorized(); });
        const auto credentials = std::make_shared<ScriptedCredentials>("Bearer signed-in", "Bearer renewed");
        auto client = signedIn(fixture, transport, credentials, {{u"authorization"_s, u"Bearer configured"_s}});
        QSignalSpy failed(client.get(), &McpClientSession::failed);
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        client->open();
        QTRY_COMPARE(failed.size(), 1);
        QVERIFY2(failed.first().first().toString().contains(u"needs credentials"_s),
                 qPrintable(failed.first().first().toString()));
        QTRY_COMPARE(closed.size(), 1);
        QVERIFY(!closed.first().first().value<SessionClosure>().transport.signIn);
        QVERIFY(credentials->rejectedValues.isEmpty());
        for (const FixtureRequest &request : std::as_const(fixture.requests))
            QCOMPARE(request.header("authorization"), QByteArray("Bearer configured"));
    }

    // A 401 is no sign of an older server: only 404 and 405 lead to HTTP+SSE.
    void unauthorizedNeverFallsBack_data()
    {
        QTest::addColumn<bool>("credentials");
        QTest::newRow("without a sign-in") << false;
        QTest::newRow("with a sign-in") << true;
    }

    void unauthorizedNeverFallsBack()
    {
        QFETCH(bool, credentials);
        HttpFixture fixture;
        fixture.setHandler([](const FixtureRequest &) { return unauthorized(); });
        auto client = signedIn(fixture, u"fallback"_s,
                               credentials ? std::make_shared<ScriptedCredentials>(QByteArray(), std::nullopt) : nullptr);
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        client->open();
        QTRY_COMPARE(closed.size(), 1);
        letNetworkEventsRun();
        QCOMPARE(fixture.requests.size(), 1);
        QCOMPARE(fixture.requests.first().method, QByteArray("POST"));
        QVERIFY(!static_cast<HttpFallbackTransport *>(client->transport())->fellBackToHttpSse());
        QCOMPARE(bool(closed.first().first().value<SessionClosure>().transport.signIn), credentials);
    }

    // A token renewed after the start is a secret like the first: what the server quotes of it is
    // scrubbed from errors, whether the transport or the session reports them.
    void renewedTokenIsScrubbedLikeTheFirst()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        server.gate = [](const FixtureRequest &request) -> std::optional<FixtureReply> {
            if (request.header("authorization") == "Bearer first-secret-token")
                return unauthorized();
            return std::nullopt;
        };
        server.overrides.insert(u"tools/call"_s, [](const FixtureRequest &request) {
            return json(JsonRpc::makeError(request.json().value(u"id"), -32000,
                                           u"token renewed-secret-token may not call this"_s));
        });
        server.overrides.insert(u"ping"_s, [](const FixtureRequest &) {
            return FixtureReply{500, {}, "refused Authorization: Bearer renewed-secret-token"};
        });
        const auto credentials =
            std::make_shared<ScriptedCredentials>("Bearer first-secret-token", "Bearer renewed-secret-token");
        auto client = signedIn(fixture, u"http"_s, credentials);
        QVERIFY(openReady(*client, 10000));
        const ToolCallReply reply = call(*client);
        QVERIFY(reply.error);
        QVERIFY2(!reply.error->message.contains(u"renewed-secret"_s), qPrintable(reply.error->message));
        QVERIFY2(reply.error->message.contains(u"may not call this"_s), qPrintable(reply.error->message));
        const RpcReply ping = awaitRpc([&](ReplyHandler onReply) { client->ping(std::move(onReply), 10s); }, 10000);
        QVERIFY(ping.error);
        QVERIFY2(!ping.error->message.contains(u"renewed-secret"_s), qPrintable(ping.error->message));
        QVERIFY2(ping.error->message.contains(u"HTTP 500"_s), qPrintable(ping.error->message));
    }
};

QTEST_GUILESS_MAIN(TestHttpTransport)
#include "tst_httptransport.moc"
