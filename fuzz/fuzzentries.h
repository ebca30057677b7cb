#pragma once

#include <QByteArrayView>
#include <QString>

// The parts of Tether that read bytes from outside (servers, the network, config files) as
// fuzzed entry points. The fuzzers of fuzz/ run them under libFuzzer; the unit test
// tst_fuzzcorpus replays every input of fuzz/corpus/ through them in the normal build.
namespace Tether::Fuzz {

// Runs one input and returns the promise it saw broken, empty when none. A crash, a hang or a
// sanitizer report is a finding too.
using FuzzEntryFunction = QString (*)(QByteArrayView input);

struct FuzzEntry
{
    const char *name; // its fuzzer is tether-fuzz-<name>, its inputs are in fuzz/corpus/<name>/
    FuzzEntryFunction run;
};

// A server's stdout: the line framer, then each line as JSON-RPC (decodePayload, classify).
QString stdioLines(QByteArrayView input);
// An HTTP event stream: the SSE parser, then each message event as JSON-RPC.
QString sseStream(QByteArrayView input);
// A config file: parseConfig with ${env:} expansion, what may be shown of each server, and a
// save read back.
QString configFile(QByteArrayView input);
// A remote server's url and headers as the config gives them, the url messages show, the
// request built from them and a redirect's or endpoint event's target judged against it.
QString httpEndpoint(QByteArrayView input);
// A server's WWW-Authenticate values: the Bearer challenges read from them, each written back
// and read again.
QString bearerChallenge(QByteArrayView input);

inline constexpr FuzzEntry FuzzEntries[] = {
    {"stdio-lines", stdioLines},
    {"sse-stream", sseStream},
    {"config-file", configFile},
    {"http-endpoint", httpEndpoint},
    {"bearer-challenge", bearerChallenge},
};

} // namespace Tether::Fuzz
