// tether-passthrough-relay [--work-ns N] COMMAND [ARG...]: the least any process between an MCP host
// and a stdio server can cost. It starts COMMAND and copies bytes both ways, stdin to the server
// and the server's stdout to stdout, parsing nothing, and ends when either side closes. The gateway
// benchmark runs it as a leg of its own, so that a gateway's figures can be read against what
// the kernel alone charges for one more process in the path on the machine at hand.
// With --work-ns, it first keeps the processor busy for N ns per message (per newline) it copies:
// a stand-in for a process in between that does that much work per message, to show what each
// microsecond of it costs in throughput on the machine at hand.
#include "relayedserver.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <poll.h>
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
    const std::optional<Tether::Bench::RelayedServer> server = Tether::Bench::startRelayedServer("tether-passthrough-relay", argv + 1);
    if (!server)
        return 1;

    static char buffer[64 * 1024];
    pollfd watched[2] = {{STDIN_FILENO, POLLIN, 0}, {server->output, POLLIN, 0}};
    const int outputs[2] = {server->input, STDOUT_FILENO};
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
    Tether::Bench::endRelayedServer(*server);
    return 0;
}
