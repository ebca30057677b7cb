// 200 supervised demo servers from one config: time until all are Connected, the manager's
// memory per server (children excluded), and the event-loop stall while all of them crash at
// the same moment and recover, with the peak number of spawns in any 100 ms. Exits with 1,
// saying why, when it cannot finish.
#include "common/logging.h"
#include "execwithin.h"
#include "percentile.h"
#include "processfigures.h"
#include "config/configparser.h"
#include "manager/servermanager.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QHash>
#include <QJsonDocument>
#include <QSet>
#include <QTextStream>
#include <QTimer>

#include <algorithm>
#include <csignal>
#include <malloc.h>
#include <sys/resource.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using Bench::execWithin;
using Bench::percentile;

namespace {

// How long starting or recovering every server, or stopping them, may take before the
// benchmark gives up.
constexpr std::chrono::seconds StepTimeout(120);

int fail(const QString &why)
{
    QTextStream(stderr) << "tether-many-bench: " << why << Qt::endl;
    return 1;
}

// How many servers are connected, and the state of the first one that is not.
QString connectedSoFar(const ServerManager &manager)
{
    const QList<ServerStatus> statuses = manager.statuses();
    QStringList waiting;
    for (const ServerStatus &status : statuses) {
        if (status.state != ServerState::Connected)
            waiting.append(u"%1 is %2: %3"_s.arg(status.name, stateName(status.state), status.reason));
    }
    return u"%1 of %2 servers connected within %3 s; %4"_s.arg(statuses.size() - waiting.size())
        .arg(statuses.size())
        .arg(StepTimeout.count())
        .arg(waiting.value(0));
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(u"Supervises many demo servers and measures the manager."_s);
    parser.addHelpOption();
    const QCommandLineOption countOption(u"servers"_s, u"How many servers (default 200)."_s, u"n"_s, u"200"_s);
    parser.addOption(countOption);
    parser.process(app);
    const int count = std::max(1, parser.value(countOption).toInt());
    spdlog::set_level(spdlog::level::err);

    // Each child costs the manager a few descriptors (pipes, process fd).
    rlimit files{};
    getrlimit(RLIMIT_NOFILE, &files);
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);

    QJsonObject servers;
    for (int i = 0; i < count; ++i)
        servers.insert(u"demo-%1"_s.arg(i, 3, 10, QChar(u'0')), QJsonObject{{u"command"_s, u"${tether:bindir}/tether-demo-server"_s}});
    const QByteArray config = QJsonDocument(QJsonObject{{u"mcpServers"_s, servers}}).toJson();
    const ConfigDocument document = parseConfig(config, u"bench.json"_s,
                                                {systemEnvironment(), QStringLiteral(TETHER_APP_DIR)});
    if (!document.isValid())
        return fail(u"the generated config is not valid: "_s + document.errors.join(u"; "_s));

    QEventLoop loop;
    ServerManager manager;
    std::vector<qint64> spawnTimes;
    QElapsedTimer clock;
    clock.start();
    QSet<QString> connected;
    QHash<QString, qint64> pids;
    // A spawn is a new process, seen when a status first shows its pid.
    QObject::connect(&manager, &ServerManager::statusChanged, &loop, [&](const ServerStatus &status) {
        if (status.pid > 0 && pids.value(status.name) != status.pid) {
            pids.insert(status.name, status.pid);
            spawnTimes.push_back(clock.elapsed());
        }
    });
    QObject::connect(&manager, &ServerManager::stateChanged, &loop, [&](const ServerStatus &status) {
        if (status.state == ServerState::Connected)
            connected.insert(status.name);
        else
            connected.remove(status.name);
        if (connected.size() == count)
            loop.quit();
    });

    const qint64 rssBefore = Bench::processFigures().anonymousKiB;
    const size_t heapBefore = mallinfo2().uordblks;
    QElapsedTimer startup;
    startup.start();
    manager.applyConfig(document);
    if (!execWithin(loop, StepTimeout))
        return fail(u"starting: "_s + connectedSoFar(manager));
    const qint64 startupMs = startup.elapsed();
    const qint64 rssAfter = Bench::processFigures().anonymousKiB;
    const size_t heapAfter = mallinfo2().uordblks;

    // Event-loop stall: how late a 1 ms timer fires while everything crashes and recovers.
    std::vector<double> stalls;
    QElapsedTimer tick;
    QTimer probe;
    probe.setTimerType(Qt::PreciseTimer);
    probe.setInterval(1);
    QObject::connect(&probe, &QTimer::timeout, &loop, [&] {
        stalls.push_back(std::max(0.0, double(tick.nsecsElapsed()) / 1e6 - 1.0));
        tick.restart();
    });
    spawnTimes.clear();
    const qint64 crashAt = clock.elapsed();
    tick.start();
    probe.start();
    for (const ServerStatus &status : manager.statuses())
        ::kill(pid_t(status.pid), SIGKILL);
    QElapsedTimer recovery;
    recovery.start();
    if (!execWithin(loop, StepTimeout))
        return fail(u"recovering from the kill: "_s + connectedSoFar(manager));
    const qint64 recoveryMs = recovery.elapsed();
    probe.stop();

    int peakSpawns = 0;
    for (size_t i = 0; i < spawnTimes.size(); ++i) {
        const auto end = std::upper_bound(spawnTimes.begin() + qsizetype(i), spawnTimes.end(), spawnTimes[i] + 99);
        peakSpawns = std::max(peakSpawns, int(end - (spawnTimes.begin() + qsizetype(i))));
    }
    const qint64 firstSpawn = spawnTimes.empty() ? 0 : spawnTimes.front() - crashAt;
    const qint64 lastSpawn = spawnTimes.empty() ? 0 : spawnTimes.back() - crashAt;

    manager.stopAll();
    if (!manager.isAllStopped()) {
        QObject::connect(&manager, &ServerManager::allStopped, &loop, &QEventLoop::quit);
        if (!execWithin(loop, StepTimeout))
            return fail(u"the servers did not stop within %1 s"_s.arg(StepTimeout.count()));
    }

    QTextStream out(stdout);
    out.setRealNumberNotation(QTextStream::FixedNotation);
    out.setRealNumberPrecision(2);
    out << "servers: " << count << "\n";
    out << "time until all Connected: " << startupMs << " ms\n";
    out << "manager memory: " << (rssAfter - rssBefore) << " KiB for " << count << " servers = "
        << double(rssAfter - rssBefore) / count << " KiB per server (growth of resident anonymous memory, children excluded; target <= 40 KB)\n";
    out << "of which live heap allocations: " << double(heapAfter - heapBefore) / 1024.0 / count << " KiB per server\n";
    out << "all killed at once: recovered in " << recoveryMs << " ms; " << spawnTimes.size()
        << " spawns from +" << firstSpawn << " ms to +" << lastSpawn << " ms, peak " << peakSpawns
        << " in any 100 ms\n";
    out << "event-loop stall during crash and recovery: p50 " << percentile(stalls, 0.5) << " ms, p99 "
        << percentile(stalls, 0.99) << " ms, max " << percentile(stalls, 1.0) << " ms (target p99 < 16 ms)\n";
    return 0;
}
