#pragma once

#include "execwithin.h"
#include "session/mcpclientsession.h"
#include "transport/stdiotransport.h"

#include <QEventLoop>

#include <chrono>
#include <optional>

namespace Tether::Bench {

// A stdio server's own start and handshake: spawn + initialize + tools/list with a bare session,
// nothing around it. In ms; nothing when that failed or took longer than `timeout` (`error` says
// why).
inline std::optional<double> startAndHandshakeOnce(const StdioServerCommand &command, std::chrono::milliseconds timeout,
                                                   QString *error)
{
    McpClientSession session(std::make_unique<StdioTransport>(command),
                             SessionOptions{QStringLiteral("demo"), std::chrono::seconds(10)});
    QEventLoop loop;
    std::optional<double> elapsed;
    const auto start = std::chrono::steady_clock::now();
    QObject::connect(&session, &McpClientSession::ready, &loop, [&] {
        session.listTools([&](const ToolListReply &reply) {
            if (reply.error)
                *error = QStringLiteral("tools/list failed: ") + reply.error->message;
            else
                elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            loop.quit();
        });
    });
    QObject::connect(&session, &McpClientSession::failed, &loop, [&](const QString &reason) {
        *error = reason;
        loop.quit();
    });
    session.open();
    if (!execWithin(loop, timeout))
        *error = QStringLiteral("no answer within %1 ms").arg(timeout.count());
    if (session.state() != McpClientSession::State::Closed) {
        QObject::connect(&session, &McpClientSession::closed, &loop, [&] { loop.quit(); });
        session.close();
        loop.exec();
    }
    return elapsed;
}

} // namespace Tether::Bench
