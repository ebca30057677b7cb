#include "gateway.h"

#include "gatewaysession.h"
#include "hostchannel.h"

#include "common/logging.h"
#include "protocol/mcptypes.h"

#include <QCryptographicHash>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace Tether {

// The gateway as its servers' client side for what no host's request explains.
class GatewaySharedSide final : public ClientSide
{
public:
    explicit GatewaySharedSide(Gateway *gateway)
        : m_gateway(gateway)
    {
    }

    QString clientLabel() const override { return u"Tether's gateway"_s; }
    quint64 serverRequest(const ServerRequest &request, ReplyHandler reply, ProgressHandler onProgress) override
    {
        if (!m_gateway) {
            reply(RpcReply::failure(JsonRpc::InternalError, u"Tether's gateway has closed"_s));
            return 0;
        }
        return m_gateway->answerServerRequest(request, std::move(reply), std::move(onProgress));
    }
    void cancelServerRequest(quint64 handle, const QString &reason) override
    {
        if (m_gateway)
            m_gateway->cancelServerRequest(handle, reason);
    }
    void serverNotification(const QString &serverName, const QString &method, const QJsonObject &params) override
    {
        if (m_gateway)
            m_gateway->passOnToHosts(serverName, method, params);
    }
    QString logLevel() const override { return m_gateway ? m_gateway->m_appliedLogLevel : QString(); }

private:
    QPointer<Gateway> m_gateway;
};

Gateway::Gateway(ServerManager &manager, const GatewayConfig &config, QObject *parent)
    : QObject(parent)
    , m_manager(manager)
    , m_config(config)
{
    m_listChangedTimer.setSingleShot(true);
    m_listChangedTimer.setInterval(ListChangedDelay);
    connect(&m_listChangedTimer, &QTimer::timeout, this, &Gateway::notifySessions);
    connect(&m_manager.registry(), &ToolRegistry::toolsChanged, this, &Gateway::exposedSetMayHaveChanged);
    connect(&m_manager, &ServerManager::serverAdded, this, [this] {
        exposedSetMayHaveChanged();
        applyLogLevels();
    });
    connect(&m_manager, &ServerManager::catalogChanged, this, [this](const QString &name) {
        m_featuresStale = true;
        exposedSetMayHaveChanged();
        if (m_settling.contains(name)) {
            if (const std::optional<ServerStatus> status = m_manager.status(name))
                onServerStateChanged(*status);
        }
    });
    connect(&m_manager, &ServerManager::toolSwitchesChanged, this, &Gateway::exposedSetMayHaveChanged);
    connect(&m_manager, &ServerManager::serverRemoved, this, [this](const QString &name) {
        m_formerTools.removeIf([&](const auto &entry) { return entry.value().serverName == name; });
        m_featuresStale = true;
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
    m_sharedSide = std::make_shared<GatewaySharedSide>(this);
    m_manager.setClientSide(m_sharedSide);
}

Gateway::~Gateway()
{
    // Every call of every host is answered (cancelled) while the gateway still exists.
    for (const auto &session : m_sessions)
        session->cancelAllCalls(u"Tether's gateway is shutting down"_s);
}

void Gateway::setConfig(const GatewayConfig &config)
{
    const bool renamed = config.names != m_config.names;
    m_config = config;
    if (renamed) {
        m_featuresStale = true;
        exposedSetMayHaveChanged();
    }
}

GatewaySession *Gateway::openSession(HostChannel *channel)
{
    m_sessions.push_back(std::make_unique<GatewaySession>(*this, *channel));
    GatewaySession *session = m_sessions.back().get();
    ++m_sessionsOpened[channel->transportName()];
    connect(session, &GatewaySession::hostChanged, this, &Gateway::statusChanged);
    connect(session, &GatewaySession::rootsChanged, this, [this, session] { onHostRootsChanged(session); });
    connect(session, &GatewaySession::logLevelChanged, this, &Gateway::applyLogLevels);
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
    onSessionLeft(session);
    emit statusChanged();
}

void Gateway::onSessionLeft(GatewaySession *session)
{
    // Its subscriptions end (the server's too when nobody else holds one), its tasks are forgotten,
    // its sessions of its own close, and the others' roots and levels are all that count now.
    for (auto it = m_subscriptions.begin(); it != m_subscriptions.end();) {
        std::erase_if(it->joining, [session](const auto &joiner) { return joiner.first.get() == session; });
        if (!it->holders.remove(session) || !it->holders.isEmpty() || it->pending) {
            ++it;
            continue;
        }
        const QString serverName = it.key().section(QChar(0), 0, 0);
        const QString uri = it.key().section(QChar(0), 1);
        it = m_subscriptions.erase(it);
        m_manager.setResourceSubscribed(serverName, uri, false, [](const RpcReply &) {});
    }
    m_tasks.forgetHost(session);
    m_manager.releaseClient(session->clientSide().get());
    onHostRootsChanged(nullptr);
    applyLogLevels();
}

const ToolCatalog &Gateway::catalog()
{
    if (!m_catalogStale)
        return m_catalog;
    m_catalog = exposedTools(m_manager, m_config.names);
    for (const ExposedTool &tool : m_catalog.tools())
        m_formerTools.insert(tool.publicName, {tool.serverName, tool.toolName});
    m_catalogStale = false;
    warnOfHiddenNamesNotOffered();
    return m_catalog;
}

QList<std::pair<QString, ServerCatalog>> Gateway::serverCatalogs() const
{
    QList<std::pair<QString, ServerCatalog>> catalogs;
    for (const QString &name : m_manager.serverNames())
        catalogs.append({name, m_manager.catalog(name)});
    return catalogs;
}

const ResourceCatalog &Gateway::resources()
{
    if (m_featuresStale) {
        const QList<std::pair<QString, ServerCatalog>> catalogs = serverCatalogs();
        m_resources = ResourceCatalog(catalogs);
        m_prompts = PromptCatalog(catalogs, m_config.names);
        m_featuresStale = false;
        for (const QString &shadowed : m_resources.shadowed())
            spdlog::debug("gateway: {}", shadowed);
    }
    return m_resources;
}

const PromptCatalog &Gateway::prompts()
{
    resources(); // built together
    return m_prompts;
}

QJsonObject Gateway::capabilities() const
{
    QList<QJsonObject> offered;
    for (const QString &name : m_manager.serverNames()) {
        const ServerConfig *config = m_manager.serverConfig(name);
        if (config && config->enabled && config->isValid())
            offered.append(m_manager.catalog(name).capabilities);
    }
    return gatewayCapabilities(offered);
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
    for (const auto &session : m_sessions)
        session->listsChanged();
    emit statusChanged();
}

void Gateway::onServerStateChanged(const ServerStatus &status)
{
    // A server has come up once it is connected and its resources and prompts are listed too, or
    // once it is anything but starting.
    const bool up = status.state == ServerState::Connected ? m_manager.catalog(status.name).isListed()
                                                           : status.state != ServerState::Starting;
    if (up && m_settling.remove(status.name) && m_settling.isEmpty())
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

HostToolReply Gateway::unknownToolReply(const QString &publicName) const
{
    return formerToolReply(publicName).value_or(Tether::unknownToolReply(publicName));
}

ToolCallTicket Gateway::callTool(const QString &host, const QString &publicName, const ToolCallInput &input,
                                 HostToolReplyHandler onReply, ProgressHandler onProgress)
{
    const ExposedTool *tool = catalog().find(publicName);
    if (!tool) {
        onReply(unknownToolReply(publicName));
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

ToolCallTicket Gateway::forward(const QString &host, const QString &serverName, const QString &method,
                                const QJsonObject &params, ReplyHandler onReply, ProgressHandler onProgress,
                                std::weak_ptr<ClientSide> origin)
{
    spdlog::debug("gateway: {} asks server '{}' for {}", host, serverName, method);
    return m_manager.request(serverName, method, params, std::move(onReply), std::move(onProgress), std::move(origin));
}

void Gateway::setSubscribed(GatewaySession *session, const QString &serverName, const QString &uri, bool subscribed,
                            ReplyHandler done)
{
    const ServerConfig *config = m_manager.serverConfig(serverName);
    if (config && config->perHost) {
        // The host's session of its own is its alone to subscribe.
        m_manager.setResourceSubscribed(serverName, uri, subscribed, std::move(done), session->clientSide());
        return;
    }
    const QString key = serverName + QChar(0) + uri;
    Subscription &subscription = m_subscriptions[key];
    if (!subscribed) {
        const bool held = subscription.holders.remove(session);
        const bool last = subscription.holders.isEmpty() && subscription.joining.empty();
        if (last)
            m_subscriptions.remove(key);
        if (!held || !last || subscription.pending) {
            answerLater(this, std::move(done), RpcReply{QJsonObject{}, std::nullopt});
            return;
        }
        m_manager.setResourceSubscribed(serverName, uri, false, std::move(done));
        return;
    }
    if (subscription.pending) {
        // The server has not answered the first subscriber yet: this one shares its answer.
        subscription.joining.emplace_back(session, std::move(done));
        return;
    }
    const bool held = !subscription.holders.isEmpty();
    subscription.holders.insert(session);
    if (held) {
        answerLater(this, std::move(done), RpcReply{QJsonObject{}, std::nullopt});
        return;
    }
    subscription.pending = true;
    const QPointer<Gateway> self(this);
    m_manager.setResourceSubscribed(serverName, uri, true, [self, key, serverName, uri, done](const RpcReply &reply) {
        if (!self) {
            done(reply);
            return;
        }
        const auto it = self->m_subscriptions.find(key);
        if (it == self->m_subscriptions.end()) {
            // Everyone let go while the server answered: it lets go too.
            if (reply.ok())
                self->m_manager.setResourceSubscribed(serverName, uri, false, [](const RpcReply &) {});
            done(reply);
            return;
        }
        std::vector<std::pair<QPointer<GatewaySession>, ReplyHandler>> joining;
        std::swap(joining, it->joining);
        it->pending = false;
        if (reply.ok()) {
            for (const auto &[joiner, answer] : joining) {
                if (joiner)
                    it->holders.insert(joiner.get());
            }
        } else {
            // Refused: nobody holds it after all.
            self->m_subscriptions.erase(it);
        }
        done(reply);
        for (const auto &[joiner, answer] : joining)
            answer(reply);
    });
}

QJsonArray Gateway::configRoots(const QString &serverName) const
{
    const ServerConfig *config = m_manager.serverConfig(serverName);
    return config ? config->roots : QJsonArray();
}

QJsonArray Gateway::rootsUnion(const QString &serverName) const
{
    QJsonArray roots;
    QSet<QString> uris;
    const auto add = [&](const QJsonArray &more) {
        for (const QJsonValue &root : more) {
            const QString uri = root.toObject().value(u"uri").toString();
            if (!uri.isEmpty() && !uris.contains(uri)) {
                uris.insert(uri);
                roots.append(root);
            }
        }
    };
    for (const auto &session : m_sessions)
        add(session->roots());
    add(configRoots(serverName));
    return roots;
}

void Gateway::onHostRootsChanged(GatewaySession *session)
{
    if (session) {
        // A perHost server's session of the host's own hears of its host's roots alone.
        m_manager.notifyRootsChanged(session->clientSide());
    }
    QCryptographicHash hash(QCryptographicHash::Sha1);
    hash.addData(QJsonDocument(rootsUnion({})).toJson(QJsonDocument::Compact));
    const QByteArray fingerprint = hash.result();
    if (fingerprint == m_rootsFingerprint)
        return;
    m_rootsFingerprint = fingerprint;
    m_manager.notifyRootsChanged();
}

void Gateway::applyLogLevels()
{
    std::optional<int> verbosest;
    for (const auto &session : m_sessions) {
        if (const std::optional<int> rank = logLevelRank(session->logLevel()); rank && (!verbosest || *rank < *verbosest))
            verbosest = rank;
    }
    const QString level = verbosest ? logLevels().at(*verbosest) : QString();
    for (const QString &name : m_manager.serverNames()) {
        const ServerConfig *config = m_manager.serverConfig(name);
        if (config && config->perHost) {
            for (const auto &session : m_sessions) {
                if (!session->logLevel().isEmpty())
                    m_manager.setLogLevel(name, session->logLevel(), session->clientSide());
            }
        }
        m_manager.setLogLevel(name, level);
    }
    m_appliedLogLevel = level;
}

quint64 Gateway::answerServerRequest(const ServerRequest &request, ReplyHandler reply, ProgressHandler onProgress)
{
    // A task's request goes to the host whose task it is.
    const QString taskId = relatedTaskId(request.params);
    if (const GatewayTasks::Task *task = taskId.isEmpty() ? nullptr : m_tasks.findByServer(request.serverName, taskId)) {
        for (const auto &session : m_sessions) {
            if (session.get() != task->host)
                continue;
            const quint64 handle = m_nextRoutedRequest++;
            m_routedRequests.insert(handle, {session.get(), 0});
            const QPointer<Gateway> self(this);
            const quint64 sent = session->forwardServerRequest(
                request,
                [self, handle, reply = std::move(reply)](const RpcReply &answer) {
                    if (self)
                        self->m_routedRequests.remove(handle);
                    reply(answer);
                },
                std::move(onProgress));
            if (const auto it = m_routedRequests.find(handle); it != m_routedRequests.end())
                it->handle = sent;
            return handle;
        }
    }
    if (request.method == u"roots/list") {
        reply(RpcReply{QJsonObject{{u"roots"_s, rootsUnion(request.serverName)}}, std::nullopt});
        return 0;
    }
    const QString why
        = request.undecided.size() > 1
              ? u"%1 hosts (%2) have requests running on server '%3', and Tether cannot tell which one this %4 is "
                "for, so it asks none of them; give the server a session per host with \"perHost\": true"_s.arg(
                    QString::number(request.undecided.size()), request.undecided.join(u", "_s), request.serverName,
                    request.method)
              : u"no host of Tether's gateway has a request running on server '%1', so none can answer its %2"_s.arg(
                    request.serverName, request.method);
    spdlog::info("gateway: {}", why);
    reply(RpcReply::failure(JsonRpc::InternalError, why));
    return 0;
}

void Gateway::cancelServerRequest(quint64 handle, const QString &reason)
{
    const RoutedRequest routed = m_routedRequests.take(handle);
    if (routed.session)
        routed.session->cancelServerRequest(routed.handle, reason);
}

void Gateway::passOnToHosts(const QString &serverName, const QString &method, const QJsonObject &params)
{
    for (const auto &session : m_sessions)
        session->passOn(serverName, method, params);
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
