#include "configrun.h"

#include "output.h"

#include "common/logging.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QTextStream>
#include <QTimer>

#include <cstdio>

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

ConfigRun::ConfigRun(const ConfigOptions &options)
    : m_options(options)
{
}

ConfigRun::~ConfigRun() = default;

bool ConfigRun::start()
{
    ConfigDocument document = loadConfig(m_options.source.path, programConfigContext());
    if (!document.isValid()) {
        printError(document.errors.join(u"; "_s));
        return false;
    }
    if (m_options.source.embedded) {
        spdlog::info("no config file at {}: using the built-in demo configuration", defaultConfigPath());
    }
    return apply(document);
}

void ConfigRun::followChanges()
{
    if (m_options.source.embedded)
        return;
    m_watcher = std::make_unique<ConfigWatcher>(m_options.source.path, programConfigContext());
    QObject::connect(m_watcher.get(), &ConfigWatcher::reloaded, &m_manager, [this](const ConfigDocument &document) {
        apply(document);
    });
}

bool ConfigRun::apply(ConfigDocument document)
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

void ConfigRun::waitUntilSettled()
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

} // namespace Tether::Ctl
