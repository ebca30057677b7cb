#include "healthhistory.h"

namespace Tether {

HealthBand healthBandOf(ServerState state)
{
    switch (state) {
    case ServerState::Connected:
        return HealthBand::Connected;
    case ServerState::Starting:
    case ServerState::Retrying:
    case ServerState::Reconnecting:
        return HealthBand::Reconnecting;
    case ServerState::Failed:
    case ServerState::Disconnected:
        return HealthBand::Failed;
    case ServerState::Stopped:
    case ServerState::Stopping:
        return HealthBand::Stopped;
    case ServerState::SignInNeeded:
        return HealthBand::SignInNeeded;
    }
    return HealthBand::Stopped;
}

HealthHistory::HealthHistory(std::chrono::milliseconds keep, int maxChanges)
    : m_keep(keep)
    , m_maxChanges(std::max(2, maxChanges))
{
}

void HealthHistory::record(const QDateTime &time, ServerState state)
{
    const HealthBand band = healthBandOf(state);
    if (!m_changes.empty() && m_changes.back().band == band)
        return;
    m_changes.push_back({time, band});
    // A change older than the kept range still tells the band at its start, so the oldest one
    // kept is the last that began before it.
    const QDateTime horizon = time.addMSecs(-m_keep.count());
    while (m_changes.size() > 1 && m_changes[1].time <= horizon)
        m_changes.pop_front();
    while (int(m_changes.size()) > m_maxChanges)
        m_changes.pop_front();
}

QList<HealthSpan> HealthHistory::spans(const QDateTime &now, std::chrono::milliseconds window) const
{
    const QDateTime from = now.addMSecs(-window.count());
    QList<HealthSpan> result;
    for (std::size_t i = 0; i < m_changes.size(); ++i) {
        const QDateTime start = std::max(m_changes[i].time, from);
        const QDateTime end = i + 1 < m_changes.size() ? std::min(m_changes[i + 1].time, now) : now;
        if (start < end)
            result.append({start, end, m_changes[i].band});
    }
    return result;
}

} // namespace Tether
