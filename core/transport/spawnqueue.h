#pragma once

#include <QObject>
#include <QTimer>

#include <deque>
#include <functional>
#include <memory>

class QProcess;

namespace Tether {

// Starts child processes one per event-loop turn. Starting a process blocks until it has been
// exec'd (milliseconds on a busy machine), so a burst of restarts (200 servers recovering at
// once) would otherwise freeze the loop for the whole burst; one at a time, timers and I/O run
// in between. It also keeps the processes that are on their way out, so that no one waits for
// their exit.
class SpawnQueue final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SpawnQueue)

public:
    static SpawnQueue &instance();
    ~SpawnQueue() override;

    // `launch` runs in a later turn of the event loop; `owner` identifies it for cancel().
    void enqueue(const void *owner, std::function<void()> launch);
    void cancel(const void *owner);
    int pending() const { return int(m_queue.size()); }
    // Keeps `process`, whose end is near, until it has exited; it is reaped then.
    void keepUntilFinished(std::unique_ptr<QProcess> process);

private:
    SpawnQueue();
    void launchNext();

    struct Entry
    {
        const void *owner;
        std::function<void()> launch;
    };
    std::deque<Entry> m_queue;
    QTimer m_turn;
};

} // namespace Tether
