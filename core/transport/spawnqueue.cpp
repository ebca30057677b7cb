#include "spawnqueue.h"

#include <QProcess>

namespace Tether {

// How long a process that is on its way out may still take when Tether quits.
static constexpr int ExitWaitMs = 5000;

SpawnQueue &SpawnQueue::instance()
{
    // Child processes are started from the thread that runs the supervisors.
    static thread_local SpawnQueue queue;
    return queue;
}

SpawnQueue::SpawnQueue()
{
    m_turn.setSingleShot(true);
    m_turn.setInterval(0);
    connect(&m_turn, &QTimer::timeout, this, &SpawnQueue::launchNext);
}

SpawnQueue::~SpawnQueue()
{
    // Quitting: a process on its way out is given its last moment, so that it is reaped, not
    // killed, and none is left behind.
    for (QProcess *exiting : findChildren<QProcess *>(Qt::FindDirectChildrenOnly))
        exiting->waitForFinished(ExitWaitMs);
}

void SpawnQueue::enqueue(const void *owner, std::function<void()> launch)
{
    m_queue.push_back({owner, std::move(launch)});
    if (!m_turn.isActive())
        m_turn.start();
}

void SpawnQueue::cancel(const void *owner)
{
    std::erase_if(m_queue, [owner](const Entry &entry) { return entry.owner == owner; });
}

void SpawnQueue::keepUntilFinished(std::unique_ptr<QProcess> process)
{
    QProcess *exiting = process.release();
    exiting->setParent(this); // deleted at the latest with the queue
    connect(exiting, &QProcess::finished, exiting, &QObject::deleteLater);
}

void SpawnQueue::launchNext()
{
    if (m_queue.empty())
        return;
    Entry next = std::move(m_queue.front());
    m_queue.pop_front();
    if (!m_queue.empty())
        m_turn.start();
    next.launch();
}

} // namespace Tether
