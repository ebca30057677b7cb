#include "serverpool.h"

#include "transportfactory.h"

#include "common/duration.h"
#include "common/logging.h"

using namespace Qt::StringLiterals;
using namespace std::chrono;

namespace Tether {

static SupervisorSettings settingsOf(const ServerConfig &config, std::weak_ptr<ClientSide> clientSide,
                                     bool outcomesLoggedAsErrors)
{
    SupervisorSettings settings;
    settings.outcomesLoggedAsErrors = outcomesLoggedAsErrors;
    settings.reconnect = config.reconnect;
    settings.heartbeat = config.heartbeat;
    settings.requestTimeout = config.requestTimeout;
    if (config.clientFeatures)
        settings.clientCapabilities = clientFeatureCapabilities();
    settings.clientSide = std::move(clientSide);
    settings.roots = config.roots;
    settings.pinnedEra = eraOfVersion(config.protocol);
    return settings;
}

// The host a session of its own is for, in messages.
static QString hostLabelOf(const std::weak_ptr<ClientSide> &owner)
{
    const std::shared_ptr<ClientSide> host = owner.lock();
    return host ? host->clientLabel() : u"a host that has left"_s;
}

ServerPool::ServerPool(const ServerConfig &config, ToolRegistry *registry, milliseconds idleTimeout,
                       std::shared_ptr<ServerCredentials> credentials, std::weak_ptr<ClientSide> clientSide,
                       QObject *parent)
    : QObject(parent)
    , m_config(config)
    , m_registry(registry)
    , m_credentials(std::move(credentials))
    , m_exclusive(config.poolConfigured && !config.perHost)
    , m_idleTimeout(idleTimeout)
    , m_clientSide(std::move(clientSide))
{
    // Queued calls expire and idle sessions close on this tick: a pool needs it, a single session
    // only while a request waits for a host's own session.
    m_housekeeping.setInterval(std::min(milliseconds(100), m_idleTimeout));
    connect(&m_housekeeping, &QTimer::timeout, this, [this] {
        expireQueuedCalls();
        closeIdleMembers();
        expireWaiting();
    });
}

ServerPool::~ServerPool() = default;

ServerPool::Member *ServerPool::addMember(std::weak_ptr<ClientSide> owner)
{
    auto member = std::make_unique<Member>();
    member->id = m_nextMemberId++;
    ToolRegistry *registry = m_registry;
    const std::shared_ptr<ClientSide> host = owner.lock();
    SupervisorSettings settings = settingsOf(m_config, host ? owner : m_clientSide, m_outcomesLoggedAsErrors);
    member->owner = owner;
    member->ownerKey = host.get();
    if (!m_members.empty() || host) {
        member->ownRegistry = std::make_unique<ToolRegistry>();
        registry = member->ownRegistry.get();
        settings.listsCatalog = false; // the first session's resources and prompts are the server's
    }
    member->supervisor = std::make_unique<ConnectionSupervisor>(m_config.name, transportFactoryFor(m_config, HttpFallback::ToHttpSse, m_credentials),
                                                                std::move(settings), registry);
    member->idleSince = QDateTime::currentDateTimeUtc();
    const int id = member->id;
    ConnectionSupervisor *supervisor = member->supervisor.get();
    connect(supervisor, &ConnectionSupervisor::stateChanged, this,
            [this, id](const ServerStatus &status) { onMemberStateChanged(id, status); });
    connect(supervisor, &ConnectionSupervisor::statusChanged, this, [this, id] {
        if (!m_members.empty() && m_members.front()->id == id)
            emit statusChanged(status());
    });
    connect(supervisor, &ConnectionSupervisor::catalogChanged, this, &ServerPool::catalogChanged);
    connect(supervisor, &ConnectionSupervisor::stderrLine, this, &ServerPool::stderrLine);
    connect(supervisor, &ConnectionSupervisor::serverLogMessage, this, &ServerPool::serverLogMessage);
    connect(supervisor, &ConnectionSupervisor::stopped, this, [this](bool complete) {
        m_stopIncomplete |= !complete;
        onMemberStopped();
    });
    std::vector<std::unique_ptr<Member>> &members = host ? m_hostMembers : m_members;
    members.push_back(std::move(member));
    return members.back().get();
}

ServerPool::Member *ServerPool::member(int id) const
{
    for (const auto *members : {&m_members, &m_hostMembers}) {
        for (const auto &candidate : *members) {
            if (candidate->id == id)
                return candidate.get();
        }
    }
    return nullptr;
}

ConnectionSupervisor *ServerPool::supervisorOf(int memberId) const
{
    if (const Member *found = member(memberId))
        return found->supervisor.get();
    for (const auto &closing : m_stopping) {
        if (closing->id == memberId)
            return closing->supervisor.get();
    }
    return nullptr;
}

void ServerPool::removeMember(int id)
{
    std::unique_ptr<Member> removed;
    if (const auto it = std::find_if(m_members.begin(), m_members.end(), [id](const auto &m) { return m->id == id; });
        it != m_members.begin() && it != m_members.end()) { // the primary session goes only with the whole server
        removed = std::move(*it);
        m_members.erase(it);
    } else if (const auto own = std::find_if(m_hostMembers.begin(), m_hostMembers.end(),
                                             [id](const auto &m) { return m->id == id; });
               own != m_hostMembers.end()) {
        removed = std::move(*own);
        m_hostMembers.erase(own);
    }
    if (!removed)
        return;
    failWaiting(removed.get(), {JsonRpc::ServerUnavailable,
                                u"server '%1': the session of %2 closed"_s.arg(m_config.name, hostLabelOf(removed->owner)),
                                {}});
    removed->supervisor->stop();
    m_stopping.push_back(std::move(removed));
    emit statusChanged(status());
}

ServerState ServerPool::state() const
{
    if (signInNeededMember())
        return ServerState::SignInNeeded;
    return m_members.empty() ? ServerState::Stopped : m_members.front()->supervisor->state();
}

const ServerPool::Member *ServerPool::signInNeededMember() const
{
    // One sign-in serves every session: a session that needs it speaks for the server.
    const auto it = std::find_if(m_members.cbegin(), m_members.cend(), [](const auto &m) {
        return m->supervisor->state() == ServerState::SignInNeeded;
    });
    return it == m_members.cend() ? nullptr : it->get();
}

ServerCatalog ServerPool::catalog() const
{
    return m_members.empty() ? ServerCatalog{} : m_members.front()->supervisor->catalog();
}

JsonRpc::Error ServerPool::stoppedError() const
{
    return {JsonRpc::ServerUnavailable, u"server '%1' is stopped"_s.arg(m_config.name), {}};
}

void ServerPool::readResource(const QString &uri, ResourceReadHandler handler)
{
    if (m_members.empty())
        answerLater(this, std::move(handler), ResourceReadReply{{}, stoppedError()});
    else
        m_members.front()->supervisor->readResource(uri, std::move(handler));
}

void ServerPool::getPrompt(const QString &name, const QJsonObject &arguments, PromptHandler handler)
{
    if (m_members.empty())
        answerLater(this, std::move(handler), PromptReply{{}, stoppedError()});
    else
        m_members.front()->supervisor->getPrompt(name, arguments, std::move(handler));
}

ServerStatus ServerPool::status() const
{
    ServerStatus status;
    if (m_members.empty()) {
        status.name = m_config.name;
        status.reason = u"stopped"_s;
    } else {
        status = m_members.front()->supervisor->status();
    }
    if (const Member *waiting = signInNeededMember(); waiting && status.state != ServerState::SignInNeeded) {
        const ServerStatus waitingStatus = waiting->supervisor->status();
        status.state = waitingStatus.state;
        status.reason = waitingStatus.reason;
        status.cause = waitingStatus.cause;
        status.signInScope = waitingStatus.signInScope;
        status.scopeRefused = waitingStatus.scopeRefused;
    }
    const auto connected = [](const auto &m) { return m->supervisor->state() == ServerState::Connected; };
    status.sessions = int(std::count_if(m_members.cbegin(), m_members.cend(), connected)
                          + std::count_if(m_hostMembers.cbegin(), m_hostMembers.cend(), connected));
    return status;
}

void ServerPool::start()
{
    if (m_stoppingAll) {
        // Start once the stop under way has finished; a start now would be lost on the way.
        m_startWhenStopped = true;
        return;
    }
    while (int(m_members.size()) < minimumSessions())
        addMember();
    for (const auto &member : m_members)
        member->supervisor->start();
    if (m_exclusive)
        m_housekeeping.start();
}

void ServerPool::reconnect()
{
    if (m_stoppingAll || m_members.empty()) {
        start();
        return;
    }
    for (const auto *members : {&m_members, &m_hostMembers}) {
        for (const auto &member : *members)
            member->supervisor->reconnect();
    }
    if (m_exclusive)
        m_housekeeping.start();
}

void ServerPool::setPolicies(const ReconnectPolicy &reconnect, const HeartbeatPolicy &heartbeat)
{
    m_config.reconnect = reconnect;
    m_config.heartbeat = heartbeat;
    // Collected first: a session the new budget fails leaves the lists while they are walked.
    QList<ConnectionSupervisor *> supervisors;
    for (const auto *members : {&m_members, &m_hostMembers}) {
        for (const auto &member : *members)
            supervisors.append(member->supervisor.get());
    }
    for (ConnectionSupervisor *supervisor : std::as_const(supervisors)) {
        supervisor->setReconnectPolicy(reconnect); // a removed member's supervisor lives on until it has stopped
        supervisor->setHeartbeatPolicy(heartbeat);
    }
}

void ServerPool::stop()
{
    m_startWhenStopped = false;
    if (m_stoppingAll)
        return;
    m_stoppingAll = true;
    m_stopIncomplete = false;
    m_housekeeping.stop();
    failQueue(u"server '%1' is stopping"_s.arg(m_config.name));
    // The hosts' own sessions end with the server; a start opens them again as hosts ask.
    std::vector<std::unique_ptr<Member>> hostMembers;
    std::swap(hostMembers, m_hostMembers);
    for (auto &member : hostMembers) {
        failWaiting(member.get(), {JsonRpc::ServerUnavailable, u"server '%1' is stopping"_s.arg(m_config.name), {}});
        m_stopping.push_back(std::move(member));
    }
    for (const auto &member : m_members)
        member->supervisor->stop();
    for (const auto &member : m_stopping)
        member->supervisor->stop();
    onMemberStopped();
}

void ServerPool::onMemberStopped()
{
    // Closed extra sessions can go (later: we may be inside their signal).
    for (auto it = m_stopping.begin(); it != m_stopping.end();) {
        if ((*it)->supervisor->state() == ServerState::Stopped) {
            (*it)->supervisor.release()->deleteLater();
            if ((*it)->ownRegistry)
                (*it)->ownRegistry.release()->deleteLater();
            it = m_stopping.erase(it);
        } else {
            ++it;
        }
    }
    if (!m_stoppingAll || !m_stopping.empty())
        return;
    const bool allStopped = std::all_of(m_members.cbegin(), m_members.cend(), [](const auto &m) {
        return m->supervisor->state() == ServerState::Stopped;
    });
    if (!allStopped)
        return;
    m_stoppingAll = false;
    emit stopped(!m_stopIncomplete);
    if (std::exchange(m_startWhenStopped, false))
        start();
}

void ServerPool::onMemberStateChanged(int id, const ServerStatus &memberStatus)
{
    if (const auto own = std::find_if(m_hostMembers.cbegin(), m_hostMembers.cend(),
                                      [id](const auto &m) { return m->id == id; });
        own != m_hostMembers.cend()) {
        Member *member = own->get();
        if (memberStatus.state == ServerState::Connected) {
            flushWaiting(member);
        } else if (memberStatus.state == ServerState::Failed || memberStatus.state == ServerState::Disconnected
                   || memberStatus.state == ServerState::SignInNeeded) {
            failWaiting(member, {JsonRpc::ServerUnavailable,
                                 u"the session of %1 on server '%2' could not connect: %3"_s.arg(
                                     hostLabelOf(member->owner), m_config.name, memberStatus.reason),
                                 {}});
            removeMember(id);
        }
        emit statusChanged(status());
        return;
    }
    const bool primary = !m_members.empty() && m_members.front()->id == id;
    if (primary || memberStatus.state == ServerState::SignInNeeded) {
        emit stateChanged(status());
    } else {
        emit statusChanged(status());
    }
    if (!primary && !m_stoppingAll
        && (memberStatus.state == ServerState::Failed || memberStatus.state == ServerState::Disconnected)) {
        removeMember(id); // an extra session that cannot come back is not worth keeping
    }
    if (memberStatus.state == ServerState::Connected)
        dispatch();
}

quint64 ServerPool::callTool(const QString &toolName, const ToolCallInput &input,
                             ToolCallHandler handler,
                             ProgressHandler onProgress)
{
    const quint64 callId = m_nextCallId++;
    if (m_members.empty()) {
        answerLater(this, std::move(handler), ToolCallReply{{}, stoppedError()});
        return callId;
    }
    if (Member *own = hostMember(input.origin)) {
        auto answer = std::make_shared<ToolCallHandler>(std::move(handler));
        sendWhenConnected(
            own, callId,
            [this, callId, toolName, input, answer, onProgress = std::move(onProgress)](ConnectionSupervisor &supervisor) {
                return supervisor.callTool(
                    toolName, input,
                    [this, callId, answer](const ToolCallReply &reply) {
                        m_inFlight.erase(callId);
                        (*answer)(reply);
                    },
                    onProgress);
            },
            [answer](const JsonRpc::Error &error) { (*answer)(ToolCallReply{{}, error}); });
        return callId;
    }
    ConnectionSupervisor *primary = m_members.front()->supervisor.get();
    // Without a pool, or while the server is not up, the supervisor answers: at once, or with
    // why it cannot (reconnecting, failed, …).
    if (!m_exclusive || primary->state() != ServerState::Connected) {
        const SupervisedCall sent = primary->callTool(
            toolName, input,
            [this, callId, handler = std::move(handler)](const ToolCallReply &reply) {
                m_inFlight.erase(callId);
                handler(reply);
            },
            std::move(onProgress));
        track(callId, m_members.front()->id, sent);
        return callId;
    }
    const bool sessionFree = std::any_of(m_members.cbegin(), m_members.cend(), [](const auto &m) {
        return m->callsInFlight == 0 && m->supervisor->state() == ServerState::Connected;
    });
    if (!sessionFree && int(m_queue.size()) >= m_config.pool.maxQueue && int(m_members.size()) >= m_config.pool.max) {
        const QString reason = u"server '%1' is busy: all %2 sessions are taken and %3 calls are already waiting "
                               "(pool.max %2, pool.maxQueue %3); try again later or raise them"_s
                                   .arg(m_config.name)
                                   .arg(m_config.pool.max)
                                   .arg(m_config.pool.maxQueue);
        answerLater(this, std::move(handler), ToolCallReply::failure(JsonRpc::InternalError, reason));
        return callId;
    }
    m_queue.push_back({callId, toolName, input, std::move(handler), std::move(onProgress),
                       SteadyClock::now() + m_config.requestTimeout});
    dispatch();
    return callId;
}

void ServerPool::cancelCall(quint64 callId, const QString &reason)
{
    for (const auto &own : m_hostMembers) {
        const auto waiting = std::find_if(own->waiting.begin(), own->waiting.end(),
                                          [callId](const Member::Waiting &w) { return w.callId == callId; });
        if (waiting != own->waiting.end()) {
            const Member::Waiting call = std::move(*waiting);
            own->waiting.erase(waiting);
            call.fail({JsonRpc::RequestCancelled, reason, {}});
            return;
        }
    }
    const auto queued = std::find_if(m_queue.begin(), m_queue.end(), [callId](const QueuedCall &call) { return call.id == callId; });
    if (queued != m_queue.end()) {
        QueuedCall call = std::move(*queued);
        m_queue.erase(queued);
        call.handler(ToolCallReply::failure(JsonRpc::RequestCancelled, reason));
        return;
    }
    const auto inFlight = m_inFlight.find(callId);
    if (inFlight == m_inFlight.end())
        return;
    const CallInFlight call = inFlight->second;
    if (ConnectionSupervisor *supervisor = supervisorOf(call.memberId))
        supervisor->cancelCall(call.sent, reason); // answers through send()'s handler, which frees the session
}

void ServerPool::track(quint64 callId, int memberId, const SupervisedCall &sent)
{
    if (sent.generation != 0) // else the supervisor answers with an error and nothing is on the wire
        m_inFlight[callId] = {memberId, sent};
}

void ServerPool::dispatch()
{
    while (!m_queue.empty()) {
        const auto idle = std::find_if(m_members.begin(), m_members.end(), [](const auto &m) {
            return m->callsInFlight == 0 && m->supervisor->state() == ServerState::Connected;
        });
        if (idle == m_members.end())
            break;
        QueuedCall call = std::move(m_queue.front());
        m_queue.pop_front();
        send(idle->get(), std::move(call));
    }
    if (m_queue.empty() || m_stoppingAll)
        return;
    // Open more sessions, as many as the waiting calls need and the pool allows.
    qsizetype opening = std::count_if(m_members.cbegin(), m_members.cend(), [](const auto &m) {
        return m->supervisor->state() == ServerState::Starting;
    });
    while (int(m_members.size()) < m_config.pool.max && opening < qsizetype(m_queue.size())) {
        addMember()->supervisor->start();
        ++opening;
    }
}

void ServerPool::send(Member *target, QueuedCall call)
{
    ++target->callsInFlight;
    const int id = target->id;
    const quint64 callId = call.id;
    const SupervisedCall sent = target->supervisor->callTool(
        call.toolName, call.input,
        [this, id, callId, handler = std::move(call.handler)](const ToolCallReply &reply) {
            m_inFlight.erase(callId);
            if (Member *finished = member(id)) {
                --finished->callsInFlight;
                finished->idleSince = QDateTime::currentDateTimeUtc();
            }
            handler(reply);
            dispatch();
        },
        std::move(call.onProgress));
    track(callId, id, sent);
}

void ServerPool::expireQueuedCalls()
{
    const auto now = SteadyClock::now();
    while (!m_queue.empty() && m_queue.front().deadline <= now) {
        QueuedCall call = std::move(m_queue.front());
        m_queue.pop_front();
        call.handler(ToolCallReply::failure(
            JsonRpc::RequestTimeout,
            u"calling '%1' on server '%2' waited %3 for a free session (all %4 are busy); try again later or raise "
            "pool.max"_s.arg(call.toolName, m_config.name, formatDuration(m_config.requestTimeout))
                .arg(m_config.pool.max)));
    }
}

void ServerPool::closeIdleMembers()
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QList<int> idle;
    for (size_t index = size_t(minimumSessions()); index < m_members.size(); ++index) {
        const Member &candidate = *m_members[index];
        if (candidate.callsInFlight == 0 && candidate.supervisor->state() == ServerState::Connected
            && candidate.idleSince.msecsTo(now) >= m_idleTimeout.count())
            idle.append(candidate.id);
    }
    for (int id : std::as_const(idle))
        removeMember(id);
}

quint64 ServerPool::request(const QString &method, const QJsonObject &params, ReplyHandler handler,
                            ProgressHandler onProgress, std::weak_ptr<ClientSide> origin)
{
    const quint64 callId = m_nextCallId++;
    if (m_members.empty()) {
        answerLater(this, std::move(handler), RpcReply{{}, stoppedError()});
        return callId;
    }
    auto answer = std::make_shared<ReplyHandler>(std::move(handler));
    auto send = [this, callId, method, params, answer, onProgress = std::move(onProgress),
                 origin](ConnectionSupervisor &supervisor) {
        return supervisor.request(
            method, params,
            [this, callId, answer](const RpcReply &reply) {
                m_inFlight.erase(callId);
                (*answer)(reply);
            },
            onProgress, origin);
    };
    if (Member *own = hostMember(origin)) {
        sendWhenConnected(own, callId, std::move(send), [answer](const JsonRpc::Error &error) { (*answer)(RpcReply{{}, error}); });
        return callId;
    }
    track(callId, m_members.front()->id, send(*m_members.front()->supervisor));
    return callId;
}

void ServerPool::setResourceSubscribed(const QString &uri, bool subscribed, ReplyHandler done,
                                       std::weak_ptr<ClientSide> origin)
{
    if (m_members.empty()) {
        answerLater(this, std::move(done), RpcReply{{}, stoppedError()});
        return;
    }
    Member *target = hostMember(origin);
    (target ? target : m_members.front().get())->supervisor->setResourceSubscribed(uri, subscribed, std::move(done));
}

void ServerPool::setLogLevel(const QString &level, std::weak_ptr<ClientSide> origin)
{
    if (m_members.empty())
        return;
    if (const std::shared_ptr<ClientSide> client = origin.lock()) {
        // A host's own session takes its level; one it has not opened yet asks for it when it
        // connects (ClientSide::logLevel).
        for (const auto &own : m_hostMembers) {
            if (own->ownerKey == client.get())
                own->supervisor->setLogLevel(level);
        }
        return;
    }
    m_members.front()->supervisor->setLogLevel(level);
}

void ServerPool::notifyRootsChanged(std::weak_ptr<ClientSide> origin)
{
    const std::shared_ptr<ClientSide> client = origin.lock();
    if (!client) {
        for (const auto &member : m_members)
            member->supervisor->notifyRootsChanged();
        return;
    }
    for (const auto &own : m_hostMembers) {
        if (own->ownerKey == client.get())
            own->supervisor->notifyRootsChanged();
    }
}

void ServerPool::setClientSide(std::weak_ptr<ClientSide> clientSide)
{
    m_clientSide = clientSide;
    for (const auto &member : m_members)
        member->supervisor->setClientSide(clientSide);
}

void ServerPool::releaseClient(const ClientSide *client)
{
    QList<int> leaving;
    for (const auto &own : m_hostMembers) {
        if (own->ownerKey == client)
            leaving.append(own->id);
    }
    for (int id : std::as_const(leaving))
        removeMember(id);
}

ServerPool::Member *ServerPool::hostMember(const std::weak_ptr<ClientSide> &origin)
{
    if (!m_config.perHost || m_stoppingAll || m_members.empty())
        return nullptr;
    const std::shared_ptr<ClientSide> host = origin.lock();
    if (!host || !host->wantsOwnSession())
        return nullptr;
    for (const auto &own : m_hostMembers) {
        if (own->ownerKey == host.get() && !own->owner.expired())
            return own.get();
    }
    Member *member = addMember(origin);
    spdlog::info("server '{}': a session of its own for {} (perHost)", m_config.name, host->clientLabel());
    member->supervisor->start();
    return member;
}

void ServerPool::sendWhenConnected(Member *member, quint64 callId,
                                   std::function<SupervisedCall(ConnectionSupervisor &)> send,
                                   std::function<void(const JsonRpc::Error &)> fail)
{
    if (member->supervisor->state() == ServerState::Connected) {
        track(callId, member->id, send(*member->supervisor));
        return;
    }
    member->waiting.push_back({callId, SteadyClock::now() + m_config.requestTimeout, std::move(send), std::move(fail)});
    if (!m_housekeeping.isActive())
        m_housekeeping.start();
}

void ServerPool::flushWaiting(Member *member)
{
    std::deque<Member::Waiting> waiting;
    std::swap(waiting, member->waiting);
    const int id = member->id;
    const QPointer<ServerPool> self(this);
    for (Member::Waiting &call : waiting) {
        ConnectionSupervisor *supervisor = self ? supervisorOf(id) : nullptr;
        if (!supervisor) {
            call.fail({JsonRpc::ServerUnavailable, u"server '%1': the session closed"_s.arg(m_config.name), {}});
            continue;
        }
        track(call.callId, id, call.send(*supervisor));
    }
}

void ServerPool::failWaiting(Member *member, const JsonRpc::Error &error)
{
    std::deque<Member::Waiting> waiting;
    std::swap(waiting, member->waiting);
    for (const Member::Waiting &call : waiting)
        call.fail(error);
}

void ServerPool::expireWaiting()
{
    const auto now = SteadyClock::now();
    bool anyWaiting = false;
    std::vector<std::pair<Member::Waiting, QString>> due; // answered once the books are in order
    for (const auto &own : m_hostMembers) {
        for (auto it = own->waiting.begin(); it != own->waiting.end();) {
            if (it->deadline <= now) {
                due.emplace_back(std::move(*it), hostLabelOf(own->owner));
                it = own->waiting.erase(it);
            } else {
                ++it;
            }
        }
        anyWaiting |= !own->waiting.empty();
    }
    if (!anyWaiting && !m_exclusive)
        m_housekeeping.stop();
    for (const auto &[call, host] : due) {
        call.fail({JsonRpc::RequestTimeout,
                   u"the session of %1 on server '%2' did not connect within %3"_s.arg(
                       host, m_config.name, formatDuration(m_config.requestTimeout)),
                   {}});
    }
}

void ServerPool::failQueue(const QString &reason)
{
    std::deque<QueuedCall> queue;
    std::swap(queue, m_queue);
    for (QueuedCall &call : queue)
        call.handler(ToolCallReply::failure(JsonRpc::ServerUnavailable, reason)); // never sent
}

} // namespace Tether
