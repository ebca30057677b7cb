// The CPU and memory of real demo server processes and their children, as the window shows them.
#include "manager/processusage.h"
#include "manager/resourcesampler.h"
#include "manager/servermanager.h"
#include "support/demoserverconfig.h"
#include "support/stopallandwait.h"
#include "support/testfiles.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;
using namespace std::chrono_literals;

namespace {

qint64 pidOf(const ServerManager &manager, const QString &name)
{
    return manager.status(name).value_or(ServerStatus{}).pid;
}

bool connected(const ServerManager &manager, const QString &name)
{
    return manager.status(name).value_or(ServerStatus{}).state == ServerState::Connected;
}

qint64 residentBytesOf(qint64 pid)
{
    return parseResidentKiB(readFile(u"/proc/%1/status"_s.arg(pid))).value_or(0) * 1024;
}

} // namespace

class TestResourceSampler final : public QObject
{
    Q_OBJECT

private slots:
    void measuresEachServerWithItsChildren()
    {
        ServerManager manager;
        ResourceSampler sampler(manager);
        sampler.setInterval(200ms);
        QVERIFY(!sampler.isSampling()); // nothing runs yet
        ServerConfig remote;
        remote.name = u"remote"_s;
        remote.transport = TransportKind::StreamableHttp;
        remote.url = u"http://127.0.0.1:9/mcp"_s;
        remote.heartbeat.enabled = false;
        manager.applyConfig(configDocument({demoServerConfig(u"busy"_s, {u"--burn-cpu"_s}),
                                            demoServerConfig(u"idle"_s), remote}));
        QTRY_VERIFY_WITH_TIMEOUT(connected(manager, u"busy"_s) && connected(manager, u"idle"_s), 15000);
        QVERIFY(sampler.isSampling());

        // The busy child spins on a core: the tree's CPU says so once two samples are taken.
        QTRY_VERIFY_WITH_TIMEOUT(sampler.resources(u"busy"_s).value_or(ProcessResources{}).cpuPercent.value_or(0) > 20,
                                 10000);
        const ProcessResources busy = *sampler.resources(u"busy"_s);
        QCOMPARE(busy.pid, pidOf(manager, u"busy"_s));
        QCOMPARE(busy.processes, 2);
        // The child's resident set is counted with the server's own.
        QVERIFY2(busy.residentBytes > residentBytesOf(busy.pid),
                 qPrintable(u"tree %1 B, server alone %2 B"_s.arg(busy.residentBytes).arg(residentBytesOf(busy.pid))));

        const ProcessResources idle = sampler.resources(u"idle"_s).value_or(ProcessResources{});
        QCOMPARE(idle.pid, pidOf(manager, u"idle"_s));
        QCOMPARE(idle.processes, 1);
        QVERIFY(idle.residentBytes > 1024 * 1024);
        QVERIFY(idle.cpuPercent.value_or(100) < busy.cpuPercent.value_or(0));

        // A remote server has no process to measure.
        QCOMPARE(sampler.resources(u"remote"_s), std::nullopt);

        // Stopped servers have no figures, and sampling stops with the last process.
        manager.stop(u"busy"_s);
        QTRY_COMPARE_WITH_TIMEOUT(sampler.resources(u"busy"_s), std::nullopt, 10000);
        QVERIFY(stopAllAndWait(manager));
        QTRY_VERIFY_WITH_TIMEOUT(!sampler.isSampling(), 5000);
        QCOMPARE(sampler.resources(u"idle"_s), std::nullopt);
    }
};

QTEST_GUILESS_MAIN(TestResourceSampler)
#include "tst_resourcesampler.moc"
