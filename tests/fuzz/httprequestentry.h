#pragma once

#include <QByteArrayView>
#include <QString>

namespace Tether::Fuzz {

// HTTP requests as a server reads them from a connection, as a fuzzed entry point: runs one
// input and returns the promise of HttpRequestParser it saw broken, empty when none (a crash,
// a hang or a sanitizer report is a finding too). The first byte of the input says how the
// rest arrives: in pieces of (byte & 0x3f) + 1 bytes, and with small bounds when byte & 0x40.
// The promises: the same outcome in pieces as in one read; never more held than the bounds;
// every refusal a known status with a reason; every accepted request within the bounds, with a
// body of its Content-Length, and read back the same when printed again.
QString httpRequest(QByteArrayView input);

} // namespace Tether::Fuzz
