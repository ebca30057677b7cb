#include "heartbeat.h"

#include "common/duration.h"

using namespace Qt::StringLiterals;
using namespace std::chrono;

namespace Tether {

Heartbeat::Heartbeat(HeartbeatPolicy policy, PingSender sendPing, QObject *parent)
    : QObject(parent)
    , m_policy(policy)
    , m_sendPing(std::move(sendPing))
    , m_timer(this)
{
    connect(&m_timer, &QTimer::timeout, this, &Heartbeat::onTick);
}

void Heartbeat::setPolicy(const HeartbeatPolicy &policy)
{
    m_policy = policy;
    m_timer.stop();
    if (m_running && m_policy.enabled)
        m_timer.start(milliseconds(m_policy.intervalMs));
}

void Heartbeat::start()
{
    m_running = true;
    if (m_policy.enabled)
        m_timer.start(milliseconds(m_policy.intervalMs));
}

void Heartbeat::stop()
{
    m_running = false;
    m_timer.stop();
    m_pingInFlight = false;
    ++m_run;
}

void Heartbeat::onTick()
{
    if (m_pingInFlight)
        return;
    // In flight before it is sent: its reply may come at once.
    m_pingInFlight = true;
    auto probe = std::make_shared<QString>();
    const std::optional<QString> sent = m_sendPing(milliseconds(m_policy.timeoutMs),
                                                   [this, run = m_run, probe](const RpcReply &reply) {
                                                       if (run == m_run)
                                                           onReply(*probe, reply);
                                                   });
    if (sent)
        *probe = *sent;
    else
        m_pingInFlight = false;
}

void Heartbeat::onReply(const QString &probe, const RpcReply &reply)
{
    m_pingInFlight = false;
    if (reply.error && reply.error->code == JsonRpc::ConnectionClosed)
        return; // the loss itself is reported by the session
    const bool unanswered = reply.error
                            && (reply.error->code == JsonRpc::RequestTimeout
                                || reply.error->code == JsonRpc::TransportError);
    const bool refused = reply.error && reply.fromServer
                         && (reply.error->code == JsonRpc::MethodNotFound || probe != u"ping");
    if (!unanswered && !refused) {
        m_refusals = 0;
        if (m_misses > 0) {
            m_misses = 0;
            emit answeredAgain();
        }
        return;
    }
    m_refusals = refused ? m_refusals + 1 : 0;
    if (++m_misses < m_policy.maxFailures) {
        emit missed(m_misses, m_policy.maxFailures);
        return;
    }
    const QString pings = m_policy.maxFailures == 1 ? u"a ping"_s : u"%1 pings in a row"_s.arg(m_policy.maxFailures);
    if (m_refusals == m_misses) {
        emit lost(u"heartbeat: %1 (%2) were refused: %3 %4"_s.arg(pings, probe)
                      .arg(reply.error->code)
                      .arg(reply.error->message));
        return;
    }
    emit lost(reply.error->code == JsonRpc::TransportError
                  ? u"heartbeat: %1 got no answer: %2"_s.arg(pings, reply.error->message)
                  : u"heartbeat: %1 got no answer within %2"_s.arg(pings, formatDuration(milliseconds(m_policy.timeoutMs))));
}

} // namespace Tether
