#pragma once

#include "config/policy.h"
#include "serverstate.h"

#include <QtGlobal>

#include <chrono>
#include <functional>
#include <optional>

namespace Tether {

using SteadyClock = std::chrono::steady_clock;
// Uniform in [0, 1). Injectable so that tests are exact.
using RandomSource = std::function<double()>;

struct SupervisorDecision
{
    enum class Action {
        None,
        StartAttempt,  // open a fresh generation now
        ScheduleRetry, // open one `delay` from now (and after the previous generation has closed)
        GiveUp,        // Failed: unregister the tools, restart nothing until a manual action
        WaitForManual, // Disconnected: reconnect is disabled
        WaitForSignIn, // Sign-in needed: unregister the tools, restart nothing until the user signs in
    };

    Action action = Action::None;
    ServerState state = ServerState::Stopped;
    std::chrono::milliseconds delay{0};
};

// The decisions of one connection supervisor, as plain values over events and timestamps:
// state, outage budget, backoff delay and the stability window. No timers, no I/O.
//
// An outage begins when an attempt fails or an established connection is lost. Within one
// outage there are at most maxAttempts retries; retry k waits min(initial * 2^(k-1), max),
// spread by jitter. A connection lost before it was up for the stability window counts as a
// failed retry of the same outage; one that stayed up longer ended the outage.
class SupervisorCore final
{
public:
    explicit SupervisorCore(ReconnectPolicy policy = {}, RandomSource random = {});

    // A new policy takes effect at once. While a retry is scheduled (Retrying | Reconnecting) the
    // outage is judged anew: GiveUp when the retries already used spend the new budget,
    // WaitForManual when reconnect is now off, ScheduleRetry (`delay` from `now`) when the pending
    // retry's delay on the new curve, counted from when it was scheduled, differs; the pending
    // retry is no longer counted when it is ended. Elsewhere nothing changes (None) and the policy
    // is used from the next decision on.
    SupervisorDecision setPolicy(const ReconnectPolicy &policy, SteadyClock::time_point now);
    const ReconnectPolicy &policy() const { return m_policy; }

    // Start, Reconnect, or a start after Failed/Disconnected: a fresh budget.
    SupervisorDecision start(SteadyClock::time_point now);
    // A scheduled retry is due and the previous generation has closed.
    SupervisorDecision retryDue();
    SupervisorDecision connected(SteadyClock::time_point now);
    // The attempt in progress failed before it was established.
    SupervisorDecision attemptFailed(SteadyClock::time_point now);
    // An established connection ended.
    SupervisorDecision connectionLost(SteadyClock::time_point now);
    // The attempt in progress failed, or the connection ended, for a cause no retry can fix
    // (failureCause's retryable is false): Failed at once, no retry spent; Disconnected as any
    // failure when reconnect is off.
    SupervisorDecision unfixableFailure(SteadyClock::time_point now);
    // The attempt in progress failed, or the connection ended, because the server asks for a
    // sign-in: Sign-in needed, whatever the reconnect policy, the outage ended and the budget
    // reset, since no retry can sign in and retrying only troubles the authorization server.
    SupervisorDecision signInNeeded(SteadyClock::time_point now);
    // Ends the outage once the connection has been up for the stability window. True if it did.
    bool checkStability(SteadyClock::time_point now);
    // The previous generation never reported closed: reconnecting could run two copies at once.
    SupervisorDecision abandon(SteadyClock::time_point now);
    SupervisorDecision stopRequested(SteadyClock::time_point now);
    SupervisorDecision stopFinished();

    ServerState state() const { return m_state; }
    bool inOutage() const { return m_inOutage; }
    // Retries used in the current outage, the one scheduled or under way included: the k of
    // "attempt k/N".
    int attempt() const { return m_retries; }
    // When the retry now scheduled was decided; nullopt unless Retrying | Reconnecting.
    std::optional<SteadyClock::time_point> retryScheduledAt() const;
    std::optional<SteadyClock::time_point> outageStartedAt() const { return m_outageStartedAt; }
    std::optional<SteadyClock::time_point> connectedAt() const { return m_connectedAt; }
    // When the current connection will have ended the outage; nullopt when none is pending.
    std::optional<SteadyClock::time_point> stableAt() const;
    // Outages begun so far (each counted once, however many retries it took).
    quint64 outages() const { return m_outages; }
    // Time spent Connected so far, the connection of now included.
    std::chrono::milliseconds connectedTime(SteadyClock::time_point now) const;

    // Retry k's delay with jitter applied; exposed for the settings preview and tests.
    std::chrono::milliseconds retryDelay(int retry);

private:
    bool waitingForRetry() const;
    SupervisorDecision failure(SteadyClock::time_point now, bool wasEstablished);
    // The connection of now, if any, ends: its time is added to the total.
    void leaveConnected(SteadyClock::time_point now);

    ReconnectPolicy m_policy;
    RandomSource m_random;
    ServerState m_state = ServerState::Stopped;
    bool m_inOutage = false;
    int m_retries = 0;
    std::optional<SteadyClock::time_point> m_outageStartedAt;
    std::optional<SteadyClock::time_point> m_connectedAt;
    SteadyClock::time_point m_retryScheduledAt{}; // meaningful while Retrying | Reconnecting
    quint64 m_outages = 0;
    SteadyClock::duration m_connectedBefore{}; // of the connections that have ended
};

} // namespace Tether
