#include "demolog.h"
#include "demooptions.h"
#include "demoserver.h"

#include <QCoreApplication>
#include <QFile>

#include <csignal>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace Qt::Literals::StringLiterals;

namespace {

// Forks an idle process that inherits our stdout/stderr and process group, so a client that
// only waits for (or kills) its direct child is left with open pipes. It outlives us on purpose.
pid_t spawnGrandchild()
{
    const pid_t pid = ::fork();
    if (pid == 0) {
        // Only async-signal-safe calls after fork(): no Qt, no allocation.
        ::signal(SIGTERM, SIG_DFL);
        ::close(STDIN_FILENO);
        for (;;)
            ::pause();
    }
    return pid;
}

// Forks a child that spins on one core, holding none of our pipes, until it is terminated or we
// exit: a server whose process tree uses CPU.
pid_t spawnBusyChild()
{
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid == 0) {
        // Only async-signal-safe calls after fork(): no Qt, no allocation.
        ::signal(SIGTERM, SIG_DFL);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) // exited before the line above took effect
            ::_exit(0);
        const int devNull = ::open("/dev/null", O_RDWR);
        for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd)
            ::dup2(devNull, fd);
        for (;;)
            asm volatile("" ::: "memory"); // a loop the compiler must keep
    }
    return pid;
}

// Starts a daemon the classic way: fork, setsid() in the child, fork again and let the middle
// process exit. The daemon is an orphan in a session and process group of its own, holding none
// of our pipes, that a client killing the server's group never reaches. Its pid comes back
// through a pipe.
pid_t spawnDaemon()
{
    int pidPipe[2];
    if (::pipe(pidPipe) != 0)
        return -1;
    const pid_t middle = ::fork();
    if (middle == 0) {
        // Only async-signal-safe calls after fork(): no Qt, no allocation.
        ::close(pidPipe[0]);
        ::setsid();
        const pid_t daemon = ::fork();
        if (daemon == 0) {
            ::close(pidPipe[1]);
            ::signal(SIGTERM, SIG_IGN);
            ::signal(SIGHUP, SIG_IGN);
            const int devNull = ::open("/dev/null", O_RDWR);
            for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd)
                ::dup2(devNull, fd);
            for (;;)
                ::pause();
        }
        [[maybe_unused]] const ssize_t written = ::write(pidPipe[1], &daemon, sizeof daemon);
        ::_exit(0);
    }
    ::close(pidPipe[1]);
    pid_t daemon = -1;
    if (middle < 0 || ::read(pidPipe[0], &daemon, sizeof daemon) != sizeof daemon)
        daemon = -1;
    ::close(pidPipe[0]);
    if (middle > 0)
        ::waitpid(middle, nullptr, 0);
    return daemon;
}

void writePidFile(const QString &path, pid_t pid)
{
    if (path.isEmpty())
        return;
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(QByteArray::number(pid) + '\n') < 0)
        Demo::logLine(u"cannot write pid file "_s % path % u": "_s % file.errorString());
}

// Starts a process meant to outlive us with `spawn`, and says its pid on stderr and in `pidFile`
// (when given); false when it could not be forked.
bool spawnLeftover(const QString &what, pid_t (*spawn)(), const QString &pidFile)
{
    const pid_t pid = spawn();
    if (pid < 0) {
        Demo::logLine(u"fork failed; cannot spawn the "_s + what);
        return false;
    }
    Demo::logLine(what % u" pid "_s % QString::number(pid));
    writePidFile(pidFile, pid);
    return true;
}

// A closed stdin/stdout/stderr would be reused by the next open() (Qt's own eventfd, say), and
// we would read or write protocol data there. Park such fds on /dev/null instead.
void ensureStandardFds()
{
    for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
        if (::fcntl(fd, F_GETFD) >= 0)
            continue;
        const int devNull = ::open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
        if (devNull >= 0 && devNull != fd) {
            ::dup2(devNull, fd);
            ::close(devNull);
        }
    }
}

} // namespace

int main(int argc, char *argv[])
{
    ensureStandardFds();
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(u"tether-demo-server"_s);
    QCoreApplication::setApplicationVersion(QStringLiteral(TETHER_VERSION));

    const Demo::DemoOptions options = Demo::DemoOptions::fromCommandLine(app);
    if (!options.logFile.isEmpty() && !Demo::copyLogTo(options.logFile))
        Demo::logLine(u"cannot open log file "_s + options.logFile);
    if (!options.leakEnv.isEmpty())
        Demo::setLogLineSuffix(options.leakedValue());
    if (options.escapeSequences)
        Demo::logLine(u"\x1b]0;retitled by the server\x07\x1b[2Jscreen cleared"_s);
    if (options.failAtStartup) {
        Demo::logLine(u"refusing to start (--fail-at-startup)"_s);
        return 3;
    }

    // A closed stdout must not kill us behind the client's back (see MessageWriter).
    ::signal(SIGPIPE, SIG_IGN);
    Demo::logLine(u"started pid "_s + QString::number(::getpid()));
    for (int i = 1; i <= options.stderrLines; ++i) {
        Demo::logLine(u"stderr line "_s % QString::number(i) % u" of "_s
                  % QString::number(options.stderrLines));
    }

    if (options.spawnGrandchild && !spawnLeftover(u"grandchild"_s, spawnGrandchild, options.pidFile))
        return 2;
    if (options.burnCpu && !spawnLeftover(u"busy child"_s, spawnBusyChild, {}))
        return 2;
    if (options.spawnDaemon && !spawnLeftover(u"daemon"_s, spawnDaemon, options.daemonPidFile))
        return 2;

    // After the fork, so the grandchild itself still dies from a group-wide SIGTERM.
    if (options.ignoreSigterm)
        ::signal(SIGTERM, SIG_IGN);

    Demo::DemoServer server(options);
    server.start();
    return QCoreApplication::exec();
}
