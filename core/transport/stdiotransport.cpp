#include "stdiotransport.h"

#include "descriptorwriter.h"
#include "launcherpark.h"
#include "linereader.h"
#include "spawnqueue.h"

#include "common/logging.h"
#include "protocol/jsonrpc.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QPointer>
#include <QSocketNotifier>

#include <cerrno>
#include <limits>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace Tether {

// One stderr line longer than this is cut: stderr is a log, not a data channel.
static constexpr qsizetype MaxStderrLineBytes = 8 * 1024;
static constexpr qsizetype StderrBytesPerTurn = 64 * 1024;
// How long Tether, quitting, waits for a launcher that has not said yet which pid its server has.
static constexpr int LauncherReportWaitMs = 5000;
// How long the end of a running server's stdout waits, awake, for the launcher's word of its exit.
static constexpr std::chrono::microseconds ExitReportWait{500};

static QString launcherPath()
{
    return QCoreApplication::applicationDirPath() + u"/tether-launcher"_s;
}

StdioTransport::StdioTransport(StdioServerCommand command, StdioTransportOptions options, QObject *parent)
    : Transport(SecretScrubber(command.secretValues()), parent)
    , m_command(std::move(command))
    , m_options(options)
    , m_process(std::make_unique<QProcess>())
{
    watchLauncher();
    m_closeTimer.setSingleShot(true);
    // The escalation graces are promised to servers: never cut them short.
    m_closeTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_closeTimer, &QTimer::timeout, this, &StdioTransport::onCloseTimer);
    m_closure.program = m_command.program;
    m_stdoutEndTimer.setSingleShot(true);
    m_stdoutEndTimer.setInterval(options.stdoutEndGrace);
    connect(&m_stdoutEndTimer, &QTimer::timeout, this, &StdioTransport::onStdoutEnded);
}

void StdioTransport::watchLauncher()
{
    connect(m_process.get(), &QProcess::finished, this, &StdioTransport::onFinished);
    connect(m_process.get(), &QProcess::errorOccurred, this, &StdioTransport::onErrorOccurred);
}

StdioTransport::~StdioTransport()
{
    SpawnQueue::instance().cancel(this);
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        if (m_serverWaitStatus) {
            // The launcher reported everything it ran gone and is exiting now: neither the next
            // server nor anything else need wait for that.
            SpawnQueue::instance().keepUntilFinished(std::move(m_process));
        } else {
            // Destroyed while the child runs (Tether quitting): no grace, but never leave it behind.
            // The server's pid comes moments after the launcher's start: wait for it, it is what to kill.
            while (m_processId == 0 && m_reportFd >= 0) {
                pollfd readable{m_reportFd, POLLIN, 0};
                if (::poll(&readable, 1, LauncherReportWaitMs) <= 0)
                    break;
                readLauncherReport();
            }
            signalGroup(SIGKILL);
            closeLauncherReport(); // else it waits on it to run the server again
            m_process->waitForFinished(5000);
        }
    }
    closeLauncherReport();
    closeStdin();
    closeStdout();
    closeStderr();
}

QString StdioTransport::description() const
{
    return m_command.shownAs.isEmpty() ? u"stdio: "_s + m_command.commandLine() : m_command.shownAs;
}

void StdioTransport::start()
{
    Q_ASSERT(m_stage == Stage::Idle);
    m_stage = Stage::Starting;

    // Without extra variables the child inherits ours as is: no copy of the environment to keep.
    if (!m_command.environment.isEmpty()) {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        for (const auto &[name, value] : m_command.environment)
            environment.insert(name, value);
        m_process->setProcessEnvironment(environment);
    }
    if (!m_command.workingDirectory.isEmpty())
        m_process->setWorkingDirectory(m_command.workingDirectory);
    SpawnQueue::instance().enqueue(this, [this] { spawn(); });
}

void StdioTransport::spawn()
{
    // The server's stdin, its stdout and its stderr.
    int pipes[3][2];
    int made = 0;
    for (; made < 3; ++made) {
        if (::pipe2(pipes[made], O_CLOEXEC) != 0)
            break;
    }
    if (made < 3) {
        const int error = errno;
        for (int i = 0; i < made; ++i) {
            ::close(pipes[i][0]);
            ::close(pipes[i][1]);
        }
        failToSpawn(error);
        return;
    }
    m_stdinFd = pipes[0][1];
    m_stdoutFd = pipes[1][0];
    m_stderrFd = pipes[2][0];
    const std::array<int, 3> serverEnds{pipes[0][0], pipes[1][1], pipes[2][1]};
    for (const int fd : {m_stdinFd, m_stdoutFd, m_stderrFd})
        ::fcntl(fd, F_SETFL, O_NONBLOCK);
    if (!runInIdleLauncher(serverEnds))
        startLauncher(serverEnds);
    for (const int fd : serverEnds)
        ::close(fd);
    if (m_stage == Stage::Closed) {
        // The launcher itself could not start.
        closeLauncherReport();
        closeStdin();
        closeStdout();
        closeStderr();
        return;
    }
    m_reportNotifier = std::make_unique<QSocketNotifier>(m_reportFd, QSocketNotifier::Read);
    connect(m_reportNotifier.get(), &QSocketNotifier::activated, this, &StdioTransport::onLauncherReport);
    m_stderrNotifier = std::make_unique<QSocketNotifier>(m_stderrFd, QSocketNotifier::Read);
    connect(m_stderrNotifier.get(), &QSocketNotifier::activated, this, &StdioTransport::onStderr);
    m_stdin = std::make_unique<DescriptorWriter>(m_stdinFd, true);
    connect(m_stdin.get(), &DescriptorWriter::failed, this, [this](int error) {
        // The server closed its stdin, or is gone: its exit, which follows, says why.
        spdlog::debug("{}: its stdin cannot be written ({})", description(), qt_error_string(error));
    });
    m_stdout = std::make_unique<LineReader>(m_stdoutFd, m_options.maxLineBytes, true);
    connect(m_stdout.get(), &LineReader::lineReceived, this, &StdioTransport::onStdoutLine);
    connect(m_stdout.get(), &LineReader::ended, this, &StdioTransport::onStdoutClosed);
    connect(m_stdout.get(), &LineReader::failed, this, [this](int error) {
        closeWithError(u"protocol error: the server's stdout cannot be read: %1"_s.arg(qt_error_string(error)));
    });
    connect(m_stdout.get(), &LineReader::overflowed, this, [this] {
        closeWithError(u"protocol error: the server wrote a line longer than %1 on stdout"_s
                           .arg(byteLimitText(m_options.maxLineBytes)));
    });
}

void StdioTransport::failToSpawn(int error)
{
    m_closure.unreached = true;
    m_closure.error = u"could not start '%1': no pipes to talk to it (%2)"_s.arg(m_command.program, qt_error_string(error));
    m_stage = Stage::Closed;
    finish();
}

bool StdioTransport::runInIdleLauncher(const std::array<int, 3> &serverEnds)
{
    std::optional<IdleLauncher> idle = LauncherPark::instance().take(m_command);
    if (!idle)
        return false;
    // The folder as it is now: the kept launcher still sits in the one of its first start, which
    // may have been replaced since. One that is gone is left to a new launcher, which says so.
    const QString &folder = m_command.workingDirectory;
    const int folderFd = ::open(folder.isEmpty() ? "." : QFile::encodeName(folder).constData(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    const bool asked = folderFd >= 0
                       && askToRunAgain(idle->socket, {serverEnds[0], serverEnds[1], serverEnds[2], m_stdoutFd, folderFd});
    const int error = errno;
    if (folderFd >= 0)
        ::close(folderFd);
    if (!asked) {
        spdlog::debug("{}: the launcher kept from its last run is not used ({}); starting a new one", description(),
                      qt_error_string(error));
        LauncherPark::letGo(std::move(*idle));
        return false;
    }
    m_process = std::move(idle->process);
    watchLauncher();
    m_reportFd = idle->socket;
    return true;
}

void StdioTransport::startLauncher(const std::array<int, 3> &serverEnds)
{
    // The launcher's report, a socket on which it also hears when to run the server again.
    int report[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, report) != 0) {
        failToSpawn(errno);
        return;
    }
    // Plain names, not structured bindings: the child's lambda captures them.
    m_reportFd = report[0];
    const int reportWriteFd = report[1];
    const int serverStdin = serverEnds[0];
    const int serverStdout = serverEnds[1];
    const int serverStderr = serverEnds[2];
    ::fcntl(m_reportFd, F_SETFL, O_NONBLOCK);
    m_process->setStandardInputFile(QProcess::nullDevice());
    m_process->setStandardOutputFile(QProcess::nullDevice());
    m_process->setStandardErrorFile(QProcess::nullDevice());
    const pid_t tetherPid = ::getpid();
    const int stdoutReadFd = m_stdoutFd;
    m_process->setChildProcessModifier([tetherPid, reportWriteFd, stdoutReadFd, serverStdin, serverStdout, serverStderr] {
        // A group of its own, so that a Ctrl-C at Tether's terminal reaches Tether alone.
        ::setpgid(0, 0);
        // Die with Tether until the launcher has set up its own way to outlive it for a moment.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != tetherPid)
            ::_exit(127);
        // Besides stdin, stdout and stderr (the copies keep no close-on-exec), the launcher
        // inherits its report and, to wake when the server's output ends, stdout's reading end.
        ::dup2(serverStdin, STDIN_FILENO);
        ::dup2(serverStdout, STDOUT_FILENO);
        ::dup2(serverStderr, STDERR_FILENO);
        ::fcntl(reportWriteFd, F_SETFD, 0);
        ::fcntl(stdoutReadFd, F_SETFD, 0);
    });
    QStringList arguments{u"--report-fd"_s, QString::number(reportWriteFd), u"--rerun"_s, u"--watch-fd"_s,
                          QString::number(stdoutReadFd), u"--"_s, m_command.program};
    arguments += m_command.arguments;
    m_process->start(launcherPath(), arguments);
    ::close(reportWriteFd);
}

void StdioTransport::closeStdin()
{
    m_stdin.reset(); // its notifier goes before the descriptor
    if (m_stdinFd >= 0)
        ::close(m_stdinFd);
    m_stdinFd = -1;
}

void StdioTransport::closeStdout()
{
    m_stdout.reset();
    if (m_stdoutFd >= 0)
        ::close(m_stdoutFd);
    m_stdoutFd = -1;
}

void StdioTransport::closeStderr()
{
    m_stderrNotifier.reset();
    if (m_stderrFd >= 0)
        ::close(m_stderrFd);
    m_stderrFd = -1;
}

void StdioTransport::readLauncherReport()
{
    char buffer[64];
    bool ended = false;
    for (;;) {
        const ssize_t n = ::read(m_reportFd, buffer, sizeof buffer);
        if (n > 0) {
            m_launcherReport.append(buffer, n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        ended = n == 0 || errno != EAGAIN; // else the rest is still to come
        break;
    }
    for (qsizetype newline = m_launcherReport.indexOf('\n'); newline >= 0; newline = m_launcherReport.indexOf('\n')) {
        const QList<QByteArray> words = m_launcherReport.first(newline).split(' ');
        m_launcherReport.remove(0, newline + 1);
        bool isNumber = false;
        const qint64 value = words.size() == 2 ? words.last().toLongLong(&isNumber) : 0;
        if (!isNumber)
            continue;
        if (words.first() == "started") {
            m_processId = value;
        } else if (words.first() == "failed") {
            m_startFailed = true;
            m_closure.startErrno = int(value);
            m_closure.unreached = true;
            m_closure.error = u"could not start '%1': %2"_s.arg(m_command.program, qt_error_string(*m_closure.startErrno));
        } else if (words.first() == "exited") {
            m_serverExitStatus = int(value);
        } else if (words.first() == "ended") {
            m_serverWaitStatus = int(value);
        }
    }
    if (ended)
        closeLauncherReport();
}

void StdioTransport::closeLauncherReport()
{
    m_reportNotifier.reset();
    if (m_reportFd >= 0)
        ::close(m_reportFd);
    m_reportFd = -1;
}

void StdioTransport::onLauncherReport()
{
    const bool serverWasKnown = m_processId != 0;
    readLauncherReport();
    if (!serverWasKnown && m_processId != 0) {
        switch (m_stage) {
        case Stage::Starting:
            // Starting -> Running
            m_stage = Stage::Running;
            m_stdout->start();
            emit started();
            break;
        case Stage::Killing:
            // Closed while starting: only now is there a group to kill.
            signalGroup(SIGKILL);
            break;
        default:
            break;
        }
    }
    actOnServerEnd();
}

void StdioTransport::actOnServerEnd()
{
    // The server's end, without waiting for the launcher's own exit, which follows. Its exit is
    // told first even when its end came with it: the session fails at once, and the rest of the
    // close (last words, the launcher kept, the pipes closed) comes after.
    const QPointer<StdioTransport> guard(this);
    if (m_serverExitStatus)
        onServerExited(*m_serverExitStatus);
    if (guard && m_serverWaitStatus)
        onServerEnded(*m_serverWaitStatus);
}

void StdioTransport::send(const QJsonObject &message)
{
    sendJson(JsonRpc::serialize(message));
}

void StdioTransport::sendJson(const QByteArray &json)
{
    if (m_stage != Stage::Running)
        return;
    m_stdin->write(json);
    m_stdin->write("\n");
    if (m_stdin->pendingBytes() > m_options.maxPendingWriteBytes) {
        closeWithError(u"protocol error: the server does not read its stdin: more than %1 of messages to it were "
                       "waiting, the most Tether keeps for a server"_s.arg(byteLimitText(m_options.maxPendingWriteBytes)));
    }
}

void StdioTransport::close()
{
    m_closure.requested = true;
    switch (m_stage) {
    case Stage::Idle:
        m_stage = Stage::Closed;
        QMetaObject::invokeMethod(this, &StdioTransport::finish, Qt::QueuedConnection);
        return;
    case Stage::Starting:
        if (m_process->state() == QProcess::NotRunning) {
            // Starting -> Closed: still waiting for its turn to start; it never will.
            SpawnQueue::instance().cancel(this);
            m_stage = Stage::Closed;
            QMetaObject::invokeMethod(this, &StdioTransport::finish, Qt::QueuedConnection);
            return;
        }
        // Starting -> Killing: nothing was said to the server yet, no grace is owed. Its
        // group is killed as soon as the launcher names it.
        m_stage = Stage::Killing;
        signalGroup(SIGKILL);
        return;
    case Stage::Running:
        // Running -> ClosingStdin: a well-behaved server exits when its input ends.
        m_stage = Stage::ClosingStdin;
        // What was sent goes first, as far as the server reads it.
        m_stdin->flush();
        if (m_stdin->pendingBytes() == 0 || m_stdin->hasFailed())
            closeStdin();
        else
            connect(m_stdin.get(), &DescriptorWriter::drained, this, &StdioTransport::closeStdin,
                    Qt::ConnectionType(Qt::QueuedConnection | Qt::SingleShotConnection));
        m_closeTimer.start(m_options.stdinCloseGrace);
        return;
    case Stage::ClosingStdin:
    case Stage::Terminating:
    case Stage::Killing:
    case Stage::Closed:
        return; // already on its way
    }
}

void StdioTransport::abort()
{
    switch (m_stage) {
    case Stage::Running:
    case Stage::ClosingStdin:
    case Stage::Terminating:
        // Running | ClosingStdin | Terminating -> Killing: graces are wasted on a process that
        // cannot react. SIGKILL ends a stopped process too; waking it first (SIGCONT) would let a
        // server whose stdin was just closed exit on its own before the kill lands.
        m_closure.requested = true;
        m_closeTimer.stop();
        m_stage = Stage::Killing;
        spdlog::warn("{}: does not respond; killing its process group at once", description());
        signalGroup(SIGKILL);
        return;
    case Stage::Idle:
    case Stage::Starting:
    case Stage::Killing:
    case Stage::Closed:
        close(); // ends at once, or already on its way
        return;
    }
}

void StdioTransport::closeWithError(const QString &error)
{
    if (m_closure.error.isEmpty())
        m_closure.error = error;
    if (m_stage == Stage::Running) {
        // Running -> Terminating: the stream is unusable, skip the polite stdin close.
        m_stage = Stage::Terminating;
        signalGroup(SIGTERM);
        m_closeTimer.start(m_options.terminateGrace);
    }
}

void StdioTransport::onCloseTimer()
{
    switch (m_stage) {
    case Stage::ClosingStdin:
        // ClosingStdin -> Terminating
        spdlog::debug("{}: still running {} ms after stdin closed, sending SIGTERM", description(),
                      m_options.stdinCloseGrace.count());
        m_stage = Stage::Terminating;
        signalGroup(SIGTERM);
        m_closeTimer.start(m_options.terminateGrace);
        break;
    case Stage::Terminating:
        // Terminating -> Killing
        spdlog::warn("{}: ignored SIGTERM for {} ms, sending SIGKILL", description(),
                     m_options.terminateGrace.count());
        m_stage = Stage::Killing;
        signalGroup(SIGKILL);
        break;
    default:
        break;
    }
}

void StdioTransport::signalGroup(int signalNumber)
{
    // The server leads its own group, known once the launcher has reported its pid, and gone
    // once the launcher has reported its end (the number may be another group's by then).
    if (m_processId > 0 && !m_serverWaitStatus)
        ::kill(-pid_t(m_processId), signalNumber);
}

void StdioTransport::onStdoutLine(const QByteArray &line)
{
    if (m_stage != Stage::Running && m_stage != Stage::ClosingStdin)
        return;
    if (takenAsText(line))
        return;
    JsonRpc::DecodedPayload decoded = JsonRpc::decodePayload(line);
    if (!decoded.error.isEmpty()) {
        const QString damage = u"a line on stdout that is "_s + decoded.error;
        emit inputSkipped(u"skipped "_s + damage);
        if (!decoded.damagedReplyId.isUndefined())
            decoded.messages.append(JsonRpc::makeDamagedReplyError(decoded.damagedReplyId, damage));
    }
    for (const QJsonObject &message : std::as_const(decoded.messages)) {
        emit messageReceived(message, decoded.text);
        if (m_stage != Stage::Running && m_stage != Stage::ClosingStdin)
            return; // a receiver closed us
    }
}

void StdioTransport::onStdoutClosed()
{
    // Every exit ends stdout too, just before the exit is seen: hence a grace before it counts.
    m_stdoutEndTimer.start();
    if (m_stage != Stage::Running || m_lostEmitted)
        return;
    // The launcher's word of the exit follows within microseconds. Waiting for it here, awake (as
    // a mutex spins before it sleeps), costs less than the wake-up it takes to hear it from the
    // event loop; a server that closed its stdout and runs on costs this wait once.
    const auto deadline = std::chrono::steady_clock::now() + ExitReportWait;
    while (m_reportFd >= 0 && !m_serverExitStatus && !m_serverWaitStatus && std::chrono::steady_clock::now() < deadline) {
        ::sched_yield(); // on a single core, the launcher needs the processor to write
        readLauncherReport();
    }
    if (!m_serverExitStatus && !m_serverWaitStatus)
        return;
    // The exit is told now (stdout's reader, stopped, reads nothing more); the end, which closes
    // that reader, once it has returned, still in this turn.
    const QPointer<StdioTransport> guard(this);
    onServerExited(m_serverExitStatus ? *m_serverExitStatus : *m_serverWaitStatus);
    if (guard && m_serverWaitStatus)
        QMetaObject::invokeMethod(this, &StdioTransport::actOnServerEnd, Qt::QueuedConnection);
}

void StdioTransport::onStdoutEnded()
{
    if (m_stage != Stage::Running)
        return;
    closeWithError(u"the server closed its stdout but was still running %1 ms later: it can never answer again, "
                   "so the connection counts as lost"_s.arg(m_options.stdoutEndGrace.count()));
}

void StdioTransport::onStderr()
{
    // A server that writes without pause must not hold the event loop: the rest comes next turn.
    readStderr(StderrBytesPerTurn);
}

void StdioTransport::readStderr(qsizetype maxBytes)
{
    char buffer[16 * 1024];
    for (qsizetype read = 0; m_stderrFd >= 0 && read < maxBytes;) {
        const ssize_t n = ::read(m_stderrFd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0 || errno != EAGAIN)
                closeStderr(); // every writer is gone
            return;
        }
        read += n;
        m_stderrBuffer.append(buffer, n);
        qsizetype lineStart = 0;
        for (qsizetype newline = m_stderrBuffer.indexOf('\n'); newline >= 0;
             newline = m_stderrBuffer.indexOf('\n', lineStart)) {
            appendStderrLine(QByteArrayView(m_stderrBuffer).sliced(lineStart, newline - lineStart));
            lineStart = newline + 1;
        }
        // An idle server should not keep a read-sized buffer: release it once it is all consumed.
        if (lineStart == m_stderrBuffer.size())
            m_stderrBuffer.clear();
        else
            m_stderrBuffer.remove(0, lineStart);
        if (m_stderrBuffer.size() > MaxStderrLineBytes) {
            appendStderrLine(m_stderrBuffer);
            m_stderrBuffer.clear();
        }
    }
}

void StdioTransport::appendStderrLine(QByteArrayView bytes)
{
    if (bytes.endsWith('\r'))
        bytes.chop(1);
    QString line = QString::fromUtf8(bytes.first(std::min(bytes.size(), MaxStderrLineBytes)));
    if (bytes.size() > MaxStderrLineBytes)
        line += u"…"_s;
    line = secrets().scrub(line);
    m_stderrTail.push_back(line);
    while (qsizetype(m_stderrTail.size()) > m_options.stderrTailLines)
        m_stderrTail.pop_front();
    emit stderrLine(line);
}

void StdioTransport::onErrorOccurred(QProcess::ProcessError error)
{
    if (error != QProcess::FailedToStart)
        return; // crashes and write errors are reported through finished()
    m_closure.unreached = true;
    if (const QString &folder = m_command.workingDirectory; !folder.isEmpty() && !QFileInfo(folder).isDir()) {
        m_closure.error = u"could not start '%1': its folder (\"cwd\") %2 %3; create it, or correct \"cwd\" in the config"_s.arg(
            m_command.program, folder, QFileInfo::exists(folder) ? u"is not a folder"_s : u"does not exist"_s);
    } else {
        m_closure.error = u"could not start '%1': Tether's launcher %2 cannot run (%3); reinstall Tether"_s.arg(
            m_command.program, m_process->program(), m_process->errorString());
    }
    m_stage = Stage::Closed;
    finish();
}

void StdioTransport::onFinished(int exitCode, QProcess::ExitStatus exitStatus)
{
    if (m_stage == Stage::Closed)
        return; // the launcher's report of the server's end came first, as it should
    // A launcher that ended at once may be heard here before its report is.
    if (m_reportFd >= 0)
        readLauncherReport();
    if (m_serverWaitStatus) {
        onServerEnded(*m_serverWaitStatus);
        return;
    }
    if (m_processId == 0 && !m_startFailed) {
        // It ended before it named a server (a kept launcher killed while it was told to run
        // one, say): nothing was started, and its end is not a server's.
        m_startFailed = true;
        m_closure.unreached = true;
        if (m_closure.error.isEmpty())
            m_closure.error = u"could not start '%1': Tether's launcher ended before it started it"_s.arg(m_command.program);
    }
    // The launcher ended without a word of the server's end: it could not run the server, or it
    // was killed itself, and then the server's group still goes.
    signalGroup(SIGKILL);
    onServerEnded(exitStatus == QProcess::CrashExit ? exitCode : exitCode << 8);
}

void StdioTransport::readLastWords(qsizetype maxStderrBytes)
{
    if (m_stdout)
        m_stdout->readAvailable();
    if (m_stage != Stage::Closed)
        readStderr(maxStderrBytes);
}

void StdioTransport::recordWaitStatus(int waitStatus)
{
    // After a failed start the launcher's own exit says nothing more than the error.
    if (m_startFailed)
        return;
    if (WIFSIGNALED(waitStatus))
        m_closure.exitSignal = WTERMSIG(waitStatus);
    else
        m_closure.exitCode = WEXITSTATUS(waitStatus);
}

void StdioTransport::onServerExited(int waitStatus)
{
    // A close Tether asked for needs no early word.
    if (m_stage != Stage::Running || m_lostEmitted)
        return;
    m_lostEmitted = true; // first: reading the last words may end stdout, which looks for the exit
    // What it wrote before it died, as far as it is there: what it left behind may still write.
    readLastWords(StderrBytesPerTurn);
    if (m_stage != Stage::Running)
        return;
    recordWaitStatus(waitStatus);
    m_closure.stderrTail = stderrTail();
    emit lost(m_closure);
}

void StdioTransport::onServerEnded(int waitStatus)
{
    if (m_stage == Stage::Closed)
        return;
    // The server's last words: all that held its pipes is gone, so they hold all of them.
    readLastWords(std::numeric_limits<qsizetype>::max());
    if (m_stage == Stage::Closed)
        return;
    m_closeTimer.stop();
    if (!m_stderrBuffer.isEmpty()) {
        appendStderrLine(m_stderrBuffer);
        m_stderrBuffer.clear();
    }
    recordWaitStatus(waitStatus);
    // * -> Closed
    m_stage = Stage::Closed;
    releaseLauncher();
    finish();
}

void StdioTransport::releaseLauncher()
{
    const bool idle = m_serverWaitStatus && m_reportFd >= 0 && m_process->state() == QProcess::Running;
    // A close asked for once the server had exited (the session's, at the lost connection) is not
    // what ended it.
    const bool endedOnItsOwn = !m_closure.requested || m_lostEmitted;
    if (!idle || !endedOnItsOwn || m_startFailed) {
        closeLauncherReport(); // a launcher told nothing more exits
        return;
    }
    // A server that ended on its own is most likely started again soon: in this launcher.
    m_process->disconnect(this);
    m_reportNotifier.reset();
    LauncherPark::instance().park(m_command, {std::move(m_process), std::exchange(m_reportFd, -1)});
}

void StdioTransport::finish()
{
    closeStdin();
    closeStdout();
    closeStderr();
    m_closure.stderrTail = stderrTail();
    spdlog::debug("{}: closed ({})", description(), m_closure.describe());
    emit closed(m_closure);
}

} // namespace Tether
