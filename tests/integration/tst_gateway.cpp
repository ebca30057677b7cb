// tetherctl serve as an MCP host sees it: the official TypeScript SDK client (pinned in
// package-lock.json) starts it over stdio, lists the tools of the demo server and server-everything,
// calls them, sees progress, cancels, hears list_changed, and lives through a server's outage; a
// host that pipes its requests in and closes stdin gets them answered, relayed or not.
#include "support/gatewayfixtures.h"
#include "support/httpgatewayprocess.h"
#include "support/sdkhost.h"
#include "support/testfiles.h"
#include "support/testprocess.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;


class TestGateway final : public QObject
{
    Q_OBJECT

private:
    // `tetherctl serve -v --config <file>` started by an SDK host, and the host connected to it.
    std::unique_ptr<SdkHost> startHost(const QString &configPath)
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        // Nothing of a Tether the user runs: a fresh runtime folder.
        environment.insert(u"XDG_RUNTIME_DIR"_s, m_dir.path());
        auto host = std::make_unique<SdkHost>(QStringLiteral(TETHERCTL),
                                              QStringList{u"serve"_s, u"-v"_s, u"--config"_s, configPath}, environment);
        m_connected = host->waitForEvent(u"connected"_s, {}, 30000).value_or(QJsonObject());
        return host;
    }

    QString writeConfig(const QByteArray &text) { return writeServersFile(m_dir, text); }

    QTemporaryDir m_dir;
    QJsonObject m_connected;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFileInfo::exists(serverEverythingScript()),
                 "server-everything is not installed: run scripts/test.sh (or npm ci in the source folder)");
        QVERIFY2(!serverEverything().program.isEmpty(), "node is not on PATH");
    }

    void listsAndCallsTheToolsOfEveryServer()
    {
        const QString path = writeConfig(configText({{u"demo"_s, demoEntry()}, {u"everything"_s, everythingEntry()}},
                                                    {{u"toolsPageSize"_s, 5}}));
        auto host = startHost(path);
        QVERIFY2(!m_connected.isEmpty(), host->nodeStderr().constData());
        QCOMPARE(m_connected.value(u"serverVersion").toObject().value(u"name").toString(), u"tether"_s);
        QVERIFY(m_connected.value(u"capabilities").toObject().value(u"tools").toObject().value(u"listChanged").toBool());

        host->send({{u"op"_s, u"list"_s}, {u"id"_s, u"tools"_s}});
        const auto listed = host->waitForEvent(u"tools"_s, u"tools"_s);
        QVERIFY(listed);
        QStringList names;
        QJsonObject echo;
        for (const QJsonValue &tool : listed->value(u"tools").toArray()) {
            names.append(tool.toObject().value(u"name").toString());
            if (names.last() == u"demo__echo")
                echo = tool.toObject();
        }
        QStringList expected = publicNames(u"demo"_s, DemoTools) + publicNames(u"everything"_s, EverythingTools);
        expected.sort();
        QCOMPARE(names, expected);
        QCOMPARE(listed->value(u"pages").toInt(), 6); // 29 tools, 5 a page
        // The definition as the server gave it, under its public name.
        QCOMPARE(echo.value(u"description").toString(), u"Returns its message unchanged."_s);
        QCOMPARE(echo.value(u"annotations").toObject().value(u"readOnlyHint").toBool(), true);
        QCOMPARE(echo.value(u"inputSchema").toObject().value(u"required").toArray(), QJsonArray{u"message"_s});

        host->send(call(u"echo"_s, u"demo__echo"_s, {{u"message"_s, u"through Tether"_s}}));
        host->send(call(u"sum"_s, u"everything__get-sum"_s, {{u"a"_s, 2}, {u"b"_s, 3}}));
        host->send(call(u"format"_s, u"demo__format"_s, {{u"text"_s, u"hi"_s}, {u"style"_s, u"heading"_s}}));
        host->send(call(u"fail"_s, u"demo__fail"_s, {}));
        host->send(call(u"unknown"_s, u"demo__nothing"_s, {}));
        host->send(call(u"sleep"_s, u"demo__sleep"_s, {{u"ms"_s, 500}}, true));

        const auto echoed = host->waitForAnswer(u"echo"_s);
        QVERIFY(echoed);
        QCOMPARE(echoed->value(u"event").toString(), u"result"_s);
        QCOMPARE(resultText(*echoed), u"through Tether"_s);
        const auto sum = host->waitForAnswer(u"sum"_s);
        QVERIFY(sum && sum->value(u"event").toString() == u"result");
        QVERIFY2(resultText(*sum).contains(u"5"_s), qPrintable(resultText(*sum)));
        const auto formatted = host->waitForAnswer(u"format"_s);
        QVERIFY(formatted);
        QCOMPARE(formatted->value(u"result").toObject().value(u"structuredContent").toObject(),
                 (QJsonObject{{u"text"_s, u"# hi"_s}, {u"length"_s, 4}}));
        const auto failed = host->waitForAnswer(u"fail"_s);
        QVERIFY(failed);
        QVERIFY(failed->value(u"result").toObject().value(u"isError").toBool());
        QCOMPARE(resultText(*failed), u"the fail tool always fails"_s);
        const auto unknown = host->waitForAnswer(u"unknown"_s);
        QVERIFY(unknown);
        QCOMPARE(unknown->value(u"event").toString(), u"rejected"_s);
        QCOMPARE(unknown->value(u"code").toInt(), -32602);

        const auto slept = host->waitForAnswer(u"sleep"_s);
        QVERIFY(slept);
        QCOMPARE(resultText(*slept), u"slept 500 ms"_s);
        // Progress reached the SDK under the token it gave: it knew each one.
        QList<double> progress;
        for (const QJsonObject &event : host->events()) {
            if (event.value(u"event").toString() == u"progress" && event.value(u"id").toString() == u"sleep") {
                progress.append(event.value(u"progress").toDouble());
                QCOMPARE(event.value(u"total").toInt(), 500);
            }
        }
        QVERIFY(progress.size() >= 2);
        QVERIFY(std::is_sorted(progress.cbegin(), progress.cend()));
        QVERIFY2(host->unexpectedClientErrors().isEmpty(), qPrintable(host->unexpectedClientErrors().join(u"; ")));

        // The host leaves: tetherctl stops its servers and exits, leaving nothing behind.
        const qint64 tetherctl = m_connected.value(u"pid").toInteger();
        const QList<qint64> servers = childrenOf(tetherctl);
        QCOMPARE(servers.size(), 2);
        host->send({{u"op"_s, u"close"_s}});
        QVERIFY(host->waitForEvent(u"closed"_s, {}, 15000));
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(tetherctl), 10000);
        for (qint64 server : servers)
            QVERIFY(!processAlive(server));
    }

    void cancelsALongCall()
    {
        auto host = startHost(writeConfig(configText({{u"demo"_s, demoEntry()}})));
        QVERIFY2(!m_connected.isEmpty(), host->nodeStderr().constData());
        host->send(call(u"long"_s, u"demo__sleep"_s, {{u"ms"_s, 60000}}, true));
        QVERIFY(host->waitForEvent(u"progress"_s, u"long"_s));
        host->send({{u"op"_s, u"cancel"_s}, {u"id"_s, u"long"_s}});
        const auto answer = host->waitForAnswer(u"long"_s);
        QVERIFY(answer);
        QCOMPARE(answer->value(u"event").toString(), u"rejected"_s);
        // The call was cancelled upstream: the demo server says so on its stderr.
        QVERIFY(host->waitFor([](const QJsonObject &event) {
            return event.value(u"event").toString() == u"stderr"
                   && event.value(u"line").toString().contains(u"demo: cancelled request"_s);
        }, 10000));
        host->send(call(u"after"_s, u"demo__echo"_s, {{u"message"_s, u"still here"_s}}));
        const auto after = host->waitForAnswer(u"after"_s);
        QVERIFY(after);
        QCOMPARE(resultText(*after), u"still here"_s);
        QVERIFY2(host->unexpectedClientErrors().isEmpty(), qPrintable(host->unexpectedClientErrors().join(u"; ")));
    }

    void listChangedWhenAToolIsHiddenOrAServerAdded()
    {
        const QString path = writeConfig(configText({{u"demo"_s, demoEntry()}}));
        auto host = startHost(path);
        QVERIFY2(!m_connected.isEmpty(), host->nodeStderr().constData());
        QCOMPARE(host->listToolNames(u"before"_s).size(), DemoTools.size());

        // Three tools hidden in one save: one list_changed, and no restart.
        const QList<qint64> serversBefore = childrenOf(m_connected.value(u"pid").toInteger());
        // A name the server does not offer hides nothing, and is named on stderr.
        QVERIFY(writeFile(path, configText({{u"demo"_s, demoEntry({{u"tools"_s, QJsonObject{{u"disabled"_s,
                                              QJsonArray{u"echo"_s, u"add"_s, u"format"_s, u"ech0"_s}}}}})}})));
        QVERIFY(host->waitForEvent(u"list_changed"_s, {}, 15000));
        QVERIFY(host->waitFor([&](const QJsonObject &) {
            return host->stderrContains(u"demo: tools.disabled names 'ech0', which the server does not offer"_s);
        }, 5000));
        QVERIFY(!host->waitFor([&](const QJsonObject &) { return host->count(u"list_changed"_s) > 1; }, 1000));
        const QStringList hidden = host->listToolNames(u"hidden"_s);
        QCOMPARE(hidden, (QStringList{u"demo__crash"_s, u"demo__elicit"_s, u"demo__elicit-url"_s, u"demo__fail"_s,
                                      u"demo__hang"_s, u"demo__image"_s, u"demo__roots"_s, u"demo__sample"_s,
                                      u"demo__sleep"_s}));
        host->send(call(u"hidden"_s, u"demo__echo"_s, {{u"message"_s, u"x"_s}}));
        const auto refused = host->waitForAnswer(u"hidden"_s);
        QVERIFY(refused);
        QCOMPARE(refused->value(u"code").toInt(), -32602);
        QCOMPARE(childrenOf(m_connected.value(u"pid").toInteger()), serversBefore);

        // A server added to the config: list_changed once its tools are in.
        QVERIFY(writeFile(path, configText({{u"demo"_s, demoEntry({{u"tools"_s, QJsonObject{{u"disabled"_s,
                                              QJsonArray{u"echo"_s, u"add"_s, u"format"_s}}}}})},
                                             {u"second"_s, demoEntry()}})));
        QVERIFY(host->waitFor([&](const QJsonObject &) { return host->count(u"list_changed"_s) == 2; }, 15000));
        const QStringList added = host->listToolNames(u"added"_s);
        QVERIFY2(added.contains(u"second__echo"_s) && !added.contains(u"demo__echo"_s), qPrintable(added.join(u' ')));
        QCOMPARE(added.size(), 2 * DemoTools.size() - 3); // three of demo's hidden, none of second's
    }

    void aServerKilledDuringTheSessionComesBack()
    {
        auto host = startHost(writeConfig(configText({{u"demo"_s, demoEntry()}})));
        QVERIFY2(!m_connected.isEmpty(), host->nodeStderr().constData());
        const QStringList before = host->listToolNames(u"before"_s);
        const QList<qint64> servers = childrenOf(m_connected.value(u"pid").toInteger());
        QCOMPARE(servers.size(), 1);

        const qsizetype mark = host->events().size();
        QVERIFY(::kill(pid_t(servers.first()), SIGKILL) == 0);
        // Once Tether knows it is down, a call waits for the reconnection.
        QVERIFY(host->waitFor([&](const QJsonObject &) { return host->stderrContains(u"retrying in"_s, mark); }, 10000));
        host->send(call(u"outage"_s, u"demo__echo"_s, {{u"message"_s, u"made during the outage"_s}}));
        const auto answer = host->waitForAnswer(u"outage"_s);
        QVERIFY(answer);
        QCOMPARE(answer->value(u"event").toString(), u"result"_s);
        QCOMPARE(resultText(*answer), u"made during the outage"_s);

        QCOMPARE(host->listToolNames(u"after"_s), before);
        const QList<qint64> restarted = childrenOf(m_connected.value(u"pid").toInteger());
        QCOMPARE(restarted.size(), 1);
        QVERIFY(restarted.first() != servers.first());
        QCOMPARE(host->count(u"transport_closed"_s), 0);
        QCOMPARE(host->count(u"list_changed"_s), 0);
    }

    void aServerThatNeverComesBackAnswersWithinTheBound()
    {
        // The server starts while the flag file exists; afterwards each start fails at once.
        const QString flag = m_dir.filePath(u"flaky-may-start"_s);
        QVERIFY(writeFile(flag, "yes"));
        QJsonObject flaky = demoEntry();
        flaky.insert(u"command"_s, u"/bin/sh"_s);
        flaky.insert(u"args"_s, QJsonArray{u"-c"_s, u"test -e \"$0\" && exec \"$1\""_s, flag,
                                           QStringLiteral(TETHER_DEMO_SERVER)});
        flaky.insert(u"reconnect"_s, QJsonObject{{u"initialDelayMs"_s, 200}, {u"maxDelayMs"_s, 200},
                                                  {u"maxAttempts"_s, 1000}, {u"jitter"_s, 0}});
        auto host = startHost(writeConfig(configText({{u"flaky"_s, flaky}}, {{u"outageWaitMs"_s, 1500}})));
        QVERIFY2(!m_connected.isEmpty(), host->nodeStderr().constData());
        QVERIFY(host->listToolNames(u"before"_s).contains(u"flaky__echo"_s));

        QVERIFY(QFile::remove(flag));
        const qsizetype mark = host->events().size();
        const QList<qint64> servers = childrenOf(m_connected.value(u"pid").toInteger());
        QCOMPARE(servers.size(), 1);
        QVERIFY(::kill(pid_t(servers.first()), SIGKILL) == 0);
        QVERIFY(host->waitFor([&](const QJsonObject &) { return host->stderrContains(u"retrying in"_s, mark); }, 10000));
        host->send(call(u"down"_s, u"flaky__echo"_s, {{u"message"_s, u"x"_s}}));
        const auto answer = host->waitForAnswer(u"down"_s, 10000);
        QVERIFY(answer);
        QCOMPARE(answer->value(u"event").toString(), u"result"_s);
        QVERIFY(answer->value(u"result").toObject().value(u"isError").toBool());
        const QString text = resultText(*answer);
        // It waits for the bound at most: less when the next retry is due after it. The bound may
        // end between two retries or during one.
        QVERIFY2(QRegularExpression(u"^Tool 'flaky__echo' is unavailable: server 'flaky' is (retrying \\(attempt \\d+/1000, "
                                    "next retry in \\d+ ms\\)|starting again \\(attempt \\d+/1000\\)); waited 1(\\.[0-5])? s; "
                                    "try again shortly\\.$"_s)
                     .match(text)
                     .hasMatch(),
                 qPrintable(text));
        // Still listed: it may come back.
        QVERIFY(host->listToolNames(u"after"_s).contains(u"flaky__echo"_s));
    }

    // printf '<initialize>\n<initialized>\n<tools/list>\n' | tetherctl serve: a host that pipes its
    // requests in and closes stdin at once gets every answer before serve exits 0, whether serve
    // supervises the servers itself (they start with that first message) or relays to a running
    // Tether of the same config. A call still running when stdin closes is answered when it ends;
    // one whose server asks the host (sampling) is answered at once, since that host answers
    // nothing more.
    void requestsReadBeforeStdinClosesAreAnswered_data()
    {
        QTest::addColumn<bool>("relayed");
        QTest::addColumn<bool>("calls");
        QTest::newRow("--no-bridge, a list") << false << false;
        QTest::newRow("--no-bridge, calls in flight") << false << true;
        QTest::newRow("relayed, a list") << true << false;
        QTest::newRow("relayed, calls in flight") << true << true;
    }

    void requestsReadBeforeStdinClosesAreAnswered()
    {
        QFETCH(bool, relayed);
        QFETCH(bool, calls);
        const QString path = writeConfig(configText({{u"demo"_s, demoEntry()}}));
        // A runtime folder of its own: the record of the Tether relayed to is seen by this case alone.
        QTemporaryDir runtime;
        QVERIFY(runtime.isValid());
        std::unique_ptr<HttpGatewayProcess> instance;
        if (relayed) {
            instance = std::make_unique<HttpGatewayProcess>(path, runtime.path());
            QVERIFY2(instance->isServing(), instance->stderrText().constData());
        }
        QProcess serve;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"XDG_RUNTIME_DIR"_s, runtime.path());
        serve.setProcessEnvironment(environment);
        QStringList arguments{u"serve"_s, u"-v"_s, u"--config"_s, path};
        if (!relayed)
            arguments.append(u"--no-bridge"_s);
        serve.start(QStringLiteral(TETHERCTL), arguments);
        QVERIFY(serve.waitForStarted());
        QByteArray input = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"piped","version":"0"}}})"
                           "\n"
                           R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
                           "\n";
        if (calls) {
            input += R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"demo__sleep","arguments":{"ms":1000}}})"
                     "\n"
                     R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"demo__sample","arguments":{}}})"
                     "\n";
        }
        input += R"({"jsonrpc":"2.0","id":4,"method":"tools/list"})"
                 "\n";
        serve.write(input);
        serve.closeWriteChannel();
        // Bounded well below the calls' own timeouts (60 s) and the host's answer's (30 min).
        const bool finished = serve.waitForFinished(30000);
        const QByteArray errors = serve.readAllStandardError();
        QVERIFY2(finished, errors.constData());
        QCOMPARE(serve.exitStatus(), QProcess::NormalExit);
        QVERIFY2(serve.exitCode() == 0, errors.constData());
        QVERIFY2(errors.contains("relaying to the Tether at") == relayed, errors.constData());
        if (relayed)
            QTRY_VERIFY_WITH_TIMEOUT(instance->stderrContains(u"piped 0 connected over stdio (relayed)"_s), 10000);

        QMap<int, QJsonObject> answers;
        QList<QJsonObject> asked; // the servers' requests passed on to the host
        const QByteArray output = serve.readAllStandardOutput();
        for (const QByteArray &line : output.split('\n')) {
            if (line.isEmpty())
                continue;
            const QJsonObject message = QJsonDocument::fromJson(line).object();
            QVERIFY2(message.value(u"jsonrpc").toString() == u"2.0", line.constData());
            if (message.contains(u"method"))
                asked.append(message);
            else
                answers.insert(message.value(u"id").toInt(), message);
        }
        QCOMPARE(answers.keys(), calls ? (QList<int>{1, 2, 3, 4}) : (QList<int>{1, 4}));
        QCOMPARE(answers.value(1).value(u"result").toObject().value(u"protocolVersion").toString(), u"2025-06-18"_s);
        QCOMPARE(answers.value(4).value(u"result").toObject().value(u"tools").toArray().size(), DemoTools.size());
        if (!calls)
            return;
        QCOMPARE(resultText(answers.value(2)), u"slept 1000 ms"_s);
        // The server asked a host that no longer answers: its call ends with the server's error result.
        QVERIFY(answers.value(3).value(u"result").toObject().value(u"isError").toBool());
        QVERIFY2(resultText(answers.value(3)).contains(u"sampling/createMessage failed"_s), qPrintable(resultText(answers.value(3))));
        for (const QJsonObject &request : std::as_const(asked))
            QCOMPARE(request.value(u"method").toString(), u"sampling/createMessage"_s);
    }

    void rawStdioStaysProtocolAndEndsOnSignals_data()
    {
        QTest::addColumn<int>("signalNumber"); // 0: stdin closes
        QTest::newRow("stdin closes") << 0;
        QTest::newRow("SIGTERM") << int(SIGTERM);
        QTest::newRow("SIGINT") << int(SIGINT);
        QTest::newRow("SIGHUP") << int(SIGHUP);
    }

    void rawStdioStaysProtocolAndEndsOnSignals()
    {
        QFETCH(int, signalNumber);
        const QString path = writeConfig(configText({{u"demo"_s, demoEntry()}}));
        QProcess serve;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"XDG_RUNTIME_DIR"_s, m_dir.path());
        serve.setProcessEnvironment(environment);
        serve.start(QStringLiteral(TETHERCTL), {u"serve"_s, u"-v"_s, u"--config"_s, path});
        QVERIFY(serve.waitForStarted());
        serve.write(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}})"
                    "\n"
                    "this is not JSON\n"
                    R"([{"jsonrpc":"2.0","id":2,"method":"ping"}])"
                    "\r\n\n"
                    R"({"jsonrpc":"2.0","id":3,"method":"tools/list"})"
                    "\n"
                    R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"demo__echo","arguments":{"message":"raw"}}})"
                    "\n");
        QByteArray out;
        QList<QJsonObject> lines;
        QTRY_VERIFY_WITH_TIMEOUT((out += serve.readAllStandardOutput(), out.count('\n') >= 5), 20000);
        for (const QByteArray &line : out.split('\n')) {
            if (line.isEmpty())
                continue;
            QJsonParseError error;
            const QJsonObject message = QJsonDocument::fromJson(line, &error).object();
            QVERIFY2(error.error == QJsonParseError::NoError && message.value(u"jsonrpc").toString() == u"2.0",
                     line.constData());
            lines.append(message);
        }
        QCOMPARE(lines.size(), 5);
        QCOMPARE(lines.at(0).value(u"result").toObject().value(u"protocolVersion").toString(), u"2025-06-18"_s);
        QCOMPARE(lines.at(1).value(u"error").toObject().value(u"code").toInt(), -32700);
        QCOMPARE(lines.at(2).value(u"error").toObject().value(u"code").toInt(), -32600);
        QCOMPARE(lines.at(3).value(u"result").toObject().value(u"tools").toArray().size(), DemoTools.size());
        QCOMPARE(lines.at(4).value(u"result").toObject().value(u"content").toArray().at(0).toObject().value(u"text").toString(),
                 u"raw"_s);

        const QList<qint64> servers = childrenOf(serve.processId());
        QCOMPARE(servers.size(), 1);
        if (signalNumber == 0)
            serve.closeWriteChannel();
        else
            QVERIFY(::kill(pid_t(serve.processId()), signalNumber) == 0);
        QVERIFY(serve.waitForFinished(15000));
        QCOMPARE(serve.exitStatus(), QProcess::NormalExit);
        QCOMPARE(serve.exitCode(), 0);
        QVERIFY(!processAlive(servers.first()));
        const QByteArray rest = serve.readAllStandardOutput();
        QVERIFY2(rest.isEmpty(), rest.constData());
    }
};

QTEST_GUILESS_MAIN(TestGateway)
#include "tst_gateway.moc"
