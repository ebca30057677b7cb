#include "gateway.h"

#include "gatewaysession.h"
#include "hostchannel.h"

#include "common/logging.h"

using namespace Qt::StringLiterals;

namespace Tether {

Gateway::Gateway(ServerManager &manager, const GatewayConfig &config, QObject *parent)
    : QObject(parent)
    , m_manager(manager)
    , m_config(config)
{
    m_listChangedTimer.setSingleShot(true);
    m_listChangedTimer.setInterval(ListChangedDelay);
    connect(&m_listChangedTimer, &QTimer::timeout, this, &Gateway::notifySessions);
    connect(&m_manager.registry(), &ToolRegistry::toolsChanged, this, &Gateway::exposedSetMayHaveChanged);
    connect(&m_manager, &ServerManager::serverAdded, this, &Gateway::exposedSetMayHaveChanged);
    connect(&m_manager, &ServerManager::toolSwitchesChanged, this, &Gateway::exposedSetMayHaveChanged);
    connect(&m_manager, &ServerManager::serverRemoved, this, [this](const QString &name) {
        m_formerTools.removeIf([&](const auto &entry) { return entry.value().serverName == name; });
        if (m_settling.remove(name) && m_settling.isEmpty())
            finishSettling();
        exposedSetMayHaveChanged();
    });
    connect(&m_manager, &ServerManager::stateChanged, this, &Gateway::onServerStateChanged);

    for (const ServerStatus &status : m_manager.statuses()) {
        if (status.state == ServerState::Starting)
            m_settling.insert(status.name);
    }
    m_settleTimer.setSingleShot(true);
    connect(&m_settleTimer, &QTimer::timeout, this, &Gateway::finishSettling);
    if (!m_settling.isEmpty())
        m_settleTimer.start(m_config.outageWait);
}

Gateway::~Gateway()
{
    // Every call of every host is answered (cancelled) while the gateway still exists.
    for (const auto &session : m_sessions)
        session->cancelAllCalls(u"Tether's gateway is shutting down"_s);
}

void Gateway::setConfig(const GatewayConfig &config)
{
    m_config = config;
}

GatewaySession *Gateway::openSession(HostChannel *channel)
{
    m_sessions.push_back(std::make_unique<GatewaySession>(*this, *channel));
    GatewaySession *session = m_sessions.back().get();
    ++m_sessionsOpened[channel->transportName()];
    connect(session, &GatewaySession::hostChanged, this, &Gateway::statusChanged);
    emit statusChanged();
    return session;
}

void Gateway::closeSession(GatewaySession *session, const QString &reason)
{
    const auto it = std::find_if(m_sessions.begin(), m_sessions.end(),
                                 [session](const auto &candidate) { return candidate.get() == session; });
    if (it == m_sessions.end())
        return;
    session->cancelAllCalls(reason);
    spdlog::info("gateway: {} {} left ({})", session->clientName().isEmpty() ? u"a host"_s : session->clientName(),
                 session->clientVersion(), reason);
    // It may be inside a signal of its own right now.
    it->release()->deleteLater();
    m_sessions.erase(it);
    emit statusChanged();
}

const ToolCatalog &Gateway::catalog()
{
    if (!m_catalogStale)
        return m_catalog;
    QHash<QString, QStringList> hidden;
    for (const QString &name : m_manager.serverNames()) {
        if (const ServerConfig *config = m_manager.serverConfig(name); config && !config->hiddenTools.isEmpty())
            hidden.insert(name, config->hiddenTools);
    }
    m_catalog = ToolCatalog(m_manager.registry().tools(), hidden);
    for (const ExposedTool &tool : m_catalog.tools())
        m_formerTools.insert(tool.publicName, {tool.serverName, tool.toolName});
    m_catalogStale = false;
    warnOfHiddenNamesNotOffered();
    return m_catalog;
}

void Gateway::warnOfHiddenNamesNotOffered()
{
    const QHash<QString, QStringList> &notOffered = m_catalog.hiddenButNotOffered();
    for (auto it = notOffered.cbegin(); it != notOffered.cend(); ++it) {
        for (const QString &name : it.value()) {
            if (m_warnedHiddenNames.contains(it.key() + u'\0' + name))
                continue;
            m_warnedHiddenNames.insert(it.key() + u'\0' + name);
            const QString text = u"tools.disabled names '%1', which the server does not offer, so it hides nothing; "
                                 "check the spelling against its tools"_s.arg(name);
            m_manager.eventLog().append({{}, it.key(), ServerEvent::Kind::ConfigChange, u"warning"_s, text, {}});
        }
    }
}

void Gateway::exposedSetMayHaveChanged()
{
    m_catalogStale = true;
    // Not restarted by later changes: a steady stream of them still notifies every 250 ms.
    if (!m_listChangedTimer.isActive())
        m_listChangedTimer.start();
}

void Gateway::notifySessions()
{
    const QByteArray fingerprint = catalog().fingerprint();
    for (const auto &session : m_sessions)
        session->toolsChanged(fingerprint);
    emit statusChanged();
}

void Gateway::onServerStateChanged(const ServerStatus &status)
{
    if (status.state != ServerState::Starting && m_settling.remove(status.name) && m_settling.isEmpty())
        finishSettling();
}

void Gateway::finishSettling()
{
    // Once: the timer stops, and an empty set has nothing left to remove.
    m_settleTimer.stop();
    m_settling.clear();
    emit settled();
}

std::optional<HostToolReply> Gateway::formerToolReply(const QString &publicName) const
{
    const auto former = m_formerTools.constFind(publicName);
    if (former == m_formerTools.cend())
        return std::nullopt;
    const ServerConfig *config = m_manager.serverConfig(former->serverName);
    const std::optional<ServerStatus> status = m_manager.status(former->serverName);
    // A hidden tool is as unknown as one that never was; a connected server no longer offers it.
    if (!config || !status || config->hiddenTools.contains(former->toolName) || status->state == ServerState::Connected)
        return std::nullopt;
    return HostToolReply{HostToolReply::Kind::Result,
                         toolErrorResult(u"Tool '%1' is unavailable: %2."_s.arg(
                             publicName, unavailableReason(*status, config->enabled, 0))),
                         {}};
}

ToolCallTicket Gateway::callTool(const QString &host, const QString &publicName, const ToolCallInput &input,
                                 HostToolReplyHandler onReply, ProgressHandler onProgress)
{
    const ExposedTool *tool = catalog().find(publicName);
    if (!tool) {
        onReply(formerToolReply(publicName).value_or(unknownToolReply(publicName)));
        return {};
    }
    const QString server = tool->serverName;
    ++m_callsByServer[server];
    emit statusChanged();
    const auto started = std::chrono::steady_clock::now();
    return m_manager.callTool(
        server, tool->toolName, input,
        [this, host, publicName, server, started, onReply = std::move(onReply)](const ToolCallReply &reply) {
            const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now()
                                                                                    - started);
            m_manager.eventLog().append(toolCallEvent(server, host, publicName, reply, took));
            onReply(hostReplyFor(reply, publicName));
        },
        std::move(onProgress), CallOptions{m_config.outageWait, true});
}

bool Gateway::cancelToolCall(ToolCallTicket ticket, const QString &reason)
{
    return m_manager.cancelToolCall(ticket, reason);
}

GatewayStatus Gateway::status()
{
    GatewayStatus status;
    for (const auto &session : m_sessions) {
        status.hosts.append({session->clientName(), session->clientVersion(), session->transportName(),
                             session->since(), session->callsInFlight()});
    }
    QStringList servers = m_manager.serverNames();
    QStringList gone = m_callsByServer.keys();
    gone.removeIf([&](const QString &name) { return servers.contains(name); });
    gone.sort();
    for (const QString &name : servers + gone) {
        if (const quint64 calls = m_callsByServer.value(name))
            status.callsByServer.append({name, calls});
    }
    for (const auto &[transport, opened] : m_sessionsOpened)
        status.sessionsOpened.append({transport, opened});
    status.exposedTools = catalog().size();
    return status;
}

} // namespace Tether
