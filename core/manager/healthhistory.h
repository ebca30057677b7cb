#pragma once

#include "supervisor/serverstate.h"

#include <QDateTime>
#include <QList>
#include <QMetaType>

#include <deque>

namespace Tether {

// What the health strip tells apart: four colours, whatever the detailed state.
enum class HealthBand { Connected, Reconnecting, Failed, Stopped, SignInNeeded };

HealthBand healthBandOf(ServerState state);

// One stretch of time in one band; `end` is exclusive.
struct HealthSpan
{
    QDateTime start;
    QDateTime end;
    HealthBand band = HealthBand::Stopped;

    bool operator==(const HealthSpan &) const = default;
};

// The recent health of one server as band changes over time, for the window's strip of the
// last minutes. Only changes of band are kept and old ones are dropped, so memory stays bounded
// however long Tether runs and however often a server flaps.
class HealthHistory
{
public:
    explicit HealthHistory(std::chrono::milliseconds keep = std::chrono::minutes(10), int maxChanges = 600);

    // The server is in `state` from `time` on; times must not go backwards.
    void record(const QDateTime &time, ServerState state);
    // The spans that overlap [now - window, now], oldest first, clipped to that range; time before
    // the first record is not covered.
    QList<HealthSpan> spans(const QDateTime &now, std::chrono::milliseconds window) const;

private:
    struct Change
    {
        QDateTime time;
        HealthBand band;
    };

    std::chrono::milliseconds m_keep;
    int m_maxChanges;
    std::deque<Change> m_changes;
};

} // namespace Tether

Q_DECLARE_METATYPE(Tether::HealthSpan)
