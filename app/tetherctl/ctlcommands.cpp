#include "ctlcommands.h"

#include "common/duration.h"
#include "common/unixsignalwatcher.h"
#include "protocol/mcpclientsession.h"

#include <QDateTime>

#include <QEventLoop>
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

namespace {

// One connection for one command: open, do one thing, close, all on a local event loop.
class OneShotConnection final
{
public:
    explicit OneShotConnection(const CommonOptions &options)
        : m_options(options)
        , m_session(std::make_unique<StdioTransport>(options.target.command),
                    SessionOptions{options.target.name, options.timeout})
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
            printError(u"could not connect to server '%1' (%2): %3"_s.arg(
                m_options.target.name, m_options.target.command.commandLine(), m_failure));
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
            tools.append(tool.raw);
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
    McpClientSession::ProgressHandler onProgress;
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
    if (options.json)
        printOut(QString::fromUtf8(QJsonDocument(reply.result.raw).toJson(QJsonDocument::Indented)));
    else
        printOut(renderContent(reply.result.content));
    return reply.result.isError ? ToolError : Success;
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
    const StdioServerCommand command = options.target.command;
    ConnectionSupervisor supervisor(
        options.target.name, [command] { return std::make_unique<StdioTransport>(command); }, settings, &registry);
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
