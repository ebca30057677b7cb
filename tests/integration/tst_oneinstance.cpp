// One Tether per user: the real `tether` program started twice (offscreen, with its own runtime
// folder) hands over to the first and supervises nothing itself.
#include "singleinstance.h"
#include "support/testfiles.h"
#include "support/testprocess.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

// A user of their own: runtime, config and data folders in a temporary home, and a config of one
// demo server whose log file names its processes.
struct TetherUser
{
    TetherUser()
    {
        QDir().mkpath(runtime);
        QFile::setPermissions(runtime, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        environment.insert(u"QT_QPA_PLATFORM"_s, u"offscreen"_s);
        environment.insert(u"XDG_RUNTIME_DIR"_s, runtime);
        environment.insert(u"XDG_DATA_HOME"_s, home.filePath(u"data"_s));
        environment.insert(u"XDG_STATE_HOME"_s, home.filePath(u"state"_s));
        environment.insert(u"XDG_CONFIG_HOME"_s, home.filePath(u"config"_s));
        const QJsonObject entry{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)},
                                {u"args"_s, QJsonArray{u"--log-file"_s, serverLog}},
                                {u"heartbeat"_s, QJsonObject{{u"enabled"_s, false}}}};
        writeFile(config, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{{u"demo"_s, entry}}}}).toJson());
        writeFile(otherConfig, "{\"mcpServers\": {}}");
    }

    void start(QProcess &tether, const QStringList &arguments) const
    {
        tether.setProcessEnvironment(environment);
        tether.start(QStringLiteral(TETHER_APP), arguments);
    }

    // The processes of the demo server, whichever Tether started them.
    QList<qint64> serverProcesses() const
    {
        QList<qint64> pids;
        for (const QString &entry : QDir(u"/proc"_s).entryList(QDir::Dirs)) {
            bool isPid = false;
            const qint64 pid = entry.toLongLong(&isPid);
            if (!isPid || !processAlive(pid))
                continue;
            // The server itself, not tether-launcher, which runs it with the same arguments.
            const QList<QByteArray> arguments = readFile(u"/proc/%1/cmdline"_s.arg(pid)).split('\0');
            if (arguments.value(0) == TETHER_DEMO_SERVER && arguments.contains(serverLog.toUtf8()))
                pids.append(pid);
        }
        return pids;
    }

    QTemporaryDir home;
    QString runtime = home.filePath(u"runtime"_s);
    QString config = home.filePath(u"servers.json"_s);
    QString otherConfig = home.filePath(u"other.json"_s);
    QString serverLog = home.filePath(u"demo.log"_s);
    QString socket = runtime + u"/tether.socket"_s;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
};

// A socket file bound and closed without being removed, as a process killed outright leaves it.
bool leaveSocketBehind(const QString &path)
{
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const QByteArray name = QFile::encodeName(path);
    if (size_t(name.size()) >= sizeof(address.sun_path))
        return false;
    std::copy(name.cbegin(), name.cend(), address.sun_path);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    const bool bound = fd >= 0 && ::bind(fd, reinterpret_cast<const sockaddr *>(&address), sizeof(address)) == 0;
    ::close(fd);
    return bound && QFile::exists(path);
}

// Ends a Tether as a logout would and waits until it has.
bool quit(QProcess &tether)
{
    ::kill(pid_t(tether.processId()), SIGTERM);
    return tether.waitForFinished(15000) && tether.exitCode() == 0;
}

} // namespace

class TestOneInstance final : public QObject
{
    Q_OBJECT

private slots:
    void aSecondLaunchBringsTheFirstToTheFront_data()
    {
        QTest::addColumn<bool>("sameConfig");
        QTest::newRow("without --config") << false;
        QTest::newRow("with the same --config") << true;
    }

    void aSecondLaunchBringsTheFirstToTheFront()
    {
        QFETCH(bool, sameConfig);
        TetherUser user;
        QProcess first;
        user.start(first, {u"--config"_s, user.config});
        QVERIFY(first.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(readFile(user.serverLog).contains("demo: initialized"), 15000);
        const QList<qint64> servers = user.serverProcesses();
        QCOMPARE(servers.size(), 1);

        QProcess second;
        // The same file by another name is the same config.
        user.start(second, sameConfig ? QStringList{u"--config"_s, user.home.path() + u"/./servers.json"_s} : QStringList{});
        QVERIFY(second.waitForFinished(10000));
        QCOMPARE(second.exitStatus(), QProcess::NormalExit);
        QCOMPARE(second.exitCode(), 0);
        QVERIFY2(second.readAllStandardOutput().contains("already running; its window was brought to the front"),
                 second.readAllStandardError().constData());
        QByteArray firstLog;
        QTRY_VERIFY_WITH_TIMEOUT((firstLog += first.readAllStandardError()).contains("a second launch of Tether brought this one to the front"),
                                 5000);

        // Still the one server process of the first, started once.
        QCOMPARE(user.serverProcesses(), servers);
        QCOMPARE(readFile(user.serverLog).count("demo: initialized"), 1);
        QCOMPARE(first.state(), QProcess::Running);
        QVERIFY(quit(first));
        QVERIFY(!QFile::exists(user.socket));
    }

    // A word tether does not take (a file, a mistyped option's value) is refused before anything runs.
    void anArgumentIsRefused()
    {
        TetherUser user;
        QProcess tether;
        user.start(tether, {u"servers.json"_s});
        QVERIFY(tether.waitForFinished(10000));
        QCOMPARE(tether.exitCode(), 1);
        const QString message = QString::fromUtf8(tether.readAllStandardError());
        QVERIFY2(message.contains(u"tether: unexpected argument 'servers.json': tether takes options only, such as "
                                  "--config FILE"_s),
                 qPrintable(message));
        QVERIFY(!QFile::exists(user.serverLog));
    }

    // Another config cannot run beside the first: the second says so, fails and starts nothing.
    void aSecondLaunchWithAnotherConfigIsRefused()
    {
        TetherUser user;
        QProcess first;
        user.start(first, {u"--config"_s, user.config});
        QVERIFY(first.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(readFile(user.serverLog).contains("demo: initialized"), 15000);

        QProcess second;
        user.start(second, {u"--config"_s, user.otherConfig});
        QVERIFY(second.waitForFinished(10000));
        QCOMPARE(second.exitCode(), 1);
        const QString message = QString::fromUtf8(second.readAllStandardError());
        QVERIFY2(message.contains(u"Tether is already running, with %1, and one Tether runs one config: %2 was not opened"_s
                                      .arg(user.config, user.otherConfig)), qPrintable(message));
        QVERIFY2(message.contains(u"quit the running Tether"_s), qPrintable(message));
        QCOMPARE(user.serverProcesses().size(), 1);
        QCOMPARE(readFile(user.serverLog).count("demo: initialized"), 1);
        QVERIFY(quit(first));
    }

    // A Tether killed outright leaves its socket: the next one replaces it and runs.
    void aSocketLeftBehindIsReplaced()
    {
        TetherUser user;
        QVERIFY(leaveSocketBehind(user.socket));
        QCOMPARE(InstanceListener::askRunningInstance(user.socket, {}), std::nullopt);
        QProcess tether;
        user.start(tether, {u"--config"_s, user.config});
        QVERIFY(tether.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(readFile(user.serverLog).contains("demo: initialized"), 15000);
        QCOMPARE(tether.state(), QProcess::Running);
        QVERIFY(quit(tether));
    }

    // The decision, as a table: which second launch brings the running window up.
    void answerSecondLaunch_data()
    {
        QTest::addColumn<QString>("running");
        QTest::addColumn<bool>("builtIn");
        QTest::addColumn<QString>("requested");
        QTest::addColumn<bool>("activated");

        QTest::newRow("no --config") << u"/home/ada/.config/tether/servers.json"_s << false << QString() << true;
        QTest::newRow("the same file") << u"/home/ada/.config/tether/servers.json"_s << false
                                       << u"/home/ada/.config/tether/servers.json"_s << true;
        QTest::newRow("the same file, another spelling") << u"/home/ada/.config/tether/servers.json"_s << false
                                                         << u"/home/ada/.config/tether/../tether/servers.json"_s << true;
        QTest::newRow("another file") << u"/home/ada/.config/tether/servers.json"_s << false << u"/tmp/other.json"_s << false;
        QTest::newRow("built-in, no --config") << u":/tether/default-servers.json"_s << true << QString() << true;
        QTest::newRow("built-in, a file") << u":/tether/default-servers.json"_s << true << u"/tmp/other.json"_s << false;
    }

    void answerSecondLaunch()
    {
        QFETCH(QString, running);
        QFETCH(bool, builtIn);
        QFETCH(QString, requested);
        QFETCH(bool, activated);
        const LaunchAnswer answer = Tether::answerSecondLaunch({running, builtIn}, requested);
        QCOMPARE(answer.activated, activated);
        QCOMPARE(answer.refusal.isEmpty(), activated);
        if (!activated) {
            QVERIFY2(answer.refusal.contains(requested) && answer.refusal.contains(u"tether --config %1"_s.arg(requested)),
                     qPrintable(answer.refusal));
            QVERIFY2(answer.refusal.contains(builtIn ? u"its built-in example config"_s : running), qPrintable(answer.refusal));
        }
    }
};

QTEST_GUILESS_MAIN(TestOneInstance)
#include "tst_oneinstance.moc"
