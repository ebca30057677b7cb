// tether-launcher on its own: what it reports on --report-fd, which is how Tether learns the
// server's pid and, without waiting for the launcher's own exit, the server's end.

#include "support/testprocess.h"
#include "transport/launcherpark.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QSocketNotifier>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using Tether::Testing::parentPid;
using Tether::Testing::processAlive;
using Tether::Testing::processState;

namespace {

struct LauncherRun
{
    QList<QByteArray> report; // its lines, in order
    QProcess::ExitStatus exitStatus = QProcess::NormalExit;
    int exitCode = -1;
};

enum class WatchStdout { No, Yes };

// Runs the launcher on `program` until it exits, reading its report as it comes. With
// WatchStdout::Yes, the server's stdout is a pipe whose reading end the launcher watches.
LauncherRun runLauncher(const QStringList &program, WatchStdout watch = WatchStdout::No)
{
    int report[2];
    int output[2];
    if (::pipe2(report, O_CLOEXEC) != 0 || ::pipe2(output, O_CLOEXEC) != 0)
        return {};
    const int writeEnd = report[1];
    const bool watched = watch == WatchStdout::Yes;
    QProcess launcher;
    launcher.setStandardInputFile(QProcess::nullDevice());
    launcher.setChildProcessModifier([writeEnd, output, watched] {
        ::fcntl(writeEnd, F_SETFD, 0);
        if (watched) {
            ::dup2(output[1], STDOUT_FILENO);
            ::fcntl(output[0], F_SETFD, 0);
        }
    });
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
    QStringList options{u"--report-fd"_s, QString::number(writeEnd)};
    if (watched)
        options += {u"--watch-fd"_s, QString::number(output[0])};
    options += u"--"_s;
    launcher.start(QCoreApplication::applicationDirPath() + u"/tether-launcher"_s, options + program);
    ::close(writeEnd);
    ::close(output[1]);
    LauncherRun run;
    if (!QTest::qWaitFor([&] { return !finished.isEmpty() && !readable.isEnabled(); }, 10000)) {
        launcher.kill();
        launcher.waitForFinished();
    }
    ::close(report[0]);
    ::close(output[0]);
    run.report = text.split('\n');
    run.report.removeAll(QByteArray());
    run.exitStatus = launcher.exitStatus();
    run.exitCode = launcher.exitCode();
    return run;
}

qsizetype openDescriptors(qint64 pid)
{
    return QDir(u"/proc/%1/fd"_s.arg(pid)).entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::System).size();
}

// The report's next line, read within `ms`; empty when none came.
QByteArray readReportLine(int fd, QByteArray &buffer, int ms = 10000)
{
    QDeadlineTimer deadline(ms);
    while (!buffer.contains('\n')) {
        pollfd readable{fd, POLLIN, 0};
        if (::poll(&readable, 1, int(deadline.remainingTime())) != 1)
            return {};
        char chunk[256];
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n <= 0)
            return {};
        buffer.append(chunk, n);
    }
    const qsizetype newline = buffer.indexOf('\n');
    const QByteArray line = buffer.first(newline);
    buffer.remove(0, newline + 1);
    return line;
}

} // namespace

class TestLauncher final : public QObject
{
    Q_OBJECT

private slots:
    // The server's pid first, then its wait status the moment it has ended, and again once all
    // it started is killed; the launcher then ends as the server did.
    void reportsTheServersEnd_data()
    {
        QTest::addColumn<WatchStdout>("watch");
        QTest::addColumn<QString>("script");
        QTest::addColumn<int>("waitStatus");
        QTest::addColumn<QProcess::ExitStatus>("exitStatus");
        QTest::addColumn<int>("exitCode");
        for (const WatchStdout watch : {WatchStdout::No, WatchStdout::Yes}) {
            const char *const suffix = watch == WatchStdout::Yes ? ", stdout watched" : "";
            QTest::addRow("exit code 7%s", suffix) << watch << u"exit 7"_s << (7 << 8) << QProcess::NormalExit << 7;
            QTest::addRow("SIGKILL%s", suffix) << watch << u"kill -KILL $$"_s << SIGKILL << QProcess::CrashExit << SIGKILL;
            // What the server left behind is killed before the end is reported, and changes nothing in it.
            QTest::addRow("grandchild left%s", suffix)
                << watch << u"sleep 600 >/dev/null & exit 3"_s << (3 << 8) << QProcess::NormalExit << 3;
            // Its stdout ends long before it does: the launcher, woken early, waits for the exit.
            QTest::addRow("stdout closed first%s", suffix)
                << watch << u"exec >&-; sleep 0.2; exit 6"_s << (6 << 8) << QProcess::NormalExit << 6;
        }
    }

    void reportsTheServersEnd()
    {
        QFETCH(WatchStdout, watch);
        QFETCH(QString, script);
        QFETCH(int, waitStatus);
        QFETCH(QProcess::ExitStatus, exitStatus);
        QFETCH(int, exitCode);
        const LauncherRun run = runLauncher({u"/bin/sh"_s, u"-c"_s, script}, watch);
        QCOMPARE(run.report.size(), 3);
        QVERIFY2(run.report.at(0).startsWith("started ") && run.report.at(0).mid(8).toLongLong() > 0,
                 run.report.at(0).constData());
        QCOMPARE(run.report.at(1), "exited " + QByteArray::number(waitStatus));
        QCOMPARE(run.report.at(2), "ended " + QByteArray::number(waitStatus));
        QCOMPARE(run.exitStatus, exitStatus);
        QCOMPARE(run.exitCode, exitCode);
    }

    // The server's end is told before what it left is killed, so that Tether shows the crash at
    // once however long that takes. Here the report cannot be written (its pipe is full) once
    // the server is reaped: what it left is still alive then, and killed only after "exited".
    void tellsTheServersEndBeforeKillingWhatItLeft()
    {
        int report[2];
        QCOMPARE(::pipe2(report, O_CLOEXEC), 0);
        const int writeEnd = report[1];
        const int pipeSize = ::fcntl(writeEnd, F_SETPIPE_SZ, 4096);
        QVERIFY(pipeSize > 0);
        QProcess launcher;
        launcher.setChildProcessModifier([writeEnd] { ::fcntl(writeEnd, F_SETFD, 0); });
        // The server leaves a grandchild, says its pid, and exits with code 5 once its stdin ends.
        launcher.start(QCoreApplication::applicationDirPath() + u"/tether-launcher"_s,
                       {u"--report-fd"_s, QString::number(writeEnd), u"--"_s, u"/bin/sh"_s, u"-c"_s,
                        u"sleep 600 </dev/null >/dev/null 2>&1 & echo $!; read line; exit 5"_s});
        QVERIFY(launcher.waitForStarted());
        const auto readReport = [&] {
            QByteArray text;
            pollfd readable{report[0], POLLIN, 0};
            char buffer[4096];
            while (::poll(&readable, 1, 10000) == 1) {
                const ssize_t n = ::read(report[0], buffer, sizeof buffer);
                if (n <= 0)
                    break;
                text.append(buffer, n);
                if (text.endsWith('\n'))
                    break;
            }
            return text;
        };
        const QByteArray started = readReport();
        QVERIFY2(started.startsWith("started "), started.constData());
        const qint64 server = started.mid(8).trimmed().toLongLong();
        QVERIFY(launcher.waitForReadyRead());
        const qint64 grandchild = launcher.readLine().trimmed().toLongLong();
        QVERIFY(server > 0 && grandchild > 0);
        // One page fills the pipe (its size was cut to one page): the launcher's next word waits.
        const QByteArray filler(pipeSize, 'x');
        QCOMPARE(::write(writeEnd, filler.constData(), filler.size()), ssize_t(filler.size()));
        ::close(writeEnd);
        launcher.closeWriteChannel();

        // Reaped, then "exited" is being written: the grandchild lives still.
        QTRY_VERIFY_WITH_TIMEOUT(!QFile::exists(u"/proc/%1"_s.arg(server)), 10000);
        QCOMPARE(::kill(pid_t(grandchild), 0), 0);
        QByteArray rest;
        while (!rest.endsWith("ended 1280\n")) {
            const QByteArray more = readReport();
            QVERIFY2(!more.isEmpty(), rest.right(40).constData());
            rest += more;
        }
        QCOMPARE(rest, filler + "exited 1280\nended 1280\n");
        QVERIFY(!QFile::exists(u"/proc/%1"_s.arg(grandchild)));
        QVERIFY(launcher.waitForFinished());
        QCOMPARE(launcher.exitCode(), 5);
        ::close(report[0]);
    }

    // The reading end of the server's stdout, which the launcher watches, is not the server's.
    void keepsTheWatchedStdoutFromTheServer()
    {
        // Exits with the number of its descriptors on its stdout's pipe: 1, or 2 with the reading end.
        const LauncherRun run = runLauncher({u"/bin/sh"_s, u"-c"_s,
                                             uR"sh(out=$(readlink /proc/$$/fd/1); n=0; for f in /proc/$$/fd/*; do [ "$(readlink $f)" = "$out" ] && n=$((n+1)); done; exit $n)sh"_s},
                                            WatchStdout::Yes);
        QCOMPARE(run.report.size(), 3);
        QCOMPARE(run.report.at(1), "exited 256");
        QCOMPARE(run.exitCode, 1);
    }

    // A server that closes its stdout and runs on: the launcher, woken by it, goes back to
    // sleep (no busy loop on a descriptor that stays readable) until the server exits.
    void sleepsWhileAServerRunsOnWithoutStdout()
    {
        int report[2];
        int output[2];
        QCOMPARE(::pipe2(report, O_CLOEXEC), 0);
        QCOMPARE(::pipe2(output, O_CLOEXEC), 0);
        QProcess launcher;
        launcher.setChildProcessModifier([report, output] {
            ::fcntl(report[1], F_SETFD, 0);
            ::dup2(output[1], STDOUT_FILENO);
            ::fcntl(output[0], F_SETFD, 0);
        });
        launcher.start(QCoreApplication::applicationDirPath() + u"/tether-launcher"_s,
                       {u"--report-fd"_s, QString::number(report[1]), u"--watch-fd"_s, QString::number(output[0]),
                        u"--"_s, u"/bin/sh"_s, u"-c"_s, u"exec >&-; read line; exit 4"_s});
        QVERIFY(launcher.waitForStarted());
        ::close(report[1]);
        ::close(output[1]);
        // Its stdout is over once the pipe's only writer left is gone; the launcher, woken by
        // that, lets go of the descriptor and sleeps again.
        pollfd ended{output[0], POLLIN, 0};
        QCOMPARE(::poll(&ended, 1, 10000), 1);
        QVERIFY(ended.revents & POLLHUP);
        QTRY_VERIFY_WITH_TIMEOUT(!QFile::exists(u"/proc/%1/fd/%2"_s.arg(launcher.processId()).arg(output[0])), 5000);
        // Seen asleep once is enough (a busy loop never is); QTRY_ would look a second time, and
        // the launcher may be running by then for reasons of the machine's own.
        bool seenAsleep = false;
        QTRY_VERIFY_WITH_TIMEOUT(seenAsleep = seenAsleep || processState(launcher.processId()) == 'S', 5000);
        QCOMPARE(launcher.state(), QProcess::Running);
        launcher.closeWriteChannel();
        QVERIFY(launcher.waitForFinished(10000));
        QCOMPARE(launcher.exitCode(), 4);
        char buffer[256];
        const ssize_t n = ::read(report[0], buffer, sizeof buffer);
        QVERIFY(n > 0);
        QVERIFY2(QByteArray(buffer, n).contains("exited 1024\nended 1024\n"), QByteArray(buffer, n).constData());
        ::close(report[0]);
        ::close(output[0]);
    }

    // With --rerun, the launcher waits after "ended" for the word to run the server again, on the
    // pipes and in the folder that come with it, holding none of them afterwards; its socket's end
    // ends it as the last run did.
    void runsTheServerAgainWhenAsked()
    {
        int report[2];
        int firstOutput[2];
        QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, report), 0);
        QCOMPARE(::pipe2(firstOutput, O_CLOEXEC), 0);
        const int writeEnd = report[1];
        QProcess launcher;
        launcher.setStandardInputFile(QProcess::nullDevice());
        launcher.setChildProcessModifier([writeEnd, firstOutput] {
            ::fcntl(writeEnd, F_SETFD, 0);
            ::dup2(firstOutput[1], STDOUT_FILENO);
        });
        launcher.start(QCoreApplication::applicationDirPath() + u"/tether-launcher"_s,
                       {u"--report-fd"_s, QString::number(writeEnd), u"--rerun"_s, u"--"_s, u"/bin/sh"_s, u"-c"_s,
                        u"echo $$; read line; echo \"$line\"; pwd; exit 3"_s});
        QVERIFY(launcher.waitForStarted());
        ::close(writeEnd);
        ::close(firstOutput[1]);
        QByteArray said;
        const QByteArray started = readReportLine(report[0], said);
        QVERIFY2(started.startsWith("started "), started.constData());
        const qint64 firstPid = started.mid(8).toLongLong();
        // stdin is /dev/null: the first run ends at once.
        QCOMPARE(readReportLine(report[0], said), "exited 768");
        QCOMPARE(readReportLine(report[0], said), "ended 768");
        QVERIFY(processAlive(launcher.processId()));
        ::close(firstOutput[0]);
        const qsizetype idleDescriptors = openDescriptors(launcher.processId());

        int input[2];
        int output[2];
        int errors[2];
        QCOMPARE(::pipe2(input, O_CLOEXEC), 0);
        QCOMPARE(::pipe2(output, O_CLOEXEC), 0);
        QCOMPARE(::pipe2(errors, O_CLOEXEC), 0);
        QTemporaryDir folder;
        const int folderFd = ::open(QFile::encodeName(folder.path()).constData(), O_PATH | O_DIRECTORY | O_CLOEXEC);
        QVERIFY(folderFd >= 0);
        QVERIFY(Tether::askToRunAgain(report[0], {input[0], output[1], errors[1], output[0], folderFd}));
        for (const int fd : {input[0], output[1], errors[1], folderFd})
            ::close(fd);
        const QByteArray startedAgain = readReportLine(report[0], said);
        QVERIFY2(startedAgain.startsWith("started "), startedAgain.constData());
        const qint64 secondPid = startedAgain.mid(8).toLongLong();
        QVERIFY(secondPid > 0 && secondPid != firstPid);
        QCOMPARE(parentPid(secondPid), qint64(launcher.processId()));
        QCOMPARE(::write(input[1], "hello\n", 6), 6);
        ::close(input[1]);
        QCOMPARE(readReportLine(output[0], said), QByteArray::number(secondPid));
        QCOMPARE(readReportLine(output[0], said), "hello");
        QCOMPARE(readReportLine(output[0], said), QFileInfo(folder.path()).canonicalFilePath().toUtf8());
        // The server's stdout ends with it: the launcher keeps no copy of it.
        char rest;
        pollfd ended{output[0], POLLIN, 0};
        QCOMPARE(::poll(&ended, 1, 10000), 1);
        QCOMPARE(::read(output[0], &rest, 1), ssize_t(0));
        QCOMPARE(readReportLine(report[0], said), "exited 768");
        QCOMPARE(readReportLine(report[0], said), "ended 768");
        QVERIFY(processAlive(launcher.processId()));
        // Nothing of the run is left open in it.
        QCOMPARE(openDescriptors(launcher.processId()), idleDescriptors);

        ::close(report[0]);
        QVERIFY(launcher.waitForFinished(10000));
        QCOMPARE(launcher.exitStatus(), QProcess::NormalExit);
        QCOMPARE(launcher.exitCode(), 3);
        ::close(output[0]);
        ::close(errors[0]);
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
