#pragma once

#include <QByteArrayView>
#include <QString>

namespace Demo {

// Writes all of data to fd, retrying on EINTR and partial writes. Returns false on error.
bool writeFully(int fd, QByteArrayView data);

// Writes "demo: <text>\n" to stderr in one write(), so lines from concurrent code never interleave,
// and to the copy, when there is one.
void logLine(const QString &text);
// Text that logLine() puts at the end of every line from now on (--leak-env).
void setLogLineSuffix(const QString &suffix);

// From now on logLine() also appends its lines to the file at `path`, which outlives the
// server's stderr. False when it cannot be opened.
bool copyLogTo(const QString &path);

} // namespace Demo
