#include "processusage.h"

#include <QFile>

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

namespace Tether {

namespace {

std::optional<qint64> number(QByteArrayView field)
{
    bool ok = false;
    const qint64 value = field.toLongLong(&ok);
    return ok ? std::optional(value) : std::nullopt;
}

// The start of a small /proc file (stat and status fit); plain read(2), since every process is
// read every few seconds.
QByteArray readSmallFile(const QByteArray &path)
{
    const int fd = ::open(path.constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return {};
    QByteArray text(4096, Qt::Uninitialized);
    qsizetype size = 0;
    while (size < text.size()) {
        const ssize_t got = ::read(fd, text.data() + size, size_t(text.size() - size));
        if (got <= 0)
            break;
        size += got;
    }
    ::close(fd);
    text.truncate(size);
    return text;
}

} // namespace

std::optional<ProcessStat> parseProcessStat(QByteArrayView text)
{
    const qsizetype open = text.indexOf('(');
    const qsizetype close = text.lastIndexOf(')');
    if (open < 1 || close < open)
        return std::nullopt;
    // After the comm: state (field 3), ppid (4), … utime (14), stime (15), … rss (24).
    const QList<QByteArray> fields = text.sliced(close + 1).trimmed().toByteArray().split(' ');
    constexpr qsizetype parentField = 1, userField = 11, systemField = 12;
    if (fields.size() <= systemField)
        return std::nullopt;
    const auto pid = number(text.first(open).trimmed());
    const auto parent = number(fields.at(parentField));
    const auto user = number(fields.at(userField));
    const auto system = number(fields.at(systemField));
    if (!pid || !parent || !user || !system || *pid <= 0 || *parent < 0 || *user < 0 || *system < 0)
        return std::nullopt;
    return ProcessStat{*pid, *parent, QString::fromUtf8(text.sliced(open + 1, close - open - 1)),
                       quint64(*user) + quint64(*system)};
}

std::optional<qint64> parseResidentKiB(QByteArrayView statusText)
{
    constexpr QByteArrayView key("\nVmRSS:");
    const qsizetype start = statusText.indexOf(key);
    if (start < 0)
        return std::nullopt;
    QByteArrayView value = statusText.sliced(start + key.size());
    value = value.first(value.contains('\n') ? value.indexOf('\n') : value.size()).trimmed();
    if (!value.endsWith(" kB"))
        return std::nullopt;
    const auto kib = number(value.chopped(3).trimmed());
    return kib && *kib >= 0 ? kib : std::nullopt;
}

ProcessTable readProcessTable(const QString &procRoot)
{
    ProcessTable table;
    const QByteArray root = QFile::encodeName(procRoot);
    DIR *directory = ::opendir(root.constData());
    if (!directory)
        return table;
    while (const dirent *entry = ::readdir(directory)) {
        const char *name = entry->d_name;
        if (name[0] < '1' || name[0] > '9')
            continue; // not a process
        if (const auto stat = parseProcessStat(readSmallFile(root + '/' + name + "/stat")))
            table.insert(stat->pid, *stat);
    }
    ::closedir(directory);
    return table;
}

QMultiHash<qint64, qint64> childrenByParent(const ProcessTable &table)
{
    QMultiHash<qint64, qint64> children;
    for (const ProcessStat &process : table)
        children.insert(process.parentPid, process.pid);
    return children;
}

QList<qint64> processTree(qint64 root, const ProcessTable &table, const QMultiHash<qint64, qint64> &children)
{
    if (!table.contains(root))
        return {};
    QList<qint64> tree{root};
    // Breadth first; a pid is its own ancestor only in a broken table, which the size bound stops.
    for (qsizetype next = 0; next < tree.size() && tree.size() <= table.size(); ++next) {
        for (auto it = children.constFind(tree.at(next)); it != children.cend() && it.key() == tree.at(next); ++it)
            tree.append(it.value());
    }
    return tree;
}

TreeUsage readTreeUsage(qint64 root, const ProcessTable &table, const QMultiHash<qint64, qint64> &children,
                        const QString &procRoot)
{
    TreeUsage usage;
    const QByteArray rootPath = QFile::encodeName(procRoot) + '/';
    for (qint64 pid : processTree(root, table, children)) {
        usage.ticks.insert(pid, table.value(pid).cpuTicks);
        usage.residentKiB += parseResidentKiB(readSmallFile(rootPath + QByteArray::number(pid) + "/status")).value_or(0);
    }
    return usage;
}

std::optional<double> cpuPercent(const TickCounts &before, const TickCounts &after, qint64 elapsedMs,
                                 qint64 ticksPerSecond)
{
    if (before.isEmpty() || elapsedMs <= 0 || ticksPerSecond <= 0)
        return std::nullopt;
    quint64 gained = 0;
    for (auto it = after.cbegin(); it != after.cend(); ++it) {
        const quint64 earlier = before.value(it.key(), 0);
        gained += it.value() >= earlier ? it.value() - earlier : it.value();
    }
    return 100.0 * double(gained) * 1000.0 / (double(ticksPerSecond) * double(elapsedMs));
}

} // namespace Tether
