#pragma once

#include "config/policy.h"
#include "protocol/replies.h"

#include <QObject>
#include <QTimer>

#include <chrono>
#include <functional>
#include <optional>

namespace Tether {

// Pings a connected server every interval, one ping at a time, and counts the pings it leaves
// unanswered in a row: maxFailures of them are a connection loss. An error the transport made up
// (HTTP 502, its own timeout) is no answer. Nor is a refusal: ping answered -32601 (a server that
// does not implement what MCP 2025 requires, so the heartbeat would check nothing), or any error
// to the probe of a stateless server (server/discover, as that era has no ping). Other errors
// to a ping prove the server alive.
class Heartbeat final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Heartbeat)

public:
    // Sends one probe that `onReply` answers, within `timeout`: its method ("ping", or
    // "server/discover" on a stateless server); nothing when there is no connection ready to ping.
    using PingSender = std::function<std::optional<QString>(std::chrono::milliseconds timeout, ReplyHandler onReply)>;

    Heartbeat(HeartbeatPolicy policy, PingSender sendPing, QObject *parent = nullptr);

    // Applied at once: a running heartbeat restarts its interval, a reply still on its way is
    // judged by the new policy.
    void setPolicy(const HeartbeatPolicy &policy);
    const HeartbeatPolicy &policy() const { return m_policy; }

    // The connection is up: ping every interval while the policy is enabled.
    void start();
    // The connection has ended: no more pings, and the reply to one still on its way is ignored.
    void stop();

    // Unanswered pings in a row; kept after a loss so that the status still shows them.
    int misses() const { return m_misses; }
    // A new connection begins with none.
    void clearMisses() { m_misses = 0; m_refusals = 0; }

signals:
    // A ping went unanswered, fewer than maxFailures in a row.
    void missed(int misses, int maxFailures);
    // A ping was answered after one or more misses.
    void answeredAgain();
    // maxFailures pings in a row went unanswered; `reason` says how.
    void lost(const QString &reason);

private:
    void onTick();
    void onReply(const QString &probe, const RpcReply &reply);

    HeartbeatPolicy m_policy;
    PingSender m_sendPing;
    QTimer m_timer;
    bool m_running = false;
    bool m_pingInFlight = false;
    int m_misses = 0;
    int m_refusals = 0; // of the misses in a row, those the server refused
    // Counts the runs: a reply to a ping of an earlier run is ignored.
    quint64 m_run = 0;
};

} // namespace Tether
