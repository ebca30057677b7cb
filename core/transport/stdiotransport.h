#pragma once

#include "lineframer.h"
#include "transport.h"

#include "config/stdiocommand.h"

#include <QProcess>
#include <QStringList>
#include <QTimer>

#include <array>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>

class QSocketNotifier;

namespace Tether {

class DescriptorWriter;
class LineReader;

struct StdioTransportOptions
{
    qsizetype maxLineBytes = LineFramer::DefaultMaxLineBytes;
    std::chrono::milliseconds stdinCloseGrace{2000}; // after closing stdin, before SIGTERM
    std::chrono::milliseconds terminateGrace{2000};  // after SIGTERM, before SIGKILL
    int stderrTailLines = 200;
    // Messages written to the server's stdin that it has not read yet; past this the server
    // counts as not reading at all and the connection is closed as a protocol error.
    qsizetype maxPendingWriteBytes = LineFramer::DefaultMaxLineBytes;
    // A server whose stdout ended has this long to exit before it counts as a lost connection.
    std::chrono::milliseconds stdoutEndGrace{2000};
};

// An MCP server as a child process speaking newline-delimited JSON-RPC on stdin/stdout.
// The server is started through tether-launcher (found next to the running program), a child
// subreaper that dies with Tether and then, or once the server has exited, kills every process
// the server started, setsid() escapes included. The server runs in its own process group;
// closing it escalates from closing stdin to SIGTERM to SIGKILL of the whole group, and closed()
// is emitted once the launcher reports that the server has ended and everything it started is
// killed (or, should the launcher itself die, once it has exited), with the server's own exit
// code or signal; lost() says so earlier, the moment the server itself has exited. A server
// that closes its stdout while it keeps running, or leaves too much of its stdin unread,
// is closed as a lost connection. The launcher of a server that ended on its own (a crash) is
// kept for a moment (LauncherPark), and the next start of the same command runs in it.
class StdioTransport final : public Transport
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(StdioTransport)

public:
    explicit StdioTransport(StdioServerCommand command, StdioTransportOptions options = {},
                            QObject *parent = nullptr);
    ~StdioTransport() override;

    void start() override;
    void send(const QJsonObject &message) override;
    void sendJson(const QByteArray &json) override;
    void close() override;
    // A server known to hang: SIGKILL to its group at once, no grace (it ends a stopped one too).
    void abort() override;

    bool isOpen() const override { return m_stage == Stage::Running; }
    // The server's own pid, never the launcher's.
    qint64 processId() const override { return m_processId; }
    QString description() const override;

    QStringList stderrTail() const { return {m_stderrTail.begin(), m_stderrTail.end()}; }

private:
    enum class Stage { Idle, Starting, Running, ClosingStdin, Terminating, Killing, Closed };

    void watchLauncher();
    void spawn();
    void failToSpawn(int error);
    // Runs the server in the launcher kept from the same command's last run, if there is one
    // that takes the word; false when a new launcher is needed.
    bool runInIdleLauncher(const std::array<int, 3> &serverEnds);
    void startLauncher(const std::array<int, 3> &serverEnds);
    // Once the server has ended: keeps the launcher for the next start of the same server when
    // the server ended on its own, or lets it exit.
    void releaseLauncher();
    void onLauncherReport();
    void actOnServerEnd();
    void readLauncherReport();
    void closeLauncherReport();
    void onStdoutLine(const QByteArray &line);
    void onStdoutClosed();
    void onStdoutEnded();
    void onStderr();
    void readStderr(qsizetype maxBytes);
    void closeStderr();
    void onFinished(int exitCode, QProcess::ExitStatus exitStatus);
    void onServerExited(int waitStatus);
    void onServerEnded(int waitStatus);
    void readLastWords(qsizetype maxStderrBytes);
    void recordWaitStatus(int waitStatus);
    void onErrorOccurred(QProcess::ProcessError error);
    void onCloseTimer();
    void closeWithError(const QString &error);
    void appendStderrLine(QByteArrayView line);
    void signalGroup(int signalNumber);
    void closeStdin();
    void closeStdout();
    void finish();

    StdioServerCommand m_command;
    StdioTransportOptions m_options;
    std::unique_ptr<QProcess> m_process; // the launcher; gone once kept for the next start
    // The launcher writes "started PID" or "failed ERRNO" here once it has run the server, then
    // "exited STATUS" once the server has ended and "ended STATUS" once all it started is killed.
    // A Unix socket: a launcher kept after "ended" hears on it when to run the server again.
    int m_reportFd = -1;
    std::unique_ptr<QSocketNotifier> m_reportNotifier;
    QByteArray m_launcherReport;
    bool m_startFailed = false;
    // The server's wait status the moment it exited (the launcher's "exited"), and once the
    // launcher reported what it started killed too ("ended").
    std::optional<int> m_serverExitStatus;
    std::optional<int> m_serverWaitStatus;
    bool m_lostEmitted = false;
    QTimer m_closeTimer;
    QTimer m_stdoutEndTimer;
    // The server's stdin and stdout are pipes of Tether's own rather than QProcess's: a message
    // is written in the turn it is sent, without waiting for the pipe to be polled writable first.
    // So is its stderr, so that its last words can be read at the launcher's report of its end.
    int m_stdinFd = -1;
    int m_stdoutFd = -1;
    int m_stderrFd = -1;
    std::unique_ptr<QSocketNotifier> m_stderrNotifier;
    std::unique_ptr<DescriptorWriter> m_stdin;
    std::unique_ptr<LineReader> m_stdout;
    QByteArray m_stderrBuffer;
    std::deque<QString> m_stderrTail;
    TransportClosure m_closure;
    Stage m_stage = Stage::Idle;
    qint64 m_processId = 0;
};

} // namespace Tether
