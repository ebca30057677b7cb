// The MCP client session over a real child process: tether-demo-server and each of its
// misbehaviours. Every case ends within a bounded time with nothing left running.
#include "session/mcpclientsession.h"
#include "transport/launcherpark.h"
#include "support/awaitreply.h"
#include "support/testprocess.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

// What earlier cases left in the park is let go first, so that what a case keeps is all there is.
bool waitForAnEmptyPark()
{
    return QTest::qWaitFor([] { return LauncherPark::instance().size() == 0; }, int(LauncherPark::KeepTime.count()) + 5000);
}

// Short close graces keep escalation tests quick; the defaults are covered in one test.
constexpr StdioTransportOptions QuickClose{.stdinCloseGrace = std::chrono::milliseconds(300),
                                           .terminateGrace = std::chrono::milliseconds(300)};

struct Connection
{
    explicit Connection(const QStringList &demoArguments, std::chrono::milliseconds timeout = std::chrono::seconds(10),
                        StdioTransportOptions transportOptions = QuickClose)
        : Connection(demoServer(demoArguments), timeout, transportOptions)
    {}

    Connection(const StdioServerCommand &command, std::chrono::milliseconds timeout,
               StdioTransportOptions transportOptions = QuickClose)
    {
        auto owned = std::make_unique<StdioTransport>(command, transportOptions);
        transport = owned.get();
        session = std::make_unique<McpClientSession>(std::move(owned), SessionOptions{u"demo"_s, timeout});
        ready = std::make_unique<QSignalSpy>(session.get(), &McpClientSession::ready);
        failed = std::make_unique<QSignalSpy>(session.get(), &McpClientSession::failed);
        closed = std::make_unique<QSignalSpy>(session.get(), &McpClientSession::closed);
        QObject::connect(session.get(), &McpClientSession::stderrLine, session.get(),
                         [this](const QString &line) { stderrLines.append(line); });
    }

    ~Connection()
    {
        // Never leave a process behind, whatever the test did.
        if (session && session->state() != McpClientSession::State::Closed) {
            session->close();
            QTRY_VERIFY_WITH_TIMEOUT(closed->size() == 1, 10000);
        }
    }

    bool open()
    {
        session->open();
        return QTest::qWaitFor([&] { return ready->size() + failed->size() > 0; }, 20000) && ready->size() == 1;
    }

    QString failure() const { return failed->isEmpty() ? QString() : failed->at(0).at(0).toString(); }
    SessionClosure closure() const { return closed->at(0).at(0).value<SessionClosure>(); }

    bool waitClosed(int ms = 10000)
    {
        return QTest::qWaitFor([&] { return closed->size() == 1; }, ms);
    }

    // Kills the server and waits for its end; true once its launcher is kept, the only one.
    bool killKeepingTheLauncher()
    {
        ::kill(pid_t(transport->processId()), SIGKILL);
        return waitClosed() && LauncherPark::instance().size() == 1;
    }

    ToolListReply listTools()
    {
        return awaitToolList([&](ToolListHandler onReply) { session->listTools(std::move(onReply)); }, 20000);
    }

    ToolCallReply call(const QString &tool, const QJsonObject &arguments, ProgressHandler progress = {})
    {
        return awaitToolCall([&](ToolCallHandler onReply) {
            session->callTool(tool, arguments, std::move(onReply), std::move(progress));
        }, 20000);
    }

    bool stderrContains(const QString &text) const
    {
        return std::any_of(stderrLines.cbegin(), stderrLines.cend(), [&](const QString &l) { return l.contains(text); });
    }

    StdioTransport *transport = nullptr;
    std::unique_ptr<McpClientSession> session;
    std::unique_ptr<QSignalSpy> ready, failed, closed;
    QStringList stderrLines;
};

QStringList toolNames(const ToolListReply &reply)
{
    QStringList names;
    for (const ToolDefinition &tool : reply.tools)
        names.append(tool.name);
    return names;
}

} // namespace

class TestStdioSession final : public QObject
{
    Q_OBJECT

private slots:
    void listsAndCallsTools()
    {
        Connection c({});
        QVERIFY(c.open());
        QCOMPARE(c.session->serverIdentity().name, u"tether-demo-server"_s);
        const qint64 pid = c.transport->processId();
        QVERIFY(processAlive(pid));

        const ToolListReply tools = c.listTools();
        QVERIFY(!tools.error);
        QCOMPARE(toolNames(tools), (QStringList{u"echo"_s, u"add"_s, u"sleep"_s, u"fail"_s, u"crash"_s, u"hang"_s,
                                              u"format"_s, u"image"_s, u"sample"_s, u"elicit"_s, u"elicit-url"_s,
                                              u"roots"_s}));

        QCOMPARE(renderContent(c.call(u"echo"_s, {{u"message"_s, u"héllo"_s}}).result.content), u"héllo"_s);
        QCOMPARE(renderContent(c.call(u"add"_s, {{u"a"_s, 2}, {u"b"_s, 3}}).result.content), u"5"_s);
        const ToolCallReply failed = c.call(u"fail"_s, {});
        QVERIFY(!failed.error);
        QVERIFY(failed.result.isError);

        c.session->close();
        QVERIFY(c.waitClosed());
        QCOMPARE(c.failed->size(), 0);
        // A server that exits when its stdin closes needs no signal.
        QCOMPARE(c.closure().transport.exitCode, std::optional<int>(0));
        QVERIFY(!c.closure().transport.exitSignal);
        QVERIFY(!processAlive(pid));
    }

    void processIdIsTheServersOwn()
    {
        Connection c({});
        QVERIFY(c.open());
        const qint64 pid = c.transport->processId();
        // The server announces its pid: the one shown is the server's, not its launcher's.
        QTRY_VERIFY(c.stderrContains(u"started pid %1"_s.arg(pid)));
        // It leads a process group of its own, which closing signals.
        QCOMPARE(qint64(::getpgid(pid_t(pid))), pid);
    }

    // The launcher between Tether and the server ends as the server did.
    void serverEndPassesThroughTheLauncher_data()
    {
        QTest::addColumn<int>("signalNumber");
        QTest::newRow("exit code 7") << 0;
        QTest::newRow("SIGTERM") << SIGTERM;
        QTest::newRow("SIGINT") << SIGINT;
        QTest::newRow("SIGKILL") << SIGKILL;
    }

    void serverEndPassesThroughTheLauncher()
    {
        QFETCH(int, signalNumber);
        Connection c({});
        QVERIFY(c.open());
        const qint64 pid = c.transport->processId();
        if (signalNumber != 0)
            ::kill(pid_t(pid), signalNumber);
        else
            c.session->callTool(u"crash"_s, {{u"code"_s, 7}}, [](const ToolCallReply &) {});
        QVERIFY(c.waitClosed());
        const TransportClosure closure = c.closure().transport;
        if (signalNumber != 0) {
            QCOMPARE(closure.exitSignal, std::optional<int>(signalNumber));
            QVERIFY(!closure.exitCode);
        } else {
            QCOMPARE(closure.exitCode, std::optional<int>(7));
            QVERIFY(!closure.exitSignal);
        }
    }

    // A server's transport goes the moment the server has ended, without waiting for its
    // launcher, which is kept a moment for a restart and then exits; it is reaped all the same.
    void theLauncherIsReapedOnceItsTransportIsGone()
    {
        QVERIFY(waitForAnEmptyPark());
        Connection c({});
        QVERIFY(c.open());
        const qint64 pid = c.transport->processId();
        const qint64 launcher = parentPid(pid);
        QVERIFY(launcher > 0 && launcher != ::getpid());
        QVERIFY(c.killKeepingTheLauncher());
        c.session.reset(); // and its transport
        QTRY_COMPARE_WITH_TIMEOUT(processState(launcher), '?', int(LauncherPark::KeepTime.count()) + 10000);
        QCOMPARE(LauncherPark::instance().size(), 0);
    }

    // After a crash, the same server started again runs in the launcher of the one that crashed,
    // with its own pipes; another command gets a launcher of its own.
    void aServerStartedAgainAfterACrashRunsInTheSameLauncher()
    {
        QVERIFY(waitForAnEmptyPark());
        Connection crashed({});
        QVERIFY(crashed.open());
        const qint64 firstPid = crashed.transport->processId();
        const qint64 launcher = parentPid(firstPid);
        QVERIFY(crashed.killKeepingTheLauncher());
        QCOMPARE(crashed.closure().transport.exitSignal, std::optional<int>(SIGKILL));

        Connection again({});
        QVERIFY2(again.open(), qPrintable(again.failure()));
        QCOMPARE(LauncherPark::instance().size(), 0);
        const qint64 secondPid = again.transport->processId();
        QVERIFY(secondPid != firstPid);
        QCOMPARE(parentPid(secondPid), launcher);
        QCOMPARE(qint64(::getpgid(pid_t(secondPid))), secondPid);
        QTRY_VERIFY(again.stderrContains(u"started pid %1"_s.arg(secondPid)));
        QVERIFY(!again.listTools().tools.isEmpty());
        // Its end is told through the same launcher, which holds none of its pipes.
        ::kill(pid_t(secondPid), SIGTERM);
        QVERIFY(again.waitClosed());
        QCOMPARE(again.closure().transport.exitSignal, std::optional<int>(SIGTERM));

        Connection other({u"--tools"_s, u"3"_s});
        QVERIFY(other.open());
        QVERIFY(parentPid(other.transport->processId()) != launcher);
        // The kept launcher, not taken, exits.
        QTRY_COMPARE_WITH_TIMEOUT(processState(launcher), '?', int(LauncherPark::KeepTime.count()) + 10000);
    }

    // A server closed on request takes its launcher along: nothing is kept.
    void aServerClosedOnRequestLeavesNoLauncher()
    {
        QVERIFY(waitForAnEmptyPark());
        Connection c({});
        QVERIFY(c.open());
        const qint64 launcher = parentPid(c.transport->processId());
        c.session->close();
        QVERIFY(c.waitClosed());
        QCOMPARE(LauncherPark::instance().size(), 0);
        c.session.reset();
        QTRY_COMPARE_WITH_TIMEOUT(processState(launcher), '?', 10000);
    }

    // The kept launcher still sits in the folder of its first start: a server whose folder was
    // replaced since runs in the new one, and one whose folder is gone is left to a new launcher,
    // which fails to start it, naming the folder.
    void aServerStartedAgainRunsInItsFolderAsItIsNow()
    {
        QVERIFY(waitForAnEmptyPark());
        QTemporaryDir home;
        const QString folder = home.filePath(u"server"_s);
        QVERIFY(QDir().mkpath(folder));
        // The demo server says where it runs on stderr.
        StdioServerCommand command{u"/bin/sh"_s, {u"-c"_s, u"echo \"in $(pwd -P) $(stat -c %i .)\" >&2; exec \"$0\""_s,
                                                  QStringLiteral(TETHER_DEMO_SERVER)}, {}, folder, {}};
        const auto where = [&] {
            struct stat status = {};
            ::stat(QFile::encodeName(folder).constData(), &status);
            return u"in %1 %2"_s.arg(QFileInfo(folder).canonicalFilePath()).arg(status.st_ino);
        };
        Connection first(command, std::chrono::seconds(10));
        QVERIFY(first.open());
        QTRY_VERIFY(first.stderrContains(where()));
        const qint64 launcher = parentPid(first.transport->processId());
        QVERIFY(first.killKeepingTheLauncher());

        QVERIFY(QDir(folder).removeRecursively());
        QVERIFY(QDir().mkpath(folder));
        Connection replaced(command, std::chrono::seconds(10));
        QVERIFY2(replaced.open(), qPrintable(replaced.failure()));
        QCOMPARE(parentPid(replaced.transport->processId()), launcher);
        QTRY_VERIFY(replaced.stderrContains(where()));
        QVERIFY(replaced.killKeepingTheLauncher());

        QVERIFY(QDir(folder).removeRecursively());
        Connection gone(command, std::chrono::seconds(10));
        QVERIFY(!gone.open());
        QVERIFY2(gone.failure().contains(u"its folder (\"cwd\") %1 does not exist"_s.arg(folder)), qPrintable(gone.failure()));
        QTRY_COMPARE_WITH_TIMEOUT(processState(launcher), '?', 10000);
    }

    // A kept launcher that ends after it was told to run the server (killed meanwhile) started
    // nothing: the start fails, saying so, and no exit is put on a server that never ran.
    void aKeptLauncherThatEndsBeforeRunningTheServerFailsTheStart()
    {
        QVERIFY(waitForAnEmptyPark());
        Connection crashed({});
        QVERIFY(crashed.open());
        const qint64 launcher = parentPid(crashed.transport->processId());
        QVERIFY(crashed.killKeepingTheLauncher());
        // Stopped, it cannot take the word; killed once the word is sent, it never reads it.
        ::kill(pid_t(launcher), SIGSTOP);
        Connection again({});
        again.session->open();
        QTRY_COMPARE(LauncherPark::instance().size(), 0);
        ::kill(pid_t(launcher), SIGKILL);
        QVERIFY(again.waitClosed());
        QVERIFY2(again.failure().contains(u"could not start '%1': Tether's launcher ended before it started it"_s.arg(
                     QStringLiteral(TETHER_DEMO_SERVER))), qPrintable(again.failure()));
        const TransportClosure closure = again.closure().transport;
        QVERIFY(closure.unreached);
        QVERIFY2(closure.error.contains(u"launcher ended before it started it"_s), qPrintable(closure.error));
        QVERIFY(!closure.exitSignal);
        QVERIFY(!closure.exitCode);
    }

    void followsPagination()
    {
        Connection c({u"--tools"_s, u"120"_s, u"--page-size"_s, u"7"_s});
        QVERIFY(c.open());
        const ToolListReply tools = c.listTools();
        QVERIFY(!tools.error);
        QCOMPARE(tools.tools.size(), 132);
        QCOMPARE(tools.tools.last().name, u"tool_120"_s);
    }

    void concurrentCallsDoNotBlockEachOther()
    {
        // Declared first: the connection, gone first, answers the slow call as it closes.
        std::optional<ToolCallReply> slow;
        Connection c({});
        QVERIFY(c.open());
        c.session->callTool(u"sleep"_s, {{u"ms"_s, 5000}}, [&](const ToolCallReply &r) { slow = r; });
        QCOMPARE(renderContent(c.call(u"echo"_s, {{u"message"_s, u"fast"_s}}).result.content), u"fast"_s);
        QVERIFY(!slow.has_value());
    }

    void progressNotificationsReachTheCall()
    {
        Connection c({});
        QVERIFY(c.open());
        QList<ProgressUpdate> updates;
        const ToolCallReply reply = c.call(u"sleep"_s, {{u"ms"_s, 350}}, [&](const ProgressUpdate &u) { updates.append(u); });
        QVERIFY(!reply.error);
        QVERIFY(renderContent(reply.result.content).contains(u"slept"_s));
        QVERIFY(updates.size() >= 1);
        QCOMPARE(updates.last().total, std::optional<double>(350));
    }

    void failAtStartup()
    {
        Connection c({u"--fail-at-startup"_s});
        QVERIFY(!c.open());
        QVERIFY2(c.failure().contains(u"during initialize"_s) && c.failure().contains(u"code 3"_s)
                     && c.failure().contains(u"refusing to start"_s),
                 qPrintable(c.failure()));
        QVERIFY(c.waitClosed());
    }

    void programNotFound()
    {
        Connection c(StdioServerCommand{u"/nonexistent/tether-no-such-server"_s, {}, {}, {}, {}}, std::chrono::seconds(5));
        QVERIFY(!c.open());
        // No process ever ran: it says so plainly, with no connection closed and no exit status made up.
        QVERIFY2(c.failure().startsWith(u"could not start '/nonexistent/tether-no-such-server': No such file or directory"_s),
                 qPrintable(c.failure()));
        QVERIFY2(!c.failure().contains(u"exited"_s), qPrintable(c.failure()));
        QVERIFY(c.waitClosed());
    }

    void exitDuringInitialize()
    {
        Connection c({u"--exit-during-initialize"_s, u"--exit-code"_s, u"4"_s});
        QVERIFY(!c.open());
        QVERIFY2(c.failure().contains(u"during initialize"_s) && c.failure().contains(u"code 4"_s)
                     && c.failure().contains(u"exiting during initialize"_s),
                 qPrintable(c.failure()));
    }

    void slowInitializeWithinTheTimeout()
    {
        Connection c({u"--slow-initialize-ms"_s, u"300"_s});
        QVERIFY(c.open());
    }

    void slowInitializePastTheTimeout()
    {
        Connection c({u"--slow-initialize-ms"_s, u"30000"_s}, std::chrono::milliseconds(300));
        QElapsedTimer elapsed;
        elapsed.start();
        QVERIFY(!c.open());
        QVERIFY2(c.failure().contains(u"timed out after 300 ms"_s), qPrintable(c.failure()));
        const qint64 pid = c.transport->processId();
        QVERIFY(c.waitClosed());
        QVERIFY(elapsed.elapsed() < 5000);
        QVERIFY(!processAlive(pid));
    }

    void crashAfterConnecting()
    {
        Connection c({u"--crash-after-ms"_s, u"300"_s, u"--exit-code"_s, u"7"_s});
        QVERIFY(c.open());
        std::optional<ToolCallReply> pending;
        c.session->callTool(u"sleep"_s, {{u"ms"_s, 60000}}, [&](const ToolCallReply &r) { pending = r; });
        QVERIFY(c.waitClosed());
        QVERIFY2(c.failure().startsWith(u"connection closed: process exited with code 7"_s), qPrintable(c.failure()));
        QVERIFY(c.failure().contains(u"crashing after 300 ms"_s));
        QVERIFY(c.closure().wasReady);
        // The pending call failed at once with the reason, it did not wait for its timeout.
        QVERIFY(pending.has_value());
        QCOMPARE(pending->error->code, int(JsonRpc::ConnectionClosed));
        QVERIFY(pending->error->message.contains(u"code 7"_s));
    }

    void crashToolFailsTheCall()
    {
        Connection c({});
        QVERIFY(c.open());
        const ToolCallReply reply = c.call(u"crash"_s, {{u"code"_s, 9}});
        QVERIFY(reply.error.has_value());
        QVERIFY2(reply.error->message.contains(u"code 9"_s), qPrintable(reply.error->message));
        QVERIFY(c.waitClosed());
    }

    void hangingServerTimesOutAndCloses()
    {
        Connection c(QStringList{}, std::chrono::milliseconds(400));
        QVERIFY(c.open());
        const ToolCallReply hang = c.call(u"hang"_s, {});
        QVERIFY(hang.error.has_value());
        QCOMPARE(hang.error->code, int(JsonRpc::RequestTimeout));
        const RpcReply ping = awaitRpc([&](ReplyHandler onReply) { c.session->ping(std::move(onReply)); }, 5000);
        QVERIFY(ping.error.has_value());
        QCOMPARE(ping.error->code, int(JsonRpc::RequestTimeout));
        const qint64 pid = c.transport->processId();
        c.session->close();
        QVERIFY(c.waitClosed());
        QVERIFY(!processAlive(pid));
    }

    void ignoredSigtermEscalatesToSigkill()
    {
        Connection c({u"--ignore-sigterm"_s});
        QVERIFY(c.open());
        const qint64 pid = c.transport->processId();
        QElapsedTimer elapsed;
        elapsed.start();
        c.session->close();
        QVERIFY(c.waitClosed());
        QCOMPARE(c.closure().transport.exitSignal, std::optional<int>(SIGKILL));
        QVERIFY(elapsed.elapsed() >= 600); // both graces were given
        QVERIFY(!processAlive(pid));
    }

    void defaultGracesAreTwoSecondsEach()
    {
        Connection c(QStringList{u"--ignore-sigterm"_s}, std::chrono::seconds(10), StdioTransportOptions{});
        QVERIFY(c.open());
        QElapsedTimer elapsed;
        elapsed.start();
        c.session->close();
        QVERIFY(c.waitClosed(10000));
        QCOMPARE(c.closure().transport.exitSignal, std::optional<int>(SIGKILL));
        QVERIFY2(elapsed.elapsed() >= 3900 && elapsed.elapsed() < 8000, qPrintable(QString::number(elapsed.elapsed())));
    }

    // What the server started is gone by the time closed() comes: a grandchild in its group
    // holding the pipes, and a daemon that left its session and group with setsid().
    void whatTheServerStartedIsKilled_data()
    {
        QTest::addColumn<bool>("serverCrashes");
        QTest::newRow("closed by Tether") << false;
        QTest::newRow("server crashed") << true;
    }

    void whatTheServerStartedIsKilled()
    {
        QFETCH(bool, serverCrashes);
        QTemporaryDir dir;
        const QString grandchildPidFile = dir.filePath(u"grandchild.pid"_s);
        const QString daemonPidFile = dir.filePath(u"daemon.pid"_s);
        Connection c({u"--spawn-grandchild"_s, u"--pid-file"_s, grandchildPidFile, u"--spawn-daemon"_s,
                      u"--daemon-pid-file"_s, daemonPidFile});
        QVERIFY(c.open());
        qint64 grandchild = 0;
        qint64 daemon = 0;
        QTRY_VERIFY((grandchild = readPidFile(grandchildPidFile)) > 0 && (daemon = readPidFile(daemonPidFile)) > 0);
        QVERIFY(processAlive(grandchild) && processAlive(daemon));
        // The daemon did escape: another session than the server's, so another process group too.
        QVERIFY(::getsid(pid_t(daemon)) != ::getsid(pid_t(c.transport->processId())));
        if (serverCrashes)
            c.session->callTool(u"crash"_s, {}, [](const ToolCallReply &) {});
        else
            c.session->close();
        QVERIFY(c.waitClosed());
        QVERIFY(!processAlive(c.transport->processId()));
        QVERIFY(!processAlive(grandchild));
        QVERIFY(!processAlive(daemon));
    }

    // A server's end is told the moment the launcher sees it (lost), with its signal, also when
    // the word that all it left is killed comes with it; the transport closes once that is done.
    // The session fails once, with the signal, before it closes. A close Tether asked for has no
    // such word.
    void aServersEndIsToldBeforeItsLeftoversAreGone_data()
    {
        QTest::addColumn<bool>("leavesProcesses");
        QTest::addColumn<bool>("closedByTether");
        QTest::newRow("killed, nothing left") << false << false;
        QTest::newRow("killed, a grandchild and a daemon left") << true << false;
        QTest::newRow("closed by Tether") << true << true;
    }

    void aServersEndIsToldBeforeItsLeftoversAreGone()
    {
        QFETCH(bool, leavesProcesses);
        QFETCH(bool, closedByTether);
        QTemporaryDir dir;
        const QString grandchildPidFile = dir.filePath(u"grandchild.pid"_s);
        const QString daemonPidFile = dir.filePath(u"daemon.pid"_s);
        Connection c(leavesProcesses ? QStringList{u"--spawn-grandchild"_s, u"--pid-file"_s, grandchildPidFile,
                                                   u"--spawn-daemon"_s, u"--daemon-pid-file"_s, daemonPidFile}
                                     : QStringList{});
        QStringList events;
        QObject::connect(c.transport, &Transport::lost, c.session.get(), [&](const TransportClosure &closure) {
            events.append(u"lost by %1"_s.arg(closure.exitSignal.value_or(0)));
        });
        QObject::connect(c.session.get(), &McpClientSession::failed, c.session.get(), [&] { events.append(u"failed"_s); });
        QObject::connect(c.transport, &Transport::closed, c.session.get(), [&] { events.append(u"closed"_s); });
        QVERIFY(c.open());
        if (leavesProcesses)
            QTRY_VERIFY(readPidFile(grandchildPidFile) > 0 && readPidFile(daemonPidFile) > 0);
        if (closedByTether) {
            c.session->close();
            QVERIFY(c.waitClosed());
            QCOMPARE(events, QStringList{u"closed"_s});
            return;
        }
        ::kill(pid_t(c.transport->processId()), SIGKILL);
        QVERIFY(c.waitClosed());
        // The session, which heard lost() first, has failed by then, so it follows "failed" here.
        QCOMPARE(events, (QStringList{u"failed"_s, u"lost by %1"_s.arg(SIGKILL), u"closed"_s}));
        QVERIFY2(c.failure().startsWith(u"connection closed: process killed by SIGKILL"_s), qPrintable(c.failure()));
        QCOMPARE(c.closure().transport.exitSignal, std::optional<int>(SIGKILL));
        if (leavesProcesses) {
            QVERIFY(!processAlive(readPidFile(grandchildPidFile)));
            QVERIFY(!processAlive(readPidFile(daemonPidFile)));
        }
    }

    // A server known to hang gets no grace: SIGKILL of its group at once, though it is stopped.
    void abortKillsAStoppedServerAtOnce()
    {
        QTemporaryDir dir;
        const QString pidFile = dir.filePath(u"grandchild.pid"_s);
        // Graces far beyond the test's bound: only an abort that skips them closes in time.
        Connection c({u"--spawn-grandchild"_s, u"--pid-file"_s, pidFile}, std::chrono::seconds(10),
                     StdioTransportOptions{.stdinCloseGrace = std::chrono::minutes(10),
                                           .terminateGrace = std::chrono::minutes(10)});
        QVERIFY(c.open());
        const qint64 pid = c.transport->processId();
        qint64 grandchild = 0;
        QTRY_VERIFY((grandchild = readPidFile(pidFile)) > 0);
        ::kill(pid_t(pid), SIGSTOP);
        c.session->close();
        c.transport->abort();
        QVERIFY(c.waitClosed());
        QCOMPARE(c.closure().transport.exitSignal, std::optional<int>(SIGKILL));
        QVERIFY(!processAlive(pid));
        QVERIFY(!processAlive(grandchild));
    }

    void garbageIsSkipped()
    {
        Connection c({u"--garbage"_s});
        QVERIFY(c.open());
        const ToolListReply tools = c.listTools();
        QVERIFY(!tools.error);
        QCOMPARE(tools.tools.size(), 12);
        QCOMPARE(renderContent(c.call(u"add"_s, {{u"a"_s, 1.5}, {u"b"_s, 1}}).result.content), u"2.5"_s);
        QVERIFY(c.session->stats().skippedInput >= 3);
        QVERIFY(c.session->stats().unknownResponses >= 1);
        QVERIFY(c.session->isReady());
    }

    void listChangedNotificationsArrive()
    {
        Connection c({u"--list-changed-every-ms"_s, u"50"_s});
        QSignalSpy changed(c.session.get(), &McpClientSession::toolsListChanged);
        QVERIFY(c.open());
        QTRY_VERIFY(changed.size() >= 3);
    }

    void notificationsBeforeTheInitializeResult()
    {
        Connection c({u"--notify-before-initialize-result"_s});
        QSignalSpy changed(c.session.get(), &McpClientSession::toolsListChanged);
        QSignalSpy logged(c.session.get(), &McpClientSession::logMessage);
        QVERIFY(c.open());
        QCOMPARE(changed.size(), 0); // the first tools/list covers it
        QCOMPARE(logged.size(), 1);
        QCOMPARE(logged.at(0).at(2).value<QJsonValue>().toString(), u"early notice"_s);
        QCOMPARE(c.listTools().tools.size(), 12);
    }

    void logNotificationsArrive()
    {
        Connection c({u"--log-notifications"_s});
        QSignalSpy logged(c.session.get(), &McpClientSession::logMessage);
        QVERIFY(c.open());
        QTRY_COMPARE(logged.size(), 1);
        QCOMPARE(logged.at(0).at(0).toString(), u"warning"_s);
    }

    void oversizeLineIsAProtocolError()
    {
        Connection c({u"--oversize-line-mb"_s, u"17"_s});
        c.session->open();
        QVERIFY(c.waitClosed(20000));
        QVERIFY2(c.failure().contains(u"longer than 16 MiB"_s), qPrintable(c.failure()));
        QVERIFY(!processAlive(c.transport->processId()));
    }

    void closedStdoutIsALostConnection()
    {
        StdioTransportOptions options = QuickClose;
        options.stdoutEndGrace = std::chrono::milliseconds(300);
        Connection c(QStringList{u"--close-stdout"_s}, std::chrono::seconds(10), options);
        QVERIFY(c.open());
        const qint64 pid = c.transport->processId();
        QVERIFY(!c.listTools().error); // the server closes its stdout after that answer
        QVERIFY(c.waitClosed());
        QVERIFY2(c.failure().startsWith(u"connection closed: the server closed its stdout but was still running 300 ms "
                                        "later"_s),
                 qPrintable(c.failure()));
        // Closed as a protocol error closes a server: SIGTERM to its group, which the demo server obeys.
        QCOMPARE(c.closure().transport.exitSignal, std::optional<int>(SIGTERM));
        QVERIFY(!processAlive(pid));
    }

    void serverThatDoesNotReadItsStdinIsCutOffAtTheBound()
    {
        StdioTransportOptions options = QuickClose;
        options.maxPendingWriteBytes = 1024 * 1024;
        Connection c(QStringList{u"--ping-flood"_s}, std::chrono::seconds(10), options);
        QVERIFY(c.open());
        const qint64 pid = c.transport->processId();
        QVERIFY(c.waitClosed(30000));
        QVERIFY2(c.failure().contains(u"protocol error: the server does not read its stdin: more than 1 MiB of messages "
                                      "to it were waiting"_s),
                 qPrintable(c.failure()));
        QVERIFY(!processAlive(pid));
    }

    void damagedReplyFailsItsRequestAtOnce_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("reason");
        QTest::newRow("invalid UTF-8") << u"invalid-utf8"_s << u"invalid UTF8 string"_s;
        QTest::newRow("NUL after it") << u"nul"_s << u"garbage at the end of the document"_s;
        QTest::newRow("too deep") << u"deep-nesting"_s << u"too deeply nested"_s;
    }

    void damagedReplyFailsItsRequestAtOnce()
    {
        QFETCH(QString, kind);
        QFETCH(QString, reason);
        // Far longer than the test waits: the answer must come from the damaged line itself.
        Connection c({u"--damaged-reply"_s, kind}, std::chrono::minutes(5));
        QVERIFY(c.open());
        const ToolCallReply reply = c.call(u"echo"_s, {{u"message"_s, u"x"_s}});
        QVERIFY(reply.error);
        QCOMPARE(reply.error->code, int(JsonRpc::InvalidReply));
        QVERIFY2(reply.error->message.contains(u"the server answered with a line on stdout that is not JSON ("_s + reason),
                 qPrintable(reply.error->message));
        QCOMPARE(c.session->stats().skippedInput, 1);
        QVERIFY(c.session->isReady()); // one damaged line does not end the connection
    }

    void serverPingIsAnswered()
    {
        Connection c({u"--ping-client"_s});
        QVERIFY(c.open());
        QTRY_VERIFY(c.stderrContains(u"client answered ping with {}"_s));
    }

    void unsupportedServerRequestGetsMethodNotFound()
    {
        Connection c({u"--send-unsupported-request"_s});
        QVERIFY(c.open());
        QTRY_VERIFY(c.stderrContains(u"sampling/createMessage with error -32601"_s));
        QCOMPARE(c.session->stats().unsupportedRequests, 1);
    }

    void unknownProtocolVersionIsRefused()
    {
        Connection c({u"--protocol-version"_s, u"1999-01-01"_s});
        QVERIFY(!c.open());
        QVERIFY2(c.failure().contains(u"'1999-01-01'"_s) && c.failure().contains(u"2025-11-25"_s), qPrintable(c.failure()));
        QVERIFY(c.waitClosed());
    }

    void keepsTheLast200StderrLines()
    {
        Connection c({u"--stderr-lines"_s, u"250"_s});
        QVERIFY(c.open());
        QTRY_VERIFY(c.stderrContains(u"stderr line 250 of 250"_s));
        const QStringList tail = c.transport->stderrTail();
        QCOMPARE(tail.size(), 200);
        QVERIFY(tail.last().contains(u"line 250 of 250"_s) || tail.last().contains(u"started pid"_s));
        QVERIFY(!tail.first().contains(u"line 1 of 250"_s));
        QVERIFY(c.stderrLines.size() >= 251); // every line was forwarded
    }
};

QTEST_GUILESS_MAIN(TestStdioSession)
#include "tst_stdiosession.moc"
