#include "watchcommands.h"

#include "configrun.h"
#include "exitstatus.h"
#include "instancelink.h"
#include "output.h"
#include "servertarget.h"
#include "signincommands.h"

#include "auth/signinservice.h"
#include "common/duration.h"
#include "common/unixsignalwatcher.h"
#include "config/serverconfig.h"

#include <QDateTime>
#include <QEventLoop>
#include <QJsonDocument>

#include <csignal>

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

namespace {

QJsonValue optionalNumber(const std::optional<qint64> &value)
{
    return value ? QJsonValue(double(*value)) : QJsonValue(QJsonValue::Null);
}

// The lines of watch: one per change of state, the server names and states in columns.
class WatchLines final
{
public:
    WatchLines(bool json, SignInRoute signInRoute, ReasonReader reader)
        : m_json(json)
        , m_signInRoute(signInRoute)
        , m_reader(reader)
    {
    }

    // The servers to be watched, known before their first line, so that every line lines up.
    void expect(const QStringList &names)
    {
        for (const QString &name : names)
            m_nameWidth = std::max(m_nameWidth, name.size());
    }

    void print(const ServerStatus &status);

private:
    static qsizetype stateWidth()
    {
        qsizetype width = 0;
        for (const ServerState state : AllServerStates)
            width = std::max(width, stateName(state).size());
        return width;
    }

    bool m_json;
    SignInRoute m_signInRoute;
    ReasonReader m_reader;
    qsizetype m_nameWidth = 0; // widened by a name longer than those expected (a server added to the file)
};

} // namespace

void WatchLines::print(const ServerStatus &status)
{
    const QString time = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
    if (m_json) {
        QJsonObject event{
            {u"time"_s, time},
            {u"server"_s, status.name},
            {u"state"_s, stateName(status.state)},
            {u"attempt"_s, status.attempt},
            {u"maxAttempts"_s, status.maxAttempts},
            {u"nextDelayMs"_s, optionalNumber(status.nextDelayMs)},
            {u"generation"_s, double(status.generation)},
            {u"pid"_s, status.pid > 0 ? QJsonValue(double(status.pid)) : QJsonValue(QJsonValue::Null)},
            {u"tools"_s, status.toolCount},
            {u"protocol"_s, status.protocolVersion.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(status.protocolVersion)},
            {u"reason"_s, status.reason},
            {u"cause"_s, status.cause.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(status.cause)},
        };
        addSignIn(event, status, m_signInRoute);
        printJson(QJsonDocument(event), QJsonDocument::Compact);
        return;
    }
    m_nameWidth = std::max(m_nameWidth, status.name.size());
    static const qsizetype StateWidth = stateWidth();
    QStringList parts{time, status.name.leftJustified(m_nameWidth),
                      stateText(status, m_signInRoute).leftJustified(StateWidth)};
    if (status.attempt > 0)
        parts.append(u"attempt %1/%2"_s.arg(status.attempt).arg(status.maxAttempts));
    if (status.nextDelayMs)
        parts.append(u"retry in %1"_s.arg(formatDuration(std::chrono::milliseconds(*status.nextDelayMs))));
    if (status.pid > 0)
        parts.append(u"pid %1"_s.arg(status.pid));
    parts.append(u"%1 tools"_s.arg(status.toolCount));
    if (status.state == ServerState::Connected && !status.protocolVersion.isEmpty())
        parts.append(u"protocol "_s + status.protocolVersion);
    printOut(parts.join(u"  "_s) + u"  — "_s + reasonFor(status.reason, status.name, m_reader));
}

int watch(const CommonOptions &options, const SupervisorSettings &settings)
{
    ToolRegistry registry;
    // Each state comes with its reason in a line of its own: giving up is not said twice.
    SupervisorSettings watched = settings;
    watched.outcomesLoggedAsErrors = false;
    ConnectionSupervisor supervisor(options.target.name, options.target.transport, watched, &registry);
    UnixSignalWatcher signalWatcher({SIGINT, SIGTERM, SIGHUP});
    QEventLoop loop;
    int exitStatus = Success;

    WatchLines lines(options.json, SignInRoute::ThisRun, ReasonReader::OwnRun);
    lines.expect({options.target.name});
    // A server that asks signs in, once the line saying so is out; then it starts again.
    bool signingIn = false;
    QObject::connect(&supervisor, &ConnectionSupervisor::stateChanged, &loop, [&](const ServerStatus &status) {
        lines.print(status);
        if (status.state != ServerState::SignInNeeded || signingIn || !options.signIn || !options.target.signsInAs)
            return;
        if (!canOpenBrowser(options.browser)) {
            printNote(noBrowserText(options.target.name));
            return;
        }
        signingIn = true;
        options.signIn->signIn(
            *options.target.signsInAs, {},
            [name = options.target.name, browser = options.browser](const QUrl &url) {
                openSignInUrl(name, url, browser);
            },
            [&](bool signedIn, const QString &message) {
                signingIn = false;
                if (signedIn) {
                    printNote(message);
                    supervisor.start();
                    return;
                }
                printError(message);
                exitStatus = Failure;
                supervisor.stop();
            });
    });
    if (options.verbose) {
        QObject::connect(&supervisor, &ConnectionSupervisor::stderrLine, &loop, [&](const QString &line) {
            printNote(options.target.name + u": "_s + line);
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

// Watches the servers of the instance that runs the config: a line for each as it is now, then one
// for each change of state, until a signal (exit 0) or the instance goes (NoInstance).
static int watchInstance(ControlClient &instance, const ConfigOptions &options)
{
    UnixSignalWatcher signalWatcher({SIGINT, SIGTERM, SIGHUP});
    QEventLoop loop;
    int exitStatus = Success;
    const auto watched = [&options](const ServerStatus &status) {
        return options.servers.isEmpty() || options.servers.contains(status.name);
    };
    WatchLines lines(options.json, SignInRoute::Login, ReasonReader::Attached);
    QObject::connect(&instance, &ControlClient::notified, &loop, [&](const QString &method, const QJsonObject &params) {
        if (method != Control::StatusChanged || !params.value(u"stateChanged").toBool())
            return;
        const ServerStatus status = Control::serverStatusFromJson(params.value(u"status").toObject());
        if (watched(status))
            lines.print(status);
    });
    QObject::connect(&instance, &ControlClient::lost, &loop, [&](const QString &why) {
        printError(why);
        exitStatus = NoInstance;
        loop.quit();
    });
    QObject::connect(&signalWatcher, &UnixSignalWatcher::received, &loop, &QEventLoop::quit);
    instance.request(Control::Subscribe, {{u"statuses"_s, false}}, [&](const ControlReply &reply) {
        if (reply.error) {
            printError(reply.error->message);
            exitStatus = instance.isConnected() ? Failure : NoInstance;
            loop.quit();
            return;
        }
        const QList<Control::ServerView> servers = Control::serverViewsFromJson(reply.result.value(u"servers").toArray());
        QStringList known;
        for (const Control::ServerView &server : servers)
            known.append(server.status.name);
        for (const QString &name : options.servers) {
            if (!known.contains(name)) {
                printError(noServerNamedText(instance.instance().configPath, name, known));
                exitStatus = Failure;
                loop.quit();
                return;
            }
        }
        for (const Control::ServerView &server : servers) {
            if (watched(server.status))
                lines.expect({server.status.name});
        }
        for (const Control::ServerView &server : servers) {
            if (watched(server.status))
                lines.print(server.status);
        }
    });
    loop.exec();
    return exitStatus;
}

int configWatch(const ConfigOptions &options)
{
    const InstanceLink instance = linkToInstance(options);
    if (instance.refused)
        return Failure;
    if (instance.client) {
        if (!options.reconnectOverrides.isEmpty() || !options.heartbeatOverrides.isEmpty()) {
            printError(u"the Tether (pid %1) runs these servers with the policies of %2; the reconnect and heartbeat "
                       "flags apply only to servers a command runs itself: set the policy in the config (or the "
                       "window's Reconnect policy), or watch without the flags"_s
                           .arg(instance.client->instance().pid)
                           .arg(instance.client->instance().configPath));
            return Failure;
        }
        return watchInstance(*instance.client, options);
    }
    ConfigRun run(options);
    if (!run.load(ConfigStore::FileChanges::Follow))
        return Failure;
    WatchLines lines(options.json, SignInRoute::Login, ReasonReader::OwnRun);
    lines.expect(run.store().document().serverNames());
    UnixSignalWatcher signalWatcher({SIGINT, SIGTERM, SIGHUP});
    QEventLoop loop;
    QObject::connect(&run.manager(), &ServerManager::stateChanged, &loop,
                     [&](const ServerStatus &status) { lines.print(status); });
    QObject::connect(&signalWatcher, &UnixSignalWatcher::received, &loop, [&](int) {
        QObject::connect(&run.manager(), &ServerManager::allStopped, &loop, &QEventLoop::quit);
        run.manager().stopAll();
    });
    run.manager().setOutcomesLoggedAsErrors(false); // each state is a line of its own, with its reason
    if (!run.start(ConfigStore::FileChanges::Follow))
        return Failure;
    sayNoInstanceRuns(options);
    loop.exec();
    return Success;
}

} // namespace Tether::Ctl
