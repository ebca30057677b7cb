#include "configrun.h"

#include "exitstatus.h"
#include "instancelink.h"
#include "output.h"

#include "common/logging.h"
#include "config/policy.h"
#include "keyring/tokenstore.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QTextStream>
#include <QTimer>

#include <cstdio>

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

ConfigRun::ConfigRun(const ConfigOptions &options, const Interruption *interruption)
    : m_options(options)
    , m_interruption(interruption)
    , m_store(options.source, programConfigContext())
{
    m_store.setAdjustment([this](ConfigDocument &document) {
        const QStringList errors = adjustForCommand(m_options, document);
        // start() reports why the first document cannot run; a changed file's is reported here.
        if (m_running && !errors.isEmpty())
            printError(errors.join(u"; "_s));
        return errors;
    });
    if (options.verbose) {
        QObject::connect(&m_manager.eventLog(), &EventLog::appended, &m_manager, [](const ServerEvent &event) {
            if (event.kind == ServerEvent::Kind::Stderr)
                printNote(event.server + u": "_s + event.text);
        });
    }
}

bool ConfigRun::load(ConfigStore::FileChanges fileChanges)
{
    m_store.load(fileChanges);
    if (m_store.isEmbedded())
        spdlog::info("no config file at {}: using the built-in demo configuration", defaultConfigPath());
    if (!m_store.document().isValid()) {
        printError(m_store.document().errors.join(u"; "_s));
        return false;
    }
    m_loaded = true;
    return true;
}

bool ConfigRun::start(ConfigStore::FileChanges fileChanges)
{
    if (!m_loaded && !load(fileChanges))
        return false;
    const ConfigDocument &document = m_store.document();
    // Remote servers that ask sign in with the tokens of `tetherctl login` (or the window's).
    m_signIn = systemSignInService(document.oauthDefaults.tokenStore);
    m_manager.setSignIn(m_signIn.get());
    m_manager.applyConfig(document);
    m_running = true;
    QObject::connect(&m_store, &ConfigStore::documentChanged, &m_manager,
                     [this](const ConfigDocument &changed) { applyChangedFile(changed); });
    return true;
}

QStringList adjustForCommand(const ConfigOptions &options, ConfigDocument &document)
{
    if (!options.servers.isEmpty()) {
        QList<ServerConfig> chosen;
        for (const QString &name : options.servers) {
            const ServerConfig *server = document.server(name);
            if (!server) {
                return {noServerNamedText(options.source.path, name, document.serverNames())};
            }
            chosen.append(*server);
        }
        document.servers = chosen;
    }
    for (ServerConfig &server : document.servers) {
        server.requestTimeout = std::min(server.requestTimeout, options.timeout);
        if (options.reconnectOverrides.isEmpty() && options.heartbeatOverrides.isEmpty())
            continue;
        const auto reconnect = resolveReconnectPolicy(server.name, options.reconnectOverrides, server.reconnect);
        const auto heartbeat = resolveHeartbeatPolicy(server.name, options.heartbeatOverrides, server.heartbeat);
        if (!reconnect.isValid() || !heartbeat.isValid())
            return reconnect.errors + heartbeat.errors;
        server.reconnect = reconnect.policy;
        server.heartbeat = heartbeat.policy;
    }
    return {};
}

void ConfigRun::applyChangedFile(const ConfigDocument &document)
{
    const ConfigChange change = m_manager.applyConfig(document);
    if (change.added.size() + change.removed.size() + change.restarted.size() + change.policyUpdated.size()
            + change.toolsUpdated.size()
        == 0)
        return;
    const auto names = [](const QStringList &list) { return list.isEmpty() ? u"none"_s : list.join(u", "_s); };
    QTextStream(stderr) << "tetherctl: " << m_options.source.path << " changed: added " << names(change.added)
                        << "; removed " << names(change.removed) << "; restarted " << names(change.restarted)
                        << "; new policy, no restart " << names(change.policyUpdated) << "; tools hidden or shown "
                        << names(change.toolsUpdated) << Qt::endl;
}

void ConfigRun::waitUntilSettled()
{
    waitUntil([this] { return allSettled(); });
}

void ConfigRun::waitForCatalogs()
{
    waitUntil([this] { return allCatalogsListed(); });
}

void ConfigRun::waitUntil(const std::function<bool()> &done)
{
    QEventLoop loop;
    QTimer deadline;
    deadline.setSingleShot(true);
    QObject::connect(&deadline, &QTimer::timeout, &loop, &QEventLoop::quit);
    if (m_interruption) {
        if (m_interruption->happened())
            return;
        QObject::connect(m_interruption, &Interruption::interrupted, &loop, &QEventLoop::quit);
    }
    const auto check = [&] {
        if (done())
            loop.quit();
    };
    QObject::connect(&m_manager, &ServerManager::stateChanged, &loop, check);
    QObject::connect(&m_manager, &ServerManager::catalogChanged, &loop, check);
    if (done())
        return;
    deadline.start(m_options.timeout);
    loop.exec();
}

bool ConfigRun::allCatalogsListed() const
{
    const QList<ServerStatus> statuses = m_manager.statuses();
    return std::all_of(statuses.cbegin(), statuses.cend(), [this](const ServerStatus &status) {
        return status.state != ServerState::Connected || m_manager.catalog(status.name).isListed();
    });
}

bool ConfigRun::allSettled() const
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

void ConfigRun::shutDown()
{
    QEventLoop loop;
    QObject::connect(&m_manager, &ServerManager::allStopped, &loop, &QEventLoop::quit);
    m_manager.stopAll();
    if (!m_manager.isAllStopped())
        loop.exec();
    else
        QCoreApplication::processEvents();
}

std::optional<int> startAndSettle(ConfigRun &run, const Interruption &interruption, OwnRun ownRun)
{
    // The command says what concerns what it was asked: a supervisor's own line of giving up
    // would say it twice, or speak of a server nobody asked about (shown with -v).
    run.manager().setOutcomesLoggedAsErrors(false);
    if (!run.start())
        return Failure;
    if (ownRun == OwnRun::SaySo)
        sayNoInstanceRuns(run.options());
    run.waitUntilSettled();
    if (!interruption.happened())
        return std::nullopt;
    run.shutDown();
    return interruption.exitStatus();
}

bool isUp(const ServerStatus &status)
{
    return status.state == ServerState::Connected;
}

bool counts(const ServerStatus &status)
{
    return status.enabled || !status.configErrors.isEmpty();
}

bool nameServersNotListed(const ConfigOptions &options, const QList<ServerStatus> &statuses, const QString &listed,
                          ReasonReader reader)
{
    bool named = false;
    for (const ServerStatus &status : statuses) {
        const bool asked = options.servers.contains(status.name) || (options.servers.isEmpty() && counts(status));
        if (asked && !isUp(status)) {
            printError(u"server '%1' is not connected, so its %2 are not listed: %3"_s.arg(
                status.name, listed, reasonFor(status.reason, status.name, reader)));
            named = true;
        }
    }
    return named;
}

} // namespace Tether::Ctl
