// Scale: a server with tens of thousands of tools, and a config of tens of thousands of servers.
//
// Tools: the window runs on a config of one tether-demo-server with --tools N, that server
// selected so its Tools tab lists them, while a 1 ms timer measures how late the event loop
// answers (what every other server's supervision would wait). The time until it is Connected,
// with every tool listed page by page and registered, is set against the same for a server
// with no extra tools: the difference is what listing and registering N tools costs.
// Config: generated configs of N servers are parsed, as loading a config file does.
// Exits with 1, saying why, when it cannot finish.
#include "common/logging.h"
#include "config/configparser.h"
#include "config/configstore.h"
#include "execwithin.h"
#include "mainwindow.h"
#include "manager/servermanager.h"
#include "percentile.h"
#include "processfigures.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>

#include <ctime>
#include <numeric>
#include <optional>
#include <sys/resource.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using Bench::execWithin;
using Bench::percentile;

namespace {

// How long connecting or stopping a server may take before the benchmark gives up.
constexpr std::chrono::seconds StepTimeout(120);
// How long the loop is still watched once the server is Connected, for the work that follows.
constexpr std::chrono::milliseconds Settle(300);
// The most of the loop's processor time that one turn may take while a long list is listed and
// registered: one page (100 tools) or one naming step is a small part of thousands of tools.
constexpr int LongestTurnShareTarget = 10;

QTextStream &out()
{
    static QTextStream stream(stdout);
    stream.setRealNumberNotation(QTextStream::FixedNotation);
    stream.setRealNumberPrecision(1);
    return stream;
}

int fail(const QString &why)
{
    QTextStream(stderr) << "tether-scale-bench: " << why << Qt::endl;
    return 1;
}

QList<int> counts(const QString &text)
{
    QList<int> values;
    for (const QString &part : text.split(u',', Qt::SkipEmptyParts)) {
        bool ok = false;
        const int value = part.trimmed().toInt(&ok);
        if (ok && value >= 0)
            values.append(value);
    }
    return values;
}

struct ToolRun
{
    double connectedMs = 0;     // from loading the config to Connected with every tool registered
    double tetherCpuMs = 0;     // the processor time Tether took meanwhile
    double serverCpuMs = 0;     // the processor time the server took, start to stop
    int registered = 0;         // tools in the registry then
    qint64 anonymousKiB = 0;    // Tether's own memory (heap and stacks) once Connected
    std::vector<double> stalls; // how late each 1 ms tick came, in ms
    std::vector<double> busy;   // the processor time the loop spent between two ticks, in ms
};

// Processor time of the calling thread: what the event loop itself spent, whoever else runs.
double threadCpuMs()
{
    timespec time{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time);
    return double(time.tv_sec) * 1e3 + double(time.tv_nsec) / 1e6;
}

// Processor time, user and system, of this process or of its children that have ended.
double cpuMs(int who)
{
    rusage usage{};
    getrusage(who, &usage);
    const auto ms = [](const timeval &time) { return double(time.tv_sec) * 1e3 + double(time.tv_usec) / 1e3; };
    return ms(usage.ru_utime) + ms(usage.ru_stime);
}

// Loads a config of one demo server with `extraTools` extra tools into a manager shown in the
// window with that server selected, until the server is Connected and a little after.
std::optional<ToolRun> runTools(int extraTools, int pageSize, QString *error)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(u"servers.json"_s);
    QStringList args{u"--tools"_s, QString::number(extraTools)};
    if (pageSize > 0)
        args << u"--page-size"_s << QString::number(pageSize);
    const QJsonObject server{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}, {u"args"_s, QJsonArray::fromStringList(args)}};
    const QString name = u"tools-%1"_s.arg(extraTools);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)
        || file.write(QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{{name, server}}}}).toJson()) < 0) {
        *error = u"cannot write %1: %2"_s.arg(path, file.errorString());
        return std::nullopt;
    }
    file.close();

    ServerManager manager;
    ConfigStore store({path, false}, {systemEnvironment(), {}}, dir.filePath(u"user.json"_s));
    MainWindow window(manager, store);
    QObject::connect(&store, &ConfigStore::documentChanged, &manager, &ServerManager::applyConfig);
    QObject::connect(&manager, &ServerManager::serverAdded, &window, [&](const QString &added) {
        window.selectServer(added);
    });
    window.show();

    QEventLoop loop;
    ToolRun run;
    QElapsedTimer clock;
    const double tetherCpuBefore = cpuMs(RUSAGE_SELF);
    const double serverCpuBefore = cpuMs(RUSAGE_CHILDREN);
    QObject::connect(&manager, &ServerManager::stateChanged, &loop, [&](const ServerStatus &status) {
        if (status.state == ServerState::Connected && run.connectedMs == 0) {
            run.connectedMs = double(clock.nsecsElapsed()) / 1e6;
            run.tetherCpuMs = cpuMs(RUSAGE_SELF) - tetherCpuBefore;
            run.registered = manager.registry().count();
            run.anonymousKiB = Bench::processFigures().anonymousKiB;
            QTimer::singleShot(Settle, &loop, &QEventLoop::quit);
        } else if (status.state == ServerState::Failed) {
            *error = u"%1 failed: %2"_s.arg(name, status.reason);
            loop.quit();
        }
    });
    QElapsedTimer tick;
    QTimer probe;
    probe.setTimerType(Qt::PreciseTimer);
    probe.setInterval(1);
    double busySince = 0;
    QObject::connect(&probe, &QTimer::timeout, &loop, [&] {
        run.stalls.push_back(std::max(0.0, double(tick.nsecsElapsed()) / 1e6 - 1.0));
        tick.restart();
        const double now = threadCpuMs();
        run.busy.push_back(now - busySince);
        busySince = now;
    });

    clock.start();
    tick.start();
    busySince = threadCpuMs();
    probe.start();
    store.load(ConfigStore::FileChanges::Ignore);
    const bool finished = execWithin(loop, StepTimeout);
    probe.stop();
    if (!finished) {
        const QString lastError = manager.status(name).value_or(ServerStatus{}).lastError;
        *error = u"%1 was not Connected within %2 s%3"_s.arg(name).arg(StepTimeout.count())
                     .arg(lastError.isEmpty() ? QString() : u" (last error: %1)"_s.arg(lastError));
    }

    manager.stopAll();
    if (!manager.isAllStopped()) {
        QObject::connect(&manager, &ServerManager::allStopped, &loop, &QEventLoop::quit);
        if (!execWithin(loop, StepTimeout) && error->isEmpty())
            *error = u"%1 did not stop within %2 s"_s.arg(name).arg(StepTimeout.count());
    }
    if (!error->isEmpty())
        return std::nullopt;
    run.serverCpuMs = cpuMs(RUSAGE_CHILDREN) - serverCpuBefore;
    return run;
}

// A config of `count` stdio servers, each with arguments and an environment, as a user writes one.
QByteArray generatedConfig(int count)
{
    QJsonObject servers;
    for (int i = 0; i < count; ++i) {
        servers.insert(u"server-%1"_s.arg(i, 6, 10, QChar(u'0')),
                       QJsonObject{{u"command"_s, u"npx"_s},
                                   {u"args"_s, QJsonArray{u"-y"_s, u"@example/server-%1"_s.arg(i)}},
                                   {u"env"_s, QJsonObject{{u"API_TOKEN"_s, u"${env:HOME}"_s}}}});
    }
    return QJsonDocument(QJsonObject{{u"mcpServers"_s, servers}}).toJson();
}

} // namespace

int main(int argc, char *argv[])
{
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(u"Lists and registers the tools of a demo server with many tools, with the "
                                     "window showing them, and parses configs of many servers."_s);
    parser.addHelpOption();
    const QCommandLineOption toolsOption(u"tools"_s, u"Extra tools of the demo server, one run each (default 5000,50000)."_s,
                                         u"n,..."_s, u"5000,50000"_s);
    const QCommandLineOption pageOption(u"page-size"_s, u"Tools per tools/list page (default: the demo server's, 100)."_s,
                                        u"n"_s, u"0"_s);
    const QCommandLineOption serversOption(u"servers"_s, u"Servers in each generated config (default 10000,80000)."_s,
                                           u"n,..."_s, u"10000,80000"_s);
    parser.addOptions({toolsOption, pageOption, serversOption});
    parser.process(app);
    spdlog::set_level(spdlog::level::err);

    QString error;
    const QList<int> toolCounts = counts(parser.value(toolsOption));
    const std::optional<ToolRun> baseline = toolCounts.isEmpty() ? ToolRun() : runTools(0, 0, &error);
    if (!baseline)
        return fail(error);
    if (!toolCounts.isEmpty()) {
        out() << "a server with no extra tools: Connected after " << baseline->connectedMs << " ms ("
              << baseline->registered << " tools)\n";
    }
    for (const int count : toolCounts) {
        const std::optional<ToolRun> run = runTools(count, parser.value(pageOption).toInt(), &error);
        if (!run)
            return fail(error);
        if (run->registered != baseline->registered + count)
            return fail(u"%1 tools registered, %2 expected"_s.arg(run->registered).arg(baseline->registered + count));
        out() << count << " tools: Connected after " << run->connectedMs << " ms; listed and registered in "
              << run->connectedMs - baseline->connectedMs << " ms (target < 1000 ms for 50000)\n";
        out() << "  Tether's own memory (heap and stacks): " << run->anonymousKiB / 1024.0 << " MiB, "
              << (run->anonymousKiB - baseline->anonymousKiB) / 1024.0 << " MiB more than with no extra tools\n";
        out() << "  processor time: Tether " << run->tetherCpuMs - baseline->tetherCpuMs << " ms, the server "
              << run->serverCpuMs - baseline->serverCpuMs << " ms (more than a server with no extra tools)\n";
        out() << "  event-loop stall meanwhile: p50 " << percentile(run->stalls, 0.5) << " ms, p99 "
              << percentile(run->stalls, 0.99) << " ms, max " << percentile(run->stalls, 1.0)
              << " ms (target max < 50 ms)\n";
        // On a busy machine a stall also holds the time other processes ran: this is Tether's own.
        out() << "  processor time of the loop between two ticks: p50 " << percentile(run->busy, 0.5) << " ms, p99 "
              << percentile(run->busy, 0.99) << " ms, max " << percentile(run->busy, 1.0) << " ms\n";
        // A share of the loop's own time, which neither the machine's load nor the build changes
        // much: work done page by page and in bounded steps leaves every turn a small part of it.
        const double loopMs = std::accumulate(run->busy.cbegin(), run->busy.cend(), 0.0);
        out() << "  longest turn: " << percentile(run->busy, 1.0) << " ms of processor time, "
              << 100 * percentile(run->busy, 1.0) / std::max(loopMs, 1.0) << " % of the loop's " << loopMs
              << " ms from loading the config to " << Settle.count() << " ms after Connected (target < "
              << LongestTurnShareTarget << " % for 50000)\n";
    }

    for (const int count : counts(parser.value(serversOption))) {
        const QByteArray config = generatedConfig(count);
        QElapsedTimer clock;
        clock.start();
        const double cpuBefore = threadCpuMs();
        const ConfigDocument document = parseConfig(config, u"bench.json"_s, {systemEnvironment(), {}});
        const double parseMs = double(clock.nsecsElapsed()) / 1e6;
        const double parseCpuMs = threadCpuMs() - cpuBefore;
        if (!document.isValid() || document.servers.size() != count)
            return fail(u"the generated config of %1 servers did not parse into %1 servers: %2"_s.arg(count).arg(
                document.errors.join(u"; "_s)));
        out() << "config of " << count << " servers (" << config.size() / 1024 << " KiB) parsed in " << parseMs
              << " ms, " << parseCpuMs << " ms of processor time (target < 1000 ms for 10000)\n";
    }
    out().flush();
    return 0;
}
