#pragma once

#include <QByteArray>
#include <QByteArrayView>

namespace Tether {

// How a JSON file lays out its text: its line ends and one level of indentation. A writer that
// adds to a person's file, or writes it anew, follows it so the file still looks like theirs.
struct JsonTextStyle
{
    QByteArray newline = "\n";
    QByteArray indentUnit = "    "; // QJsonDocument::Indented's

    bool operator==(const JsonTextStyle &) const = default;
};

// The style `text` is written in: CRLF when its first line ends so, and the indentation of its
// first indented line as one level (the root's members: two spaces, four, a tab …). What the text
// does not show (one line, no indented line) stays as in `fallback`.
JsonTextStyle jsonTextStyleOf(QByteArrayView text, const JsonTextStyle &fallback = {});

} // namespace Tether
