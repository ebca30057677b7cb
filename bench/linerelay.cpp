// tether-line-relay COMMAND [ARG...]: what Tether's own stdio plumbing costs, without the gateway.
// It starts COMMAND and passes whole lines both ways on the Qt event loop with the readers and
// writers Tether's stdio transport and gateway use (LineReader, DescriptorWriter), parsing
// nothing, and ends when its stdin closes. The gateway benchmark runs it as a leg beside the
// pass-through relay: what is left between this leg and `tetherctl serve` is the gateway's work
// per call.
#include "transport/descriptorwriter.h"
#include "transport/linereader.h"

#include <QCoreApplication>

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

// Lines as long as the gateway's stdio channel takes.
constexpr qsizetype MaxLineBytes = 64 * 1024 * 1024;

bool makeNonBlocking(int fd)
{
    const int flags = ::fcntl(fd, F_GETFL);
    return flags >= 0 && ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fputs("usage: tether-line-relay COMMAND [ARG...]\n", stderr);
        return 2;
    }
    int toServer[2];
    int fromServer[2];
    if (::pipe2(toServer, O_CLOEXEC) != 0 || ::pipe2(fromServer, O_CLOEXEC) != 0) {
        std::perror("tether-line-relay: pipe");
        return 1;
    }
    const pid_t server = ::fork();
    if (server < 0) {
        std::perror("tether-line-relay: fork");
        return 1;
    }
    if (server == 0) {
        ::dup2(toServer[0], STDIN_FILENO);
        ::dup2(fromServer[1], STDOUT_FILENO);
        ::execvp(argv[1], argv + 1);
        std::perror("tether-line-relay: exec");
        ::_exit(127);
    }
    ::close(toServer[0]);
    ::close(fromServer[1]);
    for (const int fd : {STDIN_FILENO, STDOUT_FILENO, toServer[1], fromServer[0]}) {
        if (!makeNonBlocking(fd)) {
            std::perror("tether-line-relay: fcntl");
            return 1;
        }
    }

    QCoreApplication app(argc, argv);
    Tether::LineReader fromHost(STDIN_FILENO, MaxLineBytes, true);
    Tether::LineReader fromUpstream(fromServer[0], MaxLineBytes, true);
    Tether::DescriptorWriter toUpstream(toServer[1], true);
    Tether::DescriptorWriter toHost(STDOUT_FILENO, true);
    const auto passOn = [](Tether::DescriptorWriter &writer) {
        return [&writer](const QByteArray &line) {
            writer.write(line);
            writer.write("\n");
        };
    };
    QObject::connect(&fromHost, &Tether::LineReader::lineReceived, &app, passOn(toUpstream));
    QObject::connect(&fromUpstream, &Tether::LineReader::lineReceived, &app, passOn(toHost));
    for (Tether::LineReader *reader : {&fromHost, &fromUpstream}) {
        QObject::connect(reader, &Tether::LineReader::ended, &app, &QCoreApplication::quit);
        QObject::connect(reader, &Tether::LineReader::failed, &app, &QCoreApplication::quit);
        QObject::connect(reader, &Tether::LineReader::overflowed, &app, &QCoreApplication::quit);
    }
    QObject::connect(&toHost, &Tether::DescriptorWriter::failed, &app, &QCoreApplication::quit);
    fromHost.start();
    fromUpstream.start();
    app.exec();

    // The server's input ends, and so does the server.
    ::close(toServer[1]);
    int status = 0;
    while (::waitpid(server, &status, 0) < 0 && errno == EINTR) {
    }
    return 0;
}
