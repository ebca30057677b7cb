#include "supervisorcore.h"

#include <QRandomGenerator>

#include <algorithm>
#include <cmath>
#include <utility>

namespace Tether {

SupervisorCore::SupervisorCore(ReconnectPolicy policy, RandomSource random)
    : m_policy(policy)
    , m_random(random ? std::move(random) : RandomSource([] { return QRandomGenerator::global()->generateDouble(); }))
{}

std::chrono::milliseconds SupervisorCore::retryDelay(int retry)
{
    const double base = double(m_policy.baseDelay(retry).count());
    const double factor = 1.0 - m_policy.jitter + 2.0 * m_policy.jitter * m_random();
    const double delay = std::min(std::round(base * factor), double(m_policy.maxDelayMs));
    return std::chrono::milliseconds(qint64(std::max(delay, 0.0)));
}

SupervisorDecision SupervisorCore::start(SteadyClock::time_point now)
{
    // * -> Starting, with a fresh budget
    m_inOutage = false;
    m_retries = 0;
    m_outageStartedAt.reset();
    leaveConnected(now);
    m_state = ServerState::Starting;
    return {SupervisorDecision::Action::StartAttempt, m_state, {}};
}

SupervisorDecision SupervisorCore::retryDue()
{
    if (m_state != ServerState::Retrying && m_state != ServerState::Reconnecting)
        return {SupervisorDecision::Action::None, m_state, {}};
    // Retrying | Reconnecting -> Starting
    m_state = ServerState::Starting;
    return {SupervisorDecision::Action::StartAttempt, m_state, {}};
}

SupervisorDecision SupervisorCore::connected(SteadyClock::time_point now)
{
    if (m_state != ServerState::Starting)
        return {SupervisorDecision::Action::None, m_state, {}};
    // Starting -> Connected; an outage stays open until the stability window has passed.
    m_state = ServerState::Connected;
    m_connectedAt = now;
    return {SupervisorDecision::Action::None, m_state, {}};
}

bool SupervisorCore::checkStability(SteadyClock::time_point now)
{
    const auto stable = stableAt();
    if (!stable || now < *stable)
        return false;
    m_inOutage = false;
    m_retries = 0;
    m_outageStartedAt.reset();
    return true;
}

std::chrono::milliseconds SupervisorCore::connectedTime(SteadyClock::time_point now) const
{
    SteadyClock::duration total = m_connectedBefore;
    if (m_connectedAt)
        total += std::max(now - *m_connectedAt, SteadyClock::duration{});
    return std::chrono::duration_cast<std::chrono::milliseconds>(total);
}

void SupervisorCore::leaveConnected(SteadyClock::time_point now)
{
    if (m_connectedAt)
        m_connectedBefore += std::max(now - *m_connectedAt, SteadyClock::duration{});
    m_connectedAt.reset();
}

std::optional<SteadyClock::time_point> SupervisorCore::stableAt() const
{
    if (m_state != ServerState::Connected || !m_inOutage || !m_connectedAt)
        return std::nullopt;
    return *m_connectedAt + m_policy.stabilityWindow();
}

SupervisorDecision SupervisorCore::attemptFailed(SteadyClock::time_point now)
{
    if (m_state != ServerState::Starting)
        return {SupervisorDecision::Action::None, m_state, {}};
    return failure(now, false);
}

SupervisorDecision SupervisorCore::connectionLost(SteadyClock::time_point now)
{
    if (m_state != ServerState::Connected)
        return {SupervisorDecision::Action::None, m_state, {}};
    checkStability(now);
    return failure(now, true);
}

SupervisorDecision SupervisorCore::unfixableFailure(SteadyClock::time_point now)
{
    if (m_state != ServerState::Starting && m_state != ServerState::Connected)
        return {SupervisorDecision::Action::None, m_state, {}};
    if (!m_policy.enabled)
        return failure(now, m_state == ServerState::Connected);
    // Starting | Connected -> Failed, the budget untouched
    m_connectedAt.reset();
    if (!m_inOutage) {
        m_inOutage = true;
        m_outageStartedAt = now;
    }
    m_state = ServerState::Failed;
    return {SupervisorDecision::Action::GiveUp, m_state, {}};
}

SupervisorDecision SupervisorCore::signInNeeded(SteadyClock::time_point now)
{
    if (m_state != ServerState::Starting && m_state != ServerState::Connected)
        return {SupervisorDecision::Action::None, m_state, {}};
    // Starting | Connected -> SignInNeeded
    leaveConnected(now);
    m_inOutage = false;
    m_retries = 0;
    m_outageStartedAt.reset();
    m_state = ServerState::SignInNeeded;
    return {SupervisorDecision::Action::WaitForSignIn, m_state, {}};
}

SupervisorDecision SupervisorCore::failure(SteadyClock::time_point now, bool wasEstablished)
{
    leaveConnected(now);
    if (!m_inOutage) {
        ++m_outages;
        m_inOutage = true;
        m_retries = 0;
        m_outageStartedAt = now;
    }
    if (!m_policy.enabled) {
        // Starting | Connected -> Disconnected
        m_state = ServerState::Disconnected;
        return {SupervisorDecision::Action::WaitForManual, m_state, {}};
    }
    if (m_retries >= m_policy.maxAttempts) {
        // Starting | Connected -> Failed
        m_state = ServerState::Failed;
        return {SupervisorDecision::Action::GiveUp, m_state, {}};
    }
    ++m_retries;
    // Starting -> Retrying ("connection failed"), Connected -> Reconnecting ("connection lost")
    m_state = wasEstablished ? ServerState::Reconnecting : ServerState::Retrying;
    m_retryScheduledAt = now;
    return {SupervisorDecision::Action::ScheduleRetry, m_state, retryDelay(m_retries)};
}

bool SupervisorCore::waitingForRetry() const
{
    return m_state == ServerState::Retrying || m_state == ServerState::Reconnecting;
}

std::optional<SteadyClock::time_point> SupervisorCore::retryScheduledAt() const
{
    return waitingForRetry() ? std::optional(m_retryScheduledAt) : std::nullopt;
}

SupervisorDecision SupervisorCore::setPolicy(const ReconnectPolicy &policy, SteadyClock::time_point now)
{
    const ReconnectPolicy previous = std::exchange(m_policy, policy);
    if (!waitingForRetry() || policy == previous)
        return {SupervisorDecision::Action::None, m_state, {}};
    if (!policy.enabled) {
        // Retrying | Reconnecting -> Disconnected: the scheduled retry never runs
        --m_retries;
        m_state = ServerState::Disconnected;
        return {SupervisorDecision::Action::WaitForManual, m_state, {}};
    }
    if (m_retries > policy.maxAttempts) {
        // Retrying | Reconnecting -> Failed: the retries that ran already spend the new budget
        --m_retries;
        m_state = ServerState::Failed;
        return {SupervisorDecision::Action::GiveUp, m_state, {}};
    }
    const bool sameCurve = policy.initialDelayMs == previous.initialDelayMs && policy.maxDelayMs == previous.maxDelayMs
                           && policy.jitter == previous.jitter;
    if (sameCurve)
        return {SupervisorDecision::Action::None, m_state, {}}; // the retry keeps its time (and its jitter)
    // Retrying | Reconnecting, the retry moved to its time on the new curve (at once when that has passed)
    const SteadyClock::time_point due = m_retryScheduledAt + retryDelay(m_retries);
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(std::max(due - now, SteadyClock::duration{}));
    return {SupervisorDecision::Action::ScheduleRetry, m_state, left};
}

SupervisorDecision SupervisorCore::abandon(SteadyClock::time_point now)
{
    // * -> Failed
    m_state = ServerState::Failed;
    leaveConnected(now);
    return {SupervisorDecision::Action::GiveUp, m_state, {}};
}

SupervisorDecision SupervisorCore::stopRequested(SteadyClock::time_point now)
{
    if (m_state == ServerState::Stopped)
        return {SupervisorDecision::Action::None, m_state, {}};
    // * -> Stopping
    m_state = ServerState::Stopping;
    leaveConnected(now);
    return {SupervisorDecision::Action::None, m_state, {}};
}

SupervisorDecision SupervisorCore::stopFinished()
{
    if (m_state != ServerState::Stopping)
        return {SupervisorDecision::Action::None, m_state, {}};
    // Stopping -> Stopped
    m_state = ServerState::Stopped;
    m_inOutage = false;
    m_retries = 0;
    m_outageStartedAt.reset();
    m_connectedAt.reset();
    return {SupervisorDecision::Action::None, m_state, {}};
}

} // namespace Tether
