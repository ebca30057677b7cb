#include "resourcesampler.h"

#include "manager/serversource.h"

#include <unistd.h>

namespace Tether {

ResourceSampler::ResourceSampler(ServerSource &manager, QObject *parent)
    : QObject(parent)
    , m_manager(manager)
    , m_ticksPerSecond(::sysconf(_SC_CLK_TCK))
{
    m_clock.start();
    m_timer.setInterval(DefaultInterval);
    connect(&m_timer, &QTimer::timeout, this, &ResourceSampler::sample);
    // A process appears: the first figures at once, then on the timer until none is left.
    connect(&m_manager, &ServerSource::stateChanged, this, [this](const ServerStatus &status) {
        if (status.pid > 0 && !m_timer.isActive())
            sample();
    });
    sample();
}

void ResourceSampler::setInterval(std::chrono::milliseconds interval)
{
    m_timer.setInterval(interval);
}

std::optional<ProcessResources> ResourceSampler::resources(const QString &server) const
{
    const auto it = m_trees.constFind(server);
    return it == m_trees.cend() ? std::nullopt : std::optional(it->resources);
}

QHash<QString, ProcessResources> ResourceSampler::allResources() const
{
    QHash<QString, ProcessResources> all;
    for (auto it = m_trees.cbegin(); it != m_trees.cend(); ++it)
        all.insert(it.key(), it->resources);
    return all;
}

void ResourceSampler::sample()
{
    QHash<QString, qint64> roots;
    for (const ServerStatus &status : m_manager.statuses()) {
        if (status.pid > 0)
            roots.insert(status.name, status.pid);
    }
    if (roots.isEmpty()) {
        m_timer.stop();
        if (!m_trees.isEmpty()) {
            m_trees.clear();
            emit sampled();
        }
        return;
    }
    const ProcessTable table = readProcessTable();
    const QMultiHash<qint64, qint64> children = childrenByParent(table);
    const qint64 now = m_clock.elapsed();
    QHash<QString, Tree> trees;
    for (auto root = roots.cbegin(); root != roots.cend(); ++root) {
        const TreeUsage usage = readTreeUsage(root.value(), table, children);
        if (usage.ticks.isEmpty())
            continue; // gone since its status was taken
        const auto earlier = m_trees.constFind(root.key());
        const bool sameProcess = earlier != m_trees.cend() && earlier->resources.pid == root.value();
        Tree tree{{root.value(),
                   sameProcess ? cpuPercent(earlier->ticks, usage.ticks, now - earlier->sampledAtMs, m_ticksPerSecond)
                               : std::nullopt,
                   usage.residentKiB * 1024, int(usage.ticks.size())},
                  usage.ticks, now};
        trees.insert(root.key(), std::move(tree));
    }
    m_trees = std::move(trees);
    if (!m_timer.isActive())
        m_timer.start();
    emit sampled();
}

} // namespace Tether
