#include "instancecommands.h"

#include "configrun.h"
#include "exitstatus.h"
#include "interruption.h"
#include "instancelink.h"
#include "output.h"

#include "common/displaytext.h"
#include "common/logging.h"
#include "common/unixsignalwatcher.h"
#include "control/configinstance.h"
#include "keyring/tokenstore.h"
#include "manager/eventlogtext.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QJsonArray>

#include <csignal>

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

namespace {

// The instance of the config; nothing (said on stderr) when none runs it.
std::unique_ptr<ControlClient> requireInstance(const ConfigOptions &options, int *exitStatus)
{
    InstanceLink instance = linkToInstance(options);
    if (instance.client)
        return std::move(instance.client);
    // A name the config lacks is wrong whether a Tether runs or not: said first, as the instance
    // would say it (with the names it is close to).
    if (!instance.refused && !options.servers.isEmpty() && !ConfigRun(options).load()) {
        *exitStatus = Failure;
        return nullptr;
    }
    if (!instance.refused) {
        printError(u"no Tether runs %1; start one with `tetherctl daemon` (or open the window), then ask again"_s.arg(
            configSavePath(options.source)));
    }
    *exitStatus = instance.refused ? Failure : NoInstance;
    return nullptr;
}

void printEvent(const ServerEvent &event, bool json)
{
    if (json)
        printOut(QString::fromUtf8(eventLogJsonLine(event)));
    else
        printOut(eventLogLine(event));
}

} // namespace

int controlServers(const ConfigOptions &options, const QString &command, const QStringList &servers)
{
    int exitStatus = Success;
    const std::unique_ptr<ControlClient> instance = requireInstance(options, &exitStatus);
    if (!instance)
        return exitStatus;
    const QString method = Control::Prefix + command;
    const bool stopping = method == Control::Stop;
    const bool starting = method == Control::Start;
    // Subscribed first, so that no change between the command and the wait is missed.
    QHash<QString, ServerState> states;
    if (stopping || starting) {
        const std::optional<QJsonObject> current =
            askInstance(*instance, Control::Subscribe, {{u"statuses"_s, false}}, {}, &exitStatus);
        if (!current)
            return exitStatus;
        for (const Control::ServerView &server : Control::serverViewsFromJson(current->value(u"servers").toArray()))
            states.insert(server.status.name, server.status.state);
    }
    QEventLoop loop;
    const auto allStopped = [&] {
        return std::all_of(servers.cbegin(), servers.cend(),
                           [&](const QString &name) { return states.value(name) == ServerState::Stopped; });
    };
    QObject::connect(instance.get(), &ControlClient::notified, &loop, [&](const QString &notification, const QJsonObject &params) {
        if (notification != Control::StatusChanged)
            return;
        const ServerStatus status = Control::serverStatusFromJson(params.value(u"status").toObject());
        states.insert(status.name, status.state);
        if (allStopped())
            loop.quit();
    });
    const QHash<QString, ServerState> before = states;
    if (!askInstance(*instance, method, {{u"servers"_s, QJsonArray::fromStringList(servers)}}, u"%1"_s.arg(command), &exitStatus))
        return exitStatus;
    if (stopping && !allStopped()) {
        QObject::connect(instance.get(), &ControlClient::lost, &loop, &QEventLoop::quit);
        Interruption interruption;
        QObject::connect(&interruption, &Interruption::interrupted, &loop, &QEventLoop::quit);
        loop.exec();
        if (!allStopped()) {
            if (const std::optional<int> interrupted = interruption.exitStatus()) {
                printError(u"interrupted before the servers had stopped; the Tether that runs them goes on stopping them"_s);
                return *interrupted;
            }
            printError(u"the Tether that runs the config went away before the servers had stopped"_s);
            return NoInstance;
        }
    }
    const QString done = stopping ? u"stopped"_s : starting ? u"starting"_s : u"reconnecting"_s;
    // Start leaves a server that runs (or is on its way) as it is.
    static const QList<ServerState> startable{ServerState::Stopped, ServerState::Failed, ServerState::Disconnected,
                                              ServerState::SignInNeeded};
    for (const QString &name : servers) {
        const bool runsAlready = starting && before.contains(name) && !startable.contains(before.value(name));
        printNote(u"%1: %2 (Tether pid %3)"_s
                      .arg(name, runsAlready ? u"already "_s + stateName(before.value(name)).toLower() : done)
                      .arg(instance->instance().pid));
    }
    return Success;
}

int showLogs(const ConfigOptions &options, const QString &server, bool follow)
{
    int exitStatus = Success;
    const std::unique_ptr<ControlClient> instance = requireInstance(options, &exitStatus);
    if (!instance)
        return exitStatus;
    QJsonObject params;
    if (!server.isEmpty())
        params.insert(u"server", server);
    // Subscribed before the log is read: an event in between shows twice rather than not at all.
    if (follow && !askInstance(*instance, Control::Subscribe, {{u"statuses"_s, false}, {u"events"_s, true}}, {}, &exitStatus))
        return exitStatus;
    QList<ServerEvent> followed;
    bool printing = false;
    QEventLoop loop;
    QObject::connect(instance.get(), &ControlClient::notified, &loop, [&](const QString &method, const QJsonObject &notification) {
        if (method != Control::EventAppended)
            return;
        const ServerEvent event = Control::serverEventFromJson(notification.value(u"event").toObject());
        if (!server.isEmpty() && event.server != server)
            return;
        if (printing)
            printEvent(event, options.json);
        else
            followed.append(event);
    });
    const std::optional<QJsonObject> log = askInstance(*instance, Control::Logs, params, {}, &exitStatus);
    if (!log)
        return exitStatus;
    for (const QJsonValue &item : log->value(u"events").toArray())
        printEvent(Control::serverEventFromJson(item.toObject()), options.json);
    if (!follow)
        return Success;
    for (const ServerEvent &event : std::as_const(followed))
        printEvent(event, options.json);
    printing = true;
    UnixSignalWatcher signalWatcher({SIGINT, SIGTERM, SIGHUP});
    QObject::connect(&signalWatcher, &UnixSignalWatcher::received, &loop, &QEventLoop::quit);
    QObject::connect(instance.get(), &ControlClient::lost, &loop, [&](const QString &why) {
        printError(why);
        exitStatus = NoInstance;
        loop.quit();
    });
    loop.exec();
    return exitStatus;
}

int runDaemon(const ConfigOptions &options, std::optional<HttpServing> http)
{
    ConfigInstance::Options instanceOptions{http ? u"serve --http"_s : u"daemon"_s, systemSignInService};
    if (http) {
        // serve --http runs the servers named, with its policy flags and request timeout.
        instanceOptions.adjustment = [&options](ConfigDocument &document) { return adjustForCommand(options, document); };
        instanceOptions.gateway = [port = http->port](GatewayConfig gateway) {
            gateway.http.enabled = true;
            if (port)
                gateway.http.port = *port;
            return gateway;
        };
    }
    ConfigInstance instance(options.source, instanceOptions);
    const QString configPath = instance.configPath();
    qint64 holder = 0;
    QString error;
    if (!instance.claim(&holder, &error)) {
        if (holder == 0) {
            printError(error);
            return Failure;
        }
        // Clients of serve --http expect the gateway at its port: that it runs elsewhere is an error.
        if (http) {
            printError(u"serve --http: a Tether (pid %1) already runs %2; it serves the gateway over HTTP when the "
                       "config enables gateway.http (tetherctl status shows it), so stop it first or point the "
                       "clients at it"_s.arg(holder).arg(configPath));
            return Failure;
        }
        printNote(u"tetherctl: a Tether (pid %1) already runs %2; it stays the one (tetherctl status shows it)"_s.arg(holder)
                      .arg(configPath));
        return Success;
    }
    // A client that goes away mid-write is noticed as a failed write, not as a fatal signal.
    std::signal(SIGPIPE, SIG_IGN);
    UnixSignalWatcher signalWatcher({SIGINT, SIGTERM, SIGHUP});
    QEventLoop loop;
    QObject::connect(&instance, &ConfigInstance::stopped, &loop, &QEventLoop::quit);
    QObject::connect(&instance.manager().eventLog(), &EventLog::appended, &loop, [&options](const ServerEvent &event) {
        const bool warning = event.kind == ServerEvent::Kind::ConfigChange && event.level == u"warning";
        const bool detail = event.kind == ServerEvent::Kind::ToolCall || event.kind == ServerEvent::Kind::Stderr;
        if (warning || (options.verbose && detail))
            printNote(event.server + u": "_s + event.text);
    });
    instance.start();
    const ConfigDocument &document = instance.config().document();
    if (!document.isValid()) {
        printError(document.errors.join(u"; "_s));
        return Failure;
    }
    const GatewayServing serving = instance.gateway().serving();
    const bool served = http ? serving.state == GatewayServing::State::Serving : serving.state != GatewayServing::State::Off;
    if (!served) {
        printError(http ? u"serve --http: "_s + serving.error
                        : u"cannot serve %1 to tetherctl and windows: %2"_s.arg(configPath, serving.error));
        instance.stop();
        loop.exec();
        return Failure;
    }
    // Served without it, the clients' tetherctl serve would each start the servers again, unseen.
    if (!serving.relayError.isEmpty()) {
        printError(u"running without a relay socket: each client's `tetherctl serve` will start the servers a second "
                   "time, and other tetherctl commands cannot reach this Tether. %1"_s.arg(serving.relayError));
    }
    if (http) {
        printNote(u"Serving MCP at %1; hosts send the bearer token in %2"_s.arg(serving.url, serving.tokenFile));
    } else {
        // On the built-in demo until the config file is written, which it then runs.
        const qsizetype serverCount = instance.manager().serverNames().size();
        printNote(u"tetherctl: Tether (pid %1) runs %2 (%3)%4; `tetherctl status` shows them, a signal stops them"_s
                      .arg(QCoreApplication::applicationPid())
                      .arg(instance.config().isEmbedded()
                               ? u"the built-in demo until %1 is written"_s.arg(configPath)
                               : configPath)
                      .arg(serverCount == 1 ? u"1 server"_s : u"%1 servers"_s.arg(serverCount))
                      .arg(serving.url.isEmpty() ? QString() : u", serving MCP at "_s + serving.url));
    }
    QObject::connect(&signalWatcher, &UnixSignalWatcher::received, &loop, [&](int signalNumber) {
        spdlog::info("{}: {}; stopping", http ? "serve" : "daemon", signalName(signalNumber));
        instance.stop();
    });
    loop.exec();
    return Success;
}

} // namespace Tether::Ctl
