#pragma once

#include <QByteArrayView>
#include <QHash>
#include <QList>
#include <QString>

#include <optional>

namespace Tether {

// One process as its /proc/<pid>/stat line describes it.
struct ProcessStat
{
    qint64 pid = 0;
    qint64 parentPid = 0;
    QString command;        // the comm field, without its parentheses
    quint64 cpuTicks = 0;   // user and system time, in clock ticks

    bool operator==(const ProcessStat &) const = default;
};

// Every process of the system by pid: one scan of /proc, which gives the parent of each and so
// the children of every server at once (cheaper than /proc/<pid>/task/*/children for each
// thread of 50 servers, and the stat line read for the figures anyway).
using ProcessTable = QHash<qint64, ProcessStat>;

// The fields of a stat line; nullopt when it is not one. The comm field may hold spaces and
// parentheses ("(my (odd) server)"): it ends at the last ')'.
std::optional<ProcessStat> parseProcessStat(QByteArrayView text);

// VmRSS of a /proc/<pid>/status text, in KiB (the exact sum; the rss field of stat is the
// kernel's cheaper estimate, off by a few hundred KiB for small processes); nullopt when it has
// none, as a kernel thread.
std::optional<qint64> parseResidentKiB(QByteArrayView statusText);

// The table built from /proc (or a copy of it laid out the same way, for tests).
ProcessTable readProcessTable(const QString &procRoot = QStringLiteral("/proc"));

// Parent pid → its children, built once per sample for every tree.
QMultiHash<qint64, qint64> childrenByParent(const ProcessTable &table);

// `root` and all of its descendants that are in the table; empty when `root` is not.
QList<qint64> processTree(qint64 root, const ProcessTable &table, const QMultiHash<qint64, qint64> &children);

// CPU ticks by pid, of the processes of one tree at one sample.
using TickCounts = QHash<qint64, quint64>;

// What the processes of one tree hold at one sample.
struct TreeUsage
{
    TickCounts ticks;
    qint64 residentKiB = 0;
};

// The tree of `root` in the table, with the resident set of each of its processes read from its
// /proc/<pid>/status.
TreeUsage readTreeUsage(qint64 root, const ProcessTable &table, const QMultiHash<qint64, qint64> &children,
                        const QString &procRoot = QStringLiteral("/proc"));

// The share of one core (100 = one core busy) that the processes used between two samples
// `elapsedMs` apart: each process counts the ticks it gained since `before`; one that was not
// in `before` (started since, mostly) or whose count went down (a new process with a reused pid)
// counts all of its ticks. Processes that ended meanwhile are not counted. nullopt without an
// earlier sample or elapsed time.
std::optional<double> cpuPercent(const TickCounts &before, const TickCounts &after, qint64 elapsedMs,
                                 qint64 ticksPerSecond);

} // namespace Tether
