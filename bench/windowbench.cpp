// The window with 50 configured demo servers: time from starting `tether` to its first painted
// window, and its resident memory once all 50 are connected (the servers' own processes
// excluded), what sampling the CPU and memory of its 50 servers costs, and how long `tetherctl
// status` takes to answer from the window (the instance of the config) and, once the window has
// quit, alone (starting the 50 servers itself). Runs the real programs several times and prints
// every run and the median.
#include "percentile.h"
#include "processfigures.h"

#include "manager/processusage.h"
#include "manager/resourcesampler.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>

#include <csignal>
#include <functional>
#include <ctime>

using namespace Qt::StringLiterals;
using Tether::Bench::percentile;

namespace {

struct Run
{
    qint64 paintedAfterMainMs = -1; // tether's own clock, from main()
    qint64 paintSeenMs = -1;         // the bench's clock, from starting the process to reading the line
    qint64 tableAfterMainMs = -1;    // the table first painted with every server in it
    qint64 tableSeenMs = -1;
    qint64 connectedMs = -1;
    qint64 rssKiB = 0;
    qint64 rssAnonKiB = 0;
    double sampleCpuUs = 0; // processor time of one sample of every server's processes
    int sampledProcesses = 0;
    int systemProcesses = 0;
    double statusAttachedMs = 0; // median of StatusRounds runs against the window
    double statusAloneMs = 0;    // one run with no Tether running the config
    std::vector<double> attachedLagMs; // how late a window attached to tetherctl daemon saw each change
    QString error;
};

constexpr int StatusRounds = 10;

// `tetherctl status` run to its end: its wall time, or -1 (with `error`) when it did not show
// every server connected with the exit status `expected`.
double timeStatus(const QString &tetherctl, const QString &configPath, const QProcessEnvironment &environment,
                  int servers, int expected, QString *error)
{
    QProcess status;
    status.setProcessEnvironment(environment);
    QElapsedTimer clock;
    clock.start();
    status.start(tetherctl, {u"status"_s, u"--config"_s, configPath});
    if (!status.waitForFinished(60000) || status.exitCode() != expected) {
        *error = u"tetherctl status ended with %1, not %2: %3"_s.arg(status.exitCode()).arg(expected).arg(
            QString::fromUtf8(status.readAllStandardError()));
        return -1;
    }
    const double elapsed = double(clock.nsecsElapsed()) / 1e6;
    const int connected = int(status.readAllStandardOutput().count("Connected"));
    if (connected != servers) {
        *error = u"tetherctl status showed %1 of %2 servers connected"_s.arg(connected).arg(servers);
        return -1;
    }
    return elapsed;
}

double threadCpuMicroseconds()
{
    timespec now{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return double(now.tv_sec) * 1e6 + double(now.tv_nsec) / 1e3;
}

// One sample as Tether's ResourceSampler takes it every interval, of the servers of the tether
// process `tether` (its launchers' children), repeated for a steady figure: one scan of /proc,
// then the status file of each process of every server's tree.
void measureSampling(qint64 tether, Run &run)
{
    const Tether::ProcessTable table = Tether::readProcessTable();
    const QMultiHash<qint64, qint64> children = Tether::childrenByParent(table);
    QList<qint64> servers;
    for (qint64 launcher : children.values(tether))
        servers += children.values(launcher);
    constexpr int rounds = 50;
    const double start = threadCpuMicroseconds();
    int processes = 0;
    for (int round = 0; round < rounds; ++round) {
        const Tether::ProcessTable now = Tether::readProcessTable();
        const QMultiHash<qint64, qint64> parents = Tether::childrenByParent(now);
        processes = 0;
        for (qint64 server : std::as_const(servers))
            processes += int(Tether::readTreeUsage(server, now, parents).ticks.size());
    }
    run.sampleCpuUs = (threadCpuMicroseconds() - start) / rounds;
    run.sampledProcesses = processes;
    run.systemProcesses = int(table.size());
}

constexpr int AttachedChanges = 10;

// A window attached to `tetherctl daemon` of the config: how long after the daemon it shows each of
// AttachedChanges state changes (a server stopped and started by tetherctl), as the window logs it.
void measureAttached(const QString &tether, const QString &configPath, const QProcessEnvironment &environment,
                     int servers, Run &run)
{
    const QString tetherctl = QFileInfo(tether).dir().filePath(u"tetherctl"_s);
    QProcess daemon;
    daemon.setProcessEnvironment(environment);
    daemon.start(tetherctl, {u"daemon"_s, u"--config"_s, configPath});
    QProcess window;
    window.setProcessEnvironment(environment);
    QEventLoop loop;
    QByteArray pending;
    bool attached = false;
    const QRegularExpression lag(u"attached: server '([^']+)' is (Stopped|Connected), (-?\\d+) ms after"_s);
    QObject::connect(&window, &QProcess::readyReadStandardError, &loop, [&] {
        pending += window.readAllStandardError();
        qsizetype newline;
        while ((newline = pending.indexOf('\n')) >= 0) {
            const QString line = QString::fromUtf8(pending.left(newline));
            pending.remove(0, newline + 1);
            attached |= line.contains(u"attached: showing the"_s);
            if (const auto match = lag.match(line); match.hasMatch())
                run.attachedLagMs.push_back(match.captured(3).toDouble());
            loop.quit();
        }
    });
    const auto waitFor = [&](const std::function<bool()> &done, const QString &what) {
        QTimer deadline;
        deadline.setSingleShot(true);
        QObject::connect(&deadline, &QTimer::timeout, &loop, &QEventLoop::quit);
        deadline.start(30000);
        while (!done() && deadline.isActive())
            loop.exec();
        if (!done() && run.error.isEmpty()) {
            run.error = u"attached window: timed out waiting for "_s + what + u"; the daemon said: "_s
                        + QString::fromUtf8(daemon.readAllStandardError()) + u"; the window said: "_s + QString::fromUtf8(pending);
        }
        return done();
    };
    QString error;
    // The daemon runs every server before the window opens on the config.
    bool connected = false;
    for (int tries = 0; tries < 100 && !connected; ++tries)
        connected = timeStatus(tetherctl, configPath, environment, servers, 0, &error) >= 0;
    if (!connected) {
        run.error = u"tetherctl daemon did not connect every server: "_s + error + QString::fromUtf8(daemon.readAllStandardError());
    } else {
        window.start(tether, {u"--config"_s, configPath});
        if (waitFor([&] { return attached; }, u"the window to attach"_s)) {
            for (int change = 0; change < AttachedChanges && run.error.isEmpty(); ++change) {
                const size_t seen = run.attachedLagMs.size();
                QProcess command;
                command.setProcessEnvironment(environment);
                command.start(tetherctl, {change % 2 == 0 ? u"stop"_s : u"start"_s, u"demo-00"_s, u"--config"_s, configPath});
                command.waitForFinished(30000);
                waitFor([&] { return run.attachedLagMs.size() > seen; }, u"the window to show a change"_s);
            }
        }
    }
    for (QProcess *process : {&window, &daemon}) {
        if (process->state() == QProcess::NotRunning)
            continue;
        ::kill(pid_t(process->processId()), SIGTERM);
        if (!process->waitForFinished(15000))
            process->kill();
    }
}

Run measure(const QString &tether, const QString &configPath, const QProcessEnvironment &environment, int servers)
{
    const QString tetherctl = QFileInfo(tether).dir().filePath(u"tetherctl"_s);
    Run run;
    QProcess process;
    process.setProcessEnvironment(environment);
    process.setProcessChannelMode(QProcess::SeparateChannels);
    QEventLoop loop;
    QElapsedTimer clock;
    QSet<QString> connected;
    const QRegularExpression painted(u"window painted (\\d+) ms after start"_s);
    const QRegularExpression tablePainted(u"server table with (\\d+) servers painted (\\d+) ms after start"_s);
    const QRegularExpression connectedLine(u"(\\S+): connected with \\d+ tools"_s);
    QByteArray pending;
    QObject::connect(&process, &QProcess::readyReadStandardError, &loop, [&] {
        pending += process.readAllStandardError();
        qsizetype newline;
        while ((newline = pending.indexOf('\n')) >= 0) {
            const QString line = QString::fromUtf8(pending.left(newline));
            pending.remove(0, newline + 1);
            if (const auto match = painted.match(line); match.hasMatch()) {
                run.paintedAfterMainMs = match.captured(1).toLongLong();
                run.paintSeenMs = clock.elapsed();
            } else if (const auto table = tablePainted.match(line); table.hasMatch()) {
                if (table.captured(1).toInt() != servers)
                    run.error = u"the table was painted with %1 servers, not %2"_s.arg(table.captured(1)).arg(servers);
                run.tableAfterMainMs = table.captured(2).toLongLong();
                run.tableSeenMs = clock.elapsed();
            } else if (const auto server = connectedLine.match(line); server.hasMatch()) {
                connected.insert(server.captured(1));
            }
            if (run.tableSeenMs >= 0 && connected.size() >= servers && run.connectedMs < 0) {
                run.connectedMs = clock.elapsed();
                // Let the start-up settle (tool lists, first batched repaints) before reading memory.
                QTimer::singleShot(1000, &loop, [&] {
                    const Tether::Bench::ProcessFigures figures =
                        Tether::Bench::processFigures(QString::number(process.processId()));
                    run.rssKiB = figures.residentKiB;
                    run.rssAnonKiB = figures.anonymousKiB;
                    measureSampling(process.processId(), run);
                    std::vector<double> rounds;
                    for (int round = 0; round < StatusRounds && run.error.isEmpty(); ++round)
                        rounds.push_back(timeStatus(tetherctl, configPath, environment, servers, 0, &run.error));
                    run.statusAttachedMs = percentile(rounds, 0.5);
                    loop.quit();
                });
            }
        }
    });
    QObject::connect(&process, &QProcess::finished, &loop, [&] {
        run.error = u"tether exited early with status %1: "_s.arg(process.exitCode()) + QString::fromUtf8(pending)
                    + QString::fromUtf8(process.readAllStandardError());
        loop.quit();
    });
    QTimer deadline;
    deadline.setSingleShot(true);
    QObject::connect(&deadline, &QTimer::timeout, &loop, [&] {
        run.error = u"timed out: painted %1, %2 of %3 servers connected"_s.arg(run.paintSeenMs >= 0 ? u"yes"_s : u"no"_s)
                        .arg(connected.size()).arg(servers);
        loop.quit();
    });
    deadline.start(30000);
    clock.start();
    process.start(tether, {u"--config"_s, configPath});
    loop.exec();
    deadline.stop();
    process.disconnect(&loop);
    if (process.state() != QProcess::NotRunning) {
        // SIGTERM is Tether's quiescent quit: every server stopped before it exits.
        ::kill(pid_t(process.processId()), SIGTERM);
        if (!process.waitForFinished(15000))
            process.kill();
    }
    // No Tether runs the config now: status starts (and stops) the servers itself.
    if (run.error.isEmpty())
        run.statusAloneMs = timeStatus(tetherctl, configPath, environment, servers, 5, &run.error);
    if (run.error.isEmpty())
        measureAttached(tether, configPath, environment, servers, run);
    return run;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(u"Starts the tether window on many demo servers and measures it."_s);
    parser.addHelpOption();
    const QCommandLineOption countOption(u"servers"_s, u"How many servers (default 50)."_s, u"n"_s, u"50"_s);
    const QCommandLineOption runsOption(u"runs"_s, u"How many runs (default 5)."_s, u"n"_s, u"5"_s);
    parser.addOptions({countOption, runsOption});
    parser.process(app);
    const int count = std::max(1, parser.value(countOption).toInt());
    const int runs = std::max(1, parser.value(runsOption).toInt());

    QTemporaryDir home;
    QJsonObject servers;
    for (int i = 0; i < count; ++i)
        servers.insert(u"demo-%1"_s.arg(i, 2, 10, QChar(u'0')), QJsonObject{{u"command"_s, u"${tether:bindir}/tether-demo-server"_s}});
    const QString configPath = home.filePath(u"servers.json"_s);
    QFile config(configPath);
    if (!config.open(QIODevice::WriteOnly) || config.write(QJsonDocument(QJsonObject{{u"mcpServers"_s, servers}}).toJson()) < 0) {
        QTextStream(stderr) << "cannot write " << configPath << Qt::endl;
        return 1;
    }
    config.close();

    // A home of its own: no saved window geometry, no log in the user's folder.
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(u"XDG_CONFIG_HOME"_s, home.filePath(u"config"_s));
    environment.insert(u"XDG_DATA_HOME"_s, home.filePath(u"data"_s));
    // Nor a Tether already running for this user, to which each run would hand over.
    environment.insert(u"XDG_RUNTIME_DIR"_s, home.path());
    // The platform asked for ($QT_QPA_PLATFORM, as in the smoke test), else the display, else offscreen.
    const bool display = environment.contains(u"DISPLAY"_s) || environment.contains(u"WAYLAND_DISPLAY"_s);
    QString platform = u"of $DISPLAY"_s;
    if (environment.contains(u"QT_QPA_PLATFORM"_s)) {
        platform = environment.value(u"QT_QPA_PLATFORM"_s) + u" ($QT_QPA_PLATFORM)"_s;
    } else if (!display) {
        environment.insert(u"QT_QPA_PLATFORM"_s, u"offscreen"_s);
        platform = u"offscreen (no display)"_s;
    }
    const QString tether = QStringLiteral(TETHER_APP_DIR) + u"/tether"_s;

    QTextStream out(stdout);
    out << "tether with " << count << " configured demo servers, " << runs << " runs, platform "
        << platform << Qt::endl;
    std::vector<double> sampling, painted, seen, tablePainted, tableSeen, rss, anonymous, connectedTimes, statusAttached,
        statusAlone, attachedLag;
    for (int i = 0; i < runs; ++i) {
        const Run run = measure(tether, configPath, environment, count);
        if (!run.error.isEmpty()) {
            QTextStream(stderr) << "tether-window-bench: run " << i + 1 << " failed: " << run.error << Qt::endl;
            return 1;
        }
        out << "run " << i + 1 << ": window painted " << run.paintedAfterMainMs << " ms after main ("
            << run.paintSeenMs << " ms after launch), with its " << count << " servers " << run.tableAfterMainMs
            << " ms after main (" << run.tableSeenMs << " ms after launch); all connected after " << run.connectedMs << " ms; RSS "
            << QString::number(run.rssKiB / 1024.0, 'f', 1) << " MiB (anonymous " << QString::number(run.rssAnonKiB / 1024.0, 'f', 1)
            << " MiB); one sample of " << run.sampledProcesses << " server processes (of " << run.systemProcesses
            << " on the machine) " << QString::number(run.sampleCpuUs / 1000.0, 'f', 2) << " ms of CPU; tetherctl status "
            << QString::number(run.statusAttachedMs, 'f', 1) << " ms from the window, "
            << QString::number(run.statusAloneMs, 'f', 1) << " ms alone; an attached window "
            << QString::number(percentile(run.attachedLagMs, 0.5), 'f', 0) << " ms (median of " << run.attachedLagMs.size()
            << " changes; at most " << QString::number(percentile(run.attachedLagMs, 1.0), 'f', 0)
            << " ms) after tetherctl daemon" << Qt::endl;
        attachedLag.insert(attachedLag.end(), run.attachedLagMs.cbegin(), run.attachedLagMs.cend());
        statusAttached.push_back(run.statusAttachedMs);
        statusAlone.push_back(run.statusAloneMs);
        sampling.push_back(run.sampleCpuUs);
        painted.push_back(double(run.paintedAfterMainMs));
        seen.push_back(double(run.paintSeenMs));
        tablePainted.push_back(double(run.tableAfterMainMs));
        tableSeen.push_back(double(run.tableSeenMs));
        connectedTimes.push_back(double(run.connectedMs));
        rss.push_back(run.rssKiB / 1024.0);
        anonymous.push_back(run.rssAnonKiB / 1024.0);
    }
    out << Qt::endl
        << "median time to the first painted window: " << percentile(seen, 0.5) << " ms from launch ("
        << percentile(painted, 0.5) << " ms from main)" << Qt::endl
        << "median time to the window painted with all " << count << " servers: " << percentile(tableSeen, 0.5)
        << " ms from launch (" << percentile(tablePainted, 0.5) << " ms from main)   target < 300 ms" << Qt::endl
        << "median resident memory with " << count << " connected: " << QString::number(percentile(rss, 0.5), 'f', 1)
        << " MiB (anonymous " << QString::number(percentile(anonymous, 0.5), 'f', 1) << " MiB)   target < 60 MB" << Qt::endl
        << "median time until all connected: " << percentile(connectedTimes, 0.5) << " ms" << Qt::endl
        << "median time of tetherctl status with its " << count << " servers: "
        << QString::number(percentile(statusAttached, 0.5), 'f', 1) << " ms from the window that runs them   target < 50 ms ("
        << QString::number(percentile(statusAlone, 0.5), 'f', 1) << " ms alone, starting them)" << Qt::endl
        << "state changes shown by a window attached to tetherctl daemon: median "
        << QString::number(percentile(attachedLag, 0.5), 'f', 0) << " ms, at most "
        << QString::number(percentile(attachedLag, 1.0), 'f', 0) << " ms after the daemon (" << attachedLag.size()
        << " changes)   target < 50 ms" << Qt::endl
        << "median CPU of sampling the " << count << " servers' processes: "
        << QString::number(percentile(sampling, 0.5) / 1000.0, 'f', 2) << " ms a sample, every "
        << Tether::ResourceSampler::DefaultInterval.count() << " ms: "
        << QString::number(percentile(sampling, 0.5) / 1000.0 / double(Tether::ResourceSampler::DefaultInterval.count()) * 100.0, 'f', 3)
        << " % of a core   target < 1 %" << Qt::endl;
    return 0;
}
