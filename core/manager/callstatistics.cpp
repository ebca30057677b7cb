#include "callstatistics.h"

#include <numeric>

using namespace Qt::StringLiterals;

namespace Tether {

CallOutcome callOutcomeOf(const ToolCallReply &reply)
{
    if (!reply.error)
        return reply.result.isError ? CallOutcome::ToolError : CallOutcome::Ok;
    if (reply.fromServer)
        return CallOutcome::Error;
    switch (reply.error->code) {
    case JsonRpc::ServerUnavailable: return CallOutcome::Unavailable;
    case JsonRpc::ConnectionClosed: return CallOutcome::Lost;
    case JsonRpc::RequestTimeout: return CallOutcome::Timeout;
    case JsonRpc::RequestCancelled: return CallOutcome::Cancelled;
    case JsonRpc::TransportError: return CallOutcome::Transport;
    default: return CallOutcome::Error;
    }
}

QString callOutcomeName(CallOutcome outcome)
{
    switch (outcome) {
    case CallOutcome::Ok: return u"ok"_s;
    case CallOutcome::ToolError: return u"tool_error"_s;
    case CallOutcome::Error: return u"error"_s;
    case CallOutcome::Unavailable: return u"unavailable"_s;
    case CallOutcome::Lost: return u"lost"_s;
    case CallOutcome::Timeout: return u"timeout"_s;
    case CallOutcome::Cancelled: return u"cancelled"_s;
    case CallOutcome::Transport: return u"transport"_s;
    }
    return {};
}

void CallStatistics::record(CallOutcome outcome, std::chrono::nanoseconds took)
{
    ++byOutcome.at(size_t(outcome));
    const double seconds = std::chrono::duration<double>(took).count();
    durationSecondsSum += seconds;
    for (size_t i = 0; i < DurationBounds.size(); ++i) {
        if (seconds <= DurationBounds.at(i))
            ++atMost.at(i);
    }
}

quint64 CallStatistics::total() const
{
    return std::accumulate(byOutcome.cbegin(), byOutcome.cend(), quint64(0));
}

} // namespace Tether
