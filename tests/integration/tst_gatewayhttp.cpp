// tetherctl serve --http as MCP hosts see it: the official TypeScript SDK client over Streamable
// HTTP lists the tools of the demo server and server-everything, calls them with progress,
// cancels, hears list_changed on its GET stream and ends its session; two hosts at once each get
// only their own progress; a host killed mid-call cancels its upstream call; and every request
// that is not admitted gets its HTTP status and a JSON-RPC error body.
#include "gateway/gatewayinstance.h"
#include "support/gatewayfixtures.h"
#include "support/httpgatewayprocess.h"
#include "support/promtool.h"
#include "support/rawhttpclient.h"
#include "support/sdkhost.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

Q_DECLARE_METATYPE(Tether::HttpHeaders)

namespace {

QByteArray rawRequest(const QByteArray &method, const QByteArray &path, const HttpHeaders &headers,
                      const QByteArray &body = {})
{
    QByteArray request = method + ' ' + path + " HTTP/1.1\r\n";
    for (const auto &[name, value] : headers.fields())
        request += name + ": " + value + "\r\n";
    if (method == "POST")
        request += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    return request + "\r\n" + body;
}

const QByteArray InitializeBody = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}})";

} // namespace

class TestGatewayHttp final : public QObject
{
    Q_OBJECT

private:
    QString writeConfig(const QByteArray &text) { return writeServersFile(m_dir, text); }

    std::unique_ptr<SdkHost> connectHost(const HttpGatewayProcess &gateway)
    {
        auto host = std::make_unique<SdkHost>(u"--http"_s, QStringList{gateway.url, QString::fromLatin1(gateway.token)});
        m_connected = host->waitForEvent(u"connected"_s, {}, 30000).value_or(QJsonObject());
        return host;
    }

    // The headers of a request as an SDK client sends it on `gateway`, with `changes` over them
    // (an empty value removes the field).
    static HttpHeaders headersFor(const HttpGatewayProcess &gateway, const HttpHeaders &changes)
    {
        HttpHeaders headers{{"Host", "127.0.0.1:" + QByteArray::number(gateway.port())},
                            {"Authorization", "Bearer " + gateway.token},
                            {"Accept", "application/json, text/event-stream"},
                            {"Content-Type", "application/json"}};
        for (const auto &[name, value] : changes.fields()) {
            headers.remove(name);
            if (!value.isEmpty())
                headers.append(name, value);
        }
        return headers;
    }

    // A session of `client`, connected to `gateway` and initialized by hand: its id, or empty.
    static QByteArray openRawSession(RawHttpClient &client, const HttpGatewayProcess &gateway)
    {
        if (!client.connectTo(gateway.port()))
            return {};
        client.send(rawRequest("POST", "/mcp", headersFor(gateway, {}), InitializeBody));
        const auto initialized = client.nextResponse(15000);
        return initialized && initialized->status == 200 ? initialized->headers.value("Mcp-Session-Id") : QByteArray();
    }

    QTemporaryDir m_dir;
    QJsonObject m_connected;
    std::unique_ptr<HttpGatewayProcess> m_admissionGateway; // the rows of admission() share it

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFileInfo::exists(serverEverythingScript()),
                 "server-everything is not installed: run scripts/test.sh (or npm ci in the source folder)");
    }

    void cleanupTestCase() { m_admissionGateway.reset(); }

    void sdkHostListsCallsAndEndsItsSession()
    {
        HttpGatewayProcess gateway(writeConfig(configText({{u"demo"_s, demoEntry()}, {u"everything"_s, everythingEntry()}},
                                                          {{u"toolsPageSize"_s, 5}})),
                                   m_dir.path());
        QVERIFY2(!gateway.url.isEmpty(), gateway.stderrText().constData());
        QVERIFY2(QRegularExpression(u"^http://127\\.0\\.0\\.1:\\d+/mcp$"_s).match(gateway.url).hasMatch(),
                 qPrintable(gateway.url));
        QCOMPARE(gateway.token.size(), 43);
        auto host = connectHost(gateway);
        QVERIFY2(!m_connected.isEmpty(), host->nodeStderr().constData());
        QCOMPARE(m_connected.value(u"serverVersion").toObject().value(u"name").toString(), u"tether"_s);
        QVERIFY(!m_connected.value(u"sessionId").toString().isEmpty());

        host->send({{u"op"_s, u"list"_s}, {u"id"_s, u"tools"_s}});
        const auto listed = host->waitForEvent(u"tools"_s, u"tools"_s);
        QVERIFY(listed);
        QStringList names;
        for (const QJsonValue &tool : listed->value(u"tools").toArray())
            names.append(tool.toObject().value(u"name").toString());
        QStringList expected = publicNames(u"demo"_s, DemoTools) + publicNames(u"everything"_s, EverythingTools);
        expected.sort();
        QCOMPARE(names, expected);
        QCOMPARE(listed->value(u"pages").toInt(), 6);

        host->send(call(u"echo"_s, u"demo__echo"_s, {{u"message"_s, u"over HTTP"_s}}));
        host->send(call(u"sum"_s, u"everything__get-sum"_s, {{u"a"_s, 2}, {u"b"_s, 3}}));
        host->send(call(u"unknown"_s, u"demo__nothing"_s, {}));
        host->send(call(u"sleep"_s, u"demo__sleep"_s, {{u"ms"_s, 500}}, true));
        const auto echoed = host->waitForAnswer(u"echo"_s);
        QVERIFY(echoed);
        QCOMPARE(resultText(*echoed), u"over HTTP"_s);
        const auto sum = host->waitForAnswer(u"sum"_s);
        QVERIFY(sum && sum->value(u"event").toString() == u"result");
        QVERIFY2(resultText(*sum).contains(u"5"_s), qPrintable(resultText(*sum)));
        const auto unknown = host->waitForAnswer(u"unknown"_s);
        QVERIFY(unknown);
        QCOMPARE(unknown->value(u"code").toInt(), -32602);
        const auto slept = host->waitForAnswer(u"sleep"_s);
        QVERIFY(slept);
        QCOMPARE(resultText(*slept), u"slept 500 ms"_s);
        QList<double> progress;
        for (const QJsonObject &event : host->events()) {
            if (event.value(u"event").toString() == u"progress" && event.value(u"id").toString() == u"sleep")
                progress.append(event.value(u"progress").toDouble());
        }
        QVERIFY(progress.size() >= 2);
        QVERIFY(std::is_sorted(progress.cbegin(), progress.cend()));

        // DELETE ends the session: Tether says so, and the session id is no more.
        host->send({{u"op"_s, u"terminate"_s}});
        QVERIFY(host->waitForEvent(u"terminated"_s));
        QTRY_VERIFY_WITH_TIMEOUT(gateway.stderrContains(u"tether-test-host 1.0.0 left (the host ended its session)"_s), 10000);
        RawHttpClient raw;
        QVERIFY(raw.connectTo(gateway.port()));
        raw.send(rawRequest("POST", "/mcp",
                            headersFor(gateway, {{"Mcp-Session-Id", m_connected.value(u"sessionId").toString().toLatin1()}}),
                            R"({"jsonrpc":"2.0","id":2,"method":"ping"})"));
        const auto gone = raw.nextResponse();
        QVERIFY(gone);
        QCOMPARE(gone->status, 404);
        QVERIFY2(host->unexpectedClientErrors().isEmpty(), qPrintable(host->unexpectedClientErrors().join(u"; ")));

        // SIGTERM: the servers stop, and so does tetherctl.
        const QList<qint64> servers = childrenOf(gateway.process().processId());
        QCOMPARE(servers.size(), 2);
        QVERIFY(::kill(pid_t(gateway.process().processId()), SIGTERM) == 0);
        QVERIFY(gateway.process().waitForFinished(15000));
        QCOMPARE(gateway.process().exitStatus(), QProcess::NormalExit);
        QCOMPARE(gateway.process().exitCode(), 0);
        for (qint64 server : servers)
            QVERIFY(!processAlive(server));
    }

    void cancelsAndHearsListChanged()
    {
        const QString path = writeConfig(configText({{u"demo"_s, demoEntry()}}));
        HttpGatewayProcess gateway(path, m_dir.path());
        QVERIFY2(!gateway.url.isEmpty(), gateway.stderrText().constData());
        auto host = connectHost(gateway);
        QVERIFY2(!m_connected.isEmpty(), host->nodeStderr().constData());
        QCOMPARE(host->listToolNames(u"before"_s).size(), DemoTools.size());

        host->send(call(u"long"_s, u"demo__sleep"_s, {{u"ms"_s, 60000}}, true));
        QVERIFY(host->waitForEvent(u"progress"_s, u"long"_s));
        host->send({{u"op"_s, u"cancel"_s}, {u"id"_s, u"long"_s}});
        const auto answer = host->waitForAnswer(u"long"_s);
        QVERIFY(answer);
        QCOMPARE(answer->value(u"event").toString(), u"rejected"_s);
        QTRY_VERIFY_WITH_TIMEOUT(gateway.stderrContains(u"demo: cancelled request"_s), 10000);

        // Hidden in a save: list_changed comes on the session's GET stream.
        QVERIFY(writeFile(path, configText({{u"demo"_s, demoEntry({{u"tools"_s, QJsonObject{{u"disabled"_s,
                                              QJsonArray{u"echo"_s, u"add"_s}}}}})}})));
        QVERIFY(host->waitForEvent(u"list_changed"_s, {}, 15000));
        const QStringList hidden = host->listToolNames(u"hidden"_s);
        QCOMPARE(hidden.size(), DemoTools.size() - 2);
        QVERIFY(!hidden.contains(u"demo__echo"_s));

        // A server added in a save: list_changed once its tools are in.
        QVERIFY(writeFile(path, configText({{u"demo"_s, demoEntry({{u"tools"_s, QJsonObject{{u"disabled"_s,
                                              QJsonArray{u"echo"_s, u"add"_s}}}}})},
                                             {u"second"_s, demoEntry()}})));
        QVERIFY(host->waitFor([&](const QJsonObject &) { return host->count(u"list_changed"_s) == 2; }, 15000));
        const QStringList added = host->listToolNames(u"added"_s);
        QCOMPARE(added.size(), 2 * DemoTools.size() - 2);
        QVERIFY(added.contains(u"second__echo"_s));
        QVERIFY2(host->unexpectedClientErrors().isEmpty(), qPrintable(host->unexpectedClientErrors().join(u"; ")));
    }

    void twoHostsEachGetTheirOwnProgress()
    {
        HttpGatewayProcess gateway(writeConfig(configText({{u"demo"_s, demoEntry()}})), m_dir.path());
        QVERIFY2(!gateway.url.isEmpty(), gateway.stderrText().constData());
        auto first = connectHost(gateway);
        QVERIFY2(!m_connected.isEmpty(), first->nodeStderr().constData());
        auto second = connectHost(gateway);
        QVERIFY2(!m_connected.isEmpty(), second->nodeStderr().constData());

        // Both use the same request ids and progress tokens: only the session tells them apart.
        first->send(call(u"c"_s, u"demo__sleep"_s, {{u"ms"_s, 700}}, true));
        second->send(call(u"c"_s, u"demo__sleep"_s, {{u"ms"_s, 300}}, true));
        const auto firstAnswer = first->waitForAnswer(u"c"_s);
        const auto secondAnswer = second->waitForAnswer(u"c"_s);
        QVERIFY(firstAnswer && secondAnswer);
        QCOMPARE(resultText(*firstAnswer), u"slept 700 ms"_s);
        QCOMPARE(resultText(*secondAnswer), u"slept 300 ms"_s);
        for (SdkHost *host : {first.get(), second.get()}) {
            const int total = host == first.get() ? 700 : 300;
            qsizetype progress = 0;
            for (const QJsonObject &event : host->events()) {
                if (event.value(u"event").toString() != u"progress")
                    continue;
                ++progress;
                QCOMPARE(event.value(u"total").toInt(), total);
            }
            QVERIFY(progress >= 2);
            // A progress notification for a token the SDK did not give would be a client error.
            QVERIFY2(host->unexpectedClientErrors().isEmpty(), qPrintable(host->unexpectedClientErrors().join(u"; ")));
        }
    }

    void anIdStillInFlightIsRefusedAndACallStreamsItsProgress()
    {
        HttpGatewayProcess gateway(writeConfig(configText({{u"demo"_s, demoEntry()}})), m_dir.path());
        QVERIFY2(!gateway.url.isEmpty(), gateway.stderrText().constData());
        RawHttpClient first;
        const QByteArray sessionId = openRawSession(first, gateway);
        QVERIFY(!sessionId.isEmpty());
        const QByteArray call = R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"demo__sleep","arguments":{"ms":1500},"_meta":{"progressToken":"t"}}})";
        first.send(rawRequest("POST", "/mcp", headersFor(gateway, {{"Mcp-Session-Id", sessionId}}), call));
        QVERIFY(first.waitForBytes(R"("progressToken":"t")", 15000));
        QVERIFY(first.received.contains("Content-Type: text/event-stream"));

        RawHttpClient second;
        QVERIFY(second.connectTo(gateway.port()));
        second.send(rawRequest("POST", "/mcp", headersFor(gateway, {{"Mcp-Session-Id", sessionId}}),
                               R"({"jsonrpc":"2.0","id":7,"method":"ping"})"));
        const auto refused = second.nextResponse();
        QVERIFY(refused);
        QCOMPARE(refused->status, 200);
        const QJsonObject error = QJsonDocument::fromJson(refused->body).object();
        QCOMPARE(error.value(u"id").toInt(), 7);
        QCOMPARE(error.value(u"error").toObject().value(u"message").toString(),
                 u"Invalid request: the id 7 belongs to a request still in flight; give each request its own id"_s);

        // The call's stream: progress, then its response, then its end.
        const auto streamed = first.nextResponse(15000);
        QVERIFY(streamed);
        QVERIFY2(streamed->body.contains("slept 1500 ms") && streamed->body.endsWith("\n\n"),
                 streamed->body.constData());
        QVERIFY(streamed->body.indexOf("notifications/progress") < streamed->body.indexOf("slept 1500 ms"));
    }

    void aCallWithoutProgressIsOneJsonAnswerAndEndsWithItsConnection()
    {
        HttpGatewayProcess gateway(writeConfig(configText({{u"demo"_s, demoEntry()}})), m_dir.path());
        QVERIFY2(!gateway.url.isEmpty(), gateway.stderrText().constData());
        RawHttpClient client;
        const QByteArray sessionId = openRawSession(client, gateway);
        QVERIFY(!sessionId.isEmpty());
        // The host accepts an event stream, but a call that asks for no progress has none to send.
        client.send(rawRequest("POST", "/mcp", headersFor(gateway, {{"Mcp-Session-Id", sessionId}}),
                               R"({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"demo__echo","arguments":{"message":"plain"}}})"));
        const auto answered = client.nextResponse(15000);
        QVERIFY(answered);
        QCOMPARE(answered->status, 200);
        QCOMPARE(answered->headers.value("Content-Type"), QByteArray("application/json"));
        const QJsonObject response = QJsonDocument::fromJson(answered->body).object();
        QCOMPARE(response.value(u"id").toInt(), 8);
        QCOMPARE(response.value(u"result").toObject().value(u"content").toArray().first().toObject().value(u"text").toString(),
                 u"plain"_s);

        // Its connection gone, a call waiting for its one answer is cancelled at the server.
        RawHttpClient leaving;
        QVERIFY(leaving.connectTo(gateway.port()));
        leaving.send(rawRequest("POST", "/mcp", headersFor(gateway, {{"Mcp-Session-Id", sessionId}}),
                                R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"demo__sleep","arguments":{"ms":60000}}})"));
        QTRY_VERIFY_WITH_TIMEOUT(gateway.stderrContains(u"sleeping 60000 ms"_s), 15000);
        leaving.close();
        QTRY_VERIFY_WITH_TIMEOUT(gateway.stderrContains(u"demo: cancelled request"_s), 15000);
    }

    void aHostKilledMidCallCancelsItsUpstreamCall()
    {
        HttpGatewayProcess gateway(writeConfig(configText({{u"demo"_s, demoEntry()}})), m_dir.path());
        QVERIFY2(!gateway.url.isEmpty(), gateway.stderrText().constData());
        auto host = connectHost(gateway);
        QVERIFY2(!m_connected.isEmpty(), host->nodeStderr().constData());
        host->send(call(u"long"_s, u"demo__sleep"_s, {{u"ms"_s, 60000}}, true));
        QVERIFY(host->waitForEvent(u"progress"_s, u"long"_s));
        QVERIFY(!gateway.stderrContains(u"demo: cancelled request"_s));
        host->process().kill();
        QVERIFY(host->process().waitForFinished(10000));
        QTRY_VERIFY_WITH_TIMEOUT(gateway.stderrContains(u"demo: cancelled request"_s), 10000);
        QVERIFY2(gateway.stderrContains(u"the host disconnected before the answer came"_s), gateway.stderrText().constData());
    }

    void aStdioHostIsRelayedToTheRunningTetherUntilItGoes()
    {
        const QString path = writeConfig(configText({{u"demo"_s, demoEntry()}}));
        HttpGatewayProcess gateway(path, m_dir.path());
        QVERIFY2(!gateway.url.isEmpty(), gateway.stderrText().constData());
        // The instance record: the user's alone, naming this instance.
        const QString record = m_dir.filePath(u"tether/"_s + gatewayInstanceRecordName(path));
        struct stat info{};
        QCOMPARE(::stat(QFile::encodeName(m_dir.filePath(u"tether"_s)).constData(), &info), 0);
        QCOMPARE(info.st_mode & 0777, 0700u);
        QCOMPARE(::stat(QFile::encodeName(record).constData(), &info), 0);
        QCOMPARE(info.st_mode & 0777, 0600u);
        const QJsonObject written = QJsonDocument::fromJson(readFile(record)).object();
        QCOMPARE(written.value(u"pid").toInteger(), gateway.process().processId());
        QCOMPARE(written.value(u"url").toString(), gateway.url);
        QCOMPARE(written.value(u"configPath").toString(), QFileInfo(path).canonicalFilePath());
        // Its relay socket beside it, the user's alone too.
        const QString socket = written.value(u"socket").toString();
        QCOMPARE(QFileInfo(socket).absolutePath(), m_dir.filePath(u"tether"_s));
        QCOMPARE(::stat(QFile::encodeName(socket).constData(), &info), 0);
        QVERIFY(S_ISSOCK(info.st_mode));
        QCOMPARE(info.st_mode & 0777, 0600u);

        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"XDG_RUNTIME_DIR"_s, m_dir.path());
        // --no-bridge: a host that wants its own servers gets them.
        SdkHost own(QStringLiteral(TETHERCTL), {u"serve"_s, u"--no-bridge"_s, u"--config"_s, path}, environment);
        const auto ownConnected = own.waitForEvent(u"connected"_s);
        QVERIFY2(ownConnected, own.nodeStderr().constData());
        QCOMPARE(childrenOf(ownConnected->value(u"pid").toInteger()).size(), 1);

        SdkHost host(QStringLiteral(TETHERCTL), {u"serve"_s, u"-v"_s, u"--config"_s, path}, environment);
        const auto connected = host.waitForEvent(u"connected"_s);
        QVERIFY2(connected, host.nodeStderr().constData());
        const qint64 serve = connected->value(u"pid").toInteger();
        // Relayed over the socket: the instance knows the host by its own name, and runs the servers.
        QTRY_VERIFY_WITH_TIMEOUT(gateway.stderrContains(u"tether-test-host 1.0.0 connected over stdio (relayed)"_s), 10000);
        QVERIFY(childrenOf(serve).isEmpty());
        const QStringList expected = publicNames(u"demo"_s, DemoTools);
        QCOMPARE(host.listToolNames(u"bridged"_s), expected);
        host.send(call(u"echo"_s, u"demo__echo"_s, {{u"message"_s, u"relayed"_s}}));
        const auto relayed = host.waitForAnswer(u"echo"_s);
        QVERIFY(relayed);
        QCOMPARE(resultText(*relayed), u"relayed"_s);
        host.send(call(u"sleep"_s, u"demo__sleep"_s, {{u"ms"_s, 300}}, true));
        QVERIFY(host.waitForAnswer(u"sleep"_s));
        QVERIFY(host.waitForEvent(u"progress"_s, u"sleep"_s, 0));

        // The instance goes: its record with it, and serve takes over with servers of its own.
        QVERIFY(::kill(pid_t(gateway.process().processId()), SIGTERM) == 0);
        QVERIFY(gateway.process().waitForFinished(15000));
        QVERIFY(!QFileInfo::exists(record));
        QVERIFY(!QFileInfo::exists(socket));
        QVERIFY(host.waitForEvent(u"list_changed"_s, {}, 30000));
        QCOMPARE(host.listToolNames(u"after"_s), expected);
        host.send(call(u"after"_s, u"demo__echo"_s, {{u"message"_s, u"taken over"_s}}));
        const auto after = host.waitForAnswer(u"after"_s);
        QVERIFY(after);
        QCOMPARE(resultText(*after), u"taken over"_s);
        const QList<qint64> servers = childrenOf(serve);
        QCOMPARE(servers.size(), 1);
        QVERIFY2(host.unexpectedClientErrors().isEmpty(), qPrintable(host.unexpectedClientErrors().join(u"; ")));

        host.send({{u"op"_s, u"close"_s}});
        QVERIFY(host.waitForEvent(u"closed"_s, {}, 15000));
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(serve), 10000);
        QVERIFY(!processAlive(servers.first()));
    }

    void aRelayedCallTheRunningTetherNeverAnswersIsAnsweredWhenItDies()
    {
        const QString path = writeConfig(configText({{u"demo"_s, demoEntry()}}));
        HttpGatewayProcess gateway(path, m_dir.path());
        QVERIFY2(!gateway.url.isEmpty(), gateway.stderrText().constData());
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"XDG_RUNTIME_DIR"_s, m_dir.path());
        SdkHost host(QStringLiteral(TETHERCTL), {u"serve"_s, u"--config"_s, path}, environment);
        QVERIFY2(host.waitForEvent(u"connected"_s), host.nodeStderr().constData());
        QTRY_VERIFY_WITH_TIMEOUT(gateway.stderrContains(u"connected over stdio (relayed)"_s), 10000);
        host.send(call(u"long"_s, u"demo__sleep"_s, {{u"ms"_s, 60000}}, true));
        QVERIFY(host.waitForEvent(u"progress"_s, u"long"_s));

        // Killed, the instance answers nothing more: the relay answers the call it was running.
        QVERIFY(::kill(pid_t(gateway.process().processId()), SIGKILL) == 0);
        const auto answer = host.waitForAnswer(u"long"_s, 15000);
        QVERIFY(answer);
        QCOMPARE(answer->value(u"result").toObject().value(u"isError").toBool(), true);
        QVERIFY2(resultText(*answer).startsWith(u"Tool 'demo__sleep' did not finish: the Tether that served it went away"_s),
                 qPrintable(resultText(*answer)));
        host.send(call(u"again"_s, u"demo__echo"_s, {{u"message"_s, u"taken over"_s}}));
        const auto again = host.waitForAnswer(u"again"_s);
        QVERIFY(again);
        QCOMPARE(resultText(*again), u"taken over"_s);
        QVERIFY2(host.unexpectedClientErrors().isEmpty(), qPrintable(host.unexpectedClientErrors().join(u"; ")));
    }

    void admission_data()
    {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QByteArray>("path");
        QTest::addColumn<HttpHeaders>("changes");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("message");
        const QByteArray ping = R"({"jsonrpc":"2.0","id":2,"method":"ping"})";

        QTest::newRow("no token") << QByteArray("POST") << QByteArray("/mcp") << HttpHeaders{{"Authorization", ""}}
                                  << InitializeBody << 401 << u"no bearer token was sent"_s;
        QTest::newRow("wrong token") << QByteArray("POST") << QByteArray("/mcp")
                                     << HttpHeaders{{"Authorization", "Bearer not-the-token-of-this-gateway"}}
                                     << InitializeBody << 401 << u"the bearer token is wrong"_s;
        QTest::newRow("foreign Origin") << QByteArray("POST") << QByteArray("/mcp")
                                        << HttpHeaders{{"Origin", "http://evil.example"}} << InitializeBody << 403
                                        << u"http://evil.example are refused"_s;
        QTest::newRow("foreign Host") << QByteArray("POST") << QByteArray("/mcp") << HttpHeaders{{"Host", "evil.example"}}
                                      << InitializeBody << 403 << u"is not this gateway's"_s;
        QTest::newRow("other path") << QByteArray("GET") << QByteArray("/sse") << HttpHeaders{} << QByteArray() << 404
                                    << u"nothing is served at /sse"_s;
        QTest::newRow("metrics without the token") << QByteArray("GET") << QByteArray("/metrics")
                                                   << HttpHeaders{{"Authorization", ""}, {"Content-Type", ""}} << QByteArray()
                                                   << 401 << u"no bearer token was sent"_s;
        QTest::newRow("OPTIONS") << QByteArray("OPTIONS") << QByteArray("/mcp") << HttpHeaders{} << QByteArray() << 405
                                 << u"takes GET, POST, DELETE"_s;
        QTest::newRow("PUT") << QByteArray("PUT") << QByteArray("/mcp") << HttpHeaders{} << QByteArray() << 405
                             << u"PUT"_s;
        QTest::newRow("body too large") << QByteArray("POST") << QByteArray("/mcp") << HttpHeaders{}
                                        << QByteArray(2048, ' ') << 413 << u"raise gateway.http.maxBodyBytes"_s;
        QTest::newRow("text body") << QByteArray("POST") << QByteArray("/mcp") << HttpHeaders{{"Content-Type", "text/plain"}}
                                   << InitializeBody << 415 << u"application/json"_s;
        QTest::newRow("accepts HTML only") << QByteArray("POST") << QByteArray("/mcp") << HttpHeaders{{"Accept", "text/html"}}
                                           << InitializeBody << 406 << u"takes neither"_s;
        QTest::newRow("no session id") << QByteArray("POST") << QByteArray("/mcp") << HttpHeaders{} << ping << 400
                                       << u"no Mcp-Session-Id header; send initialize first"_s;
        QTest::newRow("GET without session") << QByteArray("GET") << QByteArray("/mcp") << HttpHeaders{{"Content-Type", ""}}
                                             << QByteArray() << 400 << u"needs the Mcp-Session-Id header"_s;
        QTest::newRow("unknown session") << QByteArray("POST") << QByteArray("/mcp")
                                         << HttpHeaders{{"Mcp-Session-Id", "00000000000000000000000000000000"}} << ping
                                         << 404 << u"Session not found"_s;
        QTest::newRow("unknown protocol version") << QByteArray("POST") << QByteArray("/mcp")
                                                  << HttpHeaders{{"MCP-Protocol-Version", "1999-01-01"}}
                                                  << InitializeBody << 400 << u"not one Tether speaks"_s;
        QTest::newRow("not JSON") << QByteArray("POST") << QByteArray("/mcp") << HttpHeaders{} << QByteArray("{nope")
                                  << 400 << u"Parse error"_s;
        QTest::newRow("batch") << QByteArray("POST") << QByteArray("/mcp") << HttpHeaders{} << ("[" + ping + "]")
                               << 400 << u"no batches"_s;
        QTest::newRow("not JSON-RPC") << QByteArray("POST") << QByteArray("/mcp") << HttpHeaders{}
                                      << QByteArray(R"({"hello":"world"})") << 400 << u"Invalid request"_s;
    }

    void admission()
    {
        QFETCH(QByteArray, method);
        QFETCH(QByteArray, path);
        QFETCH(HttpHeaders, changes);
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, message);
        if (!m_admissionGateway) {
            // One for every row, on a config of its own (the tests after it run theirs beside it). No
            // servers: admission needs none. Small bodies, so that 413 is cheap to reach.
            const QString config = m_dir.filePath(u"admission-servers.json"_s);
            QVERIFY(writeFile(config, configText({}, {{u"http"_s, QJsonObject{{u"maxBodyBytes"_s, 1024}}}})));
            m_admissionGateway = std::make_unique<HttpGatewayProcess>(config, m_dir.path());
        }
        HttpGatewayProcess *gateway = m_admissionGateway.get();
        QVERIFY2(!gateway->url.isEmpty(), gateway->stderrText().constData());
        RawHttpClient raw;
        QVERIFY(raw.connectTo(gateway->port()));
        raw.send(rawRequest(method, path, headersFor(*gateway, changes), body));
        const auto response = raw.nextResponse();
        QVERIFY(response);
        QCOMPARE(response->status, status);
        QCOMPARE(response->headers.value("Content-Type"), QByteArray("application/json"));
        const QJsonObject error = QJsonDocument::fromJson(response->body).object();
        QVERIFY2(error.value(u"id").isNull() && error.value(u"jsonrpc").toString() == u"2.0", response->body.constData());
        const QString text = error.value(u"error").toObject().value(u"message").toString();
        QVERIFY2(text.contains(message, Qt::CaseInsensitive), qPrintable(text));
        if (status == 401)
            QCOMPARE(response->headers.value("WWW-Authenticate"), QByteArray(R"(Bearer realm="tether")"));
    }

    // What a Prometheus scrape gets: the gateway's servers, calls and refusals, in a text promtool takes.
    void metricsOfTheServedGateway()
    {
        HttpGatewayProcess gateway(writeConfig(configText({{u"demo"_s, demoEntry()}})), m_dir.path());
        QVERIFY2(!gateway.url.isEmpty(), gateway.stderrText().constData());
        // A refusal ends its connection: each request on one of its own.
        const auto get = [&](const QByteArray &method, const QByteArray &path, const HttpHeaders &changes,
                             const QByteArray &body) {
            RawHttpClient raw;
            return raw.connectTo(gateway.port()) ? (raw.send(rawRequest(method, path, headersFor(gateway, changes), body)),
                                                    raw.nextResponse())
                                                 : std::nullopt;
        };
        const auto refused = get("POST", "/mcp", {{"Authorization", "Bearer wrong"}}, InitializeBody);
        QVERIFY(refused);
        QCOMPARE(refused->status, 401);

        QByteArray text;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                const auto metrics = get("GET", "/metrics", {{"Content-Type", ""}}, {});
                if (!metrics || metrics->status != 200)
                    return false;
                text = metrics->body;
                return text.contains("tether_server_up{server=\"demo\"} 1");
            }(),
            15000);
        QVERIFY2(text.contains("tether_gateway_http_refusals_total{status=\"401\"} 1"), text.constData());
        QVERIFY2(text.contains("tether_server_tools{server=\"demo\"} 12"), text.constData());

        TETHER_FIND_PROMTOOL(promtool)
        QProcess check;
        check.start(promtool, {u"check"_s, u"metrics"_s});
        QVERIFY(check.waitForStarted());
        check.write(text);
        check.closeWriteChannel();
        QVERIFY(check.waitForFinished(30000));
        QVERIFY2(check.exitCode() == 0, check.readAllStandardError().constData());
    }

    void healthAnswersTheInstance()
    {
        HttpGatewayProcess gateway(writeConfig(configText({})), m_dir.path());
        QVERIFY2(!gateway.url.isEmpty(), gateway.stderrText().constData());
        RawHttpClient raw;
        QVERIFY(raw.connectTo(gateway.port()));
        raw.send(rawRequest("GET", "/healthz", headersFor(gateway, {{"Content-Type", ""}})));
        const auto response = raw.nextResponse();
        QVERIFY(response);
        QCOMPARE(response->status, 200);
        const QJsonObject health = QJsonDocument::fromJson(response->body).object();
        QCOMPARE(health.value(u"instance").toString().size(), 32);
        QCOMPARE(health.value(u"pid").toInteger(), gateway.process().processId());
        raw.send(rawRequest("GET", "/healthz", headersFor(gateway, {{"Authorization", ""}, {"Content-Type", ""}})));
        const auto refused = raw.nextResponse();
        QVERIFY(refused);
        QCOMPARE(refused->status, 401);
    }

    void aSecondGatewayOnThePortNamesTheFirst()
    {
        const QString path = writeConfig(configText({}));
        HttpGatewayProcess first(path, m_dir.path());
        QVERIFY2(!first.url.isEmpty(), first.stderrText().constData());
        QProcess second;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"XDG_RUNTIME_DIR"_s, m_dir.path());
        second.setProcessEnvironment(environment);
        // Another config on the same port: the first is found among the records of every config.
        const QString other = m_dir.filePath(u"other-servers.json"_s);
        QVERIFY(writeFile(other, configText({})));
        second.start(QStringLiteral(TETHERCTL), {u"serve"_s, u"--http"_s, u"--port"_s, QString::number(first.port()),
                                                  u"--config"_s, other});
        QVERIFY(second.waitForFinished(15000));
        QCOMPARE(second.exitCode(), 2);
        const QString error = QString::fromUtf8(second.readAllStandardError());
        QVERIFY2(error.contains(u"(the Tether of pid %1 serves %2)"_s.arg(first.process().processId()).arg(first.url)),
                 qPrintable(error));
        // The first one's record stays.
        QCOMPARE(QJsonDocument::fromJson(readFile(m_dir.filePath(u"tether/"_s + gatewayInstanceRecordName(path))))
                     .object()
                     .value(u"pid")
                     .toInteger(),
                 first.process().processId());
        QVERIFY(!QFile::exists(m_dir.filePath(u"tether/"_s + gatewayInstanceRecordName(other))));
    }

    void beyondLoopbackOnlyOverTls()
    {
        // Without TLS: a config error naming the key and what to do.
        QProcess plain;
        plain.start(QStringLiteral(TETHERCTL), {u"serve"_s, u"--http"_s, u"--config"_s,
                                                 writeConfig(configText({}, {{u"http"_s, QJsonObject{{u"host"_s, u"0.0.0.0"_s}}}}))});
        QVERIFY(plain.waitForFinished(15000));
        QCOMPARE(plain.exitCode(), 2);
        const QString error = QString::fromUtf8(plain.readAllStandardError());
        QVERIFY2(error.contains(u"gateway.http.host = \"0.0.0.0\" is beyond this machine's loopback, and the gateway "
                                "serves it only over TLS: set gateway.http.tls"_s),
                 qPrintable(error));

        // With TLS (the test certificate of tests/data/tls): https, and the token still wanted.
        const QString certificate = QStringLiteral(TETHER_TEST_DATA "/tls/certificate.pem");
        const QJsonObject files{{u"certificate"_s, certificate}, {u"key"_s, QStringLiteral(TETHER_TEST_DATA "/tls/key.pem")}};
        const QJsonObject http{{u"host"_s, u"0.0.0.0"_s}, {u"tls"_s, files}};
        HttpGatewayProcess gateway(writeConfig(configText({}, {{u"http"_s, http}})), m_dir.path());
        QVERIFY2(gateway.url.startsWith(u"https://127.0.0.1:"_s), gateway.stderrText().constData());
        RawHttpClient client(QSslCertificate::fromPath(certificate));
        QVERIFY(client.connectTo(gateway.port()));
        client.send(rawRequest("GET", "/healthz", headersFor(gateway, {{"Content-Type", ""}})));
        const auto health = client.nextResponse();
        QVERIFY(health);
        QCOMPARE(health->status, 200);
        client.send(rawRequest("GET", "/healthz", headersFor(gateway, {{"Content-Type", ""}, {"Authorization", ""}})));
        const auto refused = client.nextResponse();
        QVERIFY(refused);
        QCOMPARE(refused->status, 401);
        // Plain HTTP gets no answer.
        RawHttpClient cleartext;
        QVERIFY(cleartext.connectTo(gateway.port()));
        cleartext.send(rawRequest("GET", "/healthz", headersFor(gateway, {{"Content-Type", ""}})));
        QVERIFY(!cleartext.nextResponse(1000));
    }

    void aPortInUseIsAnError()
    {
        QTcpServer taken;
        QVERIFY(taken.listen(QHostAddress::LocalHost));
        QProcess serve;
        serve.start(QStringLiteral(TETHERCTL), {u"serve"_s, u"--http"_s, u"--port"_s, QString::number(taken.serverPort()),
                                                 u"--config"_s, writeConfig(configText({}))});
        QVERIFY(serve.waitForFinished(15000));
        QCOMPARE(serve.exitCode(), 2);
        const QString error = QString::fromUtf8(serve.readAllStandardError());
        QVERIFY2(error.contains(u"serve --http: Cannot listen on 127.0.0.1 port %1"_s.arg(taken.serverPort()))
                     && error.contains(u"set gateway.http.port to a free port"_s),
                 qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestGatewayHttp)
#include "tst_gatewayhttp.moc"
