#pragma once

#include <QString>
#include <QStringList>

#include <optional>

namespace Tether {

struct SplitCommandLine
{
    QStringList words;
    QString error; // empty when the line was split
};

// Splits a command line the way a POSIX shell splits words: blanks separate words,
// '…' is literal, "…" honours \" \\ \$ \` escapes, a backslash outside quotes escapes the
// next character. Nothing is expanded and nothing runs through a shell.
SplitCommandLine splitCommandLine(QStringView line);

// The inverse of splitCommandLine: words joined by blanks, each quoted where needed, so that
// splitting the result gives the same words back.
QString joinCommandLine(const QStringList &words);

} // namespace Tether
