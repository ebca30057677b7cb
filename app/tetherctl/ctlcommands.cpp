#include "ctlcommands.h"

#include "common/duration.h"
#include "common/logging.h"
#include "common/unixsignalwatcher.h"
#include "config/configfile.h"
#include "config/configimport.h"
#include "config/configparser.h"
#include "config/configwatcher.h"
#include "manager/servermanager.h"
#include "manager/transportfactory.h"
#include "session/mcpclientsession.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QTimer>

#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>

#include <csignal>
#include <cstdio>

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

void printError(const QString &message)
{
    QString line = message;
    line.replace(u'\n', u' ');
    QTextStream(stderr) << "tetherctl: " << line << Qt::endl;
}

static void printOut(const QString &text)
{
    QTextStream out(stdout);
    out << text;
    if (!text.endsWith(u'\n'))
        out << '\n';
}

// Prints a tool's result; its exit status says whether the tool reported an error.
static int printToolResult(const ToolCallResult &result, bool json)
{
    if (json)
        printOut(QString::fromUtf8(QJsonDocument(result.raw).toJson(QJsonDocument::Indented)));
    else
        printOut(renderContent(result.content));
    return result.isError ? ToolError : Success;
}

ServerTarget stdioTarget(const StdioServerCommand &command)
{
    return {QFileInfo(command.program).fileName(), command.commandLine(),
            [command] { return std::make_unique<StdioTransport>(command); }};
}

// A message of the config reader about the url or a header, worded for the flag that gave it.
static QString asFlagMessage(const QString &message, const QString &serverPath)
{
    const QString urlPath = memberPath(serverPath, u"url"_s);
    const QString headersPath = memberPath(serverPath, u"headers"_s);
    if (message.startsWith(urlPath)) {
        QString rest = message.sliced(urlPath.size());
        if (rest.startsWith(u" = "_s))
            rest.remove(0, 2);
        return u"--url"_s + rest;
    }
    if (message.startsWith(headersPath)) {
        // ".Name ..." or "[\"odd name\"] ...": the header's name after the flag.
        QString rest = message.sliced(headersPath.size());
        if (rest.startsWith(u'['))
            rest.remove(rest.indexOf(u']'), 1);
        if (rest.startsWith(u'.') || rest.startsWith(u'['))
            rest[0] = u' ';
        return u"--header"_s + rest;
    }
    return message;
}

std::optional<ServerTarget> remoteTarget(const RemoteServerFlags &flags, QString *error)
{
    if (!flags.transport.isEmpty() && flags.transport != u"http" && flags.transport != u"sse") {
        *error = u"--transport wants http (Streamable HTTP only) or sse (HTTP+SSE only), not '%1'"_s.arg(flags.transport);
        return std::nullopt;
    }
    // Header values may be secrets: messages name the header, never its value.
    QJsonObject headers;
    for (const QString &header : flags.headers) {
        const qsizetype colon = header.indexOf(u':');
        const QString name = header.left(colon).trimmed();
        if (colon < 0 || name.isEmpty()) {
            *error = u"--header wants 'Name: value', such as 'Authorization: Bearer ${env:TOKEN}'; one of them has "
                     "no name before a ':' (it is not shown, it may hold a secret)"_s;
            return std::nullopt;
        }
        if (headers.contains(name)) {
            *error = u"--header %1 is given twice: give each header once"_s.arg(name);
            return std::nullopt;
        }
        headers.insert(name, header.sliced(colon + 1).trimmed());
    }

    // One server in a config of its own, read as the config file is read.
    const QString host = QUrl(flags.url).host();
    const QString name = host.isEmpty() ? u"server"_s : host;
    const QString serversKey = u"mcpServers"_s;
    const QString source = u"tetherctl"_s;
    QJsonObject entry{{u"type"_s, flags.transport.isEmpty() ? u"http"_s : flags.transport}, {u"url"_s, flags.url}};
    if (!headers.isEmpty())
        entry.insert(u"headers"_s, headers);
    const ConfigDocument document = parseConfig(
        QJsonDocument(QJsonObject{{serversKey, QJsonObject{{name, entry}}}}).toJson(), source, programConfigContext());
    ServerConfig server = document.servers.value(0);
    const QStringList errors = document.errors + server.errors;
    if (!errors.isEmpty() || document.servers.isEmpty()) {
        QStringList messages;
        for (const QString &message : errors)
            messages.append(asFlagMessage(message.sliced(source.size() + 2), memberPath(serversKey, name)));
        *error = messages.join(u"; "_s);
        return std::nullopt;
    }
    server.requestTimeout = flags.timeout;
    const auto fallback = flags.transport.isEmpty() ? StreamableHttpTransport::SseFallback::OnInitializeRejected
                                                    : StreamableHttpTransport::SseFallback::Never;
    return ServerTarget{server.name, server.describe(), transportFactoryFor(server, fallback)};
}

namespace {

// One connection for one command: open, do one thing, close, all on a local event loop.
class OneShotConnection final
{
public:
    explicit OneShotConnection(const CommonOptions &options)
        : m_options(options)
        , m_session(options.target.transport(), SessionOptions{options.target.name, options.timeout})
    {
        QObject::connect(&m_session, &McpClientSession::failed, &m_session,
                         [this](const QString &reason) { m_failure = reason; m_loop.quit(); });
        QObject::connect(&m_session, &McpClientSession::ready, &m_session, [this] { m_loop.quit(); });
        QObject::connect(&m_session, &McpClientSession::closed, &m_session, [this] {
            m_closed = true;
            m_loop.quit();
        });
        if (options.verbose) {
            QObject::connect(&m_session, &McpClientSession::stderrLine, &m_session, [this](const QString &line) {
                QTextStream(stderr) << m_session.options().serverName << ": " << line << Qt::endl;
            });
        }
    }

    ~OneShotConnection() { close(); }

    // Prints why when the server could not be reached.
    bool open()
    {
        m_session.open();
        while (!m_session.isReady() && m_failure.isEmpty() && !m_closed)
            m_loop.exec();
        if (!m_session.isReady()) {
            printError(u"could not connect to server '%1' (%2): %3"_s.arg(m_options.target.name,
                                                                          m_options.target.shownAs, m_failure));
        }
        return m_session.isReady();
    }

    QString failure() const { return m_failure; }
    McpClientSession &session() { return m_session; }

    // Runs the loop until `done` is true or the connection fails.
    void waitFor(const bool &done)
    {
        while (!done && m_failure.isEmpty() && !m_closed)
            m_loop.exec();
    }
    void wakeUp() { m_loop.quit(); }

    void close()
    {
        m_session.close();
        while (!m_closed)
            m_loop.exec();
    }

private:
    const CommonOptions &m_options;
    McpClientSession m_session;
    QEventLoop m_loop;
    QString m_failure;
    bool m_closed = false;
};

} // namespace

int listTools(const CommonOptions &options)
{
    OneShotConnection connection(options);
    if (!connection.open())
        return Failure;
    ToolListReply reply;
    bool done = false;
    connection.session().listTools([&](const ToolListReply &received) {
        reply = received;
        done = true;
        connection.wakeUp();
    });
    connection.waitFor(done);
    if (!done || reply.error) {
        printError(u"server '%1': %2"_s.arg(options.target.name, done ? reply.error->message : connection.failure()));
        return Failure;
    }
    if (options.json) {
        QJsonArray tools;
        for (const ToolDefinition &tool : std::as_const(reply.tools))
            tools.append(tool.raw());
        printOut(QString::fromUtf8(QJsonDocument(tools).toJson(QJsonDocument::Indented)));
        return Success;
    }
    qsizetype width = 0;
    for (const ToolDefinition &tool : std::as_const(reply.tools))
        width = std::max(width, tool.name.size());
    QString table;
    for (const ToolDefinition &tool : std::as_const(reply.tools)) {
        const QString summary = tool.description.section(u'\n', 0, 0).trimmed();
        table += QString(tool.name.leftJustified(width + 2) + summary).trimmed() + u'\n';
    }
    if (reply.tools.isEmpty())
        table = u"(server '%1' has no tools)\n"_s.arg(options.target.name);
    printOut(table);
    return Success;
}

int callTool(const CommonOptions &options, const QString &toolName, const QJsonObject &arguments)
{
    OneShotConnection connection(options);
    if (!connection.open())
        return Failure;
    ToolCallReply reply;
    bool done = false;
    ProgressHandler onProgress;
    if (options.verbose) {
        onProgress = [](const ProgressUpdate &update) {
            QTextStream err(stderr);
            err << "progress: " << update.progress;
            if (update.total)
                err << '/' << *update.total;
            if (!update.message.isEmpty())
                err << ' ' << update.message;
            err << Qt::endl;
        };
    }
    connection.session().callTool(
        toolName, arguments,
        [&](const ToolCallReply &received) {
            reply = received;
            done = true;
            connection.wakeUp();
        },
        onProgress);
    connection.waitFor(done);
    if (!done || reply.error) {
        printError(u"calling '%1' on server '%2' failed: %3"_s.arg(
            toolName, options.target.name, done ? reply.error->message : connection.failure()));
        return Failure;
    }
    return printToolResult(reply.result, options.json);
}

} // namespace Tether::Ctl

namespace Tether::Ctl {

static QJsonValue optionalNumber(const std::optional<qint64> &value)
{
    return value ? QJsonValue(double(*value)) : QJsonValue(QJsonValue::Null);
}

static void printWatchLine(const ServerStatus &status, bool json)
{
    const QString time = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
    if (json) {
        const QJsonObject event{
            {u"time"_s, time},
            {u"server"_s, status.name},
            {u"state"_s, stateName(status.state)},
            {u"attempt"_s, status.attempt},
            {u"maxAttempts"_s, status.maxAttempts},
            {u"nextDelayMs"_s, optionalNumber(status.nextDelayMs)},
            {u"generation"_s, double(status.generation)},
            {u"pid"_s, status.pid > 0 ? QJsonValue(double(status.pid)) : QJsonValue(QJsonValue::Null)},
            {u"tools"_s, status.toolCount},
            {u"reason"_s, status.reason},
        };
        printOut(QString::fromUtf8(QJsonDocument(event).toJson(QJsonDocument::Compact)));
        return;
    }
    QStringList parts{time, status.name, stateName(status.state)};
    if (status.attempt > 0)
        parts.append(u"attempt %1/%2"_s.arg(status.attempt).arg(status.maxAttempts));
    if (status.nextDelayMs)
        parts.append(u"retry in %1"_s.arg(formatDuration(std::chrono::milliseconds(*status.nextDelayMs))));
    if (status.pid > 0)
        parts.append(u"pid %1"_s.arg(status.pid));
    parts.append(u"%1 tools"_s.arg(status.toolCount));
    printOut(parts.join(u"  "_s) + u"  — "_s + status.reason);
}

int watch(const CommonOptions &options, const SupervisorSettings &settings)
{
    ToolRegistry registry;
    ConnectionSupervisor supervisor(options.target.name, options.target.transport, settings, &registry);
    UnixSignalWatcher signalWatcher({SIGINT, SIGTERM});
    QEventLoop loop;
    int exitStatus = Success;

    QObject::connect(&supervisor, &ConnectionSupervisor::stateChanged, &loop,
                     [&](const ServerStatus &status) { printWatchLine(status, options.json); });
    if (options.verbose) {
        QObject::connect(&supervisor, &ConnectionSupervisor::stderrLine, &loop, [&](const QString &line) {
            QTextStream(stderr) << options.target.name << ": " << line << Qt::endl;
        });
    }
    QObject::connect(&signalWatcher, &UnixSignalWatcher::received, &loop, [&](int) { supervisor.stop(); });
    QObject::connect(&supervisor, &ConnectionSupervisor::stopped, &loop, [&](bool complete) {
        if (!complete) {
            printError(u"server '%1': %2"_s.arg(options.target.name, supervisor.status().reason));
            exitStatus = Failure;
        }
        loop.quit();
    });
    supervisor.start();
    loop.exec();
    return exitStatus;
}

} // namespace Tether::Ctl

namespace Tether::Ctl {

namespace {

// A manager running the servers of a config, for one command.
class ConfigRun final
{
public:
    explicit ConfigRun(const ConfigOptions &options)
        : m_options(options)
    {}

    // Loads the config and starts its enabled servers; false (and a message printed) on error.
    bool start()
    {
        ConfigDocument document = loadConfig(m_options.source.path, programConfigContext());
        if (!document.isValid()) {
            printError(document.errors.join(u"; "_s));
            return false;
        }
        if (m_options.source.embedded) {
            spdlog::info("no config file at {}: using the built-in demo configuration", defaultConfigPath());
        }
        if (!apply(document))
            return false;
        return true;
    }

    // Keeps the file up to date in the manager: a changed file restarts only the servers
    // whose settings changed.
    void followChanges()
    {
        if (m_options.source.embedded)
            return;
        m_watcher = std::make_unique<ConfigWatcher>(m_options.source.path, programConfigContext());
        QObject::connect(m_watcher.get(), &ConfigWatcher::reloaded, &m_manager, [this](const ConfigDocument &document) {
            apply(document);
        });
    }

    // Narrows the document to the chosen servers, applies the policy flags, and runs it.
    bool apply(ConfigDocument document)
    {
        if (!m_options.servers.isEmpty()) {
            QList<ServerConfig> chosen;
            for (const QString &name : m_options.servers) {
                const ServerConfig *server = document.server(name);
                if (!server) {
                    QStringList known;
                    for (const ServerConfig &candidate : std::as_const(document.servers))
                        known.append(candidate.name);
                    printError(u"%1 has no server named '%2' (servers: %3)"_s.arg(m_options.source.path, name,
                                                                                known.join(u", "_s)));
                    return false;
                }
                chosen.append(*server);
            }
            document.servers = chosen;
        }
        for (ServerConfig &server : document.servers) {
            server.requestTimeout = std::min(server.requestTimeout, m_options.timeout);
            if (!m_options.reconnectOverrides.isEmpty() || !m_options.heartbeatOverrides.isEmpty()) {
                const auto reconnect = resolveReconnectPolicy(server.name, m_options.reconnectOverrides, server.reconnect);
                const auto heartbeat = resolveHeartbeatPolicy(server.name, m_options.heartbeatOverrides, server.heartbeat);
                if (!reconnect.isValid() || !heartbeat.isValid()) {
                    printError((reconnect.errors + heartbeat.errors).join(u"; "_s));
                    return false;
                }
                server.reconnect = reconnect.policy;
                server.heartbeat = heartbeat.policy;
            }
        }
        const ConfigChange change = m_manager.applyConfig(document);
        if (m_watcher
            && (change.added.size() + change.removed.size() + change.restarted.size() + change.policyUpdated.size()) > 0) {
            const auto names = [](const QStringList &list) { return list.isEmpty() ? u"none"_s : list.join(u", "_s); };
            QTextStream(stderr) << "tetherctl: " << m_options.source.path << " changed: added " << names(change.added)
                                << "; removed " << names(change.removed) << "; restarted " << names(change.restarted)
                                << "; new policy, no restart " << names(change.policyUpdated) << Qt::endl;
        }
        return true;
    }

    ServerManager &manager() { return m_manager; }

    // Until every server has connected or failed at least once (or the timeout passed).
    void waitUntilSettled()
    {
        QEventLoop loop;
        QTimer deadline;
        deadline.setSingleShot(true);
        QObject::connect(&deadline, &QTimer::timeout, &loop, &QEventLoop::quit);
        QObject::connect(&m_manager, &ServerManager::stateChanged, &loop, [&] {
            if (allSettled())
                loop.quit();
        });
        if (allSettled())
            return;
        deadline.start(m_options.timeout);
        loop.exec();
    }

    bool allSettled() const
    {
        const QList<ServerStatus> statuses = m_manager.statuses();
        return std::all_of(statuses.cbegin(), statuses.cend(), [](const ServerStatus &status) {
            switch (status.state) {
            case ServerState::Starting:
            case ServerState::Stopping:
                return false;
            case ServerState::Stopped:
                return true; // disabled or invalid: it will not start
            default:
                return true;
            }
        });
    }

    // Stops every server and waits until their processes have exited.
    void shutDown()
    {
        QEventLoop loop;
        QObject::connect(&m_manager, &ServerManager::allStopped, &loop, &QEventLoop::quit);
        m_manager.stopAll();
        if (!m_manager.isAllStopped())
            loop.exec();
        else
            QCoreApplication::processEvents();
    }

private:
    const ConfigOptions &m_options;
    ServerManager m_manager;
    std::unique_ptr<ConfigWatcher> m_watcher;
};

QString statusWord(const ServerStatus &status)
{
    if (!status.configErrors.isEmpty())
        return u"Invalid"_s;
    return stateName(status.state);
}

} // namespace

static int statusTable(const ConfigOptions &options, bool check)
{
    ConfigRun run(options);
    if (!run.start())
        return Failure;
    run.waitUntilSettled();
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
            rows.append(QJsonObject{{u"server"_s, status.name},
                                    {u"state"_s, statusWord(status)},
                                    {u"enabled"_s, enabled},
                                    {u"tools"_s, status.toolCount},
                                    {u"pid"_s, status.pid > 0 ? QJsonValue(double(status.pid)) : QJsonValue()},
                                    {u"transport"_s, status.transport},
                                    {u"reason"_s, reason}});
        } else {
            table.append({status.name, statusWord(status), QString::number(status.toolCount),
                          status.pid > 0 ? QString::number(status.pid) : u"-"_s, status.transport, reason});
        }
        if (check && !up && (enabled || !status.configErrors.isEmpty()))
            printError(u"server '%1' is not up: %2"_s.arg(status.name, status.reason));
    }
    run.shutDown();
    if (options.json) {
        printOut(QString::fromUtf8(QJsonDocument(rows).toJson(QJsonDocument::Indented)));
    } else {
        QList<qsizetype> widths(table.first().size(), 0);
        for (const QStringList &row : std::as_const(table)) {
            for (qsizetype column = 0; column + 1 < row.size(); ++column)
                widths[column] = std::max(widths[column], row.at(column).size());
        }
        QString text;
        for (const QStringList &row : std::as_const(table)) {
            QString line;
            for (qsizetype column = 0; column < row.size(); ++column)
                line += column + 1 < row.size() ? row.at(column).leftJustified(widths[column] + 2) : row.at(column);
            text += line.trimmed() + u'\n';
        }
        printOut(text);
    }
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
    ConfigRun run(options);
    if (!run.start())
        return Failure;
    run.waitUntilSettled();
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
        printOut(QString::fromUtf8(QJsonDocument(array).toJson(QJsonDocument::Indented)));
        return Success;
    }
    qsizetype width = 0;
    for (const RegisteredTool &tool : tools)
        width = std::max(width, tool.publicName.size());
    QString text;
    for (const RegisteredTool &tool : tools)
        text += QString(tool.publicName.leftJustified(width + 2) + tool.definition.description.section(u'\n', 0, 0)).trimmed() + u'\n';
    printOut(tools.isEmpty() ? u"(no tools: no server is connected)"_s : text);
    return Success;
}

int configCall(const ConfigOptions &options, const QString &serverName, const QString &toolName,
               const QJsonObject &arguments)
{
    ConfigOptions scoped = options;
    if (!serverName.isEmpty())
        scoped.servers = {serverName};
    ConfigRun run(scoped);
    if (!run.start())
        return Failure;
    run.waitUntilSettled();
    ToolCallReply reply;
    bool done = false;
    QEventLoop loop;
    const auto onReply = [&](const ToolCallReply &received) {
        reply = received;
        done = true;
        loop.quit();
    };
    if (serverName.isEmpty())
        run.manager().callTool(toolName, arguments, onReply);
    else
        run.manager().callTool(serverName, toolName, arguments, onReply);
    if (!done)
        loop.exec();
    run.shutDown();
    if (reply.error) {
        printError(u"calling '%1' failed: %2"_s.arg(toolName, reply.error->message));
        return Failure;
    }
    return printToolResult(reply.result, options.json);
}

int configWatch(const ConfigOptions &options)
{
    ConfigRun run(options);
    UnixSignalWatcher signalWatcher({SIGINT, SIGTERM});
    QEventLoop loop;
    QObject::connect(&run.manager(), &ServerManager::stateChanged, &loop,
                     [&](const ServerStatus &status) { printWatchLine(status, options.json); });
    QObject::connect(&signalWatcher, &UnixSignalWatcher::received, &loop, [&](int) {
        QObject::connect(&run.manager(), &ServerManager::allStopped, &loop, &QEventLoop::quit);
        run.manager().stopAll();
    });
    if (!run.start())
        return Failure;
    run.followChanges();
    loop.exec();
    return Success;
}

int importConfig(const QString &formatName, const QString &sourcePath, const QString &target)
{
    ImportFormat format;
    if (!importFormatFromName(formatName, &format)) {
        printError(u"import knows claude, cursor and vscode, not '%1' (see tetherctl --help)"_s.arg(formatName));
        return Failure;
    }
    const QString source = sourcePath.isEmpty() ? defaultImportPath(format) : sourcePath;
    if (source.isEmpty()) {
        printError(u"import vscode needs the file: .vscode/mcp.json of a workspace, or VS Code's settings.json"_s);
        return Failure;
    }
    QFile sourceFile(source);
    if (!sourceFile.open(QIODevice::ReadOnly)) {
        printError(u"cannot read %1: %2"_s.arg(source, sourceFile.errorString()));
        return Failure;
    }
    QJsonObject root;
    QFile targetFile(target);
    if (targetFile.exists()) {
        if (!targetFile.open(QIODevice::ReadOnly)) {
            printError(u"cannot read %1: %2"_s.arg(target, targetFile.errorString()));
            return Failure;
        }
        const ConfigDocument current = parseConfig(targetFile.readAll(), target, programConfigContext());
        if (!current.isValid()) {
            printError(u"%1; nothing was imported"_s.arg(current.errors.join(u"; "_s)));
            return Failure;
        }
        root = current.root;
    }
    const ImportResult result = importServers(root, sourceFile.readAll(), source, format);
    if (!result.error.isEmpty()) {
        printError(result.error);
        return Failure;
    }
    if (!result.added.isEmpty()) {
        QString error;
        if (!saveConfig(target, result.root, &error)) {
            printError(error);
            return Failure;
        }
    }
    QString report = u"imported into %1: %2\n"_s.arg(target, result.added.isEmpty() ? u"nothing"_s : result.added.join(u", "_s));
    for (const QString &skipped : result.skipped)
        report += u"skipped %1\n"_s.arg(skipped);
    printOut(report);
    return Success;
}

} // namespace Tether::Ctl
