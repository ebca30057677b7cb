#pragma once

#include "protocol/replies.h"

#include <QString>
#include <QtGlobal>

#include <array>
#include <chrono>

namespace Tether {

// How a tool call ended, as the metrics count it.
enum class CallOutcome {
    Ok,          // a result
    ToolError,   // a result with isError: the tool itself failed
    Error,       // the server answered with an error, or with a reply Tether could not use
    Unavailable, // not sent: the server was not connected (and did not connect within the wait)
    Lost,        // the connection ended with the call in flight
    Timeout,     // no answer within the request timeout
    Cancelled,   // cancelled by the caller
    Transport,   // the transport failed the request (an HTTP error status, a network error)
};
inline constexpr int CallOutcomeCount = 8;

CallOutcome callOutcomeOf(const ToolCallReply &reply);
// "ok", "tool_error", "error", "unavailable", "lost", "timeout", "cancelled", "transport"
QString callOutcomeName(CallOutcome outcome);

// The tool calls of one server answered so far: how each ended and how long each took, from
// the call to its answer (a wait through an outage included).
struct CallStatistics
{
    // Upper bounds of the duration buckets, in seconds.
    static constexpr std::array<double, 14> DurationBounds{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                                           1, 2.5, 5, 10, 30, 60, 120};

    std::array<quint64, CallOutcomeCount> byOutcome{};
    // [i]: calls that took at most DurationBounds[i] (cumulative, as Prometheus counts buckets).
    std::array<quint64, DurationBounds.size()> atMost{};
    double durationSecondsSum = 0;

    void record(CallOutcome outcome, std::chrono::nanoseconds took);
    quint64 calls(CallOutcome outcome) const { return byOutcome.at(size_t(outcome)); }
    quint64 total() const;
};

} // namespace Tether
