// tether-passthrough-relay [--work-ns N] COMMAND [ARG...]: the least any process between an MCP host
// and a stdio server can cost. It starts COMMAND and copies bytes both ways, stdin to the server
// and the server's stdout to stdout, parsing nothing, and ends when either side closes. The gateway
// benchmark runs it as a leg of its own, so that a gateway's figures can be read against what
// the kernel alone charges for one more process in the path on the machine at hand.
// With --work-ns, it first keeps the processor busy for N ns per message (per newline) it copies:
// a stand-in for a process in between that does that much work per message, to show what each
// microsecond of it costs in throughput on the machine at hand.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

// Writes all of `size` bytes, waiting for a full pipe as a blocking descriptor does.
bool writeAll(int fd, const char *data, ssize_t size)
{
    while (size > 0) {
        const ssize_t written = ::write(fd, data, size_t(size));
        if (written < 0 && errno == EINTR)
            continue;
        if (written < 0)
            return false;
        data += written;
        size -= written;
    }
    return true;
}

// Keeps the processor busy for `nanoseconds`, as work would, without sleeping.
void busyFor(std::chrono::nanoseconds nanoseconds)
{
    const auto until = std::chrono::steady_clock::now() + nanoseconds;
    while (std::chrono::steady_clock::now() < until) {
    }
}

} // namespace

int main(int argc, char **argv)
{
    long workNs = 0;
    if (argc >= 3 && std::strcmp(argv[1], "--work-ns") == 0) {
        char *end = nullptr;
        workNs = std::strtol(argv[2], &end, 10);
        if (*end != '\0' || workNs < 0) {
            std::fprintf(stderr, "tether-passthrough-relay: --work-ns takes a count of nanoseconds, not '%s'\n", argv[2]);
            return 2;
        }
        argv += 2;
        argc -= 2;
    }
    if (argc < 2) {
        std::fputs("usage: tether-passthrough-relay [--work-ns N] COMMAND [ARG...]\n", stderr);
        return 2;
    }
    std::signal(SIGPIPE, SIG_IGN);
    int toServer[2];
    int fromServer[2];
    if (::pipe2(toServer, O_CLOEXEC) != 0 || ::pipe2(fromServer, O_CLOEXEC) != 0) {
        std::perror("tether-passthrough-relay: pipe");
        return 1;
    }
    const pid_t server = ::fork();
    if (server < 0) {
        std::perror("tether-passthrough-relay: fork");
        return 1;
    }
    if (server == 0) {
        ::dup2(toServer[0], STDIN_FILENO);
        ::dup2(fromServer[1], STDOUT_FILENO);
        ::execvp(argv[1], argv + 1);
        std::perror("tether-passthrough-relay: exec");
        ::_exit(127);
    }
    ::close(toServer[0]);
    ::close(fromServer[1]);

    static char buffer[64 * 1024];
    pollfd watched[2] = {{STDIN_FILENO, POLLIN, 0}, {fromServer[0], POLLIN, 0}};
    const int outputs[2] = {toServer[1], STDOUT_FILENO};
    for (bool open = true; open;) {
        if (::poll(watched, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int side = 0; side < 2 && open; ++side) {
            if (!watched[side].revents)
                continue;
            const ssize_t count = ::read(watched[side].fd, buffer, sizeof buffer);
            if (count < 0 && errno == EINTR)
                continue;
            if (count > 0 && workNs > 0)
                busyFor(std::chrono::nanoseconds(workNs * std::count(buffer, buffer + count, '\n')));
            open = count > 0 && writeAll(outputs[side], buffer, count);
        }
    }
    // The server's input ends, and so does the server.
    ::close(toServer[1]);
    int status = 0;
    while (::waitpid(server, &status, 0) < 0 && errno == EINTR) {
    }
    return 0;
}
