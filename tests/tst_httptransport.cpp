// The HTTP transports against a scripted server that does on demand what real servers do
// only sometimes: expire sessions, fail one request, answer with an HTML page, cut a stream
// in the middle of an event, dribble a reply byte by byte, send too much.
#include "protocol/mcpclientsession.h"
#include "support/httpfixture.h"
#include "transport/httpssetransport.h"
#include "transport/streamablehttptransport.h"

#include <QSignalSpy>
#include <QTest>

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

private:
    FixtureReply answer(const FixtureRequest &request)
    {
        const QString key = request.method == "POST" ? request.rpcMethod() : QString::fromLatin1(request.method);
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
        return session(std::make_unique<StreamableHttpTransport>(
            endpoint, options, StreamableHttpTransport::SseFallback::OnInitializeRejected));
    }

    static bool openReady(McpClientSession &client)
    {
        QSignalSpy ready(&client, &McpClientSession::ready);
        QSignalSpy failed(&client, &McpClientSession::failed);
        client.open();
        if (!QTest::qWaitFor([&] { return ready.size() + failed.size() > 0; }, 10000))
            return false;
        if (!failed.isEmpty())
            qWarning("%s", qPrintable(failed.first().first().toString()));
        return !ready.isEmpty();
    }

    static ToolCallReply call(McpClientSession &client, const QString &tool = u"echo"_s)
    {
        std::optional<ToolCallReply> reply;
        client.callTool(tool, {}, [&](const ToolCallReply &r) { reply = r; });
        if (!QTest::qWaitFor([&] { return reply.has_value(); }, 10000))
            qWarning("no reply to tools/call");
        return reply.value_or(ToolCallReply{{}, JsonRpc::Error{0, u"no reply"_s, {}}});
    }

    static QString closeError(QSignalSpy &closed)
    {
        return closed.first().first().value<SessionClosure>().transport.error;
    }

private slots:
    void initTestCase() { qRegisterMetaType<SessionClosure>(); }

    void handshakeSendsSessionHeadersAndDeletesTheSessionOnClose()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        auto client = streamable(fixture, fastOptions(), {{u"Authorization"_s, u"Bearer secret-token"_s}});
        QVERIFY(openReady(*client));
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
        QCOMPARE(fixture.requestsFor("GET").first().header("accept"), QByteArray("text/event-stream"));

        QSignalSpy closed(client.get(), &McpClientSession::closed);
        client->close();
        QTRY_COMPARE(closed.size(), 1);
        const QList<FixtureRequest> deletes = fixture.requestsFor("DELETE");
        QCOMPARE(deletes.size(), 1);
        QCOMPARE(deletes.first().header("mcp-session-id"), QByteArray("session-1"));
        QCOMPARE(client->transport()->description(), u"http: "_s + fixture.url().toString());
        QVERIFY(!client->transport()->description().contains(u"secret"_s));
        QCOMPARE(client->transport()->processId(), 0);
    }

    void notFoundWithTheSessionIsALostSession()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        auto client = streamable(fixture);
        QVERIFY(openReady(*client));
        server.overrides.insert(u"tools/call"_s, [](const FixtureRequest &) {
            return FixtureReply{404, {{"Content-Type", "application/json"}},
                                R"({"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null})"};
        });
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        const ToolCallReply reply = call(*client);
        QVERIFY(reply.error);
        QTRY_COMPARE(closed.size(), 1);
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
        QVERIFY(openReady(*client));
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
        QVERIFY(openReady(*client));
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
        QVERIFY(openReady(*client));

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
        std::optional<ToolCallReply> reply;
        client->callTool(u"echo"_s, {}, [&](const ToolCallReply &r) { reply = r; },
                         [&](const ProgressUpdate &update) { progress.append(update); });
        QTRY_VERIFY_WITH_TIMEOUT(reply.has_value(), 10000);
        QVERIFY2(!reply->error, reply->error ? qPrintable(reply->error->message) : "");
        QCOMPARE(renderContent(reply->result.content), u"resumed"_s);
        QCOMPARE(progress.size(), 1);

        QList<FixtureRequest> resumes;
        for (const FixtureRequest &get : fixture.requestsFor("GET")) {
            if (!get.header("last-event-id").isEmpty())
                resumes.append(get);
        }
        QCOMPARE(resumes.size(), 1);
        QCOMPARE(resumes.first().header("last-event-id"), QByteArray("e2"));
        QCOMPARE(resumes.first().header("mcp-session-id"), QByteArray("session-1"));
        // The server asked for 300 ms; the transport's own default here is 20 ms.
        QVERIFY2(resumes.first().receivedAtMs - cutAt >= 300,
                 qPrintable(QString::number(resumes.first().receivedAtMs - cutAt)));
        QVERIFY(client->isReady());
    }

    void streamWithoutEventIdsFailsOnlyItsRequest()
    {
        HttpFixture fixture;
        ScriptedServer server(fixture);
        auto client = streamable(fixture);
        QVERIFY(openReady(*client));
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
        QVERIFY(openReady(*client));
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
        QVERIFY(openReady(*client));
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
        const QString reason = failed.first().first().toString();
        QVERIFY2(reason.contains(u"HTTP 401"_s), qPrintable(reason));
        QVERIFY2(reason.contains(u"needs credentials"_s), qPrintable(reason));
        QVERIFY2(reason.contains(u"\"headers\""_s) && reason.contains(u"Authorization"_s), qPrintable(reason));
        QVERIFY2(reason.contains(u"Bearer"_s), qPrintable(reason));
        QTRY_COMPARE(closed.size(), 1);
    }

    void connectionRefused()
    {
        QUrl url;
        {
            HttpFixture gone; // listened once, so the port was free; nothing listens there now
            url = gone.url();
        }
        auto client = session(std::make_unique<StreamableHttpTransport>(HttpServerEndpoint{url, {}, {}}, fastOptions()));
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        client->open();
        QTRY_COMPARE(closed.size(), 1);
        const QString reason = closed.first().first().value<SessionClosure>().describe();
        QVERIFY2(reason.contains(u"connection refused"_s), qPrintable(reason));
        QVERIFY2(reason.contains(url.toString()), qPrintable(reason));
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
        QVERIFY(openReady(*client));
        QTRY_COMPARE(logs.size(), 1);
        QCOMPARE(logs.first().at(2).toJsonValue().toString(), u"from the GET stream"_s);

        fixture.closeStream();
        QTRY_COMPARE(closed.size(), 1);
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
        QVERIFY(openReady(*client));
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
        auto client = streamable(fixture);
        QSignalSpy lines(client.get(), &McpClientSession::stderrLine);
        QVERIFY(openReady(*client));
        QCOMPARE(client->serverIdentity().protocolVersion, u"2024-11-05"_s);
        QCOMPARE(renderContent(call(*client).result.content), u"legacy ok"_s);
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines.first().first().toString().contains(u"HTTP+SSE"_s), qPrintable(lines.first().first().toString()));
        QCOMPARE(fixture.posts(u"initialize"_s).size(), 2);
        QCOMPARE(fixture.posts(u"initialize"_s).last().path, QByteArray("/messages?session=7"));
        QVERIFY(static_cast<StreamableHttpTransport *>(client->transport())->fellBackToHttpSse());

        QSignalSpy closed(client.get(), &McpClientSession::closed);
        client->close();
        QTRY_COMPARE(closed.size(), 1);
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
        QVERIFY(openReady(*client));
        QCOMPARE(client->transport()->description(), u"sse: "_s + fixture.url(u"/sse"_s).toString());
        QSignalSpy closed(client.get(), &McpClientSession::closed);
        fixture.closeStream();
        QTRY_COMPARE(closed.size(), 1);
        QVERIFY2(closeError(closed).contains(u"ended its event stream"_s), qPrintable(closeError(closed)));
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
        QVERIFY2(closeError(closed).contains(u"not on the same host"_s), qPrintable(closeError(closed)));
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
};

QTEST_GUILESS_MAIN(TestHttpTransport)
#include "tst_httptransport.moc"
