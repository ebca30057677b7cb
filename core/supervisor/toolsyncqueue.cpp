#include "toolsyncqueue.h"

namespace Tether {

ToolSyncQueue::ToolSyncQueue(ToolLister listTools, FinishedHandler onFinished)
    : m_listTools(std::move(listTools))
    , m_onFinished(std::move(onFinished))
{}

void ToolSyncQueue::enqueue(quint64 generation, bool initial)
{
    for (Job &job : m_waiting) {
        if (job.generation == generation) {
            job.initial |= initial;
            return;
        }
    }
    m_waiting.push_back({generation, initial});
    runNext();
}

void ToolSyncQueue::clear()
{
    m_waiting.clear();
}

void ToolSyncQueue::runNext()
{
    while (!m_inFlight && !m_waiting.empty()) {
        const Job job = m_waiting.front();
        m_waiting.pop_front();
        // In flight before it is asked: the answer may come at once.
        m_inFlight = true;
        const bool asked = m_listTools(job.generation, [this, job](const ToolListReply &reply) {
            m_inFlight = false;
            m_onFinished(job, reply);
            runNext();
        });
        if (!asked)
            m_inFlight = false; // a stale generation's sync is dropped
    }
}

} // namespace Tether
