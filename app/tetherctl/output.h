#pragma once

#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace Tether {
struct ServerStatus;
struct ToolCallResult;
struct ProgressUpdate;
}

// Everything tetherctl prints goes through here. Text may quote a server (tool names and
// descriptions, results, stderr lines, error messages): its control characters are made
// visible, so that a server cannot retitle or clear the terminal. JSON escapes them itself.
namespace Tether::Ctl {

// Prints "tetherctl: <message>" as one line on stderr.
void printError(const QString &message);
// Prints one line of diagnostics on stderr: a server's stderr line, progress.
void printNote(const QString &line);
// Prints `text` on stderr as it is, no line break added: a question asked on the terminal, which
// may quote a server on several lines.
void printToTerminal(const QString &text);
// Prints `text` on stdout as whole lines.
void printOut(const QString &text);
// Prints `document` (indented, as --json wants it, or one line) on stdout.
void printJson(const QJsonDocument &document, QJsonDocument::JsonFormat format = QJsonDocument::Indented);
// Prints a tool's result; its exit status says whether the tool reported an error.
int printToolResult(const ToolCallResult &result, bool json);
// "progress: 3/10 copying", on stderr: a call's progress, which --verbose shows.
void printProgress(const ProgressUpdate &update);
// A call to a tool `serverName` does not offer, which it refused (with an error, or a result that
// is a tool error, as some servers answer): what it offers that is close, rather than the server's
// own words ("Tool ecko not found"). Nothing when `offered` holds the tool, or is empty (its tools
// are not known): its refusal then says why.
std::optional<QString> noSuchTool(const QString &serverName, const QString &toolName, const QStringList &offered);

// How a server in Sign-in needed is signed in: with `tetherctl login NAME` (a server of the
// config), or by the run itself (a server given with --url).
enum class SignInRoute { Login, ThisRun };

// What a run that signs its server in itself says when the server asks.
QString signInThisRunAdvice();

// The state as status, check and watch print it: "Connected", "Invalid" (a config that cannot
// be used), "Sign-in needed — run: tetherctl login docs" (or "— this run signs in").
QString stateText(const ServerStatus &status, SignInRoute route = SignInRoute::Login);
// Adds what signs a server in Sign-in needed in ("signIn": {"command", "scope"}; the command is
// null when the run signs in itself) to its JSON.
void addSignIn(QJsonObject &object, const ServerStatus &status, SignInRoute route = SignInRoute::Login);

// A table as text: every column but the last padded to its widest cell, each line trimmed.
QString formatColumns(const QList<QStringList> &rows);

} // namespace Tether::Ctl
