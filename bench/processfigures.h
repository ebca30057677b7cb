#pragma once

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>

namespace Tether::Bench {

// What /proc says about a process (its pid, or "self"); zeros when it cannot be read.
struct ProcessFigures
{
    qint64 residentKiB = 0;  // VmRSS: everything resident, code and libraries too
    qint64 peakResidentKiB = 0; // VmHWM: the most VmRSS has been so far
    qint64 anonymousKiB = 0; // RssAnon: heap and stacks, what the process allocated itself
    qint64 threads = 0;
};

inline ProcessFigures processFigures(const QString &pid = QStringLiteral("self"))
{
    ProcessFigures figures;
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return figures;
    const auto number = [](const QByteArray &line) {
        return line.mid(line.indexOf(':') + 1).trimmed().split(' ').first().toLongLong();
    };
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            figures.residentKiB = number(line);
        else if (line.startsWith("VmHWM:"))
            figures.peakResidentKiB = number(line);
        else if (line.startsWith("RssAnon:"))
            figures.anonymousKiB = number(line);
        else if (line.startsWith("Threads:"))
            figures.threads = number(line);
    }
    return figures;
}

// The processor time the process has used so far, in ns (its first field of /proc/<pid>/schedstat:
// exact, unlike the clock ticks of /proc/<pid>/stat); -1 when it cannot be read.
inline qint64 processorTimeNs(const QString &pid = QStringLiteral("self"))
{
    QFile schedstat(QStringLiteral("/proc/%1/schedstat").arg(pid));
    if (!schedstat.open(QIODevice::ReadOnly))
        return -1;
    bool ok = false;
    const qint64 ns = schedstat.readAll().split(' ').first().toLongLong(&ok);
    return ok ? ns : -1;
}

inline qint64 openFileDescriptors(const QString &pid = QStringLiteral("self"))
{
    return QDir(QStringLiteral("/proc/%1/fd").arg(pid)).entryList(QDir::Files | QDir::System).size();
}

} // namespace Tether::Bench
