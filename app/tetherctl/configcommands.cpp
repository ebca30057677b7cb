#include "configcommands.h"

#include "configrun.h"
#include "exitstatus.h"
#include "instancelink.h"
#include "output.h"
#include "terminalclientside.h"

#include "common/commandline.h"
#include "config/configstore.h"
#include "protocol/jsonrpcpeer.h"

#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

namespace {

// 0 when every enabled server is connected; otherwise whether one waits for a person or all are
// still connecting.
int serversExitStatus(const QList<Control::ServerView> &servers)
{
    bool connecting = false;
    for (const Control::ServerView &server : servers) {
        const ServerStatus &status = server.status;
        if (!counts(status) || isUp(status))
            continue;
        switch (status.state) {
        case ServerState::Starting:
        case ServerState::Retrying:
        case ServerState::Reconnecting:
            connecting = true;
            break;
        default:
            return ServersDown;
        }
    }
    return connecting ? ServersConnecting : Success;
}

// The transport of a status as the table shows it: a stdio server's program without its folder
// and its first arguments, a URL cut short, so that a row fits a terminal (--json has it whole).
QString shortTransport(const QString &transport)
{
    constexpr qsizetype MaxLength = 40;
    constexpr qsizetype ShownArguments = 2;
    QString shown = transport;
    const QString stdioPrefix = u"stdio: "_s;
    if (transport.startsWith(stdioPrefix)) {
        const SplitCommandLine split = splitCommandLine(QStringView(transport).sliced(stdioPrefix.size()));
        if (split.error.isEmpty() && !split.words.isEmpty()) {
            QStringList words = split.words.first(std::min(split.words.size(), ShownArguments + 1));
            words.first() = words.first().section(u'/', -1);
            shown = stdioPrefix + joinCommandLine(words) + (split.words.size() > words.size() ? u" …"_s : QString());
        }
    }
    return shown.size() > MaxLength ? shown.first(MaxLength - 1) + u'…' : shown;
}

// Prints the table (or JSON) of `servers`; with `check`, says on stderr which is not up and what
// its config warns of.
void printStatus(const QList<Control::ServerView> &servers, const ConfigOptions &options, bool check,
                 ReasonReader reader)
{
    QJsonArray rows;
    QList<QStringList> table{{u"SERVER"_s, u"STATE"_s, u"TOOLS"_s, u"PID"_s, u"TRANSPORT"_s, u"REASON"_s}};
    for (const Control::ServerView &server : servers) {
        const ServerStatus &status = server.status;
        const bool up = isUp(status);
        const QString reason = up ? QString() : status.reason;
        if (options.json) {
            QJsonObject row{{u"server"_s, status.name},
                            {u"state"_s, status.configErrors.isEmpty() ? stateName(status.state) : u"Invalid"_s},
                            {u"enabled"_s, status.enabled},
                            {u"tools"_s, status.toolCount},
                            {u"pid"_s, status.pid > 0 ? QJsonValue(double(status.pid)) : QJsonValue()},
                            {u"transport"_s, status.transport},
                            {u"protocol"_s, status.protocolVersion.isEmpty() ? QJsonValue() : QJsonValue(status.protocolVersion)},
                            {u"reason"_s, reason}};
            addSignIn(row, status);
            rows.append(row);
        } else {
            table.append({status.name, stateText(status), QString::number(status.toolCount),
                          status.pid > 0 ? QString::number(status.pid) : u"-"_s, shortTransport(status.transport),
                          reasonFor(reason, status.name, reader)});
        }
        if (check && !up && counts(status))
            printError(u"server '%1' is not up: %2"_s.arg(status.name, reasonFor(status.reason, status.name, reader)));
        // What the server runs with may not be what the file seems to say: a check says so, and passes.
        if (check) {
            for (const QString &warning : server.warnings)
                printError(u"warning: "_s + warning);
        }
    }
    if (options.json)
        printJson(QJsonDocument(rows));
    else if (servers.isEmpty())
        printOut(u"(no servers in the config: add them to its file, or bring them in with tetherctl import)"_s);
    else
        printOut(formatColumns(table));
}

int statusTable(const ConfigOptions &options, bool check)
{
    QList<Control::ServerView> servers;
    const InstanceLink instance = linkToInstance(options);
    if (instance.refused)
        return Failure;
    if (instance.client) {
        int exitStatus = Success;
        const std::optional<QJsonObject> result = askInstance(*instance.client, Control::Status, {}, {}, &exitStatus);
        if (!result)
            return exitStatus;
        servers = Control::serverViewsFromJson(result->value(u"servers").toArray());
    } else {
        Interruption interruption;
        ConfigRun run(options, &interruption);
        if (const std::optional<int> status = startAndSettle(run, interruption, OwnRun::SaySo))
            return *status;
        for (const ServerStatus &status : run.manager().statuses()) {
            const ServerConfig *config = run.manager().serverConfig(status.name);
            servers.append({status, config ? config->warnings : QStringList()});
        }
        run.shutDown();
    }
    printStatus(servers, options, check, instance.client ? ReasonReader::Attached : ReasonReader::OwnRun);
    const int serversStatus = serversExitStatus(servers);
    if (check)
        return serversStatus == Success ? Success : Failure;
    return instance.client ? serversStatus : int(NoInstance);
}

// The names of the tools `serverName` offers, of `tools`.
QStringList offeredBy(const QString &serverName, const QList<RegisteredTool> &tools)
{
    QStringList offered;
    for (const RegisteredTool &tool : tools) {
        if (tool.serverName == serverName)
            offered.append(tool.definition.name);
    }
    return offered;
}

// The tools the instance has, or none when it cannot say.
QList<RegisteredTool> instanceTools(ControlClient &instance, const QString &serverName)
{
    int exitStatus = Success;
    const std::optional<ControlReply> reply =
        askInstanceForReply(instance, Control::Tools, {{u"server"_s, serverName}}, &exitStatus);
    QList<RegisteredTool> tools;
    if (!reply || reply->error)
        return tools;
    for (const QJsonValue &item : reply->result.value(u"tools").toArray()) {
        if (std::optional<RegisteredTool> tool = Control::registeredToolFromJson(item.toObject()))
            tools.append(*tool);
    }
    return tools;
}

} // namespace

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
    QList<ServerStatus> statuses;
    QList<RegisteredTool> tools;
    const InstanceLink instance = linkToInstance(options);
    if (instance.refused)
        return Failure;
    if (instance.client) {
        int exitStatus = Success;
        QJsonObject params;
        if (!options.servers.isEmpty())
            params.insert(u"server", options.servers.first());
        const std::optional<QJsonObject> listed = askInstance(*instance.client, Control::Tools, params, {}, &exitStatus);
        const std::optional<QJsonObject> status =
            listed ? askInstance(*instance.client, Control::Status, {}, {}, &exitStatus) : std::nullopt;
        if (!status)
            return exitStatus;
        for (const Control::ServerView &server : Control::serverViewsFromJson(status->value(u"servers").toArray())) {
            if (options.servers.isEmpty() || options.servers.contains(server.status.name))
                statuses.append(server.status);
        }
        for (const QJsonValue &item : listed->value(u"tools").toArray()) {
            if (std::optional<RegisteredTool> tool = Control::registeredToolFromJson(item.toObject()))
                tools.append(*tool);
        }
    } else {
        Interruption interruption;
        ConfigRun run(options, &interruption);
        if (const std::optional<int> status = startAndSettle(run, interruption, OwnRun::SaySo))
            return *status;
        statuses = run.manager().statuses();
        // As a running Tether answers: one server's in its own order, all sorted by public name.
        tools = options.servers.isEmpty() ? run.manager().registry().tools()
                                          : run.manager().registry().serverTools(options.servers.first());
        run.shutDown();
    }
    const bool unreachable = nameServersNotListed(options, statuses, u"tools"_s,
                                                  instance.client ? ReasonReader::Attached : ReasonReader::OwnRun);
    const int exitStatus = unreachable ? ServersDown : Success;
    if (unreachable && !options.servers.isEmpty())
        return exitStatus;
    if (options.json) {
        QJsonArray array;
        for (const RegisteredTool &tool : std::as_const(tools)) {
            QJsonObject entry = tool.definition.raw();
            entry.insert(u"server", tool.serverName);
            entry.insert(u"publicName", tool.publicName);
            array.append(entry);
        }
        printJson(QJsonDocument(array));
        return exitStatus;
    }
    if (tools.isEmpty()) {
        printOut(u"(no tools: no server is connected)"_s);
        return exitStatus;
    }
    QList<QStringList> table;
    for (const RegisteredTool &tool : std::as_const(tools))
        table.append({tool.publicName, tool.definition.description.section(u'\n', 0, 0)});
    printOut(formatColumns(table));
    return exitStatus;
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
    const InstanceLink instance = linkToInstance(scoped);
    if (instance.refused)
        return Failure;
    if (instance.client) {
        QJsonObject params{{u"tool"_s, toolName}, {u"arguments"_s, arguments}};
        if (!serverName.isEmpty())
            params.insert(u"server", serverName);
        ControlClient &client = *instance.client;
        // What the server asks while the call runs is asked on this terminal, as when tetherctl
        // runs the server itself; the instance passes it on.
        const auto terminal = std::make_shared<TerminalClientSide>();
        std::map<qint64, quint64> asked; // the instance's id of each question -> the terminal's
        client.setRequestHandler([&client, &terminal, &asked](const QJsonValue &id, const QString &, const QJsonObject &question) {
            asked[id.toInteger()] = terminal->serverRequest(
                Control::askedRequest(question), [&client, id](const RpcReply &answer) { client.respond(id, answer); }, {});
        });
        const QMetaObject::Connection told = QObject::connect(
            &client, &ControlClient::notified, &client,
            [&terminal, &asked, verbose = options.verbose](const QString &method, const QJsonObject &said) {
                if (method == Control::Progress && verbose)
                    printProgress(progressUpdateOf(said));
                else if (method == Control::AskCancelled)
                    terminal->cancelServerRequest(asked[said.value(u"id").toInteger()], said.value(u"reason").toString());
                else if (method == Control::AskNotification)
                    terminal->serverNotification(said.value(u"server").toString(), said.value(u"method").toString(),
                                                 said.value(u"params").toObject());
            });
        int exitStatus = Success;
        const std::optional<ControlReply> reply = askInstanceForReply(client, Control::Call, params, &exitStatus, options.timeout);
        terminal->stopAsking(); // a question the call outlived goes before the result is printed
        client.setRequestHandler({});
        QObject::disconnect(told); // both refer to this frame
        if (!reply)
            return exitStatus;
        if (reply->error) {
            const std::optional<QString> unknown =
                serverName.isEmpty() ? std::nullopt : noSuchTool(serverName, toolName, offeredBy(serverName, instanceTools(*instance.client, serverName)));
            printError(unknown.value_or(u"calling '%1' failed: %2"_s.arg(toolName, reply->error->message)));
            return Failure;
        }
        QString error;
        const std::optional<ToolCallResult> parsed = parseToolCallResult(reply->result, &error);
        if (!parsed) {
            printError(u"calling '%1' failed: %2"_s.arg(toolName, error));
            return Failure;
        }
        if (parsed->isError && !serverName.isEmpty()) {
            if (const std::optional<QString> unknown = noSuchTool(serverName, toolName, offeredBy(serverName, instanceTools(*instance.client, serverName)))) {
                printError(*unknown);
                return Failure;
            }
        }
        return printToolResult(*parsed, options.json);
    }
    Interruption interruption;
    ConfigRun run(scoped, &interruption);
    if (const std::optional<int> status = startAndSettle(run, interruption, OwnRun::SaySo))
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
    const ProgressHandler onProgress = options.verbose ? ProgressHandler(printProgress) : ProgressHandler();
    const CallOptions waiting = run.manager().outageCallOptions();
    const ToolCallTicket ticket = serverName.isEmpty()
                                      ? run.manager().callTool(toolName, input, onReply, onProgress, waiting)
                                      : run.manager().callTool(serverName, toolName, input, onReply, onProgress, waiting);
    // Answers the call at once, with its cancellation.
    QObject::connect(&interruption, &Interruption::interrupted, &loop,
                     [&] { run.manager().cancelToolCall(ticket, interruption.reason()); });
    if (!done)
        loop.exec();
    terminal->stopAsking(); // a question the call outlived goes before the result is printed
    const std::optional<QString> unknown = (reply.error || reply.result.isError) && !serverName.isEmpty()
                                               ? noSuchTool(serverName, toolName, offeredBy(serverName, run.manager().registry().tools()))
                                               : std::nullopt;
    run.shutDown();
    if (const std::optional<int> interrupted = interruption.exitStatus())
        return *interrupted;
    if (reply.error || unknown) {
        printError(unknown.value_or(u"calling '%1' failed: %2"_s.arg(toolName, reply.error ? reply.error->message : QString())));
        return Failure;
    }
    return printToolResult(reply.result, options.json);
}

} // namespace Tether::Ctl
