#pragma once

#include <QList>
#include <QString>
#include <QStringList>

class QJsonDocument;

namespace Tether {
struct ToolCallResult;
}

namespace Tether::Ctl {

// Prints "tetherctl: <message>" as one line on stderr.
void printError(const QString &message);
// Prints `text` on stdout as whole lines.
void printOut(const QString &text);
// Prints `document` indented, as --json wants it.
void printJson(const QJsonDocument &document);
// Prints a tool's result; its exit status says whether the tool reported an error.
int printToolResult(const ToolCallResult &result, bool json);

// A table as text: every column but the last padded to its widest cell, each line trimmed.
QString formatColumns(const QList<QStringList> &rows);

} // namespace Tether::Ctl
