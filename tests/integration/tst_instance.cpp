// One Tether per config: tetherctl daemon (or the window) is the instance that runs the servers,
// and tetherctl's commands attach to it over its local socket rather than starting them again.
// Real processes throughout: tetherctl, the window offscreen, the demo server.
#include "common/commandline.h"
#include "control/controlprotocol.h"
#include "gateway/gatewayinstance.h"
#include "support/gatewayfixtures.h"
#include "support/runprogram.h"

#include <QDir>
#include <QLocalServer>
#include <QLocalSocket>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <memory>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

// A program that runs until told to stop, its output kept as it comes.
class RunningProgram final
{
public:
    RunningProgram(const QString &program, const QStringList &arguments, const QProcessEnvironment &environment)
    {
        m_process.setProcessEnvironment(environment);
        QObject::connect(&m_process, &QProcess::readyReadStandardOutput, &m_process,
                         [this] { out += QString::fromUtf8(m_process.readAllStandardOutput()); });
        QObject::connect(&m_process, &QProcess::readyReadStandardError, &m_process,
                         [this] { err += QString::fromUtf8(m_process.readAllStandardError()); });
        m_process.start(program, arguments);
    }
    ~RunningProgram()
    {
        if (m_process.state() != QProcess::NotRunning) {
            ::kill(pid_t(m_process.processId()), SIGTERM);
            if (!m_process.waitForFinished(10000)) {
                m_process.kill();
                m_process.waitForFinished();
            }
        }
    }

    qint64 pid() const { return m_process.processId(); }
    bool running() const { return m_process.state() != QProcess::NotRunning; }
    int exitCode() const { return m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1; }
    void signal(int number) { ::kill(pid_t(m_process.processId()), number); }

    QString out;
    QString err;

private:
    QProcess m_process;
};

QSet<qint64> descendantsOf(qint64 pid)
{
    QSet<qint64> found;
    QList<qint64> pending{pid};
    while (!pending.isEmpty()) {
        for (const qint64 child : childrenOf(pending.takeFirst())) {
            found.insert(child);
            pending.append(child);
        }
    }
    return found;
}

// A raw connection to the socket of the instance that runs `configPath`, one request a line.
class ControlConnection final
{
public:
    explicit ControlConnection(const QString &configPath)
    {
        QString why;
        if (const std::optional<GatewayInstanceRecord> record = readGatewayInstanceRecord(configPath, &why))
            m_socket.connectToServer(record->socket);
    }

    bool isConnected() { return m_socket.waitForConnected(5000); }

    // The whole answer to `line`.
    QJsonObject ask(const QByteArray &line)
    {
        m_socket.write(line + "\n");
        QByteArray answer;
        [&] { QTRY_VERIFY((answer += m_socket.readAll()).endsWith('\n')); }();
        return QJsonDocument::fromJson(answer).object();
    }

private:
    QLocalSocket m_socket;
};

QHash<QString, QJsonObject> rowsByServer(const QString &json)
{
    QHash<QString, QJsonObject> rows;
    for (const QJsonValue &row : QJsonDocument::fromJson(json.toUtf8()).array())
        rows.insert(row.toObject().value(u"server").toString(), row.toObject());
    return rows;
}

} // namespace

class TestInstance final : public QObject
{
    Q_OBJECT

private:
    QProcessEnvironment environment() const
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"QT_QPA_PLATFORM"_s, u"offscreen"_s);
        environment.insert(u"XDG_DATA_HOME"_s, m_home->filePath(u"data"_s));
        environment.insert(u"XDG_STATE_HOME"_s, m_home->filePath(u"state"_s));
        environment.insert(u"XDG_CONFIG_HOME"_s, m_home->filePath(u"config"_s));
        environment.insert(u"XDG_RUNTIME_DIR"_s, m_home->path());
        environment.insert(u"TETHER_TOKEN_STORE"_s, u"file"_s);
        return environment;
    }

    ProgramRun ctl(const QStringList &arguments, int timeoutMs = 30000) const
    {
        return runProgram(QStringLiteral(TETHERCTL), arguments + QStringList{u"--config"_s, m_config}, environment(),
                          timeoutMs);
    }

    std::unique_ptr<RunningProgram> start(const QStringList &arguments) const
    {
        return std::make_unique<RunningProgram>(QStringLiteral(TETHERCTL), arguments + QStringList{u"--config"_s, m_config},
                                                environment());
    }

    // A daemon with every server connected.
    std::unique_ptr<RunningProgram> startDaemon() const
    {
        auto daemon = start({u"daemon"_s});
        [&] { QTRY_VERIFY_WITH_TIMEOUT(daemon->err.contains(u"`tetherctl status` shows them"_s) || !daemon->running(), 15000); }();
        return daemon;
    }

    void writeConfig(const QJsonObject &servers)
    {
        m_config = writeServersFile(*m_home, configText(servers));
    }

    std::unique_ptr<QTemporaryDir> m_home;
    QString m_config;

private slots:
    void init()
    {
        m_home = std::make_unique<QTemporaryDir>();
        QVERIFY(m_home->isValid());
        // This process claims configs and plants records in the same folder as the programs it runs.
        qputenv("XDG_RUNTIME_DIR", m_home->path().toLocal8Bit());
        writeConfig({{u"demo"_s, demoEntry()}, {u"second"_s, demoEntry()}});
    }

    void statusShowsTheServersTheInstanceRuns()
    {
        const auto daemon = startDaemon();
        QVERIFY2(daemon->running(), qPrintable(daemon->err));
        ProgramRun status;
        QTRY_VERIFY_WITH_TIMEOUT((status = ctl({u"status"_s, u"--json"_s})).exitCode == 0, 15000);
        const QHash<QString, QJsonObject> rows = rowsByServer(status.out);
        QCOMPARE(rows.size(), 2);
        const QSet<qint64> daemonProcesses = descendantsOf(daemon->pid());
        for (const QJsonObject &row : rows) {
            QCOMPARE(row.value(u"state").toString(), u"Connected"_s);
            QVERIFY2(daemonProcesses.contains(row.value(u"pid").toInteger()), qPrintable(status.out));
        }
        QVERIFY2(!status.err.contains(u"no Tether runs"_s), qPrintable(status.err));
        // Asked again: the same processes, none started for the question.
        const ProgramRun again = ctl({u"status"_s, u"--json"_s});
        QCOMPARE(rowsByServer(again.out).value(u"demo"_s).value(u"pid"), rows.value(u"demo"_s).value(u"pid"));

        // stop waits until the server has stopped; status then says a server is down.
        const ProgramRun stop = ctl({u"stop"_s, u"demo"_s});
        QCOMPARE(stop.exitCode, 0);
        QVERIFY(!processAlive(rows.value(u"demo"_s).value(u"pid").toInteger()));
        const ProgramRun down = ctl({u"status"_s, u"--json"_s});
        QCOMPARE(down.exitCode, 3);
        QCOMPARE(rowsByServer(down.out).value(u"demo"_s).value(u"state").toString(), u"Stopped"_s);
        const ProgramRun start = ctl({u"start"_s, u"demo"_s});
        QCOMPARE(start.exitCode, 0);
        QVERIFY2(start.err.startsWith(u"demo: starting (Tether pid "_s), qPrintable(start.err));
        QTRY_COMPARE_WITH_TIMEOUT(ctl({u"status"_s}).exitCode, 0, 15000);
        // Start leaves a connected server as it is, and says so rather than "starting".
        const ProgramRun startAgain = ctl({u"start"_s, u"second"_s});
        QCOMPARE(startAgain.exitCode, 0);
        QVERIFY2(startAgain.err.startsWith(u"second: already connected (Tether pid "_s), qPrintable(startAgain.err));
        QCOMPARE(rowsByServer(ctl({u"status"_s, u"--json"_s}).out).value(u"second"_s).value(u"pid"),
                 rows.value(u"second"_s).value(u"pid"));

        const ProgramRun unknown = ctl({u"reconnect"_s, u"nosuch"_s});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.contains(u"no server named 'nosuch' (servers: demo, second)"_s), qPrintable(unknown.err));
        // A name a typo away from one is named.
        const ProgramRun mistyped = ctl({u"start"_s, u"deom"_s});
        QCOMPARE(mistyped.exitCode, 2);
        QVERIFY2(mistyped.err.contains(u"no server named 'deom'; did you mean demo?"_s), qPrintable(mistyped.err));
    }

    // A server that will not start is refused, not answered "starting" and left stopped.
    void startRefusesAServerThatWillNotStart()
    {
        QJsonObject off = demoEntry();
        off.insert(u"enabled"_s, false);
        writeConfig({{u"demo"_s, demoEntry()}, {u"off"_s, off}, {u"bad"_s, QJsonObject{{u"args"_s, QJsonArray{u"x"_s}}}}});
        const auto daemon = startDaemon();
        QTRY_COMPARE_WITH_TIMEOUT(rowsByServer(ctl({u"status"_s, u"--json"_s}).out).value(u"demo"_s).value(u"state").toString(),
                                  u"Connected"_s, 15000);
        const ProgramRun disabled = ctl({u"start"_s, u"off"_s});
        QCOMPARE(disabled.exitCode, 2);
        QVERIFY2(disabled.err.contains(u"server 'off' is disabled (\"enabled\": false); enable it in Tether's window"_s),
                 qPrintable(disabled.err));
        QVERIFY2(!disabled.err.contains(u"starting"_s), qPrintable(disabled.err));
        const ProgramRun invalid = ctl({u"reconnect"_s, u"bad"_s, u"demo"_s});
        QCOMPARE(invalid.exitCode, 2);
        QVERIFY2(invalid.err.contains(u"server 'bad' cannot start: its config is invalid: "_s), qPrintable(invalid.err));
        // Nothing of a refused request is done: demo was not reconnected either.
        const QHash<QString, QJsonObject> rows = rowsByServer(ctl({u"status"_s, u"--json"_s}).out);
        QCOMPARE(rows.value(u"off"_s).value(u"state").toString(), u"Stopped"_s);
        QCOMPARE(rows.value(u"demo"_s).value(u"state").toString(), u"Connected"_s);
    }

    // What a server asks while a call through the instance runs (elicitation) is asked of the
    // tetherctl that made the call, on its terminal, as when tetherctl runs the server itself.
    void whatAServerAsksIsAskedOfTheCaller()
    {
        writeConfig({{u"demo"_s, demoEntry()}});
        const auto daemon = startDaemon();
        QVERIFY2(daemon->running(), qPrintable(daemon->err));
        const ProgramRun noTerminal = ctl({u"call"_s, u"demo"_s, u"elicit"_s, u"{}"_s});
        QCOMPARE(noTerminal.exitCode, 1);
        QVERIFY2(noTerminal.out.contains(u"tetherctl call cannot ask for input without a terminal"_s),
                 qPrintable(noTerminal.out + noTerminal.err));

        QProcess terminal; // script gives the call a terminal of its own
        QProcessEnvironment environment = this->environment();
        environment.insert(u"SHELL"_s, u"/bin/sh"_s);
        terminal.setProcessEnvironment(environment);
        terminal.setProcessChannelMode(QProcess::MergedChannels);
        terminal.start(u"script"_s, {u"-qfec"_s,
                                     Tether::joinCommandLine({QStringLiteral(TETHERCTL), u"call"_s, u"demo"_s, u"elicit"_s,
                                                              u"{}"_s, u"--config"_s, m_config}),
                                     u"/dev/null"_s});
        QString shown;
        const auto answer = [&](const QString &question, const QByteArray &typed) {
            QTRY_VERIFY2_WITH_TIMEOUT((shown += QString::fromUtf8(terminal.readAll())).contains(question), qPrintable(shown),
                                      15000);
            shown.clear();
            terminal.write(typed + '\n');
        };
        answer(u"server 'demo' asks: Who are you?"_s, "Ada");
        answer(u"Confirm"_s, "y");
        answer(u"Accept (a)"_s, "a");
        QVERIFY(terminal.waitForFinished(15000));
        shown += QString::fromUtf8(terminal.readAll());
        QCOMPARE(terminal.exitCode(), 0);
        QVERIFY2(shown.contains(u"action: accept; content: {\"confirm\":true,\"name\":\"Ada\"}"_s), qPrintable(shown));
    }

    void toolsCallsAndLogsGoThroughTheInstance()
    {
        writeConfig({{u"demo"_s, demoEntry()}, {u"broken"_s, QJsonObject{{u"command"_s, u"/nonexistent/server"_s}}}});
        const auto daemon = startDaemon();
        // 3 as soon as broken has failed, whether demo is up yet or not: wait for both.
        QHash<QString, QJsonObject> rows;
        QTRY_VERIFY_WITH_TIMEOUT((rows = rowsByServer(ctl({u"status"_s, u"--json"_s}).out)).value(u"demo"_s).value(u"state")
                                         == u"Connected"_s
                                     && rows.value(u"broken"_s).value(u"state") == u"Failed"_s,
                                 15000);
        QCOMPARE(ctl({u"status"_s}).exitCode, 3);
        const qint64 demoPid = rows.value(u"demo"_s).value(u"pid").toInteger();

        const ProgramRun tools = ctl({u"tools"_s});
        QCOMPARE(tools.exitCode, 3);
        QVERIFY(tools.out.contains(u"demo__echo"_s));
        QVERIFY2(tools.err.contains(u"server 'broken' is not connected"_s), qPrintable(tools.err));
        // As tools do, the resources and prompts of every server name the one that is not up.
        for (const QString &listed : {u"resources"_s, u"prompts"_s}) {
            const ProgramRun lists = ctl({listed});
            QCOMPARE(lists.exitCode, 3);
            QVERIFY2(lists.err.startsWith(u"tetherctl: server 'broken' is not connected, so its %1 are not listed: "_s.arg(listed)),
                     qPrintable(lists.err));
            QCOMPARE(ctl({listed, u"demo"_s}).exitCode, 0);
        }
        const ProgramRun demoTools = ctl({u"tools"_s, u"demo"_s});
        QCOMPARE(demoTools.exitCode, 0);
        // One server's tools in its own order (its first is echo), as without a running Tether.
        QVERIFY2(demoTools.out.startsWith(u"demo__echo "_s), qPrintable(demoTools.out));

        // A call to a server that crashed a moment ago waits for its reconnection, as a gateway client's does.
        ::kill(pid_t(demoPid), SIGKILL);
        const ProgramRun afterCrash = ctl({u"call"_s, u"demo"_s, u"add"_s, u"{\"a\": 1, \"b\": 1}"_s});
        QVERIFY2(afterCrash.exitCode == 0, qPrintable(afterCrash.err));
        QCOMPARE(afterCrash.out, u"2\n"_s);
        QTRY_VERIFY_WITH_TIMEOUT(rowsByServer(ctl({u"status"_s, u"--json"_s}).out).value(u"demo"_s).value(u"state")
                                     == u"Connected"_s,
                                 15000);
        const qint64 newPid = rowsByServer(ctl({u"status"_s, u"--json"_s}).out).value(u"demo"_s).value(u"pid").toInteger();
        QVERIFY(newPid != demoPid);

        const ProgramRun echo = ctl({u"call"_s, u"demo"_s, u"echo"_s, u"{\"message\": \"through the instance\"}"_s});
        QCOMPARE(echo.exitCode, 0);
        QCOMPARE(echo.out.trimmed(), u"through the instance"_s);
        const ProgramRun byName = ctl({u"call"_s, u"add"_s, u"{\"a\": 2, \"b\": 3}"_s});
        QCOMPARE(byName.out.trimmed(), u"5"_s);
        QCOMPARE(rowsByServer(ctl({u"status"_s, u"--json"_s}).out).value(u"demo"_s).value(u"pid").toInteger(), newPid);

        // The server's log shows the calls of tetherctl, as it shows the gateway's.
        QVERIFY2(ctl({u"logs"_s, u"demo"_s}).out.contains(u"tetherctl called demo__add: ok"_s), qPrintable(ctl({u"logs"_s}).out));

        // --verbose shows its progress, which the instance passes on.
        const ProgramRun progress = ctl({u"call"_s, u"demo"_s, u"sleep"_s, u"{\"ms\": 350}"_s, u"--verbose"_s});
        QCOMPARE(progress.exitCode, 0);
        QVERIFY2(progress.err.contains(QRegularExpression(u"progress: \\d+/350 slept \\d+ of 350 ms"_s)), qPrintable(progress.err));

        // --timeout-ms bounds a call through the instance as it bounds one tetherctl makes itself,
        // and the instance cancels the call given up on.
        const ProgramRun late = ctl({u"call"_s, u"demo"_s, u"sleep"_s, u"{\"ms\": 20000}"_s, u"--timeout-ms"_s, u"300"_s});
        QCOMPARE(late.exitCode, 2);
        QVERIFY2(late.err.contains(u"calling 'sleep' failed: no answer within 300 ms (--timeout-ms)"_s), qPrintable(late.err));
        QTRY_VERIFY2_WITH_TIMEOUT(ctl({u"logs"_s, u"demo"_s}).out.contains(u"tetherctl called demo__sleep: the call of 'sleep' on server 'demo' was cancelled"_s),
                                  qPrintable(ctl({u"logs"_s, u"demo"_s}).out), 10000);

        const ProgramRun logs = ctl({u"logs"_s, u"broken"_s});
        QCOMPARE(logs.exitCode, 0);
        QVERIFY2(logs.out.contains(u"Failed"_s), qPrintable(logs.out));
        QVERIFY(!logs.out.contains(u"  demo  "_s));

        const auto follow = start({u"logs"_s, u"demo"_s, u"--follow"_s, u"--json"_s});
        QTRY_VERIFY(follow->out.contains(u"\"Connected\""_s));
        QCOMPARE(ctl({u"reconnect"_s, u"demo"_s}).exitCode, 0);
        QTRY_VERIFY_WITH_TIMEOUT(follow->out.count(u"\"state\":\"Connected\""_s) >= 2, 15000);
    }

    void anInterruptedCallIsCancelledAtTheServer()
    {
        const auto daemon = startDaemon();
        QTRY_COMPARE_WITH_TIMEOUT(ctl({u"status"_s}).exitCode, 0, 15000);
        ControlConnection control(m_config);
        QVERIFY(control.isConnected());
        control.ask(R"({"jsonrpc":"2.0","id":1,"method":"tether/hello","params":{"protocolVersion":1}})");
        const auto callsInFlight = [&] {
            const QJsonObject status = control.ask(R"({"jsonrpc":"2.0","id":2,"method":"tether/status"})");
            return status.value(u"result"_s).toObject().value(u"callsInFlight"_s).toInt(-1);
        };
        QCOMPARE(callsInFlight(), 0);

        const auto call = start({u"call"_s, u"demo"_s, u"sleep"_s, u"{\"ms\": 60000}"_s});
        QTRY_COMPARE_WITH_TIMEOUT(callsInFlight(), 1, 10000);
        call->signal(SIGINT);
        QTRY_VERIFY_WITH_TIMEOUT(!call->running(), 10000);
        QCOMPARE(call->exitCode(), 130);
        // Its connection closed: the instance cancelled the call at the server, which says so.
        QTRY_COMPARE(callsInFlight(), 0);
        QTRY_VERIFY(ctl({u"logs"_s, u"demo"_s}).out.contains(u"cancelled request"_s));
        QVERIFY2(ctl({u"logs"_s, u"demo"_s}).out.contains(u"tetherctl called demo__sleep: "_s), qPrintable(ctl({u"logs"_s}).out));
    }

    void watchSeesAChangeOfTheInstanceAtOnce()
    {
        const auto daemon = startDaemon();
        QTRY_COMPARE_WITH_TIMEOUT(ctl({u"status"_s}).exitCode, 0, 15000);
        const auto watch = start({u"watch"_s, u"demo"_s, u"--json"_s});
        QTRY_VERIFY(watch->out.contains(u"\"state\":\"Connected\""_s));
        QVERIFY(!watch->out.contains(u"second"_s));
        const auto stop = start({u"stop"_s, u"demo"_s});
        QTRY_VERIFY(watch->out.contains(u"\"state\":\"Stopped\""_s));
        // Policy flags would change only servers a command runs itself.
        const ProgramRun flags = ctl({u"watch"_s, u"--max-attempts"_s, u"2"_s});
        QCOMPARE(flags.exitCode, 2);
        QVERIFY2(flags.err.contains(u"policies of"_s), qPrintable(flags.err));
    }

    void exactlyOneOfTwentyParallelStartsRunsTheConfig()
    {
        std::vector<std::unique_ptr<RunningProgram>> daemons;
        for (int i = 0; i < 20; ++i)
            daemons.push_back(start({u"daemon"_s}));
        const auto runningCount = [&] {
            return std::count_if(daemons.cbegin(), daemons.cend(), [](const auto &daemon) { return daemon->running(); });
        };
        QTRY_COMPARE_WITH_TIMEOUT(runningCount(), 1, 30000);
        const auto winner = std::find_if(daemons.cbegin(), daemons.cend(), [](const auto &daemon) { return daemon->running(); });
        for (const auto &daemon : daemons) {
            if (daemon == *winner)
                continue;
            QCOMPARE(daemon->exitCode(), 0);
            QVERIFY2(daemon->err.contains(u"a Tether (pid %1) already runs"_s.arg((*winner)->pid())), qPrintable(daemon->err));
        }
        ProgramRun status;
        QTRY_VERIFY_WITH_TIMEOUT((status = ctl({u"status"_s, u"--json"_s})).exitCode == 0, 15000);
        const QSet<qint64> winnerProcesses = descendantsOf((*winner)->pid());
        for (const QJsonObject &row : rowsByServer(status.out))
            QVERIFY(winnerProcesses.contains(row.value(u"pid").toInteger()));
    }

    void aKilledInstanceIsSaidAtOnceAndReplaced()
    {
        auto daemon = startDaemon();
        QTRY_COMPARE_WITH_TIMEOUT(ctl({u"status"_s}).exitCode, 0, 15000);
        const QHash<QString, QJsonObject> rows = rowsByServer(ctl({u"status"_s, u"--json"_s}).out);
        const auto watch = start({u"watch"_s});
        QTRY_VERIFY(watch->out.contains(u"second"_s));

        daemon->signal(SIGKILL);
        QTRY_VERIFY_WITH_TIMEOUT(!watch->running(), 10000);
        QCOMPARE(watch->exitCode(), 5);
        QCOMPARE(watch->err.count(u'\n'), 1);
        QVERIFY2(watch->err.contains(u"has gone"_s), qPrintable(watch->err));
        // The launcher takes each server down with the instance: no orphan.
        for (const QJsonObject &row : rows)
            QTRY_VERIFY_WITH_TIMEOUT(!processAlive(row.value(u"pid").toInteger()), 10000);

        // Nothing runs the config now: status says so and runs the servers itself.
        const ProgramRun alone = ctl({u"status"_s});
        QCOMPARE(alone.exitCode, 5);
        QVERIFY2(alone.err.contains(u"no Tether runs"_s), qPrintable(alone.err));
        QVERIFY(alone.out.contains(u"Connected"_s));
        // The kernel let the claim go: a new instance takes over, its record replacing the stale one.
        daemon = startDaemon();
        QVERIFY2(daemon->running(), qPrintable(daemon->err));
        QTRY_COMPARE_WITH_TIMEOUT(ctl({u"status"_s}).exitCode, 0, 15000);
    }

    void theWindowIsTheInstanceOfItsConfig()
    {
#ifndef TETHER_APP
        QSKIP("this tree builds no window (the sanitizer tree)");
#else
        RunningProgram window(QStringLiteral(TETHER_APP), {u"--config"_s, m_config}, environment());
        ProgramRun status;
        QTRY_VERIFY_WITH_TIMEOUT((status = ctl({u"status"_s, u"--json"_s})).exitCode == 0, 20000);
        const QSet<qint64> windowProcesses = descendantsOf(window.pid());
        for (const QJsonObject &row : rowsByServer(status.out))
            QVERIFY2(windowProcesses.contains(row.value(u"pid").toInteger()), qPrintable(status.out));
        const ProgramRun daemon = ctl({u"daemon"_s});
        QCOMPARE(daemon.exitCode, 0);
        QVERIFY2(daemon.err.contains(u"a Tether (pid %1) already runs"_s.arg(window.pid())), qPrintable(daemon.err));
        QCOMPARE(ctl({u"stop"_s, u"second"_s}).exitCode, 0);
        QCOMPARE(rowsByServer(ctl({u"status"_s, u"--json"_s}).out).value(u"second"_s).value(u"state").toString(),
                 u"Stopped"_s);
#endif
    }

    void aWindowOnAConfigADaemonRunsAttachesToIt()
    {
#ifndef TETHER_APP
        QSKIP("this tree builds no window (the sanitizer tree)");
#else
        const auto daemon = startDaemon();
        QTRY_COMPARE_WITH_TIMEOUT(ctl({u"status"_s}).exitCode, 0, 15000);
        const QHash<QString, QJsonObject> rows = rowsByServer(ctl({u"status"_s, u"--json"_s}).out);
        auto window = std::make_unique<RunningProgram>(QStringLiteral(TETHER_APP), QStringList{u"--config"_s, m_config},
                                                       environment());
        QTRY_VERIFY_WITH_TIMEOUT(window->err.contains(u"attached to the Tether (pid %1, daemon)"_s.arg(daemon->pid())), 15000);
        // Once it shows the daemon's servers, it is told of every change.
        QTRY_VERIFY_WITH_TIMEOUT(window->err.contains(u"attached: showing the 2 servers"_s), 15000);
        // It starts no server of its own, and sees the daemon's changes as they happen.
        QVERIFY(descendantsOf(window->pid()).isEmpty());
        QCOMPARE(ctl({u"stop"_s, u"demo"_s}).exitCode, 0);
        QTRY_VERIFY(window->err.contains(u"attached: server 'demo' is Stopped"_s));
        // Closed, it leaves the servers running.
        window.reset();
        const QHash<QString, QJsonObject> after = rowsByServer(ctl({u"status"_s, u"--json"_s}).out);
        QCOMPARE(after.value(u"second"_s).value(u"pid"_s), rows.value(u"second"_s).value(u"pid"_s));
        QCOMPARE(after.value(u"second"_s).value(u"state"_s).toString(), u"Connected"_s);
#endif
    }

    // Asked (or told by window.ini) to keep the servers running, the window that runs them hands the
    // config over to tetherctl daemon as it quits.
    void aQuittingWindowHandsItsServersToADaemon()
    {
#ifndef TETHER_APP
        QSKIP("this tree builds no window (the sanitizer tree)");
#else
        QVERIFY(QDir().mkpath(m_home->filePath(u"config/tether"_s)));
        QVERIFY(writeFile(m_home->filePath(u"config/tether/window.ini"_s), "[quit]\nservers=keep\n"));
        auto window = std::make_unique<RunningProgram>(QStringLiteral(TETHER_APP), QStringList{u"--config"_s, m_config},
                                                       environment());
        QTRY_COMPARE_WITH_TIMEOUT(ctl({u"status"_s}).exitCode, 0, 20000);
        const qint64 windowPid = window->pid();
        window->signal(SIGTERM);
        QTRY_VERIFY_WITH_TIMEOUT(!window->running(), 15000);
        ProgramRun status;
        QTRY_VERIFY_WITH_TIMEOUT((status = ctl({u"status"_s, u"--json"_s})).exitCode == 0, 20000);
        // Another Tether runs them now: the daemon the window started.
        const ProgramRun second = ctl({u"daemon"_s});
        static const QRegularExpression holder(u"a Tether \\(pid (\\d+)\\) already runs"_s);
        const QRegularExpressionMatch match = holder.match(second.err);
        QVERIFY2(match.hasMatch(), qPrintable(second.err));
        const qint64 daemonPid = match.captured(1).toLongLong();
        QVERIFY(daemonPid != windowPid);
        const QSet<qint64> daemonProcesses = descendantsOf(daemonPid);
        for (const QJsonObject &row : rowsByServer(status.out))
            QVERIFY(daemonProcesses.contains(row.value(u"pid"_s).toInteger()));
        ::kill(pid_t(daemonPid), SIGTERM);
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(daemonPid), 15000);
#endif
    }

    void peersThatCannotBeUsedAreRefusedAndNothingStarts_data()
    {
        QTest::addColumn<QByteArray>("answer"); // to the hello; empty: the socket is a plain file
        QTest::addColumn<QString>("said");
        QTest::newRow("not a socket") << QByteArray() << u"is not a socket"_s;
        QTest::newRow("garbage") << QByteArray("hello there\n") << u"not the control protocol"_s;
        QTest::newRow("a newer control protocol")
            << QByteArray(R"({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":2,"instance":{"version":"9.0"}}})" "\n")
            << u"speaks control protocol 2 and this program"_s;
    }

    void peersThatCannotBeUsedAreRefusedAndNothingStarts()
    {
        QFETCH(QByteArray, answer);
        QFETCH(QString, said);
        // This process holds the claim, as a running Tether would, with a record of its making.
        qint64 holder = 0;
        QString error;
        const std::unique_ptr<InstanceClaim> claim = InstanceClaim::claim(m_config, &holder, &error);
        QVERIFY2(claim, qPrintable(error));
        const QString socketPath = gatewayRelaySocketPath(u"planted"_s);
        QLocalServer peer;
        if (answer.isEmpty()) {
            QVERIFY(writeFile(socketPath, "not a socket"));
            QFile::setPermissions(socketPath, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        } else {
            QVERIFY(peer.listen(socketPath));
            QFile::setPermissions(socketPath, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
            connect(&peer, &QLocalServer::newConnection, this, [&peer, answer] {
                QLocalSocket *connection = peer.nextPendingConnection();
                connect(connection, &QLocalSocket::readyRead, connection, [connection, answer] {
                    connection->readAll();
                    connection->write(answer);
                });
            });
        }
        GatewayInstanceRecord record;
        record.pid = QCoreApplication::applicationPid();
        record.instance = u"planted"_s;
        record.configPath = m_config;
        record.version = u"9.0"_s;
        record.startedAt = QDateTime::currentDateTimeUtc();
        record.socket = socketPath;
        QVERIFY(writeGatewayInstanceRecord(record, &error));

        QProcess status;
        status.setProcessEnvironment(environment());
        status.start(QStringLiteral(TETHERCTL), {u"status"_s, u"--config"_s, m_config});
        QTRY_VERIFY_WITH_TIMEOUT(status.state() == QProcess::NotRunning, 20000);
        const QString err = QString::fromUtf8(status.readAllStandardError());
        QCOMPARE(status.exitCode(), 2);
        QVERIFY2(err.contains(said), qPrintable(err));
        QVERIFY2(!err.contains(u"no Tether runs"_s), qPrintable(err));
        QVERIFY(status.readAllStandardOutput().isEmpty());
    }

    void theInstanceRefusesAnotherControlVersionAndRequestsBeforeHello()
    {
        const auto daemon = startDaemon();
        ControlConnection control(m_config);
        QVERIFY(control.isConnected());
        const auto ask = [&control](const QByteArray &line) { return control.ask(line); };
        const QJsonObject early = ask(R"({"jsonrpc":"2.0","id":1,"method":"tether/status"})");
        QCOMPARE(early.value(u"error").toObject().value(u"code").toInt(), int(Control::NotHello));
        const QJsonObject newer = ask(R"({"jsonrpc":"2.0","id":2,"method":"tether/hello","params":{"protocolVersion":2}})");
        QCOMPARE(newer.value(u"error").toObject().value(u"code").toInt(), int(Control::VersionMismatch));
        QCOMPARE(newer.value(u"error").toObject().value(u"data").toObject().value(u"supported").toArray(), QJsonArray{1});
        const QJsonObject hello = ask(R"({"jsonrpc":"2.0","id":3,"method":"tether/hello","params":{"protocolVersion":1}})");
        const QJsonObject instance = hello.value(u"result").toObject().value(u"instance").toObject();
        QCOMPARE(instance.value(u"kind").toString(), u"daemon"_s);
        QCOMPARE(instance.value(u"pid").toInteger(), daemon->pid());
    }
};

QTEST_GUILESS_MAIN(TestInstance)
#include "tst_instance.moc"
