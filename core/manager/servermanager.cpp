#include "servermanager.h"
#include "serverpool.h"
#include "signincontroller.h"
#include "transportfactory.h"

#include "common/closenames.h"
#include "common/duration.h"
#include "common/logging.h"

#include <QSet>

using namespace Qt::StringLiterals;

namespace Tether {

ServerManager::ServerManager(QObject *parent)
    : ServerSource(parent)
{
    m_waitExpiry.setSingleShot(true);
    connect(&m_waitExpiry, &QTimer::timeout, this, &ServerManager::expireWaitingCalls);
    // Waiting calls follow their server's state, from the event loop: never from inside a
    // supervisor's own signal.
    const auto release = [this](const QString &name) {
        QMetaObject::invokeMethod(this, [this, name] { releaseWaitingCalls(name); }, Qt::QueuedConnection);
    };
    connect(this, &ServerManager::stateChanged, this, [release](const ServerStatus &status) { release(status.name); });
    connect(this, &ServerManager::serverRemoved, this, release);
}

ServerManager::~ServerManager() = default;

// Nothing but the reconnect or heartbeat policy differs: the running sessions can take them as they are.
static bool onlyPoliciesDiffer(const ServerConfig &running, const ServerConfig &wanted)
{
    ServerConfig withRunningPolicies = wanted;
    withRunningPolicies.reconnect = running.reconnect;
    withRunningPolicies.heartbeat = running.heartbeat;
    return running.sameSettings(withRunningPolicies);
}

static QString describePolicy(const ReconnectPolicy &policy)
{
    if (!policy.enabled)
        return u"reconnect off"_s;
    return u"reconnect up to %1 times, %2 to %3 apart, jitter %4"_s.arg(policy.maxAttempts)
        .arg(formatDuration(std::chrono::milliseconds(policy.initialDelayMs)),
             formatDuration(std::chrono::milliseconds(policy.maxDelayMs)))
        .arg(policy.jitter);
}

static QString describePolicy(const HeartbeatPolicy &policy)
{
    if (!policy.enabled)
        return u"heartbeat off"_s;
    return u"heartbeat every %1, answered within %2, lost after %3 missed in a row"_s
        .arg(formatDuration(std::chrono::milliseconds(policy.intervalMs)),
             formatDuration(std::chrono::milliseconds(policy.timeoutMs)))
        .arg(policy.maxFailures);
}

ConfigChange ServerManager::applyConfig(const ConfigDocument &config)
{
    m_outageWait = config.gateway.outageWait;
    ConfigChange change;
    QSet<QString> wanted;
    for (const ServerConfig &server : config.servers)
        wanted.insert(server.name);
    for (const QString &name : QStringList(m_order)) {
        if (!wanted.contains(name)) {
            removeServer(name);
            change.removed.append(name);
        }
    }
    QStringList order;
    for (const ServerConfig &server : config.servers) {
        order.append(server.name);
        const auto it = m_servers.find(server.name);
        if (it == m_servers.end()) {
            addServer(server);
            change.added.append(server.name);
        } else if (it->second.config.sameSettings(server) && it->second.config.errors == server.errors) {
            if (it->second.config.hiddenTools != server.hiddenTools)
                change.toolsUpdated.append(server.name);
            it->second.config = server;
            change.unchanged.append(server.name);
        } else if (onlyPoliciesDiffer(it->second.config, server)) {
            if (it->second.config.hiddenTools != server.hiddenTools)
                change.toolsUpdated.append(server.name);
            updatePolicies(it->second, server);
            change.policyUpdated.append(server.name);
        } else {
            // The old pool retires; the new one starts once every old process has exited.
            if (std::unique_ptr<ServerPool> old = std::move(it->second.pool))
                retire(server.name, std::move(old));
            m_servers.erase(it);
            m_order.removeAll(server.name);
            addServer(server);
            change.restarted.append(server.name);
        }
    }
    m_order = order;
    for (const QString &name : std::as_const(change.toolsUpdated))
        emit toolSwitchesChanged(name);
    return change;
}

void ServerManager::updatePolicies(Server &server, const ServerConfig &config)
{
    const ServerConfig previous = std::exchange(server.config, config);
    QStringList changed;
    if (previous.reconnect != config.reconnect)
        changed.append(describePolicy(config.reconnect));
    if (previous.heartbeat != config.heartbeat)
        changed.append(describePolicy(config.heartbeat));
    const QString text = u"policy changed in the config (%1): in effect now, without a restart"_s.arg(
        changed.join(u"; "_s));
    spdlog::info("server '{}': {}", config.name, text);
    // Logged before it is applied: a retry it ends or moves is told after the change that caused it.
    if (const auto snapshot = status(config.name))
        m_eventLog.append({{}, config.name, ServerEvent::Kind::ConfigChange, u"info"_s, text, *snapshot});
    if (server.pool)
        server.pool->setPolicies(config.reconnect, config.heartbeat);
    if (const auto snapshot = status(config.name))
        emit statusChanged(*snapshot);
}

void ServerManager::addServer(const ServerConfig &config)
{
    Server server;
    server.config = config;
    if (config.isValid()) {
        std::shared_ptr<ServerCredentials> credentials;
        if (m_signIn && config.usesSignIn())
            credentials = m_signIn->credentialsFor(config);
        server.pool = std::make_unique<ServerPool>(config, &m_registry, std::chrono::seconds(60), std::move(credentials),
                                                   m_clientSide);
        ServerPool *pool = server.pool.get();
        pool->setOutcomesLoggedAsErrors(m_outcomesLoggedAsErrors);
        // Only the pool that currently is this server speaks for it.
        connect(pool, &ServerPool::statusChanged, this, [this, pool, name = config.name] {
            if (isCurrentPool(name, pool))
                emit statusChanged(*status(name));
        });
        connect(pool, &ServerPool::stateChanged, this, [this, pool, name = config.name] {
            if (!isCurrentPool(name, pool))
                return;
            const ServerStatus snapshot = *status(name);
            m_eventLog.append({{}, name, ServerEvent::Kind::StateChange, {}, snapshot.reason, snapshot});
            emit stateChanged(snapshot);
        });
        connect(pool, &ServerPool::catalogChanged, this, [this, pool, name = config.name] {
            if (isCurrentPool(name, pool))
                emit catalogChanged(name);
        });
        connect(pool, &ServerPool::stderrLine, this, [this, pool, name = config.name](const QString &line) {
            if (isCurrentPool(name, pool))
                m_eventLog.append({{}, name, ServerEvent::Kind::Stderr, u"stderr"_s, line, {}});
        });
        connect(pool, &ServerPool::serverLogMessage, this,
                [this, pool, name = config.name](const QString &level, const QString &logger, const QString &text) {
                    if (isCurrentPool(name, pool))
                        m_eventLog.append({{}, name, ServerEvent::Kind::ServerLog, level,
                                           logger.isEmpty() ? text : logger + u": "_s + text, {}});
                });
        connect(pool, &ServerPool::stopped, this, &ServerManager::checkAllStopped);
    } else {
        // A server that cannot run is an outcome too: a command that reports it itself makes it a detail.
        for (const QString &error : std::as_const(server.config.errors))
            spdlog::log(m_outcomesLoggedAsErrors ? spdlog::level::err : spdlog::level::info, "{}", error);
    }
    server.pendingStart = server.pool && config.enabled && !m_stoppingAll;
    m_servers.emplace(config.name, std::move(server));
    m_order.append(config.name);
    emit serverAdded(config.name);
    if (const auto snapshot = status(config.name))
        emit stateChanged(*snapshot);
    startIfClear(config.name);
}

bool ServerManager::isCurrentPool(const QString &name, const ServerPool *pool) const
{
    const auto it = m_servers.find(name);
    return it != m_servers.end() && it->second.pool.get() == pool;
}

bool ServerManager::isRetiring(const QString &name) const
{
    return std::any_of(m_retiring.cbegin(), m_retiring.cend(), [&](const Retiring &r) { return r.name == name; });
}

void ServerManager::startIfClear(const QString &name)
{
    const auto it = m_servers.find(name);
    if (it == m_servers.end() || !it->second.pendingStart || !it->second.pool)
        return;
    // No overlap: an old process of this server still closing must be gone first.
    if (isRetiring(name))
        return;
    it->second.pendingStart = false;
    it->second.pool->start();
}

void ServerManager::retire(const QString &name, std::unique_ptr<ServerPool> pool)
{
    ServerPool *retired = pool.get();
    connect(retired, &ServerPool::stopped, this, [this, retired, name](bool complete) {
        const auto it = std::find_if(m_retiring.begin(), m_retiring.end(),
                                     [retired](const Retiring &r) { return r.pool.get() == retired; });
        if (it == m_retiring.end())
            return;
        it->pool.release()->deleteLater(); // we are inside its signal
        m_retiring.erase(it);
        if (!complete) {
            // Its process would not die: starting another copy could run two at once.
            if (auto server = m_servers.find(name); server != m_servers.end() && server->second.pendingStart) {
                server->second.pendingStart = false;
                spdlog::error("server '{}': its previous process did not exit, so the new settings are not started; "
                              "end it by hand, then start the server", name);
            }
        }
        startIfClear(name);
        checkAllStopped();
    });
    // Listed before it is asked to stop: a stopped pool reports at once.
    m_retiring.push_back({name, std::move(pool)});
    retired->stop();
}

void ServerManager::removeServer(const QString &name)
{
    const auto it = m_servers.find(name);
    if (it == m_servers.end())
        return;
    std::unique_ptr<ServerPool> pool = std::move(it->second.pool);
    m_servers.erase(it);
    m_order.removeAll(name);
    m_callStatistics.erase(name);
    if (pool)
        retire(name, std::move(pool));
    emit serverRemoved(name);
}

void ServerManager::checkAllStopped()
{
    if (!m_stoppingAll || m_allStoppedQueued || !isAllStopped())
        return;
    // Once, and never from inside a loop over the servers.
    m_allStoppedQueued = true;
    QMetaObject::invokeMethod(this, [this] {
        m_allStoppedQueued = false;
        if (!m_stoppingAll || !isAllStopped())
            return;
        m_stoppingAll = false;
        emit allStopped();
    }, Qt::QueuedConnection);
}

QStringList ServerManager::serverNames() const
{
    return m_order;
}

const ServerConfig *ServerManager::serverConfig(const QString &name) const
{
    const auto it = m_servers.find(name);
    return it == m_servers.end() ? nullptr : &it->second.config;
}

ServerStatus ServerManager::statusOf(const Server &server) const
{
    ServerStatus status;
    if (server.pool) {
        status = server.pool->status();
    } else {
        status.name = server.config.name;
        status.reason = u"invalid configuration: "_s + server.config.errors.join(u"; "_s);
        status.lastError = status.reason;
    }
    status.transport = server.config.describe();
    status.maxAttempts = server.config.reconnect.maxAttempts;
    status.enabled = server.config.enabled;
    if (server.pool && !server.config.enabled && status.state == ServerState::Stopped)
        status.reason = u"disabled"_s;
    status.configErrors = server.config.errors;
    return status;
}

std::optional<ServerStatus> ServerManager::status(const QString &name) const
{
    const auto it = m_servers.find(name);
    if (it == m_servers.end())
        return std::nullopt;
    return statusOf(it->second);
}

QList<ServerStatus> ServerManager::statuses() const
{
    QList<ServerStatus> all;
    for (const QString &name : m_order)
        all.append(statusOf(m_servers.at(name)));
    return all;
}

void ServerManager::setSignIn(SignInController *signIn)
{
    if (m_signIn)
        m_signIn->disconnect(this);
    m_signIn = signIn;
    if (m_signIn) {
        connect(m_signIn, &SignInController::changed, this, &ServerManager::onSignInChanged);
        connect(m_signIn, &SignInController::signedOut, this, &ServerManager::onSignedOut);
    }
}

void ServerManager::onSignInChanged(const QString &serverKey)
{
    // A sign-in (here, or by another process) is what a server in Sign-in needed waits for.
    for (const QString &name : serversSigningInAs(serverKey)) {
        emit signInChanged(name);
        if (m_servers.at(name).pool->state() != ServerState::SignInNeeded)
            continue;
        spdlog::info("server '{}': its sign-in changed; starting it again", name);
        start(name);
    }
}

void ServerManager::onSignedOut(const QString &serverKey)
{
    // The server may still accept the forgotten token: its connection ends now, and the next
    // one meets the sign-in it asks for.
    for (const QString &name : serversSigningInAs(serverKey)) {
        const ServerState state = m_servers.at(name).pool->state();
        if (state == ServerState::Stopped || state == ServerState::SignInNeeded)
            continue;
        spdlog::info("server '{}': signed out; connecting again without its tokens", name);
        reconnect(name);
    }
}

QStringList ServerManager::serversSigningInAs(const QString &serverKey) const
{
    QStringList names;
    for (const QString &name : m_order) {
        const auto it = m_servers.find(name);
        if (it == m_servers.end() || !it->second.pool)
            continue;
        if (QString error; signInKey(name, &error) == serverKey)
            names.append(name);
    }
    return names;
}

QString ServerManager::signInKey(const QString &name, QString *error) const
{
    const auto it = m_servers.find(name);
    if (it == m_servers.end()) {
        *error = u"there is no server '%1' in the config"_s.arg(name);
        return {};
    }
    if (!it->second.config.usesSignIn()) {
        *error = it->second.config.transport == TransportKind::Stdio
                     ? u"server '%1' runs on this machine (stdio) and does not sign in"_s.arg(name)
                     : u"server '%1' sends the Authorization header of its config and does not sign in; remove that "
                       "header to sign in instead"_s.arg(name);
        return {};
    }
    if (!m_signIn) {
        *error = u"this program cannot sign in to servers"_s;
        return {};
    }
    return m_signIn->keyFor(it->second.config);
}

void ServerManager::signIn(const QString &name, const QStringList &scopes, std::function<void(const QUrl &)> opener,
                           std::function<void(bool, const QString &)> done)
{
    QString error;
    const QString key = signInKey(name, &error);
    if (key.isEmpty()) {
        // Never from inside the caller.
        QMetaObject::invokeMethod(this, [done = std::move(done), error] { done(false, error); }, Qt::QueuedConnection);
        return;
    }
    m_signIn->signIn(m_servers.at(name).config, scopes, std::move(opener), std::move(done));
}

void ServerManager::signOut(const QString &name, std::function<void(bool, const QString &)> done)
{
    QString error;
    const QString key = signInKey(name, &error);
    if (key.isEmpty()) {
        // Never from inside the caller.
        QMetaObject::invokeMethod(this, [done = std::move(done), error] { done(false, error); }, Qt::QueuedConnection);
        return;
    }
    m_signIn->signOut(m_servers.at(name).config, std::move(done));
}

bool ServerManager::canSignIn(const QString &name) const
{
    QString error;
    return !signInKey(name, &error).isEmpty();
}

SignInInfo ServerManager::signInInfo(const QString &name) const
{
    QString error;
    if (signInKey(name, &error).isEmpty())
        return {};
    SignInInfo info = m_signIn->info(m_servers.at(name).config);
    if (info.state == SignInInfo::State::NotUsed && m_servers.at(name).pool
        && m_servers.at(name).pool->state() == ServerState::SignInNeeded)
        info.state = SignInInfo::State::Needed;
    return info;
}

void ServerManager::start(const QString &name)
{
    const auto it = m_servers.find(name);
    if (it == m_servers.end() || !it->second.pool || !it->second.config.enabled)
        return;
    it->second.pendingStart = true;
    startIfClear(name);
}

void ServerManager::stop(const QString &name)
{
    const auto it = m_servers.find(name);
    if (it == m_servers.end() || !it->second.pool)
        return;
    it->second.pendingStart = false;
    it->second.pool->stop();
}

void ServerManager::reconnect(const QString &name)
{
    const auto it = m_servers.find(name);
    if (it != m_servers.end() && it->second.pool && it->second.config.enabled)
        it->second.pool->reconnect();
}

void ServerManager::setEnabled(const QString &name, bool enabled)
{
    const auto it = m_servers.find(name);
    if (it == m_servers.end() || it->second.config.enabled == enabled)
        return;
    it->second.config.enabled = enabled;
    if (!it->second.pool)
        return;
    if (enabled)
        start(name);
    else
        stop(name);
    if (const auto snapshot = status(name))
        emit stateChanged(*snapshot);
}

void ServerManager::startAll()
{
    for (const QString &name : m_order)
        start(name);
}

void ServerManager::reconnectAll()
{
    for (const QString &name : m_order) {
        // A server the user stopped stays stopped.
        const auto it = m_servers.find(name);
        if (it != m_servers.end() && it->second.pool && it->second.pool->state() != ServerState::Stopped
            && it->second.pool->state() != ServerState::Stopping)
            reconnect(name);
    }
}

void ServerManager::retryFailed()
{
    for (const QString &name : m_order) {
        if (needsRetry(statusOf(m_servers.at(name))))
            reconnect(name);
    }
}

bool needsRetry(const ServerStatus &status)
{
    static const QList<ServerState> failing{ServerState::Retrying, ServerState::Reconnecting, ServerState::Failed,
                                            ServerState::Disconnected};
    return failing.contains(status.state) && status.enabled && status.configErrors.isEmpty();
}

bool ServerManager::isAllStopped() const
{
    for (const auto &[name, server] : m_servers) {
        if (server.pool && server.pool->state() != ServerState::Stopped)
            return false;
    }
    return m_retiring.empty();
}

void ServerManager::stopAll()
{
    m_stoppingAll = true;
    for (auto &[name, server] : m_servers) {
        server.pendingStart = false;
        if (server.pool)
            server.pool->stop();
    }
    checkAllStopped();
}

ToolRoute ServerManager::route(const QString &toolName) const
{
    const QList<RegisteredTool> tools = m_registry.tools();
    QList<RegisteredTool> candidates;
    for (const RegisteredTool &tool : tools) {
        if (tool.publicName == toolName)
            return {tool, {}};
        if (tool.definition.name == toolName)
            candidates.append(tool);
    }
    if (candidates.size() == 1)
        return {candidates.first(), {}};
    if (candidates.size() > 1) {
        QStringList names;
        for (const RegisteredTool &tool : std::as_const(candidates))
            names.append(tool.publicName);
        return {std::nullopt, u"the tool name '%1' is ambiguous: %2 servers offer it (%3); name the server, or use "
                              "one of these public names"_s.arg(toolName).arg(candidates.size()).arg(names.join(u", "_s))};
    }
    // A public name of a server whose tools are not known now: that server says why.
    for (const auto &[name, server] : m_servers) {
        if (server.pool && server.pool->state() != ServerState::Connected && toolName.startsWith(publicNameStart(name)))
            return {std::nullopt, unavailableReason(statusOf(server), server.config.enabled, 0)};
    }
    QStringList close;
    for (const RegisteredTool &tool : tools) {
        if (isCloseName(toolName, tool.definition.name) || isCloseName(toolName, tool.publicName))
            close.append(tool.publicName);
    }
    return {std::nullopt, u"no connected server offers a tool named '%1'"_s.arg(toolName) + didYouMean(close.mid(0, 5))};
}

std::optional<JsonRpc::Error> ServerManager::unusableServer(const QString &name) const
{
    const auto it = m_servers.find(name);
    if (it == m_servers.end())
        return JsonRpc::Error{JsonRpc::InvalidParams,
                              u"there is no server named '%1' (servers: %2)"_s.arg(name, m_order.join(u", "_s)), {}};
    if (!it->second.pool)
        return JsonRpc::Error{JsonRpc::InvalidParams,
                              u"server '%1' cannot run: %2"_s.arg(name, it->second.config.errors.join(u"; "_s)), {}};
    return std::nullopt;
}

ServerCatalog ServerManager::catalog(const QString &name) const
{
    const auto it = m_servers.find(name);
    return it == m_servers.end() || !it->second.pool ? ServerCatalog{} : it->second.pool->catalog();
}

void ServerManager::readResource(const QString &serverName, const QString &uri, ResourceReadHandler handler)
{
    if (const std::optional<JsonRpc::Error> unusable = unusableServer(serverName))
        answerLater(this, std::move(handler), ResourceReadReply{{}, unusable});
    else
        m_servers.at(serverName).pool->readResource(uri, std::move(handler));
}

void ServerManager::getPrompt(const QString &serverName, const QString &promptName, const QJsonObject &arguments,
                              PromptHandler handler)
{
    if (const std::optional<JsonRpc::Error> unusable = unusableServer(serverName))
        answerLater(this, std::move(handler), PromptReply{{}, unusable});
    else
        m_servers.at(serverName).pool->getPrompt(promptName, arguments, std::move(handler));
}

ToolCallTicket ServerManager::callTool(const QString &serverName, const QString &toolName, const ToolCallInput &input,
                                       ToolCallHandler handler,
                                       ProgressHandler onProgress,
                                       CallOptions options)
{
    const ToolCallTicket ticket{m_nextTicket++};
    auto reply = track(ticket, serverName, toolName, std::move(handler));
    const auto it = m_servers.find(serverName);
    if (const std::optional<JsonRpc::Error> unusable = unusableServer(serverName)) {
        answerLater(this, std::move(reply), ToolCallReply{{}, unusable});
        return ticket;
    }
    ProgressHandler progress;
    if (onProgress) {
        progress = [this, id = ticket.id, onProgress = std::move(onProgress)](const ProgressUpdate &update) {
            if (m_activeCalls.contains(id))
                onProgress(update);
        };
    }
    if (options.waitForConnection.count() > 0 || options.retryLostIfSafe) {
        ActiveCall &call = m_activeCalls.at(ticket.id);
        call.input = input;
        call.onProgress = std::move(progress);
        call.options = options;
        call.waitStartedAt = std::chrono::steady_clock::now();
        call.deadline = call.waitStartedAt + options.waitForConnection;
        dispatch(ticket.id);
        return ticket;
    }
    ServerPool *pool = it->second.pool.get();
    const quint64 poolCallId = pool->callTool(toolName, input, std::move(reply), std::move(progress));
    if (const auto active = m_activeCalls.find(ticket.id); active != m_activeCalls.end()) {
        active->second.pool = pool;
        active->second.poolCallId = poolCallId;
    }
    return ticket;
}

ToolCallTicket ServerManager::callTool(const QString &toolName, const ToolCallInput &input,
                                       ToolCallHandler handler,
                                       ProgressHandler onProgress,
                                       CallOptions options)
{
    const ToolRoute found = route(toolName);
    if (!found.tool) {
        const ToolCallTicket ticket{m_nextTicket++};
        answerLater(this, track(ticket, {}, toolName, std::move(handler)),
                    ToolCallReply::failure(JsonRpc::InvalidParams, found.error));
        return ticket;
    }
    return callTool(found.tool->serverName, found.tool->definition.name, input, std::move(handler), std::move(onProgress),
                    options);
}

void ServerManager::dispatch(quint64 ticket)
{
    const auto it = m_activeCalls.find(ticket);
    if (it == m_activeCalls.end())
        return;
    ActiveCall &call = it->second;
    const auto server = m_servers.find(call.serverName);
    if (server == m_servers.end() || !server->second.pool) {
        answer(ticket, ToolCallReply::failure(JsonRpc::ServerUnavailable,
                                              u"server '%1' is no longer in the config"_s.arg(call.serverName)));
        return;
    }
    // The common case, a connected server, needs no status snapshot (judgeCall would send it too).
    if (server->second.config.enabled && server->second.pool->state() == ServerState::Connected) {
        send(ticket);
        return;
    }
    const ServerStatus status = statusOf(server->second);
    const auto now = std::chrono::steady_clock::now();
    const QDateTime wallNow = QDateTime::currentDateTimeUtc();
    CallTarget target{status.state, server->second.config.enabled, server->second.pendingStart, std::nullopt};
    if (status.nextRetryAt.isValid())
        target.msUntilNextRetry = wallNow.msecsTo(status.nextRetryAt);
    const qint64 msLeft = std::chrono::duration_cast<std::chrono::milliseconds>(call.deadline - now).count();
    switch (judgeCall(target, msLeft)) {
    case CallVerdict::Send:
        send(ticket);
        return;
    case CallVerdict::Wait:
        call.waiting = true;
        call.pool = nullptr;
        scheduleWaitExpiry();
        return;
    case CallVerdict::Unavailable:
        break;
    }
    const qint64 waited = call.waiting
                              ? std::chrono::duration_cast<std::chrono::milliseconds>(now - call.waitStartedAt).count()
                              : 0;
    answer(ticket, ToolCallReply::failure(JsonRpc::ServerUnavailable,
                                          unavailableReason(status, server->second.config.enabled, waited, wallNow)));
}

void ServerManager::send(quint64 ticket)
{
    ActiveCall &call = m_activeCalls.at(ticket);
    ServerPool *pool = m_servers.at(call.serverName).pool.get();
    call.waiting = false;
    call.pool = pool;
    call.poolCallId = pool->callTool(
        call.toolName, call.input, [this, ticket](const ToolCallReply &reply) { onSentCallAnswered(ticket, reply); },
        call.onProgress);
}

void ServerManager::onSentCallAnswered(quint64 ticket, const ToolCallReply &reply)
{
    const auto it = m_activeCalls.find(ticket);
    if (it == m_activeCalls.end())
        return;
    ActiveCall &call = it->second;
    const int code = reply.error && !reply.fromServer ? reply.error->code : 0;
    const auto now = std::chrono::steady_clock::now();
    if (code == JsonRpc::ServerUnavailable && call.options.waitForConnection.count() > 0 && now < call.deadline) {
        // Not sent after all (the server went down meanwhile): it waits for the next connection.
        call.pool = nullptr;
        call.waiting = true;
        dispatch(ticket);
        return;
    }
    if (code == JsonRpc::ConnectionClosed && call.options.retryLostIfSafe) {
        if (!call.sentAgain && isSafeToSendAgain(call.serverName, call.toolName)) {
            spdlog::info("server '{}': the call of '{}' was lost with its connection; it is read-only or idempotent, so "
                         "it goes again once the server is back",
                         call.serverName, call.toolName);
            call.sentAgain = true;
            call.pool = nullptr;
            call.waitStartedAt = now;
            call.deadline = now + call.options.waitForConnection;
            call.waiting = true; // it was in flight: whatever the state now, this counts as a wait
            dispatch(ticket);
            return;
        }
        const QString why = call.sentAgain
                                ? u"%1; it was lost again after it was sent a second time"_s.arg(reply.error->message)
                                : u"%1; the call may have run, so it is not sent again: '%2' is not marked read-only or "
                                  "idempotent"_s.arg(reply.error->message, call.toolName);
        answer(ticket, ToolCallReply::failure(JsonRpc::ConnectionClosed, why));
        return;
    }
    answer(ticket, reply);
}

bool ServerManager::isSafeToSendAgain(const QString &serverName, const QString &toolName) const
{
    for (const RegisteredTool &tool : m_registry.serverTools(serverName)) {
        if (tool.definition.name != toolName)
            continue;
        const QJsonObject annotations = tool.definition.annotations();
        return annotations.value(u"readOnlyHint").toBool(false) || annotations.value(u"idempotentHint").toBool(false);
    }
    return false;
}

void ServerManager::releaseWaitingCalls(const QString &serverName)
{
    QList<quint64> waiting;
    for (const auto &[ticket, call] : m_activeCalls) {
        if (call.waiting && call.serverName == serverName)
            waiting.append(ticket);
    }
    for (quint64 ticket : std::as_const(waiting))
        dispatch(ticket); // in call order
}

void ServerManager::expireWaitingCalls()
{
    const auto now = std::chrono::steady_clock::now();
    QList<quint64> due;
    for (const auto &[ticket, call] : m_activeCalls) {
        if (call.waiting && call.deadline <= now)
            due.append(ticket);
    }
    for (quint64 ticket : std::as_const(due))
        dispatch(ticket);
    scheduleWaitExpiry();
}

void ServerManager::scheduleWaitExpiry()
{
    std::optional<std::chrono::steady_clock::time_point> earliest;
    for (const auto &[ticket, call] : m_activeCalls) {
        if (call.waiting && (!earliest || call.deadline < *earliest))
            earliest = call.deadline;
    }
    if (!earliest) {
        m_waitExpiry.stop();
        return;
    }
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(*earliest - std::chrono::steady_clock::now());
    m_waitExpiry.start(std::max(left, std::chrono::milliseconds(0)));
}

ToolCallHandler ServerManager::track(ToolCallTicket ticket, const QString &serverName,
                                                                const QString &toolName,
                                                                ToolCallHandler handler)
{
    ActiveCall call;
    call.serverName = serverName;
    call.toolName = toolName;
    call.handler = std::move(handler);
    call.startedAt = std::chrono::steady_clock::now();
    m_activeCalls.emplace(ticket.id, std::move(call));
    return [this, id = ticket.id](const ToolCallReply &reply) { answer(id, reply); };
}

void ServerManager::answer(quint64 ticket, const ToolCallReply &reply)
{
    const auto it = m_activeCalls.find(ticket);
    if (it == m_activeCalls.end())
        return; // answered already: this is a late reply to a cancelled call
    const ToolCallHandler handler = std::move(it->second.handler);
    if (m_servers.contains(it->second.serverName)) {
        m_callStatistics[it->second.serverName].record(callOutcomeOf(reply),
                                                        std::chrono::steady_clock::now() - it->second.startedAt);
    }
    m_activeCalls.erase(it);
    handler(reply);
}

CallStatistics ServerManager::callStatistics(const QString &serverName) const
{
    const auto it = m_callStatistics.find(serverName);
    return it == m_callStatistics.end() ? CallStatistics{} : it->second;
}

void ServerManager::setClientSide(std::weak_ptr<ClientSide> clientSide)
{
    m_clientSide = clientSide;
    for (const auto &[name, server] : m_servers) {
        if (server.pool)
            server.pool->setClientSide(clientSide);
    }
}

void ServerManager::releaseClient(const ClientSide *client)
{
    for (const auto &[name, server] : m_servers) {
        if (server.pool)
            server.pool->releaseClient(client);
    }
}

ToolCallTicket ServerManager::request(const QString &serverName, const QString &method, const QJsonObject &params,
                                      ReplyHandler handler, ProgressHandler onProgress, std::weak_ptr<ClientSide> origin)
{
    const ToolCallTicket ticket{m_nextTicket++};
    if (const std::optional<JsonRpc::Error> unusable = unusableServer(serverName)) {
        answerLater(this, std::move(handler), RpcReply{{}, unusable});
        return ticket;
    }
    ServerPool *pool = m_servers.at(serverName).pool.get();
    m_requests.emplace(ticket.id, ActiveRequest{serverName, method, std::move(handler), pool, 0});
    ProgressHandler progress;
    if (onProgress) {
        progress = [this, id = ticket.id, onProgress = std::move(onProgress)](const ProgressUpdate &update) {
            if (m_requests.contains(id))
                onProgress(update);
        };
    }
    const quint64 poolCallId = pool->request(
        method, params,
        [this, id = ticket.id](const RpcReply &reply) {
            const auto it = m_requests.find(id);
            if (it == m_requests.end())
                return; // cancelled already
            const ReplyHandler answer = std::move(it->second.handler);
            m_requests.erase(it);
            answer(reply);
        },
        std::move(progress), std::move(origin));
    if (const auto it = m_requests.find(ticket.id); it != m_requests.end())
        it->second.poolCallId = poolCallId;
    return ticket;
}

void ServerManager::setResourceSubscribed(const QString &serverName, const QString &uri, bool subscribed,
                                          ReplyHandler done, std::weak_ptr<ClientSide> origin)
{
    if (const std::optional<JsonRpc::Error> unusable = unusableServer(serverName))
        answerLater(this, std::move(done), RpcReply{{}, unusable});
    else
        m_servers.at(serverName).pool->setResourceSubscribed(uri, subscribed, std::move(done), std::move(origin));
}

void ServerManager::setLogLevel(const QString &serverName, const QString &level, std::weak_ptr<ClientSide> origin)
{
    if (!unusableServer(serverName))
        m_servers.at(serverName).pool->setLogLevel(level, std::move(origin));
}

void ServerManager::notifyRootsChanged(std::weak_ptr<ClientSide> origin)
{
    for (const auto &[name, server] : m_servers) {
        if (server.pool)
            server.pool->notifyRootsChanged(origin);
    }
}

bool ServerManager::cancelToolCall(ToolCallTicket ticket, const QString &reason)
{
    if (const auto request = m_requests.find(ticket.id); request != m_requests.end()) {
        const QString why = reason.isEmpty() ? u"cancelled by the user"_s : reason;
        const QString message = u"'%1' to server '%2' was cancelled: %3"_s.arg(request->second.method,
                                                                              request->second.serverName, why);
        ActiveRequest cancelled = std::move(request->second);
        m_requests.erase(request);
        if (cancelled.pool)
            cancelled.pool->cancelCall(cancelled.poolCallId, message);
        cancelled.handler(RpcReply::failure(JsonRpc::RequestCancelled, message));
        return true;
    }
    const auto it = m_activeCalls.find(ticket.id);
    if (it == m_activeCalls.end())
        return false;
    const ActiveCall &call = it->second;
    const QString why = reason.isEmpty() ? u"cancelled by the user"_s : reason;
    const QString message = call.serverName.isEmpty()
                                ? u"the call of '%1' was cancelled: %2"_s.arg(call.toolName, why)
                                : u"the call of '%1' on server '%2' was cancelled: %3"_s.arg(call.toolName, call.serverName, why);
    // The pool answers at once if it still holds the call; otherwise it is answered here, and
    // whatever error the call was about to get is dropped.
    if (call.pool)
        call.pool->cancelCall(call.poolCallId, message);
    answer(ticket.id, ToolCallReply::failure(JsonRpc::RequestCancelled, message));
    return true;
}

} // namespace Tether
