#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

namespace Demo {

// One running call of the 'sleep' tool. Timer driven, so any number of sleeps run side by side
// with everything else; deleting the object cancels it silently.
class SleepCall final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SleepCall)

public:
    static constexpr int ProgressIntervalMs = 100;

    SleepCall(int durationMs, bool reportProgress, QObject *parent = nullptr);

    void start();
    int durationMs() const { return m_durationMs; }

signals:
    // Milliseconds slept so far; strictly increasing from one emission to the next.
    void progressed(qint64 elapsedMs);
    void finished();

private:
    void tick();
    void finish();
    void reportProgress(qint64 elapsedMs);

    const int m_durationMs;
    const bool m_reportProgress;
    QElapsedTimer m_clock;
    QTimer m_tickTimer;
    QTimer m_finishTimer;
    qint64 m_lastProgress = -1;
};

} // namespace Demo
