#include "callwait.h"

#include "common/duration.h"

using namespace Qt::StringLiterals;

namespace Tether {

CallVerdict judgeCall(const CallTarget &target, qint64 msLeft)
{
    if (!target.enabled)
        return CallVerdict::Unavailable;
    switch (target.state) {
    case ServerState::Connected:
        return CallVerdict::Send;
    case ServerState::Starting:
        return msLeft > 0 ? CallVerdict::Wait : CallVerdict::Unavailable;
    case ServerState::Retrying:
    case ServerState::Reconnecting:
        // A retry due after the deadline cannot connect in time.
        if (msLeft <= 0 || (target.msUntilNextRetry && *target.msUntilNextRetry > msLeft))
            return CallVerdict::Unavailable;
        return CallVerdict::Wait;
    case ServerState::Stopped:
        return target.startPending && msLeft > 0 ? CallVerdict::Wait : CallVerdict::Unavailable;
    case ServerState::Failed:
    case ServerState::Disconnected:
    case ServerState::SignInNeeded: // nothing comes back before the user signs in
    case ServerState::Stopping:
        return CallVerdict::Unavailable;
    }
    return CallVerdict::Unavailable;
}

QString unavailableReason(const ServerStatus &status, bool enabled, qint64 waitedMs, const QDateTime &now)
{
    const QString server = u"server '%1'"_s.arg(status.name);
    const QString lastError = status.lastError.isEmpty() ? QString() : u" (last error: %1)"_s.arg(status.lastError);
    if (!enabled)
        return u"%1 is disabled; enable it in Tether to use its tools"_s.arg(server);
    const QString waited = waitedMs > 0 ? u"; waited %1"_s.arg(formatDuration(std::chrono::milliseconds(waitedMs)))
                                        : QString();
    switch (status.state) {
    case ServerState::Starting:
        // A retry of an outage in progress: which one it is, not "still starting".
        if (status.attempt > 0)
            return u"%1 is starting again (attempt %2/%3)%4; try again shortly"_s.arg(
                server, QString::number(status.attempt), QString::number(status.maxAttempts), waited);
        return u"%1 is still starting%2; try again shortly"_s.arg(server, waited);
    case ServerState::Retrying:
    case ServerState::Reconnecting: {
        QString detail = u"attempt %1/%2"_s.arg(status.attempt).arg(status.maxAttempts);
        if (status.nextRetryAt.isValid())
            detail += u", next retry in %1"_s.arg(
                formatDuration(std::chrono::milliseconds(std::max<qint64>(0, now.msecsTo(status.nextRetryAt)))));
        return u"%1 is %2 (%3)%4; try again shortly"_s.arg(server, stateName(status.state).toLower(), detail, waited);
    }
    case ServerState::Failed:
        // A failure no retry can fix was tried once and not retried.
        if (status.attempt == 0)
            return u"%1 has failed%2; reconnect it in Tether"_s.arg(server, lastError);
        return u"%1 has failed after %2 attempts%3; reconnect it in Tether"_s.arg(server).arg(status.attempt).arg(lastError);
    case ServerState::Disconnected:
        return u"%1 is disconnected and reconnect is off for it%2; reconnect it in Tether"_s.arg(server, lastError);
    case ServerState::SignInNeeded:
        return u"%1 needs sign-in; use Sign in in Tether, or run: %2"_s.arg(server, signInCommand(status.name));
    case ServerState::Stopped:
        return u"%1 is stopped; start it in Tether to use its tools"_s.arg(server);
    case ServerState::Stopping:
        return u"%1 is stopping"_s.arg(server);
    case ServerState::Connected:
        break;
    }
    return u"%1 is %2"_s.arg(server, stateName(status.state).toLower());
}

} // namespace Tether
