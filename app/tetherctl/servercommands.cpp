#include "servercommands.h"

#include "exitstatus.h"
#include "oneshotconnection.h"
#include "output.h"
#include "servertarget.h"
#include "terminalclientside.h"

#include <QJsonArray>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

int listTools(const CommonOptions &options)
{
    OneShotConnection connection(options);
    if (!connection.open())
        return connection.interruption().exitStatus().value_or(Failure);
    const std::optional<ToolListReply> reply = connection.listTools();
    if (const std::optional<int> interrupted = connection.interruption().exitStatus())
        return *interrupted;
    if (!reply || reply->error) {
        printError(u"server '%1': %2"_s.arg(options.target.name, reply ? reply->error->message : connection.failure()));
        return Failure;
    }
    if (options.json) {
        QJsonArray tools;
        for (const ToolDefinition &tool : reply->tools)
            tools.append(tool.raw());
        printJson(QJsonDocument(tools));
        return Success;
    }
    if (reply->tools.isEmpty()) {
        printOut(u"(server '%1' has no tools)"_s.arg(options.target.name));
        return Success;
    }
    QList<QStringList> table;
    for (const ToolDefinition &tool : reply->tools)
        table.append({tool.name, tool.description.section(u'\n', 0, 0).trimmed()});
    printOut(formatColumns(table));
    return Success;
}

int callTool(const CommonOptions &options, const QString &toolName, const QJsonObject &arguments)
{
    OneShotConnection connection(options);
    if (!connection.open())
        return connection.interruption().exitStatus().value_or(Failure);
    const ProgressHandler onProgress = options.verbose ? ProgressHandler(printProgress) : ProgressHandler();
    // What the server asks while the call runs is asked on the terminal.
    const auto terminal = std::make_shared<TerminalClientSide>(options.browser);
    ToolCallInput input(arguments);
    input.origin = terminal;
    const std::optional<ToolCallReply> reply = connection.callTool(toolName, input, onProgress);
    terminal->stopAsking(); // a question the call outlived goes before the result is printed
    if (const std::optional<int> interrupted = connection.interruption().exitStatus())
        return *interrupted;
    if (reply && (reply->error || reply->result.isError)) {
        // Refused: if for a tool the server does not list, what it has that is close.
        QStringList offered;
        if (const std::optional<ToolListReply> listed = connection.listTools(); listed && !listed->error) {
            for (const ToolDefinition &tool : listed->tools)
                offered.append(tool.name);
        }
        if (const std::optional<QString> unknown = noSuchTool(options.target.name, toolName, offered)) {
            printError(*unknown);
            return Failure;
        }
    }
    if (!reply || reply->error) {
        const QString failure = reply ? reply->error->message : connection.failure();
        printError(u"calling '%1' on server '%2' failed: %3"_s.arg(toolName, options.target.name, failure));
        return Failure;
    }
    return printToolResult(reply->result, options.json);
}

} // namespace Tether::Ctl
