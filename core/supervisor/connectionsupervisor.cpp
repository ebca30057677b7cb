#include "connectionsupervisor.h"
#include "failurecause.h"

#include "common/displaytext.h"
#include "common/duration.h"
#include "common/logging.h"
#include "session/mcpclientsession.h"

using namespace Qt::StringLiterals;
using namespace std::chrono;

namespace Tether {

ConnectionSupervisor::ConnectionSupervisor(QString name, TransportFactory transportFactory,
                                           SupervisorSettings settings, ToolRegistry *registry, QObject *parent)
    : QObject(parent)
    , m_name(std::move(name))
    , m_transportFactory(std::move(transportFactory))
    , m_settings(std::move(settings))
    , m_registry(registry)
    , m_core(m_settings.reconnect, m_settings.random)
    , m_toolSyncs([this](quint64 generation, ToolListHandler done) { return listToolsOf(generation, std::move(done)); },
                  [this](const ToolSyncQueue::Job &job, const ToolListReply &reply) { onSyncFinished(job, reply); })
    , m_heartbeat(m_settings.heartbeat,
                  [this](milliseconds timeout, ReplyHandler onReply) { return pingCurrent(timeout, std::move(onReply)); })
{
    for (QTimer *timer : {&m_backoffTimer, &m_barrierTimer, &m_stabilityTimer})
        timer->setSingleShot(true);
    // Backoff delays are part of the policy a person set: keep them to the millisecond.
    m_backoffTimer.setTimerType(Qt::PreciseTimer);
    m_stabilityTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_backoffTimer, &QTimer::timeout, this, &ConnectionSupervisor::onBackoffElapsed);
    connect(&m_barrierTimer, &QTimer::timeout, this, &ConnectionSupervisor::onBarrierTimeout);
    connect(&m_stabilityTimer, &QTimer::timeout, this, &ConnectionSupervisor::onStabilityWindowElapsed);
    connect(&m_heartbeat, &Heartbeat::missed, this, [this](int misses, int maxFailures) {
        spdlog::warn("{}: missed a heartbeat ({}/{})", label(), misses, maxFailures);
        publish();
    });
    connect(&m_heartbeat, &Heartbeat::answeredAgain, this, [this] {
        spdlog::info("{}: answers pings again", label());
        publish();
    });
    // The heartbeat runs only while the current generation is established. A server that
    // answers no ping cannot react to a polite close either: it is ended at once.
    connect(&m_heartbeat, &Heartbeat::lost, this, [this](const QString &reason) {
        onGenerationFailed(m_currentGeneration, reason, Ending::AtOnce);
    });
}

ConnectionSupervisor::~ConnectionSupervisor()
{
    // Destroyed without stop() (Tether quitting): the transports kill their processes.
    m_stopping = true;
    m_currentGeneration = 0;
    for (auto &[number, generation] : m_generations)
        generation->session->disconnect(this);
}

static spdlog::level::level_enum outcomeLevel(const SupervisorSettings &settings)
{
    return settings.outcomesLoggedAsErrors ? spdlog::level::err : spdlog::level::info;
}

QString ConnectionSupervisor::label() const
{
    return u"server '%1'"_s.arg(m_name);
}

QString ConnectionSupervisor::signInAdvice() const
{
    return m_settings.signInAdvice.isEmpty() ? u"use Sign in, or run: "_s + signInCommand(m_name)
                                             : m_settings.signInAdvice;
}

bool ConnectionSupervisor::isCurrent(quint64 generation) const
{
    return !m_stopping && generation != 0 && generation == m_currentGeneration;
}

ConnectionSupervisor::Generation *ConnectionSupervisor::current() const
{
    const auto it = m_generations.find(m_currentGeneration);
    return it == m_generations.end() || m_stopping ? nullptr : it->second.get();
}

ServerStatus ConnectionSupervisor::status() const
{
    ServerStatus status;
    status.name = m_name;
    const Generation *generation = current();
    status.transport = generation ? generation->session->transport()->description() : m_transportDescription;
    status.state = m_core.state();
    status.reason = m_reason;
    status.attempt = m_core.attempt();
    status.maxAttempts = m_core.policy().maxAttempts;
    status.nextDelayMs = m_nextDelayMs;
    status.nextRetryAt = m_nextRetryAt;
    status.generation = m_generationCount;
    status.pid = generation ? generation->session->transport()->processId() : 0;
    status.toolCount = int(m_registry->serverTools(m_name).size());
    status.connectedSince = m_connectedSince;
    status.heartbeatMisses = m_heartbeat.misses();
    status.protocolVersion = m_protocolVersion;
    status.lastError = m_lastError;
    status.cause = m_cause;
    if (m_core.state() == ServerState::SignInNeeded) {
        status.signInScope = m_signInScope;
        status.scopeRefused = m_scopeRefused;
    }
    status.lastExitCode = m_lastExitCode;
    status.lastExitSignal = m_lastExitSignal;
    status.lastStderrTail = m_lastStderrTail;
    status.lastExitGeneration = m_lastExitGeneration;
    status.outages = m_core.outages();
    status.connectedMsTotal = m_core.connectedTime(SteadyClock::now()).count();
    return status;
}

void ConnectionSupervisor::publish()
{
    const ServerStatus snapshot = status();
    emit statusChanged(snapshot);
    if (snapshot.state != m_publishedState) {
        m_publishedState = snapshot.state;
        emit stateChanged(snapshot);
    }
}

void ConnectionSupervisor::start()
{
    const ServerState state = m_core.state();
    if (state != ServerState::Stopped && state != ServerState::Failed && state != ServerState::Disconnected
        && state != ServerState::SignInNeeded)
        return;
    m_stopping = false;
    // Stopped | Failed | Disconnected | SignInNeeded -> Starting
    apply(m_core.start(SteadyClock::now()), u"starting"_s);
}

void ConnectionSupervisor::reconnect()
{
    if (m_core.state() == ServerState::Stopping)
        return;
    m_stopping = false;
    m_launchPending = false;
    m_backoffTimer.stop();
    closeCurrentGeneration();
    spdlog::info("{}: reconnecting on request, with a fresh retry budget", label());
    // Any state but Stopping -> Starting
    apply(m_core.start(SteadyClock::now()), u"reconnect requested"_s);
}

void ConnectionSupervisor::stop()
{
    const ServerState state = m_core.state();
    if (state == ServerState::Stopping || (state == ServerState::Stopped && m_generations.empty()))
        return;
    m_launchPending = false;
    m_backoffTimer.stop();
    m_toolSyncs.clear();
    m_nextDelayMs.reset();
    m_nextRetryAt = {};
    m_reason = u"stopping"_s;
    // Any state but Stopped -> Stopping
    m_core.stopRequested(SteadyClock::now());
    publish();
    closeCurrentGeneration();
    // The fence: from here on nothing a generation says changes anything.
    m_stopping = true;
    m_registry->dropReplacements(m_name);
    if (m_generations.empty())
        finishStop(true);
    else
        m_barrierTimer.start(m_settings.closeTimeout);
}

void ConnectionSupervisor::finishStop(bool complete)
{
    m_barrierTimer.stop();
    // Every pending request failed when its session closed, so no sync is still running.
    m_toolSyncs.clear();
    m_registry->unregisterServer(m_name);
    setCatalog({});
    // Stopping -> Stopped
    m_core.stopFinished();
    m_heartbeat.clearMisses();
    if (complete) {
        m_reason = u"stopped"_s;
        spdlog::info("{}: stopped", label());
    } else {
        m_reason = u"incomplete shutdown: the server process (pid %1) did not exit within %2"_s.arg(
            lingeringPids(), formatDuration(m_settings.closeTimeout));
        m_lastError = m_reason;
        spdlog::error("{}: {}; Tether will not restart it. End it by hand (kill -9 {}) if it is still running",
                      label(), m_reason, lingeringPids());
    }
    publish();
    emit stopped(complete);
}

void ConnectionSupervisor::setReconnectPolicy(const ReconnectPolicy &policy)
{
    m_settings.reconnect = policy;
    const QString lastFailure = m_reason;
    const SupervisorDecision decision = m_core.setPolicy(policy, SteadyClock::now());
    using Action = SupervisorDecision::Action;
    switch (decision.action) {
    case Action::GiveUp:
        // Retrying | Reconnecting -> Failed
        m_backoffTimer.stop();
        apply(decision, u"gave up: the new reconnect policy allows %1 retr%2, and %3 already ran; last error: %4"_s
                            .arg(policy.maxAttempts)
                            .arg(policy.maxAttempts == 1 ? u"y"_s : u"ies"_s)
                            .arg(m_core.attempt())
                            .arg(lastFailure));
        break;
    case Action::WaitForManual:
        // Retrying | Reconnecting -> Disconnected
        m_backoffTimer.stop();
        apply(decision, u"reconnect was turned off, so the scheduled retry will not run; "_s
                            + reconnectAdvice(m_name, ReasonReader::Window) + u"; last error: "_s + lastFailure);
        break;
    case Action::ScheduleRetry:
        // Retrying | Reconnecting, the retry moved
        m_nextDelayMs = decision.delay.count();
        m_nextRetryAt = QDateTime::currentDateTimeUtc().addMSecs(decision.delay.count());
        m_backoffTimer.start(decision.delay);
        spdlog::info("{}: reconnect policy changed: retry {}/{} now starts in {}", label(), m_core.attempt(),
                     policy.maxAttempts, formatDuration(decision.delay));
        publish();
        break;
    default:
        publish(); // the budget shown is the new one
        break;
    }
}

void ConnectionSupervisor::setHeartbeatPolicy(const HeartbeatPolicy &policy)
{
    m_settings.heartbeat = policy;
    m_heartbeat.setPolicy(policy);
}

void ConnectionSupervisor::apply(const SupervisorDecision &decision, const QString &reason)
{
    using Action = SupervisorDecision::Action;
    m_nextDelayMs.reset();
    m_nextRetryAt = {};
    m_reason = reason;
    switch (decision.action) {
    case Action::None:
        break;
    case Action::StartAttempt:
        launchWhenClear();
        break;
    case Action::ScheduleRetry:
        m_nextDelayMs = decision.delay.count();
        m_nextRetryAt = QDateTime::currentDateTimeUtc().addMSecs(decision.delay.count());
        m_backoffTimer.start(decision.delay);
        spdlog::warn("{}: {}; retrying in {} (attempt {}/{})", label(), reason, formatDuration(decision.delay),
                     m_core.attempt(), m_core.policy().maxAttempts);
        break;
    case Action::GiveUp:
        m_registry->unregisterServer(m_name);
        setCatalog({});
        // Read in the window's log file and on tetherctl's stderr alike: no advice in either's words.
        spdlog::log(outcomeLevel(m_settings),
                    "{}: {}; its tools are unregistered and nothing restarts it until it is started again", label(),
                    reason);
        break;
    case Action::WaitForManual:
        spdlog::log(outcomeLevel(m_settings), "{}: {}", label(), reasonFor(reason, m_name, ReasonReader::Log));
        break;
    case Action::WaitForSignIn:
        // Nothing comes back until the user signs in: the tools go, as after Failed.
        m_registry->unregisterServer(m_name);
        setCatalog({});
        spdlog::warn("{}: {}", label(), reason);
        break;
    }
    publish();
}

void ConnectionSupervisor::launchWhenClear()
{
    if (m_generations.empty()) {
        m_launchPending = false;
        launchGeneration();
        return;
    }
    // No overlap: the previous generation must have closed (for stdio: its process exited).
    m_launchPending = true;
    if (!m_barrierTimer.isActive())
        m_barrierTimer.start(m_settings.closeTimeout);
}

void ConnectionSupervisor::launchGeneration()
{
    auto generation = std::make_unique<Generation>();
    generation->number = ++m_generationCount;
    const quint64 number = generation->number;
    generation->session = std::make_unique<McpClientSession>(
        m_transportFactory(), SessionOptions{m_name, m_settings.requestTimeout, m_settings.clientCapabilities,
                                             m_settings.clientSide, m_settings.roots, m_settings.pinnedEra,
                                             m_eraToTryFirst, m_settings.pinnedBy});
    McpClientSession *session = generation->session.get();
    m_transportDescription = session->transport()->description();

    connect(session, &McpClientSession::ready, this, [this, number] { onSessionReady(number); });
    connect(session, &McpClientSession::failed, this, [this, number, session](const QString &reason) {
        // A process that exited: its exit is part of the failure it causes.
        if (const std::optional<TransportClosure> &closure = session->transportClosure())
            recordExit(number, *closure);
        onGenerationFailed(number, reason);
    });
    connect(session, &McpClientSession::closed, this, [this, number, session](const SessionClosure &closure) {
        if (isCurrent(number))
            m_eraToTryFirst = session->eraToTryFirst();
        onGenerationClosed(number, closure);
    });
    connect(session, &McpClientSession::toolsListChanged, this, [this, number] {
        if (isCurrent(number))
            m_toolSyncs.enqueue(number, false);
    });
    connect(session, &McpClientSession::resourcesListChanged, this, [this, number] { syncResources(number); });
    connect(session, &McpClientSession::promptsListChanged, this, [this, number] { syncPrompts(number); });
    connect(session, &McpClientSession::stderrLine, this, [this, number](const QString &line) {
        if (isCurrent(number))
            emit stderrLine(line);
    });
    connect(session, &McpClientSession::logMessage, this,
            [this, number](const QString &level, const QString &logger, const QJsonValue &data) {
                if (isCurrent(number))
                    emit serverLogMessage(level, logger, data.isString() ? data.toString() : excerpt(JsonRpc::serialize(QJsonObject{{u"data"_s, data}}), 2000));
            });
    connect(session->transport(), &Transport::started, this, [this, number] {
        if (isCurrent(number))
            publish(); // the pid is known now
    });

    m_currentGeneration = number;
    m_heartbeat.clearMisses();
    m_generations.emplace(number, std::move(generation));
    spdlog::debug("{}: generation {} starting ({})", label(), number, m_transportDescription);
    session->open();
    publish();
}

void ConnectionSupervisor::onSessionReady(quint64 generation)
{
    if (!isCurrent(generation))
        return;
    const McpClientSession &session = *current()->session;
    m_eraToTryFirst = session.eraToTryFirst();
    m_protocolVersion = session.serverIdentity().protocolVersion;
    m_toolSyncs.enqueue(generation, true);
}

bool ConnectionSupervisor::listToolsOf(quint64 number, ToolListHandler done)
{
    Generation *generation = isCurrent(number) ? current() : nullptr;
    if (!generation || !generation->session->isReady())
        return false;
    generation->session->listTools(std::move(done));
    return true;
}

void ConnectionSupervisor::onSyncFinished(const ToolSyncQueue::Job &job, const ToolListReply &reply)
{
    if (!isCurrent(job.generation))
        return; // stale: inert
    if (reply.error) {
        if (job.initial) {
            onGenerationFailed(job.generation, reply.error->message);
        } else {
            spdlog::warn("{}: could not re-read its tools after list_changed ({}); the previous tools stay",
                         label(), reply.error->message);
        }
        return;
    }
    // Tens of thousands of tools are registered over several event-loop turns, so that other
    // servers are not held up meanwhile.
    m_registry->replaceServerToolsInTurns(m_name, reply.tools, this, [this, job, count = reply.tools.size()](const ToolChange &change) {
        onToolsRegistered(job, change, count);
    });
}

void ConnectionSupervisor::onToolsRegistered(const ToolSyncQueue::Job &job, const ToolChange &change, qsizetype toolCount)
{
    if (!isCurrent(job.generation)) {
        // It ended while its tools were being registered (a stop drops them): as if they had come
        // just before the end, they stay, unavailable, until a generation connects.
        m_registry->setServerAvailable(m_name, false);
        return;
    }
    Generation *generation = current();
    m_registry->setServerAvailable(m_name, true);
    if (!change.isEmpty()) {
        spdlog::info("{}: tools changed: {} added, {} removed, {} changed", label(), change.added.size(),
                     change.removed.size(), change.changed.size());
    }
    if (!job.initial || generation->established) {
        publish();
        return;
    }

    generation->established = true;
    const auto now = SteadyClock::now();
    const bool recovering = m_core.inOutage();
    const int attempts = m_core.attempt();
    const auto outageStart = m_core.outageStartedAt();
    m_connectedSince = QDateTime::currentDateTimeUtc();
    if (recovering && outageStart) {
        spdlog::info("{}: recovered after {} attempt{}; down for {}", label(), attempts, attempts == 1 ? "" : "s",
                     formatDuration(duration_cast<milliseconds>(now - *outageStart)));
    } else {
        spdlog::info("{}: connected with {} tools", label(), toolCount);
    }
    // Starting -> Connected
    m_cause.clear();
    apply(m_core.connected(now), recovering ? u"recovered"_s : u"connected"_s);
    m_heartbeat.start();
    if (const auto stable = m_core.stableAt())
        m_stabilityTimer.start(duration_cast<milliseconds>(*stable - now));
    if (McpClientSession *established = isCurrent(job.generation) ? establishedSession() : nullptr)
        sendClientWishes(established);
    // What the state change set off may have ended the generation meanwhile.
    McpClientSession *session = m_settings.listsCatalog && isCurrent(job.generation) ? establishedSession() : nullptr;
    if (!session)
        return;
    ServerCatalog catalog = m_catalog;
    catalog.offersResources = session->offers(u"resources");
    catalog.offersPrompts = session->offers(u"prompts");
    catalog.capabilities = session->serverIdentity().capabilities;
    catalog.resourcesListed = !catalog.offersResources;
    catalog.promptsListed = !catalog.offersPrompts;
    if (!catalog.offersResources) {
        catalog.resources.clear();
        catalog.templates.clear();
        catalog.resourcesError.clear();
    }
    if (!catalog.offersPrompts) {
        catalog.prompts.clear();
        catalog.promptsError.clear();
    }
    setCatalog(std::move(catalog));
    syncResources(job.generation);
    syncPrompts(job.generation);
}

McpClientSession *ConnectionSupervisor::establishedSession() const
{
    const Generation *generation = current();
    return generation && generation->established && generation->session->isReady() ? generation->session.get()
                                                                                    : nullptr;
}

void ConnectionSupervisor::setCatalog(ServerCatalog catalog)
{
    if (catalog == m_catalog)
        return;
    m_catalog = std::move(catalog);
    emit catalogChanged(m_catalog);
}

void ConnectionSupervisor::syncResources(quint64 number)
{
    McpClientSession *session = isCurrent(number) && m_settings.listsCatalog ? establishedSession() : nullptr;
    if (!session || !session->offers(u"resources"))
        return; // not established yet: the first listing, once it is, reads the newest list
    const quint64 sync = ++m_resourceSyncs;
    session->listResources([this, number, sync](const ResourceListReply &reply) {
        if (!isCurrent(number) || sync != m_resourceSyncs)
            return;
        ServerCatalog catalog = m_catalog;
        catalog.resourcesListed = true;
        if (reply.error) {
            spdlog::warn("{}: could not list its resources ({}); the previous list stays", label(), reply.error->message);
            catalog.resourcesError = reply.error->message;
        } else {
            catalog.resources = reply.resources;
            catalog.templates = reply.templates;
            catalog.resourcesError.clear();
        }
        setCatalog(std::move(catalog));
    });
}

void ConnectionSupervisor::syncPrompts(quint64 number)
{
    McpClientSession *session = isCurrent(number) && m_settings.listsCatalog ? establishedSession() : nullptr;
    if (!session || !session->offers(u"prompts"))
        return;
    const quint64 sync = ++m_promptSyncs;
    session->listPrompts([this, number, sync](const PromptListReply &reply) {
        if (!isCurrent(number) || sync != m_promptSyncs)
            return;
        ServerCatalog catalog = m_catalog;
        catalog.promptsListed = true;
        if (reply.error) {
            spdlog::warn("{}: could not list its prompts ({}); the previous list stays", label(), reply.error->message);
            catalog.promptsError = reply.error->message;
        } else {
            catalog.prompts = reply.prompts;
            catalog.promptsError.clear();
        }
        setCatalog(std::move(catalog));
    });
}

void ConnectionSupervisor::onStabilityWindowElapsed()
{
    const auto now = SteadyClock::now();
    if (m_core.checkStability(now)) {
        spdlog::info("{}: stable for {}; its retry budget is reset", label(),
                     formatDuration(m_core.policy().stabilityWindow()));
        publish();
    } else if (const auto stable = m_core.stableAt()) {
        m_stabilityTimer.start(duration_cast<milliseconds>(*stable - now) + milliseconds(1));
    }
}

void ConnectionSupervisor::onGenerationFailed(quint64 number, const QString &reason, Ending ending)
{
    if (!isCurrent(number))
        return;
    Generation *generation = current();
    if (generation->failureHandled)
        return;
    generation->failureHandled = true;
    m_currentGeneration = 0;
    m_lastError = reason;
    m_connectedSince = {};
    m_heartbeat.stop();
    m_stabilityTimer.stop();
    m_registry->setServerAvailable(m_name, false);

    const auto now = SteadyClock::now();
    const bool established = generation->established;
    McpClientSession *session = generation->session.get();
    const std::optional<TransportClosure> &closure = session->transportClosure();
    FailureFacts facts;
    facts.error = reason;
    facts.signsIn = session->transport()->signsIn();
    if (closure) {
        facts.program = closure->program;
        facts.startErrno = closure->startErrno;
        facts.exitCode = closure->exitCode;
        facts.exitSignal = closure->exitSignal;
        facts.lastStderrLine = closure->lastStderrLine();
    }
    const FailureCause cause = failureCause(facts);
    if ((closure && closure->signIn) || cause.signInScope) {
        // Starting | Connected -> SignInNeeded: no retry, whatever the policy. A refusal for want
        // of scope says already what to do.
        const bool challenged = closure && closure->signIn;
        m_signInScope = challenged ? closure->signIn->challenge.scope.simplified() : *cause.signInScope;
        m_scopeRefused = !challenged;
        m_cause = u"sign-in needed"_s;
        apply(m_core.signInNeeded(now), challenged ? u"sign-in needed: %1: %2; %3"_s.arg(closure->error, closure->signIn->reason,
                                                                                             signInAdvice())
                                                   : u"sign-in needed: "_s + reason);
        session->close();
        return;
    }
    // Starting -> Retrying | Failed | Disconnected ("connection failed"),
    // Connected -> Reconnecting | Failed | Disconnected ("connection lost")
    m_cause = cause.text();
    const SupervisorDecision decision = !cause.retryable ? m_core.unfixableFailure(now)
                                        : established    ? m_core.connectionLost(now)
                                                         : m_core.attemptFailed(now);
    const QString what = (established ? u"connection lost: "_s : u"connection failed: "_s) + reason;
    switch (decision.action) {
    case SupervisorDecision::Action::GiveUp:
        if (!cause.retryable) {
            // With what to do: the reason is what tetherctl prints and the log keeps.
            apply(decision, u"%1; not retried, since no retry can fix %2"_s.arg(what, cause.text()));
            break;
        }
        apply(decision, u"gave up after %1 attempt%2; last error: %3"_s.arg(m_core.attempt())
                            .arg(m_core.attempt() == 1 ? u""_s : u"s"_s, what));
        break;
    case SupervisorDecision::Action::WaitForManual:
        apply(decision, what + u"; reconnect is disabled for this server; "_s + reconnectAdvice(m_name, ReasonReader::Window));
        break;
    default:
        apply(decision, what);
        break;
    }
    // Closed only now that the decision is published: a transport may report closed at once
    // (freeing `generation`), and that report must not be the first word of the new state.
    session->close();
    if (ending == Ending::AtOnce)
        session->transport()->abort();
}

void ConnectionSupervisor::closeCurrentGeneration()
{
    Generation *generation = current();
    m_currentGeneration = 0;
    m_heartbeat.stop();
    m_stabilityTimer.stop();
    m_connectedSince = {};
    if (generation) {
        generation->failureHandled = true;
        m_registry->setServerAvailable(m_name, false);
        generation->session->close();
    }
}

void ConnectionSupervisor::recordExit(quint64 number, const TransportClosure &closure)
{
    if (closure.requested && !closure.exitCode && !closure.exitSignal)
        return; // a close Tether asked for says nothing about the server
    m_lastExitCode = closure.exitCode;
    m_lastExitSignal = closure.exitSignal;
    m_lastStderrTail = closure.stderrTail;
    m_lastExitGeneration = number;
}

void ConnectionSupervisor::onGenerationClosed(quint64 number, const SessionClosure &closure)
{
    if (!m_generations.contains(number))
        return;
    // Recorded before the failure below is published, so that it reports this process's exit.
    recordExit(number, closure.transport);
    // A current generation that closes without having failed first (nothing else told us).
    if (isCurrent(number))
        onGenerationFailed(number, closure.describe());

    const auto it = m_generations.find(number);
    if (it == m_generations.end())
        return; // closed again, re-entrantly, by the failure's own close
    std::unique_ptr<Generation> generation = std::move(it->second);
    m_generations.erase(it);
    // Its signal is still being delivered: delete it once that is over.
    generation->session.release()->deleteLater();

    if (!m_generations.empty()) {
        publish();
        return;
    }
    m_barrierTimer.stop();
    if (m_stopping && m_core.state() == ServerState::Stopping) {
        finishStop(true);
    } else if (m_launchPending) {
        m_launchPending = false;
        launchGeneration();
    } else {
        publish();
    }
}

void ConnectionSupervisor::onBackoffElapsed()
{
    // Retrying | Reconnecting -> Starting
    apply(m_core.retryDue(), u"retrying (attempt %1/%2)"_s.arg(m_core.attempt()).arg(m_core.policy().maxAttempts));
}

QString ConnectionSupervisor::lingeringPids() const
{
    QStringList pids;
    for (const auto &[number, generation] : m_generations)
        pids.append(QString::number(generation->session->transport()->processId()));
    return pids.join(u", "_s);
}

void ConnectionSupervisor::onBarrierTimeout()
{
    if (m_generations.empty())
        return;
    if (m_stopping) {
        finishStop(false);
        return;
    }
    if (!m_launchPending)
        return;
    m_launchPending = false;
    m_backoffTimer.stop();
    const QString reason = u"could not stop the previous server process, pid %1, within %2; not reconnecting so "
                           "that two copies never run at once. End it by hand (kill -9 %1), then use Start"_s
                               .arg(lingeringPids(), formatDuration(m_settings.closeTimeout));
    m_lastError = reason;
    // Starting -> Failed
    apply(m_core.abandon(SteadyClock::now()), reason);
}

std::optional<QString> ConnectionSupervisor::pingCurrent(milliseconds timeout, ReplyHandler onReply)
{
    Generation *generation = current();
    if (!generation || !generation->session->isReady())
        return std::nullopt;
    return generation->session->ping(std::move(onReply), timeout);
}

SupervisedCall ConnectionSupervisor::callTool(const QString &toolName, const ToolCallInput &input,
                                             ToolCallHandler handler,
                                             ProgressHandler onProgress)
{
    if (McpClientSession *session = establishedSession())
        return {m_currentGeneration, session->callTool(toolName, input, std::move(handler), std::move(onProgress))};
    // Fail fast, but never re-enter the caller.
    answerLater(this, std::move(handler), ToolCallReply::failure(JsonRpc::ServerUnavailable, unavailableReason()));
    return {};
}

void ConnectionSupervisor::readResource(const QString &uri, ResourceReadHandler handler)
{
    if (McpClientSession *session = establishedSession()) {
        session->readResource(uri, std::move(handler));
        return;
    }
    answerLater(this, std::move(handler),
                ResourceReadReply{{}, JsonRpc::Error{JsonRpc::ServerUnavailable, unavailableReason(), {}}});
}

void ConnectionSupervisor::getPrompt(const QString &name, const QJsonObject &arguments, PromptHandler handler)
{
    if (McpClientSession *session = establishedSession()) {
        session->getPrompt(name, arguments, std::move(handler));
        return;
    }
    answerLater(this, std::move(handler),
                PromptReply{{}, JsonRpc::Error{JsonRpc::ServerUnavailable, unavailableReason(), {}}});
}

SupervisedCall ConnectionSupervisor::request(const QString &method, const QJsonObject &params, ReplyHandler handler,
                                             ProgressHandler onProgress, std::weak_ptr<ClientSide> origin)
{
    if (McpClientSession *session = establishedSession()) {
        return {m_currentGeneration,
                session->request(method, params, std::move(handler), std::move(onProgress), {}, std::move(origin))};
    }
    answerLater(this, std::move(handler), RpcReply::failure(JsonRpc::ServerUnavailable, unavailableReason()));
    return {};
}

void ConnectionSupervisor::setResourceSubscribed(const QString &uri, bool subscribed, ReplyHandler done)
{
    if (subscribed)
        m_subscriptions.insert(uri);
    else
        m_subscriptions.remove(uri);
    McpClientSession *session = establishedSession();
    if (!session) {
        answerLater(this, std::move(done), RpcReply{QJsonObject{}, std::nullopt});
        return;
    }
    const QPointer<ConnectionSupervisor> self(this);
    session->request(subscribed ? u"resources/subscribe"_s : u"resources/unsubscribe"_s, {{u"uri"_s, uri}},
                     [self, uri, subscribed, done = std::move(done)](const RpcReply &reply) {
                         if (self && subscribed && !reply.ok())
                             self->m_subscriptions.remove(uri);
                         done(reply);
                     });
}

void ConnectionSupervisor::setLogLevel(const QString &level)
{
    if (level == m_logLevel)
        return;
    m_logLevel = level;
    McpClientSession *session = establishedSession();
    if (session && !level.isEmpty() && session->offers(u"logging")) {
        session->request(u"logging/setLevel"_s, {{u"level"_s, level}}, [this, level](const RpcReply &reply) {
            if (!reply.ok())
                spdlog::warn("{}: refused log level '{}': {}", label(), level, reply.error->message);
        });
    }
}

void ConnectionSupervisor::notifyRootsChanged()
{
    if (McpClientSession *session = establishedSession())
        session->notifyRootsChanged();
}

void ConnectionSupervisor::setClientSide(std::weak_ptr<ClientSide> clientSide)
{
    m_settings.clientSide = clientSide;
    for (const auto &[number, generation] : m_generations)
        generation->session->setClientSide(clientSide);
}

void ConnectionSupervisor::sendClientWishes(McpClientSession *session)
{
    const QPointer<ConnectionSupervisor> self(this);
    if (m_logLevel.isEmpty()) {
        if (const std::shared_ptr<ClientSide> client = m_settings.clientSide.lock())
            m_logLevel = client->logLevel();
    }
    if (!m_logLevel.isEmpty() && session->offers(u"logging")) {
        session->request(u"logging/setLevel"_s, {{u"level"_s, m_logLevel}}, [self, level = m_logLevel](const RpcReply &reply) {
            if (self && !reply.ok())
                spdlog::warn("{}: refused log level '{}': {}", self->label(), level, reply.error->message);
        });
    }
    for (const QString &uri : std::as_const(m_subscriptions)) {
        session->request(u"resources/subscribe"_s, {{u"uri"_s, uri}}, [self, uri](const RpcReply &reply) {
            if (self && !reply.ok())
                spdlog::warn("{}: could not subscribe to {} again after reconnecting: {}", self->label(), uri,
                             reply.error->message);
        });
    }
}

QString ConnectionSupervisor::unavailableReason() const
{
    QString reason;
    switch (m_core.state()) {
    case ServerState::Starting:
    case ServerState::Retrying:
    case ServerState::Reconnecting:
        reason = m_core.inOutage() ? u"%1 is reconnecting (attempt %2/%3); try again shortly"_s.arg(label())
                                         .arg(m_core.attempt())
                                         .arg(m_core.policy().maxAttempts)
                                   : u"%1 is still starting; try again shortly"_s.arg(label());
        break;
    case ServerState::Failed:
        reason = u"%1 has failed (%2); reconnect it to use its tools"_s.arg(label(), m_lastError);
        break;
    case ServerState::Disconnected:
        reason = u"%1 is disconnected and reconnect is disabled; reconnect it to use its tools"_s.arg(label());
        break;
    case ServerState::SignInNeeded:
        reason = u"%1 needs sign-in; %2"_s.arg(label(), signInAdvice());
        break;
    default:
        reason = u"%1 is %2"_s.arg(label(), stateName(m_core.state()).toLower());
        break;
    }
    return reason;
}

void ConnectionSupervisor::cancelCall(const SupervisedCall &call, const QString &reason)
{
    // A closing generation may still hold the call: it is cancelled there too.
    const auto it = m_generations.find(call.generation);
    if (it != m_generations.end() && it->second->session)
        it->second->session->cancel(call.requestId, reason);
}

} // namespace Tether
