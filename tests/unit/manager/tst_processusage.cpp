#include "manager/processusage.h"

#include "support/testfiles.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace Tether;

namespace {

// Lines read from /proc/<pid>/stat on Linux 6: a sleeping process whose comm holds a space and
// parentheses, and a busy one (user 4978 and system 14207 ticks).
const QByteArray OddCommandStat =
    "26519 (a) (b) S 1 26515 22075 0 -1 4194304 139 0 0 0 0 0 0 0 20 0 1 0 3587060 2990080 415 18446744073709551615 "
    "94392968990720 94392969008649 140722886537792 0 0 0 0 6 0 1 0 0 17 1 0 0 0 0 0 94392969022736 94392969024000 "
    "94393252462592 140722886539929 140722886539940 140722886539940 140722886541296 0\n";
const QByteArray BusyStat =
    "1 (process_api) S 0 0 0 0 -1 4194560 1995461 1320340339 0 34507 4978 14207 5284208 570651 10 -10 14 0 10 "
    "45719552 3322 18446744073709551615 1 1 0 0 0 0 0 4096 1256 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

// The start of /proc/<pid>/status of the first.
const QByteArray OddCommandStatus =
    "Name:\ta) (b\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t26519\nNgid:\t0\nPid:\t26519\nPPid:\t1\n"
    "TracerPid:\t0\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nFDSize:\t256\nGroups:\t \nNStgid:\t26519\nNSpid:\t26519\n"
    "NSpgid:\t26515\nNSsid:\t22075\nKthread:\t0\nVmPeak:\t    2920 kB\nVmSize:\t    2920 kB\nVmLck:\t       0 kB\n"
    "VmPin:\t       0 kB\nVmHWM:\t    1832 kB\nVmRSS:\t    1832 kB\nRssAnon:\t     108 kB\nRssFile:\t    1724 kB\n"
    "RssShmem:\t       0 kB\nVmData:\t     224 kB\nVmStk:\t     132 kB\n";
// A kernel thread has no memory of its own, so no Vm lines.
const QByteArray KernelThreadStatus =
    "Name:\tkthreadd\nUmask:\t0000\nState:\tS (sleeping)\nTgid:\t2\nNgid:\t0\nPid:\t2\nPPid:\t0\nTracerPid:\t0\n"
    "Kthread:\t1\nThreads:\t1\n";

ProcessStat process(qint64 pid, qint64 parent, quint64 ticks = 0)
{
    return {pid, parent, u"p%1"_s.arg(pid), ticks};
}

ProcessTable tableOf(const QList<ProcessStat> &processes)
{
    ProcessTable table;
    for (const ProcessStat &each : processes)
        table.insert(each.pid, each);
    return table;
}

} // namespace

namespace Tether {

char *toString(const ProcessStat &stat)
{
    return QTest::toString(u"pid %1 parent %2 (%3) ticks %4"_s.arg(stat.pid).arg(stat.parentPid).arg(stat.command).arg(stat.cpuTicks));
}

} // namespace Tether

class ProcessUsageTest final : public QObject
{
    Q_OBJECT

private slots:
    void parsesStatLines_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<ProcessStat>("expected");
        QTest::newRow("comm with a space and parentheses") << OddCommandStat << ProcessStat{26519, 1, u"a) (b"_s, 0};
        QTest::newRow("busy") << BusyStat << ProcessStat{1, 0, u"process_api"_s, 4978 + 14207};
        // A comm can hold what looks like the fields that follow it: only the last ')' ends it.
        QByteArray forged = OddCommandStat;
        forged.replace("(a) (b)", "(x) R 9 9 9 (y)");
        QTest::newRow("comm that looks like fields") << forged << ProcessStat{26519, 1, u"x) R 9 9 9 (y"_s, 0};
    }

    void parsesStatLines()
    {
        QFETCH(QByteArray, text);
        QFETCH(ProcessStat, expected);
        const std::optional<ProcessStat> parsed = parseProcessStat(text);
        QVERIFY(parsed);
        QCOMPARE(*parsed, expected);
    }

    void refusesWhatIsNoStatLine_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("no comm") << QByteArray("26519 S 1 26515 22075 0 -1 4194304 139 0 0 0 0 0 0 0");
        QTest::newRow("cut short after the comm") << OddCommandStat.first(OddCommandStat.indexOf(" 139 "));
        QTest::newRow("no pid") << OddCommandStat.mid(OddCommandStat.indexOf('('));
        QByteArray letters = BusyStat;
        letters.replace(" 4978 ", " many ");
        QTest::newRow("ticks not a number") << letters;
    }

    void refusesWhatIsNoStatLine()
    {
        QFETCH(QByteArray, text);
        QCOMPARE(parseProcessStat(text), std::nullopt);
    }

    void readsTheResidentSetFromStatus_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<std::optional<qint64>>("kib");
        QTest::newRow("process") << OddCommandStatus << std::optional<qint64>(1832);
        QTest::newRow("kernel thread") << KernelThreadStatus << std::optional<qint64>();
        QTest::newRow("VmHWM is not VmRSS") << QByteArray("Name:\tx\nVmHWM:\t 12 kB\n") << std::optional<qint64>();
        QTest::newRow("no unit") << QByteArray("Name:\tx\nVmRSS:\t 12\n") << std::optional<qint64>();
        QTest::newRow("last line without a newline") << QByteArray("Name:\tx\nVmRSS:\t 12 kB") << std::optional<qint64>(12);
    }

    void readsTheResidentSetFromStatus()
    {
        QFETCH(QByteArray, text);
        QFETCH(std::optional<qint64>, kib);
        QCOMPARE(parseResidentKiB(text), kib);
    }

    void findsEveryDescendantAndNothingElse()
    {
        // 10 → 11 → 12 → 13, 10 → 14; 20 is a sibling of 10 under 1.
        const ProcessTable table = tableOf({process(1, 0), process(10, 1), process(11, 10), process(12, 11),
                                            process(13, 12), process(14, 10), process(20, 1), process(21, 20)});
        const auto children = childrenByParent(table);
        QList<qint64> tree = processTree(10, table, children);
        std::sort(tree.begin(), tree.end());
        QCOMPARE(tree, (QList<qint64>{10, 11, 12, 13, 14}));
        QCOMPARE(processTree(21, table, children), QList<qint64>{21});
        QCOMPARE(processTree(99, table, children), QList<qint64>()); // exited
    }

    void cpuPercent_data()
    {
        QTest::addColumn<TickCounts>("before");
        QTest::addColumn<TickCounts>("after");
        QTest::addColumn<qint64>("elapsedMs");
        QTest::addColumn<std::optional<double>>("percent");
        // 100 ticks a second, as on Linux.
        QTest::newRow("first sample") << TickCounts{} << TickCounts{{10, 500}} << qint64(2000) << std::optional<double>();
        QTest::newRow("no time") << TickCounts{{10, 500}} << TickCounts{{10, 500}} << qint64(0) << std::optional<double>();
        QTest::newRow("idle") << TickCounts{{10, 500}} << TickCounts{{10, 500}} << qint64(2000) << std::optional(0.0);
        QTest::newRow("one core busy") << TickCounts{{10, 500}} << TickCounts{{10, 700}} << qint64(2000) << std::optional(100.0);
        QTest::newRow("a child adds its share") << TickCounts{{10, 500}, {11, 40}} << TickCounts{{10, 550}, {11, 90}}
                                                << qint64(2000) << std::optional(50.0);
        QTest::newRow("a new child counts from its start") << TickCounts{{10, 500}} << TickCounts{{10, 500}, {12, 30}}
                                                           << qint64(2000) << std::optional(15.0);
        QTest::newRow("an ended child takes nothing away") << TickCounts{{10, 500}, {11, 900}} << TickCounts{{10, 520}}
                                                           << qint64(2000) << std::optional(10.0);
        QTest::newRow("a reused pid counts from its start") << TickCounts{{10, 500}, {11, 900}}
                                                            << TickCounts{{10, 500}, {11, 20}} << qint64(2000)
                                                            << std::optional(10.0);
        QTest::newRow("two cores") << TickCounts{{10, 0}} << TickCounts{{10, 100}} << qint64(500) << std::optional(200.0);
    }

    void cpuPercent()
    {
        QFETCH(TickCounts, before);
        QFETCH(TickCounts, after);
        QFETCH(qint64, elapsedMs);
        QFETCH(std::optional<double>, percent);
        QCOMPARE(Tether::cpuPercent(before, after, elapsedMs, 100), percent);
    }

    void readsATreeFromAProcFolder()
    {
        // /proc as it is laid out, with what is no process beside: self, a name, a thread-less kernel task.
        QTemporaryDir proc;
        QVERIFY(proc.isValid());
        const auto put = [&proc](const QString &pid, const QByteArray &stat, const QByteArray &status) {
            return QDir(proc.path()).mkpath(pid) && Testing::writeFile(proc.filePath(pid + u"/stat"_s), stat)
                   && Testing::writeFile(proc.filePath(pid + u"/status"_s), status);
        };
        QByteArray child = OddCommandStat;
        child.replace("26519 (a) (b) S 1 ", "26600 (a) (b) S 26519 ");
        child.replace(" 0 0 0 0 20 0 1 ", " 7 3 0 0 20 0 1 "); // utime and stime
        QByteArray childStatus = OddCommandStatus;
        childStatus.replace("VmRSS:\t    1832 kB", "VmRSS:\t     500 kB");
        QVERIFY(put(u"26519"_s, OddCommandStat, OddCommandStatus));
        QVERIFY(put(u"26600"_s, child, childStatus));
        QVERIFY(put(u"1"_s, BusyStat, KernelThreadStatus));
        QVERIFY(QDir(proc.path()).mkpath(u"self"_s));
        QVERIFY(QDir(proc.path()).mkpath(u"sys"_s));

        const ProcessTable table = readProcessTable(proc.path());
        QCOMPARE(table.size(), 3);
        QCOMPARE(table.value(26600).parentPid, 26519);
        const TreeUsage usage = readTreeUsage(26519, table, childrenByParent(table), proc.path());
        QCOMPARE(usage.residentKiB, 1832 + 500);
        QCOMPARE(usage.ticks, (TickCounts{{26519, 0}, {26600, 10}}));
    }

    void readsThisProcessFromTheRealProc()
    {
        const ProcessTable table = readProcessTable();
        const qint64 self = QCoreApplication::applicationPid();
        QVERIFY(table.contains(self));
        QCOMPARE(table.value(self).parentPid, qint64(::getppid()));
        QVERIFY(readTreeUsage(self, table, childrenByParent(table)).residentKiB > 1000);
    }
};

QTEST_GUILESS_MAIN(ProcessUsageTest)
#include "tst_processusage.moc"
