#pragma once

#include "supervisor/serverstatus.h"

#include <QtGlobal>

#include <chrono>
#include <optional>

namespace Tether {

// How a tool call treats a server that is not connected. The defaults are those of the window and
// tetherctl: fail at once, never send a call twice.
struct CallOptions
{
    // How long a call to a server that is starting, retrying or reconnecting waits for it to
    // connect; 0: it fails at once.
    std::chrono::milliseconds waitForConnection{0};
    // A call whose connection was lost after it was sent goes once more after the reconnection,
    // within the same kind of wait, when the tool is annotated readOnlyHint or idempotentHint:
    // running it twice does no harm. Any other tool may have run, so its call fails.
    bool retryLostIfSafe = false;
};

// What a waiting call's server looks like now.
struct CallTarget
{
    ServerState state = ServerState::Stopped;
    bool enabled = true;
    bool startPending = false;              // stopped, but about to start (a restart with new settings)
    std::optional<qint64> msUntilNextRetry; // the retry scheduled now, if any
};

enum class CallVerdict {
    Send,        // connected
    Wait,        // it may connect before the deadline
    Unavailable, // it will not: answer now
};

// Whether a call with `msLeft` of its wait to go is sent, kept waiting, or answered now.
CallVerdict judgeCall(const CallTarget &target, qint64 msLeft);

// Why a call to the server of `status` was not sent, for the person or model that made it:
// "server 'github' is reconnecting (attempt 3/10, next retry in 4 s); waited 10 s; try again shortly".
// `waitedMs` 0: the call did not wait.
QString unavailableReason(const ServerStatus &status, bool enabled, qint64 waitedMs,
                          const QDateTime &now = QDateTime::currentDateTimeUtc());

} // namespace Tether
