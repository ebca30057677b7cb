#pragma once

#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace Tether {
struct ServerStatus;
struct ToolCallResult;
}

// Everything tetherctl prints goes through here. Text may quote a server (tool names and
// descriptions, results, stderr lines, error messages): its control characters are made
// visible, so that a server cannot retitle or clear the terminal. JSON escapes them itself.
namespace Tether::Ctl {

// Prints "tetherctl: <message>" as one line on stderr.
void printError(const QString &message);
// Prints one line of diagnostics on stderr: a server's stderr line, progress.
void printNote(const QString &line);
// Prints `text` on stdout as whole lines.
void printOut(const QString &text);
// Prints `document` (indented, as --json wants it, or one line) on stdout.
void printJson(const QJsonDocument &document, QJsonDocument::JsonFormat format = QJsonDocument::Indented);
// Prints a tool's result; its exit status says whether the tool reported an error.
int printToolResult(const ToolCallResult &result, bool json);

// The state as status, check and watch print it: "Connected", "Invalid" (a config that cannot
// be used), "Sign-in needed — run: tetherctl login docs".
QString stateText(const ServerStatus &status);
// Adds what signs a server in Sign-in needed in ("signIn": {"command", "scope"}) to its JSON.
void addSignIn(QJsonObject &object, const ServerStatus &status);

// A table as text: every column but the last padded to its widest cell, each line trimmed.
QString formatColumns(const QList<QStringList> &rows);

} // namespace Tether::Ctl
