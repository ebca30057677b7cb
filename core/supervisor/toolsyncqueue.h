#pragma once

#include "protocol/replies.h"

#include <QtGlobal>

#include <deque>
#include <functional>

namespace Tether {

// The tools syncs of one server, run one at a time across all its generations: the initial
// sync of each generation and the re-syncs after tools/list_changed. No two syncs interleave,
// so the tools a sync registers are never replaced by an older list that arrived later.
class ToolSyncQueue final
{
    Q_DISABLE_COPY_MOVE(ToolSyncQueue)

public:
    struct Job
    {
        quint64 generation = 0;
        bool initial = false; // the sync that establishes the generation
    };

    // Asks `generation` for its tools and answers `done`; false when that generation can no
    // longer be asked (it is stale or not ready), and the job is dropped.
    using ToolLister = std::function<bool(quint64 generation, ToolListHandler done)>;
    // Every job that was run, with the tools it got or why it got none.
    using FinishedHandler = std::function<void(const Job &job, const ToolListReply &reply)>;

    ToolSyncQueue(ToolLister listTools, FinishedHandler onFinished);

    // Runs now when no sync is in flight; a job of the same generation still waiting is merged
    // into, since it will read the newest list anyway.
    void enqueue(quint64 generation, bool initial);
    // Drops the waiting jobs; the one in flight still finishes.
    void clear();

private:
    void runNext();

    ToolLister m_listTools;
    FinishedHandler m_onFinished;
    std::deque<Job> m_waiting;
    bool m_inFlight = false;
};

} // namespace Tether
