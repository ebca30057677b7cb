// tether-launcher: runs one stdio MCP server for Tether and makes sure that nothing the server
// started outlives it or Tether, even when Tether is killed with SIGKILL.
//
//   tether-launcher [--report-fd N] [--rerun] [--watch-fd N] PROGRAM [ARG...]
//
// It is a child subreaper (PR_SET_CHILD_SUBREAPER): every orphan among the server's descendants,
// a daemon that escaped with setsid() included, is re-parented to it rather than to init, so it
// can find and kill them all. It dies with Tether (PR_SET_PDEATHSIG), and its end, whether the
// server exited or Tether died, kills every descendant left. The server runs in a process group
// of its own, inherits stdin, stdout and stderr (the launcher keeps no copy of them, so EOF still
// means the server closed them), and its exit code or signal becomes the launcher's own. With
// --report-fd, Tether hears of the server's end on that descriptor the moment it is seen, and
// again once everything it started is killed, without waiting for the launcher's own exit.
// With --watch-fd (the reading end of the server's stdout, which the launcher never reads), the
// launcher wakes when the server's output ends, as Tether does, rather than only at SIGCHLD a
// wake-up later, and reports the exit that follows at once.
// With --rerun, the report descriptor is a Unix socket, and once the server has ended and all it
// started is killed, the launcher waits on it to run the same server again: Tether sends "run"
// with the next server's stdin, stdout, stderr, watched stdout and folder (SCM_RIGHTS), so that a
// restart after a crash costs no new launcher. The socket's end ends the launcher.
// Plain POSIX and Linux calls: no Qt, a few kilobytes.

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <sched.h>
#include <string>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

// Exit statuses of the launcher itself, as a shell reports a command it could not run.
constexpr int CannotRun = 127;
// How long the end of the server's stdout waits, awake, for the exit that follows it.
constexpr std::chrono::microseconds ExitAfterOutputEnds{500};

void usage(std::FILE *stream)
{
    std::fputs("Usage: tether-launcher [--report-fd N] [--rerun] [--watch-fd N] PROGRAM [ARG...]\n\n"
               "Runs PROGRAM for Tether: in a process group of its own, killed with everything it\n"
               "started when it exits or when Tether dies. With --report-fd, writes \"started PID\"\n"
               "or \"failed ERRNO\" to file descriptor N once PROGRAM has been executed or could not be,\n"
               "then \"exited STATUS\" (its wait status) the moment PROGRAM has ended, and \"ended STATUS\"\n"
               "once all it started is killed too. With --watch-fd, N is the reading end of PROGRAM's\n"
               "stdout, never read: its end wakes the launcher, so that an exit is reported without\n"
               "waiting for SIGCHLD. With --rerun, the report descriptor is a Unix socket on which,\n"
               "after \"ended\", the launcher waits for \"run\" with five descriptors (SCM_RIGHTS):\n"
               "PROGRAM's next stdin, stdout and stderr, the reading end of that stdout to watch, and\n"
               "the folder to run it in; it then runs PROGRAM again and reports as before. The\n"
               "socket's end, anything but a whole \"run\", SIGTERM, SIGINT or SIGHUP ends a waiting\n"
               "launcher, as the last PROGRAM ended.\n",
               stream);
}

void writeAll(int fd, const std::string &text)
{
    std::size_t written = 0;
    while (written < text.size()) {
        const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        written += std::size_t(n);
    }
}

// The processes whose parent is `parent`, from /proc/PID/stat (the field after the name, which
// may itself hold spaces and parentheses, is the state; the next one is the parent's pid).
std::vector<pid_t> childrenOf(pid_t parent)
{
    std::vector<pid_t> children;
    DIR *proc = ::opendir("/proc");
    if (!proc)
        return children;
    while (const dirent *entry = ::readdir(proc)) {
        char *end = nullptr;
        const long pid = std::strtol(entry->d_name, &end, 10);
        if (pid <= 0 || *end != '\0')
            continue;
        const std::string path = "/proc/" + std::string(entry->d_name) + "/stat";
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        char buffer[512];
        const ssize_t n = ::read(fd, buffer, sizeof buffer - 1);
        ::close(fd);
        if (n <= 0)
            continue;
        buffer[n] = '\0';
        const char *afterName = std::strrchr(buffer, ')');
        char state = 0;
        long parentPid = 0;
        if (afterName && std::sscanf(afterName + 1, " %c %ld", &state, &parentPid) == 2 && parentPid == parent)
            children.push_back(pid_t(pid));
    }
    ::closedir(proc);
    return children;
}

// Kills the server's group and then, generation by generation, every process left below the
// launcher: each one killed re-parents its own children to us, the subreaper. Returns once the
// launcher has no child at all.
void killDescendants(pid_t server)
{
    ::kill(-server, SIGKILL);
    for (;;) {
        int status = 0;
        const pid_t reaped = ::waitpid(-1, &status, WNOHANG);
        if (reaped > 0)
            continue;
        if (reaped < 0)
            return; // ECHILD: nothing is left
        for (pid_t child : childrenOf(::getpid()))
            ::kill(child, SIGKILL);
        ::waitpid(-1, &status, 0);
    }
}

// The server's wait status if it ends within `patience`, checked without sleeping: its output
// has just ended, which an exit does a moment before the exit can be waited for. Nothing when it
// runs on (it closed its stdout, or someone else holds it).
std::optional<int> reapSoon(pid_t server, std::chrono::microseconds patience)
{
    const auto deadline = std::chrono::steady_clock::now() + patience;
    do {
        int status = 0;
        if (::waitpid(server, &status, WNOHANG) == server)
            return status;
        ::sched_yield();
    } while (std::chrono::steady_clock::now() < deadline);
    return std::nullopt;
}

// Ends the launcher the way the server ended: the same exit code, or death by the same signal.
[[noreturn]] void endLikeTheServer(int status)
{
    if (WIFEXITED(status))
        ::_exit(WEXITSTATUS(status));
    const int signalNumber = WTERMSIG(status);
    // A server that dumped core did so already; the launcher leaves no second core file.
    const rlimit noCore{0, 0};
    ::setrlimit(RLIMIT_CORE, &noCore);
    ::signal(signalNumber, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, signalNumber);
    ::sigprocmask(SIG_UNBLOCK, &only, nullptr);
    ::raise(signalNumber);
    ::_exit(128 + signalNumber);
}

// The launcher's own stdin, stdout and stderr go to /dev/null: only the server holds the pipes.
void releaseStandardFds()
{
    const int devNull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devNull < 0)
        return;
    for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd)
        ::dup2(devNull, fd);
    ::close(devNull);
}

// What comes with "run" for a run of the server after the first: its stdin, stdout and stderr,
// the reading end of its stdout to watch, and the folder to run it in (opened by Tether now, so
// that a folder replaced since the first run is not the old one). All close-on-exec.
struct NextRun
{
    enum Descriptor { Stdin, Stdout, Stderr, Watch, Folder, Count };
    int fds[Count] = {-1, -1, -1, -1, -1};

    // All but the watched stdout, which is the launcher's until the run ends.
    void closeTheServers()
    {
        for (const int which : {Stdin, Stdout, Stderr, Folder}) {
            if (fds[which] >= 0)
                ::close(fds[which]);
            fds[which] = -1;
        }
    }
};

// Waits on the report socket for Tether's "run" and the descriptors that come with it. Nothing
// when the socket ends (Tether is done with this launcher), when anything but a whole "run"
// comes, or when a signal comes (Tether died, or someone ends the launcher): then it ends.
std::optional<NextRun> awaitRun(int socket, int signals)
{
    for (;;) {
        pollfd watched[2] = {{signals, POLLIN, 0}, {socket, POLLIN, 0}};
        if (::poll(watched, 2, -1) < 0)
            continue;
        if (watched[0].revents & POLLIN) {
            signalfd_siginfo info{};
            if (::read(signals, &info, sizeof info) == sizeof info) {
                if (int(info.ssi_signo) != SIGCHLD)
                    return std::nullopt;
                while (::waitpid(-1, nullptr, WNOHANG) > 0) {
                }
            }
        }
        if (watched[1].revents == 0)
            continue;
        char word[8];
        alignas(cmsghdr) char control[CMSG_SPACE(NextRun::Count * sizeof(int))] = {};
        iovec data{word, sizeof word};
        msghdr message{};
        message.msg_iov = &data;
        message.msg_iovlen = 1;
        message.msg_control = control;
        message.msg_controllen = sizeof control;
        const ssize_t n = ::recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return std::nullopt; // the socket's end, or no socket at all: no descriptor came
        NextRun next;
        std::size_t count = 0;
        const cmsghdr *header = CMSG_FIRSTHDR(&message);
        if (header && header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS) {
            count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (std::size_t i = 0; i < count; ++i) {
                int fd = -1;
                std::memcpy(&fd, CMSG_DATA(header) + i * sizeof(int), sizeof fd);
                if (i < NextRun::Count)
                    next.fds[i] = fd;
                else
                    ::close(fd);
            }
        }
        if (n == 4 && std::memcmp(word, "run\n", 4) == 0 && count == NextRun::Count && !(message.msg_flags & MSG_CTRUNC))
            return next;
        next.closeTheServers();
        if (next.fds[NextRun::Watch] >= 0)
            ::close(next.fds[NextRun::Watch]);
        return std::nullopt;
    }
}

// Starts the server, in a group of its own, on the launcher's stdin, stdout and stderr and in
// its folder, or on those of `run`. vfork: the launcher waits, sharing its memory, until the
// server has been executed or could not be; no copy of the launcher is made and no pipe is needed
// to hear which. The child makes system calls only. Its pid, or the errno of the failed start as
// a negative number.
pid_t startServer(char *const program[], const sigset_t &originalMask, const NextRun *run)
{
    const pid_t launcher = ::getpid();
    volatile int execError = 0;
    const pid_t server = ::vfork();
    if (server == 0) {
        ::setpgid(0, 0);
        // Should the launcher itself be killed, the server still goes with it.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != launcher)
            ::_exit(CannotRun);
        if (run) {
            for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd)
                ::dup2(run->fds[fd], fd); // the copies keep no close-on-exec
            if (::fchdir(run->fds[NextRun::Folder]) != 0) {
                execError = errno;
                ::_exit(CannotRun);
            }
        }
        ::sigprocmask(SIG_SETMASK, &originalMask, nullptr);
        ::execvp(program[0], program);
        execError = errno;
        ::_exit(CannotRun);
    }
    if (server < 0)
        return -errno;
    if (execError != 0) {
        ::waitpid(server, nullptr, 0);
        return -execError;
    }
    return server;
}

// Waits for the server's end, woken early by the end of its stdout (`watchFd`, closed then and
// set to -1) and passing the launcher's signals on to the server's group. Its wait status;
// nothing when Tether died, and then all the server started is killed.
std::optional<int> awaitEnd(pid_t server, int signals, pid_t parent, int &watchFd)
{
    for (;;) {
        pollfd watched[2] = {{signals, POLLIN, 0}, {watchFd, 0, 0}}; // a negative fd is skipped
        if (::poll(watched, 2, -1) < 0)
            continue;
        if (watched[1].revents != 0) {
            // Every writer of the server's stdout is gone: the server has most likely exited.
            ::close(watchFd);
            watchFd = -1;
            if (const std::optional<int> status = reapSoon(server, ExitAfterOutputEnds))
                return status;
        }
        if (!(watched[0].revents & POLLIN))
            continue;
        signalfd_siginfo info{};
        if (::read(signals, &info, sizeof info) != sizeof info)
            continue;
        const int signalNumber = int(info.ssi_signo);
        if (signalNumber == SIGCHLD) {
            std::optional<int> serverStatus;
            int status = 0;
            for (pid_t reaped; (reaped = ::waitpid(-1, &status, WNOHANG)) > 0;) {
                if (reaped == server)
                    serverStatus = status;
            }
            if (serverStatus)
                return serverStatus;
        } else if (signalNumber == SIGHUP && ::getppid() != parent) {
            // Tether died (the parent-death signal): nobody will close the server any more.
            killDescendants(server);
            return std::nullopt;
        } else {
            // Tether's close sequence, or someone signalling the launcher: the server's group hears it.
            ::kill(-server, signalNumber);
        }
    }
}

// Runs the server and, with `rerun`, runs it again each time Tether asks, reporting each run's
// start and end. The wait status of the last run; nothing when Tether died.
std::optional<int> superviseRuns(char *const program[], const sigset_t &originalMask, int signals, pid_t parent,
                                 int reportFd, int watchFd, bool rerun)
{
    NextRun next;
    for (bool firstRun = true;; firstRun = false) {
        const pid_t server = startServer(program, originalMask, firstRun ? nullptr : &next);
        next.closeTheServers(); // the server has its own copies; EOF must still mean its end
        if (server < 0) {
            if (reportFd >= 0)
                writeAll(reportFd, "failed " + std::to_string(-server) + '\n');
            if (watchFd >= 0)
                ::close(watchFd);
            return CannotRun << 8;
        }
        if (reportFd >= 0)
            writeAll(reportFd, "started " + std::to_string(server) + '\n');
        if (firstRun)
            releaseStandardFds();
        const std::optional<int> status = awaitEnd(server, signals, parent, watchFd);
        if (watchFd >= 0)
            ::close(watchFd);
        if (!status)
            return std::nullopt;
        // The server's end is told at once, while what it left is still being killed: Tether shows
        // the crash and its cause now, and starts the next server only at "ended".
        if (reportFd >= 0)
            writeAll(reportFd, "exited " + std::to_string(*status) + '\n');
        killDescendants(server);
        // Tether acts on this at once; the launcher's own exit, or the next run, follows.
        if (reportFd >= 0)
            writeAll(reportFd, "ended " + std::to_string(*status) + '\n');
        if (!rerun || reportFd < 0)
            return status;
        const std::optional<NextRun> run = awaitRun(reportFd, signals);
        if (!run)
            return status;
        next = *run;
        watchFd = next.fds[NextRun::Watch];
    }
}

} // namespace

int main(int argc, char *argv[])
{
    // What help2man reads to write its man page.
    if (argc == 2 && std::strcmp(argv[1], "--help") == 0) {
        usage(stdout);
        return 0;
    }
    if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
        std::fputs("tether-launcher " TETHER_VERSION "\n", stdout);
        return 0;
    }
    int reportFd = -1;
    int watchFd = -1;
    bool rerun = false;
    int first = 1;
    for (; first < argc; ++first) {
        const bool isReport = std::strcmp(argv[first], "--report-fd") == 0;
        if (std::strcmp(argv[first], "--rerun") == 0) {
            rerun = true;
            continue;
        }
        if (!isReport && std::strcmp(argv[first], "--watch-fd") != 0)
            break;
        if (first + 1 >= argc) {
            usage(stderr);
            return CannotRun;
        }
        (isReport ? reportFd : watchFd) = std::atoi(argv[++first]);
    }
    if (first < argc && std::strcmp(argv[first], "--") == 0)
        ++first;
    if (first >= argc || argv[first][0] == '-' || (rerun && reportFd < 0)) {
        usage(stderr);
        return CannotRun;
    }

    // Signals are read from a signalfd, so none may be delivered the usual way. SIGPIPE stays
    // blocked too: a report nobody reads any more must not kill the launcher.
    const pid_t parent = ::getppid();
    sigset_t handled;
    sigemptyset(&handled);
    for (int signalNumber : {SIGCHLD, SIGTERM, SIGINT, SIGHUP})
        sigaddset(&handled, signalNumber);
    sigset_t blocked = handled;
    sigaddset(&blocked, SIGPIPE);
    sigset_t original;
    ::sigprocmask(SIG_BLOCK, &blocked, &original);

    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    // Tether started us with SIGKILL as the parent-death signal; from here on we must outlive
    // Tether for a moment, to kill what the server left.
    ::prctl(PR_SET_PDEATHSIG, SIGHUP);
    if (::getppid() != parent)
        return CannotRun; // Tether died before the signal was set: nothing was started yet
    const int signals = ::signalfd(-1, &handled, SFD_CLOEXEC);
    if (signals < 0) {
        if (reportFd >= 0)
            writeAll(reportFd, "failed " + std::to_string(errno) + '\n');
        return CannotRun;
    }
    // The server must not hold the report open, nor the end of its own stdout.
    for (const int fd : {reportFd, watchFd}) {
        if (fd >= 0)
            ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    }

    const std::optional<int> status = superviseRuns(argv + first, original, signals, parent, reportFd, watchFd, rerun);
    if (!status)
        return 128 + SIGHUP; // Tether died: what the server started is killed
    endLikeTheServer(*status);
}
