// Tether's gateway as the host sees it: the official TypeScript SDK's client
// (bench/sdk-gateway-client.mjs, run with the machine's node) calls tether-demo-server's `echo`
// directly over stdio, through `tetherctl serve` (stdio), `tetherctl serve --http` and supergateway (a plain
// stdio-to-Streamable-HTTP bridge, pinned in package-lock.json), the legs taking turns within one
// run, one call at a time and with several in flight. A sampling round trip (the demo server's
// `sample` asks the host, which answers) is timed the same way, directly and through
// `tetherctl serve`. Then 1000 exposed tools are listed through the gateway, and the upstream
// server is killed with SIGKILL during a stream of calls.
//
// A leg is a target the client connects to: a command it starts (stdio) or a URL (HTTP, for a
// server this program runs for the whole benchmark), compared with another leg: Tether over stdio
// with the direct calls, and Tether over HTTP (`tetherctl serve --http`) with supergateway. A
// third Tether leg is `tetherctl serve` relaying to that running Tether over its local socket, as
// it does when the window serves the gateway. Exits with 1, saying why, when it cannot finish.
//
// The legs above speak 2025-11-25 (initialize, then a session). Beside them, taking turns in the
// same rounds, legs of 2026-07-28 (stateless: no initialize, the envelope in every request's
// _meta, over HTTP each request a POST with no session): the SDK v2 client pinned to 2026-07-28
// calls the `echo` of an SDK v2 server that speaks 2026-07-28 only (bench/sdk-v2-echo-server.mjs)
// directly over stdio and over HTTP, through `tetherctl serve` and through `tetherctl serve --http`.
#include "../tests/support/testfiles.h"
#include "../tests/support/testprocess.h"
#include "callfigures.h"
#include "common/logging.h"
#include "execwithin.h"
#include "percentile.h"
#include "processfigures.h"
#include "serverhandshake.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <optional>
#include <vector>

using namespace Qt::StringLiterals;
using namespace Tether;
using Bench::describe;
using Bench::execWithin;
using Bench::Figures;
using Bench::figuresFromJson;
using Bench::percentile;
using Bench::SideFigures;
using Bench::startAndHandshakeOnce;

namespace {

// How long one run of the client may take before the benchmark gives up.
constexpr std::chrono::minutes ClientTimeout(10);

struct Settings
{
    int calls = 0;
    int inFlight = 0;
    int warmup = 0;
    int rounds = 0;
    int tools = 0;
    int lists = 0;
    int kills = 0;
    int killCalls = 0;
    QList<int> relayWorkNs; // a relay leg with that much work per message, each
};

// Where the client connects, what it calls there, and what the figures are compared with.
struct Leg
{
    QString name;
    QString tool;
    QStringList target;   // "stdio" COMMAND ARG... or "http" URL
    QStringList env;      // NAME=VALUE for a command the client starts
    QStringList headers;  // "NAME: VALUE" for every HTTP request
    qint64 serverPid = 0; // an HTTP leg's server; 0: the command the client starts
    bool measureMemory = false; // of the gateway in between
    QString comparedWith; // the name of the leg this one's figures are divided by
    QString targets;      // what the comparison should show
    QString alsoComparedWith; // a second leg it is divided by, with no target
    bool isTetherGateway = false; // its memory has a target
    QStringList clientOptions{}; // more options for the client: --sampling
    bool stateless = false; // 2026-07-28, the SDK v2 client pinned to it; otherwise 2025-11-25
};

// What one run of the client said, and the memory of the process it measured against.
struct ClientRun
{
    QJsonObject figures;
    double connectMs = 0;
    qint64 peakResidentKiB = 0; // VmHWM, sampled while the client ran
    double processorMs = -1;    // used by it from the connection to the figures; -1: unknown
};

int fail(const QString &why)
{
    QTextStream(stderr) << "tether-gateway-bench: " << why << Qt::endl;
    return 1;
}

// Runs the client once for `job` against `leg`; nothing when it failed (`error` says why).
std::optional<ClientRun> runClient(const Leg &leg, const QString &job, const QStringList &options, QString *error)
{
    QStringList arguments{QStringLiteral(TETHER_SDK_GATEWAY_CLIENT_SCRIPT), u"--hold"_s, u"--tool"_s, leg.tool};
    arguments += options;
    arguments += leg.clientOptions;
    if (leg.stateless)
        arguments += {u"--protocol"_s, u"2026"_s};
    for (const QString &entry : leg.env)
        arguments += {u"--env"_s, entry};
    for (const QString &header : leg.headers)
        arguments += {u"--header"_s, header};
    if (leg.serverPid > 0)
        arguments += {u"--root-pid"_s, QString::number(leg.serverPid)};
    arguments += {job, u"--"_s};
    arguments += leg.target;

    QProcess node;
    node.setProcessChannelMode(QProcess::SeparateChannels);
    ClientRun run;
    qint64 sampledPid = leg.serverPid;
    qint64 processorNsAtConnection = -1;
    QByteArray pending;
    QEventLoop loop;
    QTimer sampler;
    sampler.setInterval(std::chrono::milliseconds(20));
    const auto sample = [&] {
        if (sampledPid > 0)
            run.peakResidentKiB = std::max(run.peakResidentKiB, Bench::processFigures(QString::number(sampledPid)).peakResidentKiB);
    };
    QObject::connect(&sampler, &QTimer::timeout, &loop, sample);
    QObject::connect(&node, &QProcess::readyReadStandardOutput, &loop, [&] {
        pending += node.readAllStandardOutput();
        for (qsizetype end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
            const QJsonObject line = QJsonDocument::fromJson(pending.left(end)).object();
            pending.remove(0, end + 1);
            const QString event = line.value(u"event").toString();
            if (event == u"connected") {
                run.connectMs = line.value(u"connectMs").toDouble();
                if (sampledPid == 0)
                    sampledPid = line.value(u"pid").toInteger();
                processorNsAtConnection = Bench::processorTimeNs(QString::number(sampledPid));
                sampler.start();
            } else if (event == u"figures") {
                sample(); // the last look: the client holds the connection until it is told to close it
                const qint64 processorNs = Bench::processorTimeNs(QString::number(sampledPid));
                if (processorNsAtConnection >= 0 && processorNs >= processorNsAtConnection)
                    run.processorMs = double(processorNs - processorNsAtConnection) / 1e6;
                run.figures = line;
                node.write("close\n");
            }
        }
    });
    QObject::connect(&node, &QProcess::finished, &loop, &QEventLoop::quit);
    node.start(QStandardPaths::findExecutable(u"node"_s), arguments);
    if (!node.waitForStarted(10000)) {
        *error = u"node could not be started: %1"_s.arg(node.errorString());
        return std::nullopt;
    }
    if (!execWithin(loop, ClientTimeout)) {
        node.kill();
        node.waitForFinished();
        *error = u"the client's %1 job against %2 took longer than %3 min"_s.arg(job, leg.name).arg(ClientTimeout.count());
        return std::nullopt;
    }
    if (node.exitStatus() != QProcess::NormalExit || node.exitCode() != 0 || run.figures.isEmpty()) {
        const QList<QByteArray> said = node.readAllStandardError().trimmed().split('\n');
        *error = u"the client's %1 job against %2 failed (exit %3): %4"_s.arg(job, leg.name).arg(node.exitCode())
                     .arg(QString::fromUtf8(said.mid(std::max<qsizetype>(0, said.size() - 8)).join('\n')));
        return std::nullopt;
    }
    return run;
}

// A config file for `tetherctl serve` with the demo server as "demo": it reconnects at once.
QString writeGatewayConfig(const QDir &folder, const QString &fileName, const QStringList &demoArguments)
{
    const QJsonObject demo{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)},
                           {u"args"_s, QJsonArray::fromStringList(demoArguments)},
                           {u"reconnect"_s, QJsonObject{{u"initialDelayMs"_s, 0}}}};
    const QString path = folder.filePath(fileName);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{{u"demo"_s, demo}}}}).toJson());
    return path;
}

// A config file for `tetherctl serve` with the SDK v2 server of 2026-07-28 as "demo", pinned to
// that era: it reconnects at once.
QString writeStatelessGatewayConfig(const QDir &folder, const QString &fileName)
{
    const QJsonObject demo{{u"command"_s, QStandardPaths::findExecutable(u"node"_s)},
                           {u"args"_s, QJsonArray{QStringLiteral(TETHER_SDK_V2_SERVER_SCRIPT)}},
                           {u"protocol"_s, u"2026-07-28"_s},
                           {u"reconnect"_s, QJsonObject{{u"initialDelayMs"_s, 0}}}};
    const QString path = folder.filePath(fileName);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{{u"demo"_s, demo}}}}).toJson());
    return path;
}

const QString DirectName = u"direct (stdio)"_s;
const QString DirectSamplingName = u"direct, sampling (stdio)"_s;
const QString PassThroughName = u"pass-through relay (stdio)"_s;
const QString LineRelayName = u"Tether's line relay (stdio)"_s;
const QString SupergatewayName = u"supergateway (HTTP)"_s;
const QString TetherHttpName = u"Tether gateway (HTTP)"_s;
const QString StatelessDirectName = u"direct 2026 (stdio)"_s;
const QString StatelessDirectHttpName = u"direct 2026 (HTTP)"_s;
const QString StatelessTetherName = u"Tether gateway 2026 (stdio)"_s;
const QString StatelessTetherHttpName = u"Tether gateway 2026 (HTTP)"_s;

Leg directLeg(const QStringList &demoArguments = {})
{
    return {DirectName, u"echo"_s, QStringList{u"stdio"_s, QStringLiteral(TETHER_DEMO_SERVER)} + demoArguments, {}, {},
            0, false, {}, {}, {}};
}

// Bytes copied both ways by a process in between, nothing parsed: what one more process in the
// path costs at least on this machine, whatever it does.
Leg passThroughLeg()
{
    return {PassThroughName, u"echo"_s,
            {u"stdio"_s, QStringLiteral(TETHER_PASSTHROUGH_RELAY), QStringLiteral(TETHER_DEMO_SERVER)}, {}, {}, 0, true,
            DirectName, u"the least any process in between costs here"_s, {}};
}

// Lines passed both ways by Tether's own readers and writers on the Qt event loop, nothing parsed:
// what is left between it and `tetherctl serve` is the gateway's work per call.
Leg lineRelayLeg()
{
    return {LineRelayName, u"echo"_s,
            {u"stdio"_s, QStringLiteral(TETHER_LINE_RELAY), QStringLiteral(TETHER_DEMO_SERVER)}, {}, {}, 0, true,
            DirectName, u"Tether's stdio plumbing alone"_s, PassThroughName};
}

// The pass-through relay busy for `workNs` per message: what that much work in between costs here.
Leg busyRelayLeg(int workNs)
{
    Leg leg = passThroughLeg();
    leg.name = u"relay + %1 µs per message"_s.arg(workNs / 1000.0, 0, 'g', 3);
    leg.target = QStringList{u"stdio"_s, QStringLiteral(TETHER_PASSTHROUGH_RELAY), u"--work-ns"_s, QString::number(workNs),
                             QStringLiteral(TETHER_DEMO_SERVER)};
    leg.targets.clear();
    leg.alsoComparedWith = PassThroughName;
    return leg;
}

// `tetherctl serve` on its own: an empty runtime folder, so that it finds no running instance to
// bridge to and supervises the config's servers itself.
Leg stdioGatewayLeg(const QString &configPath, const QString &runtimeFolder)
{
    return {u"Tether gateway (stdio)"_s, u"demo__echo"_s,
            {u"stdio"_s, QStringLiteral(TETHER_CTL), u"serve"_s, u"--config"_s, configPath},
            {u"XDG_RUNTIME_DIR="_s + runtimeFolder}, {}, 0, true, DirectName,
            u"targets: at most 0.15 ms added at p50 one call at a time, at least 0.8 of the throughput with calls in flight"_s,
            LineRelayName, true};
}

// A call of the demo server's `sample`, which asks the host for a sampling that the client answers
// at once: the server's request and the host's answer cross the gateway too.
Leg directSamplingLeg()
{
    Leg leg = directLeg();
    leg.name = DirectSamplingName;
    leg.tool = u"sample"_s;
    leg.clientOptions = {u"--sampling"_s};
    return leg;
}

Leg stdioGatewaySamplingLeg(const QString &configPath, const QString &runtimeFolder)
{
    Leg leg = stdioGatewayLeg(configPath, runtimeFolder);
    leg.name = u"Tether gateway, sampling"_s;
    leg.tool = u"demo__sample"_s;
    leg.clientOptions = {u"--sampling"_s};
    leg.comparedWith = DirectSamplingName;
    leg.targets = u"target: at most 0.2 ms added at p50 one call at a time"_s;
    leg.alsoComparedWith.clear();
    return leg;
}

// The SDK v2 client pinned to 2026-07-28 calling the SDK v2 server's `echo` over stdio.
Leg statelessDirectLeg()
{
    Leg leg{StatelessDirectName, u"echo"_s,
            {u"stdio"_s, QStandardPaths::findExecutable(u"node"_s), QStringLiteral(TETHER_SDK_V2_SERVER_SCRIPT)}, {}, {},
            0, false, {}, {}, {}};
    leg.stateless = true;
    return leg;
}

// The same through `tetherctl serve` of `configPath` (writeStatelessGatewayConfig), supervising
// that server itself.
Leg statelessGatewayLeg(const QString &configPath, const QString &runtimeFolder)
{
    Leg leg = stdioGatewayLeg(configPath, runtimeFolder);
    leg.name = StatelessTetherName;
    leg.comparedWith = StatelessDirectName;
    leg.targets.clear();
    leg.alsoComparedWith.clear();
    leg.stateless = true;
    return leg;
}

// A gateway over HTTP that runs for the whole benchmark, on a free loopback port.
class HttpGateway final
{
public:
    HttpGateway()
        : m_port(Testing::freeLoopbackPort())
    {
        m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_process.setStandardOutputFile(QProcess::nullDevice());
    }
    ~HttpGateway()
    {
        m_process.terminate();
        if (!m_process.waitForFinished(10000))
            m_process.kill();
        m_process.waitForFinished();
    }
    Q_DISABLE_COPY_MOVE(HttpGateway)

    quint16 port() const { return m_port; }

    // Starts `program` and waits until the port takes connections.
    bool start(const QString &program, const QStringList &arguments,
               const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment())
    {
        m_process.setProcessEnvironment(environment);
        m_process.start(program, arguments);
        return m_process.waitForStarted(10000) && QTest::qWaitFor([&] {
                   QTcpSocket probe;
                   probe.connectToHost(QHostAddress::LocalHost, m_port);
                   return probe.waitForConnected(100) || m_process.state() != QProcess::Running;
               }, 30000) && m_process.state() == QProcess::Running;
    }

    // The leg of a client that calls `tool` here; its memory is this process's.
    Leg leg(const QString &name, const QString &tool, const QStringList &headers = {}) const
    {
        return {name, tool, {u"http"_s, u"http://127.0.0.1:%1/mcp"_s.arg(m_port)}, {}, headers, m_process.processId(), true,
                {}, {}, {}};
    }

private:
    quint16 m_port;
    QProcess m_process;
};

// Why supergateway cannot run here; empty when it can.
QString supergatewayUnavailableReason()
{
    if (!QFile::exists(QStringLiteral(TETHER_SUPERGATEWAY)))
        return u"it is not installed (npm ci installs it from package-lock.json)"_s;
    QProcess node;
    node.start(QStandardPaths::findExecutable(u"node"_s), {u"--version"_s});
    node.waitForFinished(10000);
    const QString version = QString::fromLatin1(node.readAllStandardOutput()).trimmed(); // "v20.20.2"
    if (version.mid(1).section(u'.', 0, 0).toInt() < 20)
        return u"supergateway 4.0.0 needs Node.js 20 or later, and this node is %1"_s.arg(version);
    return {};
}

// supergateway 4.0.0 in its stateful mode, where a session keeps one server process (its
// stateless mode starts one per request).
bool startSupergateway(HttpGateway &gateway)
{
    return gateway.start(QStandardPaths::findExecutable(u"node"_s),
                         {QStringLiteral(TETHER_SUPERGATEWAY), u"--stdio"_s, QStringLiteral(TETHER_DEMO_SERVER),
                          u"--outputTransport"_s, u"streamableHttp"_s, u"--stateful"_s, u"--port"_s,
                          QString::number(gateway.port()), u"--logLevel"_s, u"none"_s});
}

// `tetherctl serve --http` of `configPath`, its instance record in `runtimeFolder`.
bool startTetherHttp(HttpGateway &gateway, const QString &configPath, const QString &runtimeFolder)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(u"XDG_RUNTIME_DIR"_s, runtimeFolder);
    return gateway.start(QStringLiteral(TETHER_CTL),
                         {u"serve"_s, u"--http"_s, u"--port"_s, QString::number(gateway.port()), u"--config"_s, configPath},
                         environment);
}

// tools/list through `tetherctl serve` over plain JSON lines, without the SDK client, whose own
// parsing and validation of a large list take longer than the gateway: each of `lists` timed
// lists after a first one, every page; nothing when that failed (`error` says why).
std::optional<std::vector<double>> plainListMs(const QString &configPath, const QString &runtimeFolder, int lists,
                                               qsizetype *tools, QString *error)
{
    QProcess gateway;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(u"XDG_RUNTIME_DIR"_s, runtimeFolder);
    gateway.setProcessEnvironment(environment);
    gateway.setStandardErrorFile(QProcess::nullDevice());
    gateway.start(QStringLiteral(TETHER_CTL), {u"serve"_s, u"--config"_s, configPath});
    QByteArray pending;
    const auto ask = [&](int id, const QJsonObject &params, const QString &method) -> QJsonObject {
        gateway.write(QJsonDocument(QJsonObject{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, id}, {u"method"_s, method},
                                                {u"params"_s, params}}).toJson(QJsonDocument::Compact) + '\n');
        while (!pending.contains('\n') && gateway.waitForReadyRead(30000))
            pending += gateway.readAllStandardOutput();
        const qsizetype end = pending.indexOf('\n');
        const QJsonObject response = QJsonDocument::fromJson(pending.left(end)).object();
        pending.remove(0, end + 1);
        return response;
    };
    std::vector<double> listMs;
    if (gateway.waitForStarted(10000)
        && ask(0, {{u"protocolVersion"_s, u"2025-11-25"_s}, {u"capabilities"_s, QJsonObject{}},
                   {u"clientInfo"_s, QJsonObject{{u"name"_s, u"tether-gateway-bench"_s}, {u"version"_s, u"1"_s}}}},
               u"initialize"_s).contains(u"result")) {
        gateway.write(R"({"jsonrpc":"2.0","method":"notifications/initialized"})" "\n");
        for (int run = 0; run <= lists; ++run) {
            const auto start = std::chrono::steady_clock::now();
            QString cursor;
            *tools = 0;
            do {
                const QJsonObject page = ask(run + 1, cursor.isEmpty() ? QJsonObject{} : QJsonObject{{u"cursor"_s, cursor}},
                                             u"tools/list"_s).value(u"result").toObject();
                *tools += page.value(u"tools").toArray().size();
                cursor = page.value(u"nextCursor").toString();
            } while (!cursor.isEmpty());
            if (run > 0)
                listMs.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        }
    }
    gateway.closeWriteChannel();
    if (!gateway.waitForFinished(30000))
        gateway.kill();
    if (listMs.empty() || *tools == 0) {
        *error = u"tetherctl serve did not list its tools"_s;
        return std::nullopt;
    }
    return listMs;
}

QString mib(qint64 kib)
{
    return QString::number(double(kib) / 1024.0, 'f', 1) + u" MiB"_s;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"tools/call, tools/list and an upstream crash through Tether's gateway, with the official TypeScript SDK client "
        "as the host, beside the same calls made directly."_s);
    parser.addHelpOption();
    // Fewer calls than this take tenths of a second directly, too short a window to be steady.
    const QCommandLineOption callsOption(u"calls"_s, u"Timed calls per figure, leg and round (default 5000)."_s, u"n"_s,
                                         u"5000"_s);
    const QCommandLineOption inFlightOption(u"in-flight"_s, u"Calls in flight for the concurrent figures and the kill "
                                                            "(default 16)."_s,
                                            u"n"_s, u"16"_s);
    const QCommandLineOption warmupOption(u"warmup"_s, u"Untimed calls before each leg's figures, and before each kill "
                                                       "(default 200)."_s,
                                          u"n"_s, u"200"_s);
    const QCommandLineOption roundsOption(u"rounds"_s, u"Rounds, each leg in turn (default 3)."_s, u"n"_s, u"3"_s);
    const QCommandLineOption toolsOption(u"tools"_s, u"Tools the server offers for the tools/list figure (default 1000)."_s,
                                         u"n"_s, u"1000"_s);
    const QCommandLineOption listsOption(u"lists"_s, u"Timed tools/list runs, each of every page (default 5)."_s, u"n"_s,
                                         u"5"_s);
    const QCommandLineOption killsOption(u"kills"_s, u"Runs with an upstream SIGKILL (default 3)."_s, u"n"_s, u"3"_s);
    const QCommandLineOption killCallsOption(u"kill-calls"_s, u"Calls after each kill (default 300)."_s, u"n"_s, u"300"_s);
    const QCommandLineOption relayWorkOption(
        u"relay-work"_s,
        u"Also a leg of the pass-through relay busy for each of these nanoseconds per message it copies (a comma "
        "list, such as 1000,3000): what a process in between may spend per message here (default none)."_s,
        u"ns,…"_s);
    parser.addOptions({callsOption, inFlightOption, warmupOption, roundsOption, toolsOption, listsOption, killsOption,
                       killCallsOption, relayWorkOption});
    parser.process(app);
    spdlog::set_level(spdlog::level::err);

    Settings settings;
    settings.calls = std::max(1, parser.value(callsOption).toInt());
    settings.inFlight = std::max(1, parser.value(inFlightOption).toInt());
    settings.warmup = std::max(1, parser.value(warmupOption).toInt());
    settings.rounds = std::max(1, parser.value(roundsOption).toInt());
    settings.tools = std::max(12, parser.value(toolsOption).toInt());
    settings.lists = std::max(1, parser.value(listsOption).toInt());
    settings.kills = std::max(1, parser.value(killsOption).toInt());
    settings.killCalls = std::max(1, parser.value(killCallsOption).toInt());
    for (const QString &item : parser.value(relayWorkOption).split(u',', Qt::SkipEmptyParts)) {
        bool ok = false;
        const int ns = item.trimmed().toInt(&ok);
        if (!ok || ns <= 0) {
            QTextStream(stderr) << "tether-gateway-bench: --relay-work takes nanoseconds per message, such as "
                                   "1000,3000; '" << item << "' is not a positive count\n";
            return 2;
        }
        settings.relayWorkNs.append(ns);
    }

    QTemporaryDir folder;
    const QDir work(folder.path());
    // `runtime` holds no instance record, so that `tetherctl serve` supervises its servers itself;
    // `runtimeHttp` holds the record and relay socket of `tetherctl serve --http`, which a stdio
    // gateway relays to.
    const QString runtime = work.filePath(u"runtime"_s);
    const QString runtimeHttp = work.filePath(u"runtime-http"_s);
    // The 2026-07-28 legs' `tetherctl serve --http` keeps its record in `runtimeStatelessHttp`, and
    // its config is in a folder of its own: the gateway writes its token next to its config.
    const QString runtimeStatelessHttp = work.filePath(u"runtime-http-2026"_s);
    const auto privateFolder = [&](const QString &path) {
        return work.mkdir(path) && QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    };
    if (!folder.isValid() || !privateFolder(runtime) || !privateFolder(runtimeHttp) || !privateFolder(runtimeStatelessHttp)
        || !work.mkdir(u"era2026"_s))
        return fail(u"no temporary folder for the configs"_s);
    const QDir statelessWork(work.filePath(u"era2026"_s));
    const QString echoConfig = writeGatewayConfig(work, u"echo.json"_s, {});
    // The demo server offers 12 tools of its own.
    const QStringList manyTools{u"--tools"_s, QString::number(settings.tools - 12)};
    const QString toolsConfig = writeGatewayConfig(work, u"tools.json"_s, manyTools);
    const QString statelessConfig = writeStatelessGatewayConfig(statelessWork, u"echo.json"_s);
    if (echoConfig.isEmpty() || toolsConfig.isEmpty() || statelessConfig.isEmpty())
        return fail(u"the configs could not be written in %1"_s.arg(work.path()));

    QTextStream out(stdout);
    const QStringList callOptions{u"--calls"_s, QString::number(settings.calls), u"--in-flight"_s,
                                  QString::number(settings.inFlight), u"--warmup"_s, QString::number(settings.warmup)};
    std::vector<Leg> legs{directLeg(), passThroughLeg(), lineRelayLeg()};
    for (const int ns : std::as_const(settings.relayWorkNs))
        legs.push_back(busyRelayLeg(ns));
    legs.push_back(stdioGatewayLeg(echoConfig, runtime));
    HttpGateway tetherHttp;
    if (!startTetherHttp(tetherHttp, echoConfig, runtimeHttp))
        return fail(u"tetherctl serve --http did not start"_s);
    const QByteArray token = Testing::readFile(work.filePath(u"gateway-token"_s)).trimmed();
    if (token.isEmpty())
        return fail(u"tetherctl serve --http wrote no token next to %1"_s.arg(echoConfig));
    Leg tetherHttpLeg = tetherHttp.leg(TetherHttpName, u"demo__echo"_s,
                                       {u"Authorization: Bearer "_s + QString::fromLatin1(token)});
    tetherHttpLeg.isTetherGateway = true;
    Leg relayLeg = stdioGatewayLeg(echoConfig, runtimeHttp);
    relayLeg.name = u"Tether relay (stdio→socket)"_s;
    legs.push_back(relayLeg);
    HttpGateway supergateway;
    if (const QString why = supergatewayUnavailableReason(); !why.isEmpty()) {
        out << "the supergateway leg is left out: " << why << "\n";
        legs.push_back(tetherHttpLeg);
    } else if (!startSupergateway(supergateway)) {
        return fail(u"supergateway did not start"_s);
    } else {
        legs.push_back(supergateway.leg(SupergatewayName, u"echo"_s));
        Leg compared = tetherHttpLeg;
        compared.comparedWith = SupergatewayName;
        compared.targets = u"target: at least the bridge's throughput"_s;
        legs.push_back(compared);
    }
    legs.push_back(directSamplingLeg());
    legs.push_back(stdioGatewaySamplingLeg(echoConfig, runtime));
    // 2026-07-28: directly and through the gateway over stdio, then over HTTP, where the SDK v2
    // server serves each POST on its own, and so does `tetherctl serve --http`.
    legs.push_back(statelessDirectLeg());
    legs.push_back(statelessGatewayLeg(statelessConfig, runtime));
    HttpGateway statelessServerHttp;
    if (!statelessServerHttp.start(QStandardPaths::findExecutable(u"node"_s),
                                   {QStringLiteral(TETHER_SDK_V2_SERVER_SCRIPT), u"--http"_s, u"--port"_s,
                                    QString::number(statelessServerHttp.port())}))
        return fail(u"the SDK v2 server did not start over HTTP"_s);
    Leg statelessDirectHttpLeg = statelessServerHttp.leg(StatelessDirectHttpName, u"echo"_s);
    statelessDirectHttpLeg.measureMemory = false; // the server itself, as over stdio
    statelessDirectHttpLeg.stateless = true;
    legs.push_back(statelessDirectHttpLeg);
    HttpGateway statelessTetherHttp;
    if (!startTetherHttp(statelessTetherHttp, statelessConfig, runtimeStatelessHttp))
        return fail(u"tetherctl serve --http of the 2026-07-28 server did not start"_s);
    const QByteArray statelessToken = Testing::readFile(statelessWork.filePath(u"gateway-token"_s)).trimmed();
    if (statelessToken.isEmpty())
        return fail(u"tetherctl serve --http wrote no token next to %1"_s.arg(statelessConfig));
    Leg statelessTetherHttpLeg = statelessTetherHttp.leg(StatelessTetherHttpName, u"demo__echo"_s,
                                                         {u"Authorization: Bearer "_s + QString::fromLatin1(statelessToken)});
    statelessTetherHttpLeg.isTetherGateway = true;
    statelessTetherHttpLeg.stateless = true;
    statelessTetherHttpLeg.comparedWith = StatelessDirectName;
    statelessTetherHttpLeg.alsoComparedWith = StatelessDirectHttpName;
    legs.push_back(statelessTetherHttpLeg);
    std::vector<SideFigures> figures(legs.size());
    std::vector<qint64> peakResidentKiB(legs.size(), 0);
    std::vector<double> processorMs(legs.size(), 0); // of the process measured: the server, or the gateway
    std::vector<bool> processorKnown(legs.size(), true);
    for (int round = 0; round < settings.rounds; ++round) {
        for (size_t i = 0; i < legs.size(); ++i) {
            QString error;
            const std::optional<ClientRun> run = runClient(legs.at(i), u"calls"_s, callOptions, &error);
            if (!run)
                return fail(error);
            figures.at(i).sequential.add(figuresFromJson(run->figures.value(u"sequential").toObject()));
            figures.at(i).concurrent.add(figuresFromJson(run->figures.value(u"concurrent").toObject()));
            peakResidentKiB.at(i) = std::max(peakResidentKiB.at(i), run->peakResidentKiB);
            processorMs.at(i) += run->processorMs;
            processorKnown.at(i) = processorKnown.at(i) && run->processorMs >= 0;
        }
    }

    out << "tools/call echo of tether-demo-server (sample for the sampling legs), the official TypeScript SDK client as "
           "the host\n"
        << settings.rounds << " rounds of " << settings.calls << " timed calls per figure and leg, after " << settings.warmup
        << " warm-up calls per leg and round\n\n";
    const auto legNamed = [&](const QString &name) {
        return std::find_if(legs.cbegin(), legs.cend(), [&](const Leg &leg) { return leg.name == name; }) - legs.cbegin();
    };
    // The figures of the legs of one era (`stateless`: 2026-07-28), with their names `width` wide.
    const auto section = [&](const QString &label, Figures SideFigures::*mode, bool stateless = false, int width = 26) {
        out << label << "\n";
        for (size_t i = 0; i < legs.size(); ++i) {
            if (legs.at(i).stateless == stateless)
                out << "  " << legs.at(i).name.leftJustified(width) << describe(figures.at(i).*mode) << "\n";
        }
        const auto compare = [&](size_t i, const QString &baseName, const QString &targets) {
            const auto base = size_t(legNamed(baseName));
            if (base >= legs.size())
                return;
            const Figures &ours = figures.at(i).*mode;
            const Figures &theirs = figures.at(base).*mode;
            out << "  " << legs.at(i).name << " ÷ " << legs.at(base).name << ": throughput "
                << QString::number(ours.callsPerSecond() / theirs.callsPerSecond(), 'f', 2) << ", p50 "
                << QString::number(ours.p50() - theirs.p50(), 'f', 3) << " ms added"
                << (targets.isEmpty() ? QString() : u" ("_s + targets + u')') << "\n";
        };
        for (size_t i = 0; i < legs.size(); ++i) {
            if (legs.at(i).stateless != stateless)
                continue;
            compare(i, legs.at(i).comparedWith, legs.at(i).targets);
            compare(i, legs.at(i).alsoComparedWith, {});
        }
    };
    section(u"sequential (one call at a time)"_s, &SideFigures::sequential);
    section(u"%1 in flight"_s.arg(settings.inFlight), &SideFigures::concurrent);
    // Independent of how busy the machine is, unlike the figures above.
    const int callsPerLeg = (settings.warmup + 2 * settings.calls) * settings.rounds;
    const auto processorAndMemory = [&](const QString &label, bool stateless) {
        out << label;
        bool first = true;
        for (size_t i = 0; i < legs.size(); ++i) {
            if (legs.at(i).stateless != stateless)
                continue;
            const QString directly = stateless ? u"the server, %1,"_s.arg(legs.at(i).name) : u"the server called directly"_s;
            out << (first ? "" : ",") << " " << (legs.at(i).measureMemory ? legs.at(i).name : directly) << " "
                << (processorKnown.at(i) ? QString::number(processorMs.at(i) * 1000.0 / callsPerLeg, 'f', 1) + u" µs"_s
                                         : u"unknown"_s);
            first = false;
        }
        out << "\n";
        for (size_t i = 0; i < legs.size(); ++i) {
            if (legs.at(i).measureMemory && legs.at(i).stateless == stateless)
                out << "resident memory of " << legs.at(i).name << " at most " << mib(peakResidentKiB.at(i))
                    << " (its servers not counted)"
                    << (legs.at(i).isTetherGateway ? u"; target: under 30 MB"_s : QString())
                    << "\n";
        }
        out << "\n";
    };
    processorAndMemory(u"processor time per call:"_s, false);

    out << "2026-07-28 (stateless: no initialize, the envelope in every request's _meta, over HTTP each request a POST "
           "with no session): tools/call echo of an SDK v2 server (node, bench/sdk-v2-echo-server.mjs) speaking "
           "2026-07-28 only, the official TypeScript SDK v2 client pinned to 2026-07-28 as the host, in the same rounds\n";
    section(u"2026-07-28, sequential (one call at a time)"_s, &SideFigures::sequential, true, 28);
    section(u"2026-07-28, %1 in flight"_s.arg(settings.inFlight), &SideFigures::concurrent, true, 28);
    processorAndMemory(u"2026-07-28, processor time per call:"_s, true);
    out.flush();

    // tools/list of every page, after a first one that the gateway may hold until its server is up.
    const QStringList listOptions{u"--lists"_s, QString::number(settings.lists)};
    const std::vector<Leg> listLegs{directLeg(manyTools), stdioGatewayLeg(toolsConfig, runtime)};
    for (const Leg &leg : listLegs) {
        QString error;
        const std::optional<ClientRun> run = runClient(leg, u"list"_s, listOptions, &error);
        if (!run)
            return fail(error);
        std::vector<double> listMs;
        for (const QJsonValue &ms : run->figures.value(u"listMs").toArray())
            listMs.push_back(ms.toDouble());
        out << "tools/list " << leg.name.leftJustified(26) << run->figures.value(u"tools").toInt() << " tools in median "
            << QString::number(percentile(listMs, 0.5), 'f', 1) << " ms, at most "
            << QString::number(*std::max_element(listMs.begin(), listMs.end()), 'f', 1) << " ms"
            << (leg.isTetherGateway ? u" (target: 1000 in under 50 ms)"_s : QString()) << "\n";
    }
    {
        QString error;
        qsizetype tools = 0;
        const std::optional<std::vector<double>> listMs = plainListMs(toolsConfig, runtime, settings.lists, &tools, &error);
        if (!listMs)
            return fail(error);
        out << "tools/list Tether gateway, plain JSON lines " << tools << " tools in median "
            << QString::number(percentile(*listMs, 0.5), 'f', 1) << " ms, at most "
            << QString::number(*std::max_element(listMs->begin(), listMs->end()), 'f', 1)
            << " ms (without the SDK client's parsing and validation)\n";
    }
    out.flush();

    // The server's own start and handshake, which recovery cannot beat.
    std::vector<double> handshakes;
    for (int i = 0; i < 5; ++i) {
        QString error;
        const std::optional<double> ms = startAndHandshakeOnce({QStringLiteral(TETHER_DEMO_SERVER), {}, {}, {}, {}},
                                                               std::chrono::seconds(30), &error);
        if (!ms)
            return fail(u"the demo server did not start: "_s + error);
        handshakes.push_back(*ms);
    }
    const double handshakeMs = percentile(handshakes, 0.5);

    const QStringList killOptions{u"--calls"_s, QString::number(settings.killCalls), u"--in-flight"_s,
                                  QString::number(settings.inFlight), u"--warmup"_s, QString::number(settings.warmup)};
    out << "\nupstream SIGKILL during calls through the gateway (" << settings.kills << " kills per gateway, "
        << settings.inFlight << " in flight, " << settings.killCalls << " calls after each; target: the server's start and "
        << "handshake, " << QString::number(handshakeMs, 'f', 1) << " ms, plus 10 ms, no failed call, the same tools)\n";
    for (const Leg &leg : {stdioGatewayLeg(echoConfig, runtime), tetherHttpLeg}) {
        std::vector<double> recoveries;
        int failed = 0;
        bool toolsUnchanged = true;
        for (int kill = 0; kill < settings.kills; ++kill) {
            QString error;
            const std::optional<ClientRun> run = runClient(leg, u"kill"_s, killOptions, &error);
            if (!run)
                return fail(error);
            const QJsonValue recovery = run->figures.value(u"firstGoodAfterKillMs");
            if (recovery.isDouble())
                recoveries.push_back(recovery.toDouble());
            failed += run->figures.value(u"failedAfterKill").toInt();
            toolsUnchanged = toolsUnchanged && run->figures.value(u"toolsUnchanged").toBool();
        }
        if (recoveries.empty())
            return fail(u"no call through %1 succeeded after any of the kills"_s.arg(leg.name));
        out << "  " << leg.name.leftJustified(26) << "kill → first good call median "
            << QString::number(percentile(recoveries, 0.5), 'f', 1) << " ms, at most "
            << QString::number(*std::max_element(recoveries.begin(), recoveries.end()), 'f', 1) << " ms, failed calls "
            << failed << ", tool list unchanged: " << (toolsUnchanged ? "yes" : "no") << "\n";
    }
    return 0;
}
