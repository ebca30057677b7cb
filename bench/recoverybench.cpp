// Crash detection and recovery of a supervised tether-demo-server under a zero-delay policy.
//
// Floors: the server's own start and handshake (spawn, initialize, tools/list) with a bare
// session, and the kernel's kill -> exit notification with no Tether code, of the same server
// idle after its handshake, as the supervised one is when it is killed. Then the supervised
// server is killed with SIGKILL again and again; detection is kill -> Reconnecting, recovery is
// kill -> Connected with its tools registered again (as many as the first connection registered).
// With --idle-ms, every leg's server sits idle that long after its handshake before its kill, as a
// server that crashes on its own mostly does; sleeping cores then wake slower, and every figure grows.
// The official TypeScript SDK's client does the same (bench/sdk-recovery-client.mjs). The legs
// take turns in rounds, so that a change in the machine's load falls on all of them alike.
// Exits with 1, saying why, when it cannot finish.
#include "common/logging.h"
#include "execwithin.h"
#include "percentile.h"
#include "serverhandshake.h"
#include "session/mcpclientsession.h"
#include "supervisor/connectionsupervisor.h"
#include "transport/stdiotransport.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTextStream>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <string>
#include <thread>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using Bench::execWithin;
using Bench::percentile;
using Bench::startAndHandshakeOnce;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// How long any one step may take before the benchmark gives up.
constexpr std::chrono::seconds StepTimeout(30);

StdioServerCommand demo()
{
    return {QStringLiteral(TETHER_DEMO_SERVER), {}, {}, {}, {}};
}

int fail(const QString &why)
{
    QTextStream(stderr) << "tether-recovery-bench: " << why << Qt::endl;
    return 1;
}

// Reads lines from `fd` (the rest stays in `buffer`) until one is the reply with `id`; false when
// the server ended or said nothing for 5 s.
bool readReply(int fd, std::string &buffer, int id)
{
    const std::string idMember = "\"id\":" + std::to_string(id);
    for (;;) {
        const std::size_t newline = buffer.find('\n');
        if (newline != std::string::npos) {
            const std::string line = buffer.substr(0, newline);
            buffer.erase(0, newline + 1);
            const bool isReply = line.find(idMember + ',') != std::string::npos || line.find(idMember + '}') != std::string::npos;
            if (isReply)
                return true;
            continue;
        }
        pollfd readable{fd, POLLIN, 0};
        char chunk[64 * 1024];
        if (::poll(&readable, 1, 5000) != 1)
            return false;
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n <= 0)
            return false;
        buffer.append(chunk, std::size_t(n));
    }
}

// The server alone, with no Qt and no Tether code: what any client pays at least.
struct RawServerRun
{
    // Spawned directly (no launcher), initialize written at once, then notifications/initialized
    // and tools/list over plain pipes: what Tether's start and handshake adds to.
    double handshakeMs = -1;
    // Then, idle as a supervised server is when it crashes, killed: kill -> the exit is
    // observable (pidfd readable). Detection can never be faster than this.
    double exitNotificationMs = -1;
};

// -1 for what could not be measured.
RawServerRun runRawServerOnce(std::chrono::milliseconds idle)
{
    const QByteArray program = QByteArrayLiteral(TETHER_DEMO_SERVER);
    RawServerRun run;
    int input[2];
    int output[2];
    if (::pipe2(input, O_CLOEXEC) != 0)
        return run;
    if (::pipe2(output, O_CLOEXEC) != 0) {
        ::close(input[0]);
        ::close(input[1]);
        return run;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, input[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, output[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    char *arguments[] = {const_cast<char *>(program.constData()), nullptr};
    const auto start = Clock::now();
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, program.constData(), &actions, nullptr, arguments, environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(input[0]);
    ::close(output[1]);
    static const std::string initialize =
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},)"
        R"("clientInfo":{"name":"tether-recovery-bench","version":"1"}}})" "\n";
    static const std::string listTools =
        R"({"jsonrpc":"2.0","method":"notifications/initialized"})" "\n" R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})" "\n";
    std::string buffer;
    if (spawned == 0 && ::write(input[1], initialize.data(), initialize.size()) == ssize_t(initialize.size())
        && readReply(output[0], buffer, 1) && ::write(input[1], listTools.data(), listTools.size()) == ssize_t(listTools.size())
        && readReply(output[0], buffer, 2)) {
        run.handshakeMs = msSince(start);
        std::this_thread::sleep_for(idle);
        const int pidfd = int(::syscall(SYS_pidfd_open, pid, 0));
        pollfd exited{pidfd, POLLIN, 0};
        const auto killedAt = Clock::now();
        ::kill(pid, SIGKILL);
        if (pidfd >= 0 && ::poll(&exited, 1, 5000) == 1)
            run.exitNotificationMs = msSince(killedAt);
        if (pidfd >= 0)
            ::close(pidfd);
    }
    ::close(input[1]); // a server that is still running exits when its input ends
    if (spawned == 0)
        ::waitpid(pid, nullptr, 0);
    ::close(output[0]);
    return run;
}

struct SdkRun
{
    std::vector<double> detection;
    std::vector<double> recovery;
};

// The SDK client's own kills of the demo server; nothing when node or the SDK is missing or the
// run failed (`error` says why).
std::optional<SdkRun> runSdkClient(int kills, std::chrono::milliseconds idle, QString *error)
{
    const QString node = QStandardPaths::findExecutable(u"node"_s);
    if (node.isEmpty()) {
        *error = u"node is not installed"_s;
        return std::nullopt;
    }
    QProcess client;
    client.start(node, {QStringLiteral(TETHER_SDK_RECOVERY_CLIENT_SCRIPT), u"--kills"_s, QString::number(kills),
                        u"--idle-ms"_s, QString::number(idle.count()), u"--"_s,
                        QStringLiteral(TETHER_DEMO_SERVER)});
    const std::chrono::milliseconds allowed = 4 * StepTimeout + kills * idle;
    if (!client.waitForFinished(int(allowed.count()))) {
        client.kill();
        client.waitForFinished();
        *error = u"the SDK client did not finish in time"_s;
        return std::nullopt;
    }
    const QJsonObject figures = QJsonDocument::fromJson(client.readAllStandardOutput()).object();
    if (client.exitStatus() != QProcess::NormalExit || client.exitCode() != 0 || figures.isEmpty()) {
        const QList<QByteArray> said = client.readAllStandardError().trimmed().split('\n');
        *error = u"the SDK client failed (exit %1): %2"_s.arg(client.exitCode()).arg(QString::fromUtf8(said.last()));
        return std::nullopt;
    }
    SdkRun run;
    for (const QJsonValue &value : figures.value(u"detectionMs").toArray())
        run.detection.push_back(value.toDouble());
    for (const QJsonValue &value : figures.value(u"recoveryMs").toArray())
        run.recovery.push_back(value.toDouble());
    return run;
}

// "met" or "NOT met", for a figure printed beside its target.
const char *verdict(bool met)
{
    return met ? "met" : "NOT met";
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(u"Crash detection and recovery of a supervised demo server, beside the kernel's and "
                                     "the server's own floors and the official TypeScript SDK's client."_s);
    parser.addHelpOption();
    const QCommandLineOption killsOption(u"kills"_s, u"How many times to kill the server (default 100)."_s, u"n"_s, u"100"_s);
    parser.addOption(killsOption);
    const QCommandLineOption roundsOption(u"rounds"_s, u"In how many rounds the legs take turns (default 5)."_s, u"n"_s,
                                          u"5"_s);
    parser.addOption(roundsOption);
    const QCommandLineOption idleOption(u"idle-ms"_s, u"How long each server sits idle after its handshake before it is "
                                                      "killed, in every leg (default 0: at once)."_s,
                                        u"ms"_s, u"0"_s);
    parser.addOption(idleOption);
    parser.process(app);
    const int kills = std::max(1, parser.value(killsOption).toInt());
    const int rounds = std::clamp(parser.value(roundsOption).toInt(), 1, kills);
    const std::chrono::milliseconds idle(std::max(0, parser.value(idleOption).toInt()));
    spdlog::set_level(spdlog::level::err);

    ToolRegistry registry;
    SupervisorSettings settings;
    settings.reconnect = resolveReconnectPolicy(u"demo"_s, {{u"initialDelayMs"_s, 0}, {u"maxDelayMs"_s, 0},
                                                           {u"jitter"_s, 0}, {u"maxAttempts"_s, 1000}})
                             .policy;
    settings.heartbeat.enabled = false;
    const StdioServerCommand command = demo();
    ConnectionSupervisor supervisor(u"demo"_s, [command] { return std::make_unique<StdioTransport>(command); },
                                    settings, &registry);
    QEventLoop loop;
    Clock::time_point killedAt;
    double detectedMs = -1;
    QObject::connect(&supervisor, &ConnectionSupervisor::stateChanged, &loop, [&](const ServerStatus &status) {
        if (status.state == ServerState::Reconnecting && detectedMs < 0)
            detectedMs = msSince(killedAt);
        if (status.state == ServerState::Connected || status.state == ServerState::Failed)
            loop.quit();
    });
    // Connected within the step's time; false, with `why` saying why, when not.
    const auto waitConnected = [&](QString *why) {
        if (!execWithin(loop, StepTimeout)) {
            *why = u"not connected within %1 s"_s.arg(StepTimeout.count());
            return false;
        }
        *why = supervisor.status().reason;
        return supervisor.state() == ServerState::Connected;
    };
    supervisor.start();
    QString error;
    if (!waitConnected(&error))
        return fail(u"the supervised demo server did not connect: "_s + error);
    // What every recovery must register again: the tools of the first connection.
    const qsizetype toolCount = registry.serverTools(u"demo"_s).size();
    if (toolCount == 0)
        return fail(u"the demo server registered no tools"_s);

    std::vector<double> baseline;
    std::vector<double> rawBaseline;
    std::vector<double> exitNotification;
    std::vector<double> detection;
    std::vector<double> recovery;
    std::vector<double> sdkDetection;
    std::vector<double> sdkRecovery;
    QString sdkMissing;
    for (int round = 0; round < rounds; ++round) {
        const int killsThisRound = kills / rounds + (round < kills % rounds ? 1 : 0);
        for (int i = 0; i < killsThisRound; ++i) {
            const std::optional<double> handshake = startAndHandshakeOnce(demo(), StepTimeout, &error);
            if (!handshake)
                return fail(u"the demo server (%1) did not start and list its tools: %2"_s.arg(QStringLiteral(TETHER_DEMO_SERVER), error));
            baseline.push_back(*handshake);
            const RawServerRun raw = runRawServerOnce(idle);
            if (raw.handshakeMs < 0)
                return fail(u"the demo server (%1) did not start and list its tools over plain pipes"_s.arg(QStringLiteral(TETHER_DEMO_SERVER)));
            if (raw.exitNotificationMs < 0)
                return fail(u"the exit of the demo server (%1), killed directly, was not seen"_s.arg(QStringLiteral(TETHER_DEMO_SERVER)));
            rawBaseline.push_back(raw.handshakeMs);
            exitNotification.push_back(raw.exitNotificationMs);
        }
        for (int i = 0; i < killsThisRound; ++i) {
            if (idle.count() > 0) {
                QEventLoop idling;
                QTimer::singleShot(idle, &idling, &QEventLoop::quit);
                idling.exec();
            }
            const qint64 pid = supervisor.status().pid;
            detectedMs = -1;
            killedAt = Clock::now();
            ::kill(pid_t(pid), SIGKILL);
            if (!waitConnected(&error))
                return fail(u"the supervised demo server did not recover from kill %1: %2"_s.arg(recovery.size() + 1).arg(error));
            recovery.push_back(msSince(killedAt));
            detection.push_back(detectedMs);
            const qsizetype registered = registry.serverTools(u"demo"_s).size();
            if (registered != toolCount)
                return fail(u"the tools were not registered again after kill %1: %2 of %3"_s.arg(recovery.size()).arg(registered).arg(toolCount));
        }
        if (sdkMissing.isEmpty()) {
            if (const std::optional<SdkRun> sdk = runSdkClient(killsThisRound, idle, &sdkMissing)) {
                sdkDetection.insert(sdkDetection.end(), sdk->detection.begin(), sdk->detection.end());
                sdkRecovery.insert(sdkRecovery.end(), sdk->recovery.begin(), sdk->recovery.end());
            }
        }
    }
    QObject::connect(&supervisor, &ConnectionSupervisor::stopped, &loop, [&] { loop.quit(); });
    supervisor.stop();
    if (!execWithin(loop, StepTimeout))
        return fail(u"the supervised demo server did not stop within %1 s"_s.arg(StepTimeout.count()));

    const double kernelMedian = percentile(exitNotification, 0.5);
    const double baselineMedian = percentile(baseline, 0.5);
    const double detectionMedian = percentile(detection, 0.5);
    const double recoveryMedian = percentile(recovery, 0.5);
    QTextStream out(stdout);
    out.setRealNumberNotation(QTextStream::FixedNotation);
    out.setRealNumberPrecision(3);
    out << "kills: " << kills << " in " << rounds << " rounds, " << toolCount << " tools registered again each time";
    if (idle.count() > 0)
        out << ", each server idle " << idle.count() << " ms after its handshake before its kill";
    out << "\n";
    out << "floor, start and handshake (spawn, initialize, tools/list), bare session: p50 " << baselineMedian
        << " ms, p90 " << percentile(baseline, 0.9) << " ms\n";
    out << "  of which the server alone (spawned directly; initialize, tools/list over plain pipes): p50 "
        << percentile(rawBaseline, 0.5) << " ms, p90 " << percentile(rawBaseline, 0.9) << " ms\n";
    out << "floor, kernel: kill -> exit observable (pidfd) of the server alone, idle after its handshake, no Tether code: p50 "
        << kernelMedian << " ms, p90 "
        << percentile(exitNotification, 0.9) << " ms\n";
    const double detectionOverhead = detectionMedian - kernelMedian;
    out << "crash detection (kill -> Reconnecting): p50 " << detectionMedian << " ms, p90 " << percentile(detection, 0.9)
        << " ms; " << Qt::forcesign << detectionOverhead << Qt::noforcesign
        << " ms over the kernel (target: within 0.2 ms of it): " << verdict(detectionOverhead <= 0.2) << "\n";
    const double recoveryOverhead = recoveryMedian - baselineMedian;
    out << "recovery (kill -> Connected, tools registered): p50 " << recoveryMedian << " ms, p90 "
        << percentile(recovery, 0.9) << " ms; " << Qt::forcesign << recoveryOverhead << Qt::noforcesign
        << " ms over start and handshake (target: within 1 ms of it): " << verdict(recoveryOverhead <= 1.0) << "\n";
    if (!sdkMissing.isEmpty()) {
        out << "Tether vs the SDK client: not measured (" << sdkMissing << ")\n";
        return 0;
    }
    const double sdkDetectionMedian = percentile(sdkDetection, 0.5);
    const double sdkRecoveryMedian = percentile(sdkRecovery, 0.5);
    out << "the official TypeScript SDK's client doing the same: detection p50 " << sdkDetectionMedian << " ms, p90 "
        << percentile(sdkDetection, 0.9) << " ms; recovery p50 " << sdkRecoveryMedian << " ms, p90 "
        << percentile(sdkRecovery, 0.9) << " ms\n";
    const double detectionRatio = sdkDetectionMedian / detectionMedian;
    const double recoveryRatio = sdkRecoveryMedian / recoveryMedian;
    out.setRealNumberPrecision(2);
    out << "Tether vs the SDK client (the SDK's p50 / Tether's): detection " << detectionRatio << "x, recovery "
        << recoveryRatio << "x (target: at least 1.5x on both): " << verdict(detectionRatio >= 1.5 && recoveryRatio >= 1.5)
        << "\n";
    return 0;
}
