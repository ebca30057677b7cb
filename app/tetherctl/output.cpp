#include "output.h"

#include "exitstatus.h"

#include "common/closenames.h"
#include "common/displaytext.h"
#include "protocol/mcptypes.h"
#include "protocol/replies.h"
#include "supervisor/serverstatus.h"

#include <QTextStream>

#include <cstdio>

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

static void writeLines(FILE *stream, const QString &text)
{
    QTextStream out(stream);
    out << text;
    if (!text.endsWith(u'\n'))
        out << '\n';
    out.flush();
}

QString signInThisRunAdvice()
{
    return u"this run signs in (give --browser CMD where there is no display)"_s;
}

QString stateText(const ServerStatus &status, SignInRoute route)
{
    if (!status.configErrors.isEmpty())
        return u"Invalid"_s;
    if (status.state == ServerState::SignInNeeded && route == SignInRoute::ThisRun)
        return stateName(status.state) + u" — this run signs in"_s;
    if (status.state == ServerState::SignInNeeded)
        return stateName(status.state) + u" — run: "_s + signInCommand(status.name);
    return stateName(status.state);
}

void addSignIn(QJsonObject &object, const ServerStatus &status, SignInRoute route)
{
    if (status.state != ServerState::SignInNeeded || !status.configErrors.isEmpty())
        return;
    const QJsonValue command = route == SignInRoute::Login ? QJsonValue(signInCommand(status.name)) : QJsonValue();
    object.insert(u"signIn"_s, QJsonObject{{u"command"_s, command}, {u"scope"_s, status.signInScope}});
}

void printError(const QString &message)
{
    QString line = message;
    line.replace(u'\n', u' ');
    writeLines(stderr, u"tetherctl: "_s + withVisibleControls(line));
}

void printNote(const QString &line)
{
    writeLines(stderr, withVisibleControls(line));
}

void printToTerminal(const QString &text)
{
    QTextStream out(stderr);
    out << withVisibleControls(text, LineBreaks::Keep);
    out.flush();
}

void printOut(const QString &text)
{
    writeLines(stdout, withVisibleControls(text, LineBreaks::Keep));
}

void printJson(const QJsonDocument &document, QJsonDocument::JsonFormat format)
{
    writeLines(stdout, QString::fromUtf8(document.toJson(format)));
}

void printProgress(const ProgressUpdate &update)
{
    QString line = u"progress: "_s + QString::number(update.progress);
    if (update.total)
        line += u'/' + QString::number(*update.total);
    if (!update.message.isEmpty())
        line += u' ' + update.message;
    printNote(line);
}

std::optional<QString> noSuchTool(const QString &serverName, const QString &toolName, const QStringList &offered)
{
    if (offered.isEmpty() || offered.contains(toolName))
        return std::nullopt;
    const QStringList close = closeNames(toolName, offered);
    return u"server '%1' has no tool named '%2'"_s.arg(serverName, toolName)
           + (close.isEmpty() ? u" (tetherctl tools %1 lists them)"_s.arg(serverName) : didYouMean(close));
}

int printToolResult(const ToolCallResult &result, bool json)
{
    if (json)
        printJson(QJsonDocument(result.raw));
    else
        printOut(renderContent(result.content));
    return result.isError ? ToolError : Success;
}

QString formatColumns(const QList<QStringList> &rows)
{
    QList<qsizetype> widths(rows.isEmpty() ? 0 : rows.first().size(), 0);
    for (const QStringList &row : rows) {
        for (qsizetype column = 0; column + 1 < row.size(); ++column)
            widths[column] = std::max(widths[column], row.at(column).size());
    }
    QString text;
    for (const QStringList &row : rows) {
        QString line;
        for (qsizetype column = 0; column < row.size(); ++column)
            line += column + 1 < row.size() ? row.at(column).leftJustified(widths[column] + 2) : row.at(column);
        text += line.trimmed() + u'\n';
    }
    return text;
}

} // namespace Tether::Ctl
