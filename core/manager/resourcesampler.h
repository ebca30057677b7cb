#pragma once

#include "manager/processusage.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QTimer>

#include <chrono>
#include <optional>

namespace Tether {

class ServerSource;

// The CPU and memory of one stdio server's process and all of its descendants, at the last sample.
struct ProcessResources
{
    qint64 pid = 0;                   // the server's process these figures are of
    std::optional<double> cpuPercent; // of one core over the last interval; none at the first sample
    qint64 residentBytes = 0;         // resident set of the whole tree
    int processes = 0;                // in the tree
};

// Samples the process trees of the manager's stdio servers from /proc on a timer, only while
// one of them has a process; the figures are a snapshot of their own, read after sampled().
class ResourceSampler final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ResourceSampler)

public:
    static constexpr std::chrono::milliseconds DefaultInterval{2000};

    explicit ResourceSampler(ServerSource &manager, QObject *parent = nullptr);

    void setInterval(std::chrono::milliseconds interval);
    // nullopt for a server with no process (HTTP, stopped) or none sampled yet.
    std::optional<ProcessResources> resources(const QString &server) const;
    // Of every server sampled, by name.
    QHash<QString, ProcessResources> allResources() const;
    bool isSampling() const { return m_timer.isActive(); }

signals:
    void sampled();

private:
    void sample();

    struct Tree
    {
        ProcessResources resources;
        TickCounts ticks;
        qint64 sampledAtMs = 0;
    };

    ServerSource &m_manager;
    QTimer m_timer;
    QElapsedTimer m_clock;
    QHash<QString, Tree> m_trees;
    const qint64 m_ticksPerSecond;
};

} // namespace Tether
