#include "output.h"

#include "exitstatus.h"

#include "protocol/mcptypes.h"

#include <QJsonDocument>
#include <QTextStream>

#include <cstdio>

namespace Tether::Ctl {

void printError(const QString &message)
{
    QString line = message;
    line.replace(u'\n', u' ');
    QTextStream(stderr) << "tetherctl: " << line << Qt::endl;
}

void printOut(const QString &text)
{
    QTextStream out(stdout);
    out << text;
    if (!text.endsWith(u'\n'))
        out << '\n';
}

void printJson(const QJsonDocument &document)
{
    printOut(QString::fromUtf8(document.toJson(QJsonDocument::Indented)));
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
