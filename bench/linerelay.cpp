// tether-line-relay COMMAND [ARG...]: what Tether's own stdio plumbing costs, without the gateway.
// It starts COMMAND and passes whole lines both ways on the Qt event loop with the readers and
// writers Tether's stdio transport and gateway use (LineReader, DescriptorWriter), parsing
// nothing, and ends when its stdin closes. The gateway benchmark runs it as a leg beside the
// pass-through relay: what is left between this leg and `tetherctl serve` is the gateway's work
// per call.
#include "relayedserver.h"

#include "transport/descriptorwriter.h"
#include "transport/linereader.h"

#include <QCoreApplication>

#include <cstdio>
#include <fcntl.h>
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
    const std::optional<Tether::Bench::RelayedServer> server = Tether::Bench::startRelayedServer("tether-line-relay", argv + 1);
    if (!server)
        return 1;
    for (const int fd : {STDIN_FILENO, STDOUT_FILENO, server->input, server->output}) {
        if (!makeNonBlocking(fd)) {
            std::perror("tether-line-relay: fcntl");
            return 1;
        }
    }

    QCoreApplication app(argc, argv);
    Tether::LineReader fromHost(STDIN_FILENO, MaxLineBytes, true);
    Tether::LineReader fromUpstream(server->output, MaxLineBytes, true);
    Tether::DescriptorWriter toUpstream(server->input, true);
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

    Tether::Bench::endRelayedServer(*server);
    return 0;
}
