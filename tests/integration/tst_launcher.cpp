// tether-launcher on its own: what it reports on --report-fd, which is how Tether learns the
// server's pid and, without waiting for the launcher's own exit, the server's end.
#include <QCoreApplication>
#include <QProcess>
#include <QSignalSpy>
#include <QSocketNotifier>
#include <QTest>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace {

struct LauncherRun
{
    QList<QByteArray> report; // its lines, in order
    QProcess::ExitStatus exitStatus = QProcess::NormalExit;
    int exitCode = -1;
};

// Runs the launcher on `program` until it exits, reading its report as it comes.
LauncherRun runLauncher(const QStringList &program)
{
    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0)
        return {};
    const int writeEnd = report[1];
    QProcess launcher;
    launcher.setStandardInputFile(QProcess::nullDevice());
    launcher.setChildProcessModifier([writeEnd] { ::fcntl(writeEnd, F_SETFD, 0); });
    QByteArray text;
    QSocketNotifier readable(report[0], QSocketNotifier::Read);
    QObject::connect(&readable, &QSocketNotifier::activated, &readable, [&] {
        char buffer[256];
        const ssize_t n = ::read(report[0], buffer, sizeof buffer);
        if (n > 0)
            text.append(buffer, n);
        else
            readable.setEnabled(false); // the launcher is gone
    });
    QSignalSpy finished(&launcher, &QProcess::finished);
    launcher.start(QCoreApplication::applicationDirPath() + u"/tether-launcher"_s,
                   QStringList{u"--report-fd"_s, QString::number(writeEnd), u"--"_s} + program);
    ::close(writeEnd);
    LauncherRun run;
    if (!QTest::qWaitFor([&] { return !finished.isEmpty() && !readable.isEnabled(); }, 10000)) {
        launcher.kill();
        launcher.waitForFinished();
    }
    ::close(report[0]);
    run.report = text.split('\n');
    run.report.removeAll(QByteArray());
    run.exitStatus = launcher.exitStatus();
    run.exitCode = launcher.exitCode();
    return run;
}

} // namespace

class TestLauncher final : public QObject
{
    Q_OBJECT

private slots:
    // The server's pid first, then its wait status once it has ended and all it started is
    // killed; the launcher then ends as the server did.
    void reportsTheServersEnd_data()
    {
        QTest::addColumn<QString>("script");
        QTest::addColumn<int>("waitStatus");
        QTest::addColumn<QProcess::ExitStatus>("exitStatus");
        QTest::addColumn<int>("exitCode");
        QTest::newRow("exit code 7") << u"exit 7"_s << (7 << 8) << QProcess::NormalExit << 7;
        QTest::newRow("SIGKILL") << u"kill -KILL $$"_s << SIGKILL << QProcess::CrashExit << SIGKILL;
        // What the server left behind is killed before the end is reported, and changes nothing in it.
        QTest::newRow("grandchild left") << u"sleep 600 & exit 3"_s << (3 << 8) << QProcess::NormalExit << 3;
    }

    void reportsTheServersEnd()
    {
        QFETCH(QString, script);
        QFETCH(int, waitStatus);
        QFETCH(QProcess::ExitStatus, exitStatus);
        QFETCH(int, exitCode);
        const LauncherRun run = runLauncher({u"/bin/sh"_s, u"-c"_s, script});
        QCOMPARE(run.report.size(), 2);
        QVERIFY2(run.report.at(0).startsWith("started ") && run.report.at(0).mid(8).toLongLong() > 0,
                 run.report.at(0).constData());
        QCOMPARE(run.report.at(1), "ended " + QByteArray::number(waitStatus));
        QCOMPARE(run.exitStatus, exitStatus);
        QCOMPARE(run.exitCode, exitCode);
    }

    // A program that cannot run is reported as such, with no end to report.
    void reportsAFailedStart()
    {
        const LauncherRun run = runLauncher({u"/nonexistent/tether-test-program"_s});
        QCOMPARE(run.report, QList<QByteArray>{"failed " + QByteArray::number(ENOENT)});
        QCOMPARE(run.exitStatus, QProcess::NormalExit);
        QCOMPARE(run.exitCode, 127);
    }
};

QTEST_GUILESS_MAIN(TestLauncher)
#include "tst_launcher.moc"
