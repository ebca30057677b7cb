#include "configcommands.h"

#include "configrun.h"
#include "exitstatus.h"
#include "output.h"
#include "terminalclientside.h"

#include "config/configstore.h"

#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

static int statusTable(const ConfigOptions &options, bool check)
{
    Interruption interruption;
    ConfigRun run(options, &interruption);
    if (const std::optional<int> status = startAndSettle(run, interruption))
        return *status;
    const QList<ServerStatus> statuses = run.manager().statuses();
    bool allUp = true;
    QJsonArray rows;
    QList<QStringList> table{{u"SERVER"_s, u"STATE"_s, u"TOOLS"_s, u"PID"_s, u"TRANSPORT"_s, u"REASON"_s}};
    for (const ServerStatus &status : statuses) {
        const ServerConfig *config = run.manager().serverConfig(status.name);
        const bool enabled = config && config->enabled;
        const bool up = status.state == ServerState::Connected;
        if (enabled || !status.configErrors.isEmpty())
            allUp &= up;
        QString reason = up ? QString() : status.reason;
        if (options.json) {
            QJsonObject row{{u"server"_s, status.name},
                            {u"state"_s, status.configErrors.isEmpty() ? stateName(status.state) : u"Invalid"_s},
                            {u"enabled"_s, enabled},
                            {u"tools"_s, status.toolCount},
                            {u"pid"_s, status.pid > 0 ? QJsonValue(double(status.pid)) : QJsonValue()},
                            {u"transport"_s, status.transport},
                            {u"protocol"_s, status.protocolVersion.isEmpty() ? QJsonValue() : QJsonValue(status.protocolVersion)},
                            {u"reason"_s, reason}};
            addSignIn(row, status);
            rows.append(row);
        } else {
            table.append({status.name, stateText(status), QString::number(status.toolCount),
                          status.pid > 0 ? QString::number(status.pid) : u"-"_s, status.transport, reason});
        }
        if (check && !up && (enabled || !status.configErrors.isEmpty()))
            printError(u"server '%1' is not up: %2"_s.arg(status.name, status.reason));
        // What the server runs with may not be what the file seems to say: a check says so, and passes.
        if (check && config) {
            for (const QString &warning : config->warnings)
                printError(u"warning: "_s + warning);
        }
    }
    run.shutDown();
    if (options.json)
        printJson(QJsonDocument(rows));
    else
        printOut(formatColumns(table));
    return !check || allUp ? Success : Failure;
}

int configStatus(const ConfigOptions &options)
{
    return statusTable(options, false);
}

int configCheck(const ConfigOptions &options)
{
    return statusTable(options, true);
}

int configTools(const ConfigOptions &options)
{
    Interruption interruption;
    ConfigRun run(options, &interruption);
    if (const std::optional<int> status = startAndSettle(run, interruption))
        return *status;
    int exitStatus = Success;
    for (const ServerStatus &status : run.manager().statuses()) {
        if (status.state != ServerState::Connected && !options.servers.isEmpty()) {
            printError(u"server '%1' is not connected: %2"_s.arg(status.name, status.reason));
            exitStatus = Failure;
        }
    }
    const QList<RegisteredTool> tools = run.manager().registry().tools();
    run.shutDown();
    if (exitStatus != Success)
        return exitStatus;
    if (options.json) {
        QJsonArray array;
        for (const RegisteredTool &tool : tools) {
            QJsonObject entry = tool.definition.raw();
            entry.insert(u"server", tool.serverName);
            entry.insert(u"publicName", tool.publicName);
            array.append(entry);
        }
        printJson(QJsonDocument(array));
        return Success;
    }
    if (tools.isEmpty()) {
        printOut(u"(no tools: no server is connected)"_s);
        return Success;
    }
    QList<QStringList> table;
    for (const RegisteredTool &tool : tools)
        table.append({tool.publicName, tool.definition.description.section(u'\n', 0, 0)});
    printOut(formatColumns(table));
    return Success;
}

int configServers(const ConfigOptions &options)
{
    ConfigStore store(options.source, programConfigContext());
    store.load(ConfigStore::FileChanges::Ignore);
    const ConfigDocument &document = store.document();
    if (!document.isValid()) {
        printError(document.errors.join(u"; "_s));
        return Failure;
    }
    if (options.json)
        printJson(QJsonDocument(QJsonArray::fromStringList(document.serverNames())));
    else if (!document.servers.isEmpty())
        printOut(document.serverNames().join(u'\n'));
    return Success;
}

int configCall(const ConfigOptions &options, const QString &serverName, const QString &toolName,
               const QJsonObject &arguments)
{
    ConfigOptions scoped = options;
    if (!serverName.isEmpty())
        scoped.servers = {serverName};
    Interruption interruption;
    ConfigRun run(scoped, &interruption);
    if (const std::optional<int> status = startAndSettle(run, interruption))
        return *status;
    ToolCallReply reply;
    bool done = false;
    QEventLoop loop;
    const auto onReply = [&](const ToolCallReply &received) {
        reply = received;
        done = true;
        loop.quit();
    };
    // What a server asks while the call runs is asked on the terminal.
    const auto terminal = std::make_shared<TerminalClientSide>();
    ToolCallInput input(arguments);
    input.origin = terminal;
    const ToolCallTicket ticket = serverName.isEmpty()
                                      ? run.manager().callTool(toolName, input, onReply)
                                      : run.manager().callTool(serverName, toolName, input, onReply);
    // Answers the call at once, with its cancellation.
    QObject::connect(&interruption, &Interruption::interrupted, &loop,
                     [&] { run.manager().cancelToolCall(ticket, interruption.reason()); });
    if (!done)
        loop.exec();
    terminal->stopAsking(); // a question the call outlived goes before the result is printed
    run.shutDown();
    if (const std::optional<int> interrupted = interruption.exitStatus())
        return *interrupted;
    if (reply.error) {
        printError(u"calling '%1' failed: %2"_s.arg(toolName, reply.error->message));
        return Failure;
    }
    return printToolResult(reply.result, options.json);
}

} // namespace Tether::Ctl
