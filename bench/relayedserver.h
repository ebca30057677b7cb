#pragma once

// The server behind a relay of the gateway benchmark (tether-passthrough-relay, tether-line-relay):
// a command started on two pipes, the relay's ends of them, and its end. Plain POSIX, no Qt.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace Tether::Bench {

struct RelayedServer
{
    pid_t pid = -1;
    int input = -1;  // the server's stdin, written by the relay
    int output = -1; // the server's stdout, read by the relay
};

// Starts `argv[0]` with `argv` (ending in a null) on pipes; nothing, after a message on stderr
// that starts with `relayName`, when it cannot.
inline std::optional<RelayedServer> startRelayedServer(const char *relayName, char **argv)
{
    int toServer[2];
    int fromServer[2];
    if (::pipe2(toServer, O_CLOEXEC) != 0 || ::pipe2(fromServer, O_CLOEXEC) != 0) {
        std::fprintf(stderr, "%s: pipe: %s\n", relayName, std::strerror(errno));
        return std::nullopt;
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        std::fprintf(stderr, "%s: fork: %s\n", relayName, std::strerror(errno));
        return std::nullopt;
    }
    if (pid == 0) {
        ::dup2(toServer[0], STDIN_FILENO);
        ::dup2(fromServer[1], STDOUT_FILENO);
        ::execvp(argv[0], argv);
        std::fprintf(stderr, "%s: exec %s: %s\n", relayName, argv[0], std::strerror(errno));
        ::_exit(127);
    }
    ::close(toServer[0]);
    ::close(fromServer[1]);
    return RelayedServer{pid, toServer[1], fromServer[0]};
}

// Closes the server's input, so that it ends, and waits for it.
inline void endRelayedServer(const RelayedServer &server)
{
    ::close(server.input);
    int status = 0;
    while (::waitpid(server.pid, &status, 0) < 0 && errno == EINTR) {
    }
}

} // namespace Tether::Bench
