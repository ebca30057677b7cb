// End to end on loopback against the official reference server @modelcontextprotocol/server-everything
// (pinned in package-lock.json) in its Streamable HTTP and HTTP+SSE modes.
#include "config/configparser.h"
#include "manager/servermanager.h"
#include "session/mcpclientsession.h"
#include "support/awaitreply.h"
#include "support/httpfixture.h"
#include "support/openready.h"
#include "support/stopallandwait.h"
#include "support/testprocess.h"
#include "transport/httpfallbacktransport.h"
#include "transport/httpssetransport.h"
#include "transport/streamablehttptransport.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;
using namespace std::chrono_literals;

class TestServerHttp final : public QObject
{
    Q_OBJECT

private:
    static QStringList toolNames(McpClientSession &client)
    {
        const ToolListReply reply = awaitToolList([&](ToolListHandler onReply) { client.listTools(std::move(onReply)); }, 30000);
        if (reply.error)
            return {};
        QStringList names;
        for (const ToolDefinition &tool : reply.tools)
            names.append(tool.name);
        return names;
    }

    static ToolCallReply call(McpClientSession &client, const QString &tool, const QJsonObject &arguments,
                              ProgressHandler onProgress = {})
    {
        return awaitToolCall([&](ToolCallHandler onReply) {
            client.callTool(tool, arguments, std::move(onReply), std::move(onProgress));
        }, 30000);
    }

    // An echo call to "remote" through the manager.
    static ToolCallReply echoThroughManager(ServerManager &manager)
    {
        return awaitToolCall([&](ToolCallHandler onReply) {
            manager.callTool(u"remote"_s, u"echo"_s, {{u"message"_s, u"again"_s}}, std::move(onReply));
        }, 10000);
    }

    // One http server "remote" at `url` that retries quickly, with the given heartbeat.
    static ConfigDocument restartingServerConfig(const QUrl &url, const QJsonObject &heartbeat)
    {
        const QByteArray file = QJsonDocument(QJsonObject{
            {u"mcpServers"_s, QJsonObject{{u"remote"_s, QJsonObject{
                {u"type"_s, u"http"_s},
                {u"url"_s, url.toString()},
                {u"reconnect"_s, QJsonObject{{u"initialDelayMs"_s, 100}, {u"maxDelayMs"_s, 1000}, {u"jitter"_s, 0}}},
                {u"heartbeat"_s, heartbeat},
                {u"timeoutMs"_s, 10000}}}}}}).toJson();
        return parseConfig(file, u"servers.json"_s, ConfigContext{systemEnvironment(), {}});
    }

    static QStringList sessionsInitialized(const QByteArray &output)
    {
        QStringList ids;
        static const QRegularExpression pattern(u"Session initialized with ID: ([0-9a-f-]+)"_s);
        for (auto it = pattern.globalMatch(QString::fromUtf8(output)); it.hasNext();)
            ids.append(it.next().captured(1));
        return ids;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(serverEverythingScript()),
                 "server-everything is not installed: run scripts/test.sh (or npm ci in the source folder)");
        QVERIFY2(!QStandardPaths::findExecutable(u"node"_s).isEmpty(), "node is not on PATH");
    }

    void streamableHttp()
    {
        ServerEverythingHttp server(u"streamableHttp"_s, freeLoopbackPort());
        QVERIFY2(server.start(), server.output.constData());
        auto transport = std::make_unique<StreamableHttpTransport>(HttpServerEndpoint{server.url(), {}, {}});
        StreamableHttpTransport *http = transport.get();
        McpClientSession client(std::move(transport), SessionOptions{u"everything"_s, 30s});
        QSignalSpy logs(&client, &McpClientSession::logMessage);

        QVERIFY(openReady(client, 30000));
        QCOMPARE(client.serverIdentity().protocolVersion, u"2025-11-25"_s);
        QVERIFY(!http->sessionId().isEmpty());
        QCOMPARE(http->protocolVersion(), u"2025-11-25"_s);

        const QStringList names = toolNames(client);
        QVERIFY2(names.contains(u"echo"_s) && names.contains(u"toggle-simulated-logging"_s), qPrintable(names.join(u", ")));

        const ToolCallReply echo = call(client, u"echo"_s, {{u"message"_s, u"over HTTP"_s}});
        QVERIFY(!echo.error);
        QCOMPARE(renderContent(echo.result.content), u"Echo: over HTTP"_s);

        // Progress arrives on the POST's event stream, before the response.
        QList<ProgressUpdate> progress;
        const ToolCallReply longRunning = call(client, u"trigger-long-running-operation"_s,
                                               {{u"duration"_s, 1}, {u"steps"_s, 2}},
                                               [&](const ProgressUpdate &update) { progress.append(update); });
        QVERIFY2(!longRunning.error, longRunning.error ? qPrintable(longRunning.error->message) : "");
        QCOMPARE(progress.size(), 2);

        // A log message the server sends on its own goes over the GET stream.
        QVERIFY(!call(client, u"toggle-simulated-logging"_s, {}).error);
        QTRY_VERIFY_WITH_TIMEOUT(!logs.isEmpty(), 10000);
        QVERIFY(logs.first().at(2).toJsonValue().toString().contains(QString::fromLatin1(http->sessionId())));

        QSignalSpy closed(&client, &McpClientSession::closed);
        client.close();
        QTRY_COMPARE_WITH_TIMEOUT(closed.size(), 1, 5000);
        const QByteArray ended = "Received session termination request for session " + http->sessionId();
        QTRY_VERIFY_WITH_TIMEOUT(server.output.contains(ended), 5000);
    }

    // Qt opens at most 6 connections per host and manager, and each of these calls holds one
    // for 20 s, as does the GET stream: a quick call and a ping must not queue behind them.
    void quickCallsDoNotWaitBehindLongRunningOnes()
    {
        ServerEverythingHttp server(u"streamableHttp"_s, freeLoopbackPort());
        QVERIFY2(server.start(), server.output.constData());
        McpClientSession client(std::make_unique<StreamableHttpTransport>(HttpServerEndpoint{server.url(), {}, {}}),
                                SessionOptions{u"everything"_s, 60s});
        QVERIFY(openReady(client, 30000));
        QTRY_VERIFY_WITH_TIMEOUT(server.output.contains("Establishing new SSE stream"), 10000);

        int longRunningAnswered = 0;
        for (int i = 0; i < 6; ++i) {
            client.callTool(u"trigger-long-running-operation"_s, {{u"duration"_s, 20}, {u"steps"_s, 2}},
                            [&](const ToolCallReply &) { ++longRunningAnswered; });
        }
        std::optional<ToolCallReply> echo;
        std::optional<RpcReply> ping;
        client.callTool(u"echo"_s, {{u"message"_s, u"quick"_s}}, [&](const ToolCallReply &reply) { echo = reply; });
        client.ping([&](const RpcReply &reply) { ping = reply; });
        QTRY_VERIFY_WITH_TIMEOUT(echo.has_value() && ping.has_value(), 10000);
        QVERIFY(!echo->error);
        QVERIFY(ping->ok());
        QCOMPARE(longRunningAnswered, 0);

        QSignalSpy closed(&client, &McpClientSession::closed);
        client.close(); // fails the long-running calls at once
        QTRY_COMPARE_WITH_TIMEOUT(closed.size(), 1, 5000);
        QCOMPARE(longRunningAnswered, 6);
    }

    void httpSse()
    {
        ServerEverythingHttp server(u"sse"_s, freeLoopbackPort());
        QVERIFY2(server.start(), server.output.constData());
        McpClientSession client(std::make_unique<HttpSseTransport>(HttpServerEndpoint{server.url(), {}, {}}),
                                SessionOptions{u"everything-sse"_s, 30s});
        QVERIFY(openReady(client, 30000));
        QVERIFY(toolNames(client).contains(u"get-sum"_s));
        const ToolCallReply sum = call(client, u"get-sum"_s, {{u"a"_s, 2}, {u"b"_s, 40}});
        QVERIFY(!sum.error);
        QVERIFY(renderContent(sum.result.content).contains(u"42"_s));

        QSignalSpy closed(&client, &McpClientSession::closed);
        client.close();
        QTRY_COMPARE(closed.size(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(server.output.contains("Client Disconnected"), 5000);
    }

    void streamableHttpFallsBackOnAnSseServer()
    {
        // POST /sse is no route of the SSE server (404): the same URL then speaks HTTP+SSE.
        ServerEverythingHttp server(u"sse"_s, freeLoopbackPort());
        QVERIFY2(server.start(), server.output.constData());
        auto transport = std::make_unique<HttpFallbackTransport>(HttpServerEndpoint{server.url(), {}, {}});
        HttpFallbackTransport *http = transport.get();
        McpClientSession client(std::move(transport), SessionOptions{u"everything-sse"_s, 30s});
        QSignalSpy lines(&client, &McpClientSession::stderrLine);
        QVERIFY(openReady(client, 30000));
        QVERIFY(http->fellBackToHttpSse());
        QCOMPARE(lines.size(), 1);
        QVERIFY(!call(client, u"echo"_s, {{u"message"_s, u"legacy"_s}}).error);
        QSignalSpy closed(&client, &McpClientSession::closed);
        client.close();
        QTRY_COMPARE(closed.size(), 1);
    }

    // Credentials the server refuses are not fixed by asking again: Failed after one attempt,
    // with the cause first, and the server asked once.
    void refusedCredentialsAreNotRetried_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("cause");
        QTest::newRow("401") << 401 << u"HTTP 401: needs a token (set \"Authorization\" in the server's \"headers\")"_s;
        QTest::newRow("403") << 403 << u"HTTP 403: access refused (check the token in the server's \"headers\")"_s;
    }

    void refusedCredentialsAreNotRetried()
    {
        QFETCH(int, status);
        QFETCH(QString, cause);
        HttpFixture fixture;
        fixture.setHandler([status](const FixtureRequest &) {
            return FixtureReply{status, {{"WWW-Authenticate", "Bearer realm=\"mcp\""}}, {}};
        });
        ServerManager manager;
        manager.applyConfig(restartingServerConfig(fixture.url(), QJsonObject{{u"enabled"_s, false}}));
        manager.startAll();
        QTRY_COMPARE_WITH_TIMEOUT(manager.status(u"remote"_s)->state, ServerState::Failed, 10000);
        const ServerStatus failed = *manager.status(u"remote"_s);
        QCOMPARE(failed.cause, cause);
        QCOMPARE(failed.generation, quint64(1));
        QCOMPARE(failed.attempt, 0);
        QVERIFY2(failed.reason.contains(u"not retried"_s) && failed.reason.contains(u"HTTP %1"_s.arg(status)),
                 qPrintable(failed.reason));
        QCOMPARE(fixture.posts(u"initialize"_s).size(), 1);
        QVERIFY(stopAllAndWait(manager));
    }

    void managerRecoversWithANewSessionAfterAServerRestart()
    {
        ServerEverythingHttp server(u"streamableHttp"_s, freeLoopbackPort());
        QVERIFY2(server.start(), server.output.constData());
        const ConfigDocument config = restartingServerConfig(server.url(), QJsonObject{{u"enabled"_s, false}});
        QVERIFY2(config.isValid() && config.servers.first().isValid(),
                 qPrintable((config.errors + config.servers.first().errors).join(u"; ")));

        ServerManager manager;
        QSignalSpy states(&manager, &ServerManager::stateChanged);
        manager.applyConfig(config);
        manager.startAll();
        QTRY_COMPARE_WITH_TIMEOUT(manager.status(u"remote"_s)->state, ServerState::Connected, 30000);
        QCOMPARE(manager.status(u"remote"_s)->transport, u"http: "_s + server.url().toString());
        QCOMPARE(manager.status(u"remote"_s)->pid, 0);
        QVERIFY(manager.status(u"remote"_s)->toolCount > 0);
        QCOMPARE(sessionsInitialized(server.output).size(), 1);

        server.kill();
        server.output.clear();
        QTRY_VERIFY_WITH_TIMEOUT(manager.status(u"remote"_s)->state != ServerState::Connected, 10000);
        const ServerStatus lost = *manager.status(u"remote"_s);
        QVERIFY2(lost.state == ServerState::Reconnecting || lost.state == ServerState::Retrying,
                 qPrintable(stateName(lost.state)));
        QVERIFY2(server.start(), server.output.constData());
        QTRY_COMPARE_WITH_TIMEOUT(manager.status(u"remote"_s)->state, ServerState::Connected, 30000);
        QCOMPARE(sessionsInitialized(server.output).size(), 1); // a new session, on the new server

        const ToolCallReply again = echoThroughManager(manager);
        QVERIFY2(!again.error, again.error ? qPrintable(again.error->message) : "");

        QVERIFY(stopAllAndWait(manager));
        QTRY_VERIFY_WITH_TIMEOUT(server.output.contains("Received session termination request"), 5000);
    }

    // The server restarts quicker than the GET stream gives up on it: the new server knows
    // nothing of the session (it answers 400 "No valid session ID"); with the heartbeat on, the
    // manager connects again with a new session.
    void heartbeatFindsASessionLostInAQuickRestart()
    {
        ServerEverythingHttp server(u"streamableHttp"_s, freeLoopbackPort());
        QVERIFY2(server.start(), server.output.constData());
        const ConfigDocument config = restartingServerConfig(server.url(), QJsonObject{{u"intervalMs"_s, 300}, {u"timeoutMs"_s, 250}, {u"maxFailures"_s, 1}});
        QVERIFY2(config.isValid() && config.servers.first().isValid(),
                 qPrintable((config.errors + config.servers.first().errors).join(u"; ")));

        ServerManager manager;
        QString lossReason; // the first one: later attempts may find the port closed
        connect(&manager, &ServerManager::stateChanged, this, [&](const ServerStatus &status) {
            if (status.state == ServerState::Reconnecting && lossReason.isEmpty())
                lossReason = status.reason;
        });
        manager.applyConfig(config);
        manager.startAll();
        QTRY_COMPARE_WITH_TIMEOUT(manager.status(u"remote"_s)->state, ServerState::Connected, 30000);
        const QStringList first = sessionsInitialized(server.output);
        QCOMPARE(first.size(), 1);

        server.kill();
        server.output.clear();
        QVERIFY2(server.start(), server.output.constData());
        QTRY_VERIFY_WITH_TIMEOUT(!sessionsInitialized(server.output).isEmpty(), 30000);
        QTRY_COMPARE_WITH_TIMEOUT(manager.status(u"remote"_s)->state, ServerState::Connected, 30000);
        const QStringList second = sessionsInitialized(server.output);
        QCOMPARE(second.size(), 1);
        QVERIFY(second.first() != first.first());
        // Found by whichever came first: a ping refused while the port was closed, the 400 to
        // a ping or the GET stream's resumption on the new server.
        QVERIFY2(lossReason.startsWith(u"connection lost"_s), qPrintable(lossReason));

        const ToolCallReply again = echoThroughManager(manager);
        QVERIFY2(!again.error, again.error ? qPrintable(again.error->message) : "");

        QVERIFY(stopAllAndWait(manager));
    }
};

QTEST_GUILESS_MAIN(TestServerHttp)
#include "tst_serverhttp.moc"
