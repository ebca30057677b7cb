// Soak: a supervised tether-demo-server crashes (SIGKILL) and recovers again and again under a
// zero-delay policy, as many times as asked (default 1000), while the resident memory, live
// heap, open file descriptors and threads of this process (the one that supervises) are sampled
// after every recovery. Prints how they grew after the warm-up (until the event log holds as many
// events as it keeps); the target is flat. Exits with 1, saying why, when it cannot finish.
#include "common/logging.h"
#include "config/configparser.h"
#include "execwithin.h"
#include "manager/servermanager.h"
#include "percentile.h"
#include "processfigures.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonDocument>
#include <QTextStream>

#include <algorithm>
#include <csignal>
#include <malloc.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using Bench::execWithin;
using Bench::percentile;

namespace {

// How long one recovery, or the final stop, may take before the benchmark gives up.
constexpr std::chrono::seconds StepTimeout(30);

int fail(const QString &why)
{
    QTextStream(stderr) << "tether-soak-bench: " << why << Qt::endl;
    return 1;
}

struct Sample
{
    Bench::ProcessFigures figures;
    qint64 heapKiB = 0; // live allocations, without what the allocator keeps free
    qint64 fileDescriptors = 0;
};

Sample sample()
{
    return {Bench::processFigures(), qint64(mallinfo2().uordblks / 1024), Bench::openFileDescriptors()};
}

// "12 after the first connection, 12 after cycle 100, 13 at most, 12 after the last: growth
// after the warm-up +0"
template<typename Figure>
QString growth(const std::vector<Sample> &samples, size_t warmUp, Figure figure, const QString &unit)
{
    const auto shown = [&unit](qint64 value) -> QString { return QString::number(value) + unit; };
    qint64 most = 0;
    for (const Sample &each : samples)
        most = std::max(most, figure(each));
    const qint64 settled = figure(samples.at(warmUp));
    const qint64 last = figure(samples.back());
    return shown(figure(samples.front())) + u" after the first connection, "_s + shown(settled) + u" after cycle "_s
           + QString::number(warmUp) + u", "_s + shown(most) + u" at most, "_s + shown(last)
           + u" after the last: growth after the warm-up "_s + (last >= settled ? u"+"_s : QString())
           + shown(last - settled);
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"Crashes a supervised demo server again and again and samples this process's memory and descriptors."_s);
    parser.addHelpOption();
    const QCommandLineOption cyclesOption(u"cycles"_s, u"How many crash and recovery cycles (default 1000)."_s, u"n"_s,
                                          u"1000"_s);
    parser.addOption(cyclesOption);
    parser.process(app);
    const int cycles = std::max(1, parser.value(cyclesOption).toInt());
    spdlog::set_level(spdlog::level::err);

    // maxDelayMs 0 is also the stability window: each connection resets the attempt count.
    const QJsonObject reconnect{{u"initialDelayMs"_s, 0}, {u"maxDelayMs"_s, 0}, {u"jitter"_s, 0}, {u"maxAttempts"_s, 10}};
    const QJsonObject server{{u"command"_s, u"${tether:bindir}/tether-demo-server"_s}, {u"reconnect"_s, reconnect}};
    const QByteArray config = QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{{u"soak"_s, server}}}}).toJson();
    const ConfigDocument document = parseConfig(config, u"soak.json"_s, {systemEnvironment(), QStringLiteral(TETHER_APP_DIR)});
    if (!document.isValid())
        return fail(u"the generated config is not valid: "_s + document.errors.join(u"; "_s));

    QEventLoop loop;
    ServerManager manager;
    qint64 awaitedOtherThan = 0; // the pid of the process just killed
    QObject::connect(&manager, &ServerManager::stateChanged, &loop, [&](const ServerStatus &status) {
        if ((status.state == ServerState::Connected && status.pid != awaitedOtherThan) || status.state == ServerState::Failed)
            loop.quit();
    });
    // Connected again (a new process) within the step's time; false, with `why`, when not.
    const auto waitConnected = [&](QString *why) {
        const bool inTime = execWithin(loop, StepTimeout);
        const ServerStatus status = manager.status(u"soak"_s).value_or(ServerStatus{});
        if (inTime && status.state == ServerState::Connected)
            return true;
        *why = inTime ? status.reason : u"not connected within %1 s"_s.arg(StepTimeout.count());
        return false;
    };

    manager.applyConfig(document);
    QString error;
    if (!waitConnected(&error))
        return fail(u"the supervised demo server did not connect: "_s + error);

    std::vector<Sample> samples{sample()};
    std::vector<double> recoveries;
    // The event log keeps the last events of each server: until it holds that many, it grows.
    size_t eventLogFullAt = 0;
    QElapsedTimer soak;
    soak.start();
    for (int cycle = 1; cycle <= cycles; ++cycle) {
        awaitedOtherThan = manager.status(u"soak"_s)->pid;
        QElapsedTimer recovery;
        recovery.start();
        ::kill(pid_t(awaitedOtherThan), SIGKILL);
        if (!waitConnected(&error))
            return fail(u"the supervised demo server did not recover from kill %1: %2"_s.arg(cycle).arg(error));
        recoveries.push_back(double(recovery.nsecsElapsed()) / 1e6);
        samples.push_back(sample());
        if (eventLogFullAt == 0 && manager.eventLog().events(u"soak"_s).size() >= EventLog::DefaultCapPerServer)
            eventLogFullAt = size_t(cycle);
    }
    const qint64 soakMs = soak.elapsed();

    manager.stopAll();
    if (!manager.isAllStopped()) {
        QObject::connect(&manager, &ServerManager::allStopped, &loop, &QEventLoop::quit);
        if (!execWithin(loop, StepTimeout))
            return fail(u"the demo server did not stop within %1 s"_s.arg(StepTimeout.count()));
    }

    // Growth counts from the cycle the event log filled, or from a tenth of the cycles in runs
    // too short to fill it.
    const size_t warmUp = eventLogFullAt > 0 ? eventLogFullAt : std::max<size_t>(1, size_t(cycles) / 10);
    QTextStream out(stdout);
    out.setRealNumberNotation(QTextStream::FixedNotation);
    out.setRealNumberPrecision(2);
    out << "cycles: " << cycles << " crashes (SIGKILL) and recoveries in " << double(soakMs) / 1000.0
        << " s; recovery median " << percentile(recoveries, 0.5) << " ms, p99 " << percentile(recoveries, 0.99)
        << " ms\n";
    if (eventLogFullAt > 0)
        out << "event log: full (" << EventLog::DefaultCapPerServer << " events, its cap per server) after cycle "
            << eventLogFullAt << ", the end of the warm-up\n";
    else
        out << "event log: not full after " << cycles << " cycles (its cap is " << EventLog::DefaultCapPerServer
            << " events per server): the warm-up ends at cycle " << warmUp << " and the growth after it includes the log's\n";
    out << "resident memory: "
        << growth(samples, warmUp, [](const Sample &s) { return s.figures.residentKiB; }, u" KiB"_s)
        << " (target: flat)\n";
    out << "of which anonymous (heap and stacks): "
        << growth(samples, warmUp, [](const Sample &s) { return s.figures.anonymousKiB; }, u" KiB"_s) << "\n";
    out << "of which live heap allocations: "
        << growth(samples, warmUp, [](const Sample &s) { return s.heapKiB; }, u" KiB"_s) << "\n";
    out << "threads: " << growth(samples, warmUp, [](const Sample &s) { return s.figures.threads; }, QString()) << "\n";
    out << "open file descriptors: "
        << growth(samples, warmUp, [](const Sample &s) { return s.fileDescriptors; }, QString())
        << " (target: +0)\n";
    return 0;
}
