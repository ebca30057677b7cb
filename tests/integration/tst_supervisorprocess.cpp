// The connection supervisor against real tether-demo-server processes.
#include "supervisor/connectionsupervisor.h"
#include "support/awaitreply.h"
#include "support/testfiles.h"
#include "support/testprocess.h"

#include <QDir>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

// Short close graces keep escalation tests quick.
constexpr StdioTransportOptions QuickClose{.stdinCloseGrace = std::chrono::milliseconds(300),
                                           .terminateGrace = std::chrono::milliseconds(300)};

struct Supervised
{
    explicit Supervised(const QStringList &demoArguments, SupervisorSettings settings = quickSettings(),
                        StdioTransportOptions transportOptions = QuickClose)
        : Supervised(demoServer(demoArguments), settings, transportOptions)
    {}

    // Any program, not only the demo server.
    static std::unique_ptr<Supervised> running(const StdioServerCommand &command)
    {
        return std::make_unique<Supervised>(command, quickSettings(), QuickClose);
    }

    Supervised(const StdioServerCommand &command, SupervisorSettings settings, StdioTransportOptions transportOptions)
    {
        supervisor = std::make_unique<ConnectionSupervisor>(
            u"demo"_s, [command, transportOptions] { return std::make_unique<StdioTransport>(command, transportOptions); },
            settings, &registry);
        states = std::make_unique<QSignalSpy>(supervisor.get(), &ConnectionSupervisor::stateChanged);
        stopped = std::make_unique<QSignalSpy>(supervisor.get(), &ConnectionSupervisor::stopped);
    }

    ~Supervised()
    {
        supervisor->stop();
        QTRY_VERIFY_WITH_TIMEOUT(supervisor->state() == ServerState::Stopped, 10000);
    }

    static SupervisorSettings quickSettings()
    {
        SupervisorSettings settings;
        settings.reconnect = resolveReconnectPolicy(u"demo"_s, {{u"initialDelayMs"_s, 20}, {u"maxDelayMs"_s, 200},
                                                               {u"maxAttempts"_s, 5}, {u"jitter"_s, 0}})
                                 .policy;
        settings.heartbeat.enabled = false;
        settings.requestTimeout = std::chrono::seconds(10);
        settings.closeTimeout = std::chrono::seconds(5);
        return settings;
    }

    bool waitFor(ServerState state, int ms = 10000)
    {
        return QTest::qWaitFor([&] { return supervisor->state() == state; }, ms);
    }

    QList<ServerState> stateHistory() const
    {
        QList<ServerState> history;
        for (const QList<QVariant> &arguments : *states)
            history.append(arguments.at(0).value<ServerStatus>().state);
        return history;
    }

    ToolRegistry registry;
    std::unique_ptr<ConnectionSupervisor> supervisor;
    std::unique_ptr<QSignalSpy> states;
    std::unique_ptr<QSignalSpy> stopped;
};

} // namespace

class TestSupervisorProcess final : public QObject
{
    Q_OBJECT

private slots:
    // The state change that reports a crash carries that process's exit and stderr, never the
    // one before it: the Timeline shows each row's own exit code.
    void eachCrashReportsItsOwnExit()
    {
        Supervised s({});
        s.supervisor->start();
        for (const int code : {5, 9}) {
            QVERIFY(s.waitFor(ServerState::Connected));
            const qsizetype before = s.states->size();
            const quint64 generation = s.supervisor->status().generation;
            const std::optional<ToolCallReply> crash = awaitReply<ToolCallReply>([&](ToolCallHandler onReply) {
                s.supervisor->callTool(u"crash"_s, {{u"code"_s, code}}, std::move(onReply));
            }, 5000);
            QVERIFY(crash.has_value());
            QTRY_VERIFY(s.states->size() > before);
            const ServerStatus reported = s.states->at(before).at(0).value<ServerStatus>();
            QCOMPARE(reported.state, ServerState::Reconnecting);
            QCOMPARE(reported.lastExitGeneration, generation);
            QCOMPARE(reported.lastExitCode, std::optional<int>(code));
            QVERIFY(!reported.lastStderrTail.isEmpty());
            QVERIFY(reported.lastStderrTail.last().contains(u"crash tool called"_s));
        }
    }

    void crashRecoversEndToEnd()
    {
        Supervised s({});
        s.supervisor->start();
        QVERIFY(s.waitFor(ServerState::Connected));
        const qint64 firstPid = s.supervisor->status().pid;
        const QList<RegisteredTool> toolsBefore = s.registry.tools();
        QCOMPARE(toolsBefore.size(), 12);
        QSignalSpy toolsChanged(&s.registry, &ToolRegistry::toolsChanged);

        const std::optional<ToolCallReply> crash = awaitReply<ToolCallReply>([&](ToolCallHandler onReply) {
            s.supervisor->callTool(u"crash"_s, {{u"code"_s, 3}}, std::move(onReply));
        }, 5000);
        QVERIFY(crash.has_value());
        QVERIFY(crash->error.has_value());
        QTRY_VERIFY(s.stateHistory().contains(ServerState::Reconnecting));
        QVERIFY(s.waitFor(ServerState::Connected));

        const ServerStatus status = s.supervisor->status();
        QCOMPARE(status.generation, quint64(2));
        QVERIFY(status.pid != firstPid);
        QVERIFY(!processAlive(firstPid));
        QCOMPARE(status.lastExitCode, std::optional<int>(3));
        QVERIFY(status.lastStderrTail.last().contains(u"crash tool called"_s));
        // The same tools, registered once, with no change signalled.
        QCOMPARE(s.registry.tools(), toolsBefore);
        QCOMPARE(toolsChanged.size(), 0);

        const ToolCallReply echo = awaitToolCall([&](ToolCallHandler onReply) {
            s.supervisor->callTool(u"echo"_s, {{u"message"_s, u"after recovery"_s}}, std::move(onReply));
        }, 5000);
        QCOMPARE(renderContent(echo.result.content), u"after recovery"_s);
    }

    // Each restart after a crash runs the server in the launcher of the one that crashed (kept for
    // it), whether the crash is heard together with the end of all the server started or before
    // it: a node process it left takes the launcher milliseconds to kill.
    void restartsRunInTheCrashedServersLauncher_data()
    {
        QTest::addColumn<bool>("leavesAChild");
        QTest::newRow("nothing left") << false;
        QTest::newRow("a child left") << true;
    }

    void restartsRunInTheCrashedServersLauncher()
    {
        QFETCH(bool, leavesAChild);
        const QString node = QStandardPaths::findExecutable(u"node"_s);
        QVERIFY2(!leavesAChild || !node.isEmpty(), "node is not on PATH");
        const StdioServerCommand command =
            leavesAChild ? StdioServerCommand{u"/bin/sh"_s,
                                              {u"-c"_s, u"\"$1\" -e 'console.error(\"child up\"); setInterval(() => {}, 1e9)' & exec \"$0\""_s,
                                               QStringLiteral(TETHER_DEMO_SERVER), node},
                                              {}, {}, {}}
                         : demoServer();
        const auto s = Supervised::running(command);
        int childrenUp = 0;
        QObject::connect(s->supervisor.get(), &ConnectionSupervisor::stderrLine, s->supervisor.get(),
                         [&](const QString &line) { childrenUp += line == u"child up"_s ? 1 : 0; });
        s->supervisor->start();
        QVERIFY(s->waitFor(ServerState::Connected));
        const qint64 launcher = parentPid(s->supervisor->status().pid);
        const auto launcherDescriptors = [launcher] {
            return QDir(u"/proc/%1/fd"_s.arg(launcher)).entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::System).size();
        };
        const qsizetype descriptors = launcherDescriptors();
        for (int crash = 0; crash < 5; ++crash) {
            // Killed once the child is up, so that killing it takes a while.
            QTRY_VERIFY_WITH_TIMEOUT(!leavesAChild || childrenUp == crash + 1, 10000);
            const qint64 pid = s->supervisor->status().pid;
            ::kill(pid_t(pid), SIGKILL);
            // A running event loop (not QTRY's polls), which hears each word of the launcher as it comes.
            while (s->supervisor->state() != ServerState::Connected || s->supervisor->status().pid == pid)
                QVERIFY(s->states->wait(10000));
            QCOMPARE(parentPid(s->supervisor->status().pid), launcher);
            // Each run leaves nothing open in it.
            QCOMPARE(launcherDescriptors(), descriptors);
        }
        QCOMPARE(s->supervisor->status().lastExitSignal, std::optional<int>(SIGKILL));
    }

    void hangIsFoundByTheHeartbeat()
    {
        SupervisorSettings settings = Supervised::quickSettings();
        settings.heartbeat = resolveHeartbeatPolicy(u"demo"_s, {{u"intervalMs"_s, 150}, {u"timeoutMs"_s, 100},
                                                               {u"maxFailures"_s, 2}})
                                 .policy;
        Supervised s({}, settings);
        s.supervisor->start();
        QVERIFY(s.waitFor(ServerState::Connected));
        const qint64 hungPid = s.supervisor->status().pid;
        s.supervisor->callTool(u"hang"_s, {}, [](const ToolCallReply &) {});
        QVERIFY(s.waitFor(ServerState::Reconnecting));
        QVERIFY2(s.supervisor->status().reason.contains(u"heartbeat"_s), qPrintable(s.supervisor->status().reason));
        QVERIFY(s.waitFor(ServerState::Connected));
        QVERIFY(s.supervisor->status().pid != hungPid);
        QTRY_VERIFY(!processAlive(hungPid));
        QCOMPARE(s.supervisor->status().heartbeatMisses, 0);
    }

    void closedStdoutIsALostConnection()
    {
        // The heartbeat is off: the end of stdout alone must tell.
        Supervised s({u"--close-stdout"_s});
        s.supervisor->start();
        QVERIFY(s.waitFor(ServerState::Connected));
        const qint64 pid = s.supervisor->status().pid;
        QVERIFY(s.waitFor(ServerState::Reconnecting));
        const ServerStatus status = s.supervisor->status();
        QVERIFY2(status.reason.contains(u"closed its stdout"_s), qPrintable(status.reason));
        QCOMPARE(status.lastExitSignal, std::optional<int>(SIGTERM));
        QVERIFY(!processAlive(pid));
    }

    // A server the heartbeat finds hung cannot react to a closed stdin or SIGTERM: its group is
    // killed at once (here it is even stopped), and the next generation starts right away.
    void stoppedServerIsKilledAtOnce()
    {
        SupervisorSettings settings = Supervised::quickSettings();
        settings.heartbeat = resolveHeartbeatPolicy(u"demo"_s, {{u"intervalMs"_s, 100}, {u"timeoutMs"_s, 100},
                                                               {u"maxFailures"_s, 1}})
                                 .policy;
        settings.closeTimeout = std::chrono::minutes(30);
        // Graces far beyond the test's bound: only a close that skips them lets generation 2 start.
        QTemporaryDir dir;
        const QString pidFile = dir.filePath(u"grandchild"_s);
        Supervised s({u"--spawn-grandchild"_s, u"--pid-file"_s, pidFile}, settings,
                     StdioTransportOptions{.stdinCloseGrace = std::chrono::minutes(10),
                                           .terminateGrace = std::chrono::minutes(10)});
        s.supervisor->start();
        QVERIFY(s.waitFor(ServerState::Connected));
        const qint64 hungPid = s.supervisor->status().pid;
        qint64 grandchild = 0;
        QTRY_VERIFY((grandchild = readPidFile(pidFile)) > 0);
        ::kill(pid_t(hungPid), SIGSTOP);

        QVERIFY(s.waitFor(ServerState::Reconnecting));
        QVERIFY2(s.supervisor->status().reason.contains(u"heartbeat"_s), qPrintable(s.supervisor->status().reason));
        QTRY_VERIFY_WITH_TIMEOUT(s.supervisor->status().generation == 2 && s.supervisor->state() == ServerState::Connected,
                                 10000);
        const ServerStatus status = s.supervisor->status();
        QVERIFY2(status.lastExitSignal == std::optional<int>(SIGKILL),
                 qPrintable(u"the last exit: code %1, signal %2"_s.arg(status.lastExitCode.value_or(-1))
                                .arg(status.lastExitSignal.value_or(-1))));
        QVERIFY(!processAlive(hungPid));
        QVERIFY(!processAlive(grandchild));
    }

    void crashLoopExhaustsTheBudget()
    {
        Supervised s({u"--crash-after-ms"_s, u"50"_s});
        s.supervisor->start();
        QVERIFY(s.waitFor(ServerState::Failed, 20000));
        const ServerStatus status = s.supervisor->status();
        QCOMPARE(status.generation, quint64(6)); // 1 + maxAttempts
        QCOMPARE(status.attempt, 5);
        QVERIFY2(status.reason.contains(u"gave up after 5 attempts"_s), qPrintable(status.reason));
        QCOMPARE(status.toolCount, 0);
        QCOMPARE(s.registry.count(), 0);
    }

    // A program that is missing or cannot run: no retry can fix it, so the server fails at once,
    // its budget untouched, and says why in a few words.
    void unfixableFailuresAreNotRetried_data()
    {
        QTest::addColumn<QString>("program");
        QTest::addColumn<QString>("cause");
        static QTemporaryDir dir;
        const QString notExecutable = dir.filePath(u"github-mcp-server"_s);
        writeFile(notExecutable, "#!/bin/sh\n");
        QTest::newRow("not found") << u"/nonexistent/github-mcp-server"_s
                                   << u"command not found: /nonexistent/github-mcp-server (install it, or correct \"command\" in the config)"_s;
        QTest::newRow("not executable") << notExecutable
                                        << u"not an executable program: %1 (make it executable (chmod +x), or correct "
                                           "\"command\" in the config)"_s.arg(notExecutable);
    }

    void unfixableFailuresAreNotRetried()
    {
        QFETCH(QString, program);
        QFETCH(QString, cause);
        const std::unique_ptr<Supervised> supervised = Supervised::running(StdioServerCommand{program, {}, {}, {}, {}});
        Supervised &s = *supervised;
        s.supervisor->start();
        QVERIFY(s.waitFor(ServerState::Failed));
        const ServerStatus status = s.supervisor->status();
        QCOMPARE(s.stateHistory(), (QList<ServerState>{ServerState::Starting, ServerState::Failed}));
        QCOMPARE(status.generation, quint64(1));
        QCOMPARE(status.attempt, 0);
        QCOMPARE(status.cause, cause);
        // The reason, which tetherctl prints, says what to do too.
        QVERIFY2(status.reason.endsWith(u"; not retried, since no retry can fix "_s + cause), qPrintable(status.reason));
        QVERIFY2(status.reason.startsWith(u"connection failed: could not start '%1': "_s.arg(program)),
                 qPrintable(status.reason)); // the whole story stays, with no connection that was never open
    }

    // A server that exits is retried as before; its cause reads as its exit and what it said last.
    void aFailureSaysItsCauseFirst()
    {
        Supervised s({u"--fail-at-startup"_s});
        s.supervisor->start();
        QVERIFY(s.waitFor(ServerState::Retrying));
        QCOMPARE(s.supervisor->status().cause, u"exited with code 3: demo: refusing to start (--fail-at-startup)"_s);
        QVERIFY(s.waitFor(ServerState::Failed, 20000));
        QCOMPARE(s.supervisor->status().generation, quint64(6)); // 1 + maxAttempts: the budget, as the spec counts it
        QCOMPARE(s.supervisor->status().cause, u"exited with code 3: demo: refusing to start (--fail-at-startup)"_s);
    }

    void stopDuringAnOutageStopsAtOnce()
    {
        SupervisorSettings settings = Supervised::quickSettings();
        settings.reconnect.initialDelayMs = 2000;
        settings.reconnect.maxDelayMs = 4000;
        Supervised s({u"--fail-at-startup"_s}, settings);
        s.supervisor->start();
        QVERIFY(s.waitFor(ServerState::Retrying));
        QCOMPARE(s.supervisor->status().nextDelayMs, std::optional<qint64>(2000));
        s.supervisor->stop();
        QTRY_COMPARE_WITH_TIMEOUT(s.stopped->size(), 1, 1000);
        QCOMPARE(s.stopped->at(0).at(0).toBool(), true);
        QCOMPARE(s.supervisor->state(), ServerState::Stopped);
        // Past the retry delay nothing started.
        QVERIFY(!QTest::qWaitFor([&] { return s.supervisor->status().generation > 1; }, 2500));
    }

    void sigtermIgnoringServerIsGoneAfterStop()
    {
        QTemporaryDir dir;
        const QString pidFile = dir.filePath(u"grandchild"_s);
        Supervised s({u"--ignore-sigterm"_s, u"--spawn-grandchild"_s, u"--pid-file"_s, pidFile});
        s.supervisor->start();
        QVERIFY(s.waitFor(ServerState::Connected));
        const qint64 pid = s.supervisor->status().pid;
        qint64 grandchild = 0;
        QTRY_VERIFY((grandchild = readPidFile(pidFile)) > 0);
        s.supervisor->stop();
        QTRY_COMPARE_WITH_TIMEOUT(s.stopped->size(), 1, 5000);
        QCOMPARE(s.stopped->at(0).at(0).toBool(), true);
        QVERIFY(!processAlive(pid));
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(grandchild), 3000);
        QCOMPARE(s.supervisor->status().lastExitSignal, std::optional<int>(SIGKILL));
        QCOMPARE(s.registry.count(), 0);
    }
};

QTEST_GUILESS_MAIN(TestSupervisorProcess)
#include "tst_supervisorprocess.moc"
