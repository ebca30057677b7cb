#include "sleepcall.h"

#include <algorithm>

namespace Demo {

SleepCall::SleepCall(int durationMs, bool reportProgress, QObject *parent)
    : QObject(parent)
    , m_durationMs(durationMs)
    , m_reportProgress(reportProgress)
{
    // Coarse timers may fire up to 5% early; tests measure how long a sleep takes.
    m_finishTimer.setTimerType(Qt::PreciseTimer);
    m_finishTimer.setSingleShot(true);
    m_tickTimer.setTimerType(Qt::PreciseTimer);
    m_tickTimer.setInterval(ProgressIntervalMs);
    connect(&m_finishTimer, &QTimer::timeout, this, &SleepCall::finish);
    connect(&m_tickTimer, &QTimer::timeout, this, &SleepCall::tick);
}

void SleepCall::start()
{
    m_clock.start();
    m_finishTimer.start(m_durationMs);
    if (m_reportProgress && m_durationMs > ProgressIntervalMs)
        m_tickTimer.start();
}

void SleepCall::tick()
{
    const qint64 elapsed = m_clock.elapsed();
    // The finish timer is due (or overdue); it sends the last progress itself.
    if (elapsed >= m_durationMs)
        return;
    reportProgress(elapsed);
}

void SleepCall::finish()
{
    m_tickTimer.stop();
    // Promise at least one progress notification before the result of a long enough sleep,
    // even if the ticks lost the race against the finish timer.
    if (m_reportProgress && m_durationMs >= ProgressIntervalMs && m_lastProgress < 0)
        reportProgress(m_durationMs);
    emit finished();
}

void SleepCall::reportProgress(qint64 elapsedMs)
{
    const qint64 progress = std::min<qint64>(elapsedMs, m_durationMs);
    if (progress <= m_lastProgress)
        return;
    m_lastProgress = progress;
    emit progressed(progress);
}

} // namespace Demo
