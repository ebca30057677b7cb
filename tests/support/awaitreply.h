#pragma once

#include "protocol/replies.h"

#include <QTest>

#include <functional>
#include <memory>
#include <optional>

namespace Tether::Testing {

// Sends a request and waits up to `timeoutMs` for its answer. `send` gets the handler to pass on:
//   awaitReply<ToolCallReply>([&](ToolCallHandler onReply) { session.callTool(u"echo"_s, {}, onReply); }, 10000)
// Nothing when no answer came in time; an answer that comes later is dropped.
template<typename Reply>
std::optional<Reply> awaitReply(const std::function<void(std::function<void(const Reply &)>)> &send, int timeoutMs)
{
    const auto reply = std::make_shared<std::optional<Reply>>();
    send([reply](const Reply &answer) { *reply = answer; });
    (void)QTest::qWaitFor([&] { return reply->has_value(); }, timeoutMs);
    return *reply;
}

// What a test sees of an answer that never came: -1 is no JSON-RPC code, so no test takes it
// for the server's or the session's own failure.
constexpr int NoReplyCode = -1;

inline QString noReplyMessage(int timeoutMs)
{
    return QStringLiteral("no reply within %1 ms").arg(timeoutMs);
}

// A tool call's answer, or a failure "no reply" when none came in time: for a test that checks
// the answer's result, or its error's code or message, anyway.
inline ToolCallReply awaitToolCall(const std::function<void(ToolCallHandler)> &call, int timeoutMs)
{
    return awaitReply<ToolCallReply>(call, timeoutMs).value_or(ToolCallReply::failure(NoReplyCode, noReplyMessage(timeoutMs)));
}

// A tools/list answer, or a failure "no reply" when none came in time.
inline ToolListReply awaitToolList(const std::function<void(ToolListHandler)> &list, int timeoutMs)
{
    return awaitReply<ToolListReply>(list, timeoutMs)
        .value_or(ToolListReply{{}, {}, JsonRpc::Error{NoReplyCode, noReplyMessage(timeoutMs), {}}});
}

// A ping's (or another request's) answer, or a failure "no reply" when none came in time.
inline RpcReply awaitRpc(const std::function<void(ReplyHandler)> &request, int timeoutMs)
{
    return awaitReply<RpcReply>(request, timeoutMs).value_or(RpcReply::failure(NoReplyCode, noReplyMessage(timeoutMs)));
}

} // namespace Tether::Testing
