// tools/call over Streamable HTTP: Tether beside the official TypeScript SDK client.
//
// One @modelcontextprotocol/server-everything in its streamableHttp mode on a loopback port
// serves both clients, in turns within the same run: Tether's McpClientSession over
// StreamableHttpTransport, then the SDK's Client over StreamableHTTPClientTransport
// (bench/sdk-http-client.mjs, run with the machine's node). Each side opens one session, warms
// up, then times `echo` calls one after another, and then with a fixed number in flight.
#include "../tests/support/testprocess.h"
#include "common/logging.h"
#include "callfigures.h"
#include "session/mcpclientsession.h"
#include "transport/streamablehttptransport.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTextStream>

#include <chrono>
#include <functional>
#include <optional>
#include <vector>

using namespace Qt::StringLiterals;
using namespace Tether;
using Bench::describe;
using Bench::Figures;
using Bench::figuresFromJson;
using Bench::SideFigures;
using Clock = std::chrono::steady_clock;

namespace {

struct Settings
{
    QUrl url;
    int calls = 0;
    int inFlight = 0;
    int warmup = 0;
};

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Tether's side: one session, `calls` echo calls with `parallel` of them in flight.
class TetherClient final
{
public:
    explicit TetherClient(const QUrl &url)
        : m_session(std::make_unique<StreamableHttpTransport>(HttpServerEndpoint{url, {}, {}}),
                    SessionOptions{u"everything"_s, std::chrono::seconds(30)})
    {
        QObject::connect(&m_session, &McpClientSession::ready, &m_loop, &QEventLoop::quit);
        QObject::connect(&m_session, &McpClientSession::failed, &m_loop, [this](const QString &reason) {
            m_error = reason;
            m_loop.quit();
        });
        QObject::connect(&m_session, &McpClientSession::closed, &m_loop, [this] {
            m_closed = true;
            m_loop.quit();
        });
    }

    bool open()
    {
        m_session.open();
        m_loop.exec();
        return m_session.isReady();
    }

    void close()
    {
        m_session.close();
        while (!m_closed)
            m_loop.exec();
    }

    std::optional<Figures> run(int calls, int parallel)
    {
        Figures figures;
        if (calls == 0)
            return figures;
        int started = 0;
        int finished = 0;
        const auto begin = Clock::now();
        std::function<void()> startOne = [&] {
            const auto start = Clock::now();
            ++started;
            const QJsonObject arguments{{u"message"_s, u"call %1"_s.arg(m_sent++)}};
            m_session.callTool(u"echo"_s, arguments, [&, start](const ToolCallReply &reply) {
                figures.latenciesMs.push_back(msSince(start));
                ++finished;
                if (reply.error || reply.result.isError)
                    m_error = reply.error ? reply.error->message : u"echo returned an error result"_s;
                if (!m_error.isEmpty() || finished == calls)
                    m_loop.quit();
                else if (started < calls)
                    startOne();
            });
        };
        for (int i = 0; i < std::min(parallel, calls); ++i)
            startOne();
        m_loop.exec();
        figures.seconds = std::chrono::duration<double>(Clock::now() - begin).count();
        while (finished < started) // after an error: the calls still in flight answer first
            m_loop.exec();
        if (!m_error.isEmpty())
            return std::nullopt;
        return figures;
    }

    QString error() const { return m_error; }

private:
    McpClientSession m_session;
    QEventLoop m_loop;
    QString m_error;
    bool m_closed = false;
    int m_sent = 0;
};

std::optional<SideFigures> measureTether(const Settings &settings, QString *error)
{
    TetherClient client(settings.url);
    std::optional<SideFigures> side;
    if (client.open()) {
        std::optional<Figures> sequential;
        std::optional<Figures> concurrent;
        if (client.run(settings.warmup, 1) && (sequential = client.run(settings.calls, 1))
            && (concurrent = client.run(settings.calls, settings.inFlight)))
            side = SideFigures{*sequential, *concurrent};
    }
    *error = client.error();
    client.close();
    return side;
}

std::optional<SideFigures> measureSdk(const Settings &settings, QString *error)
{
    QProcess node;
    node.setProcessChannelMode(QProcess::SeparateChannels);
    node.start(QStandardPaths::findExecutable(u"node"_s),
               {QStringLiteral(TETHER_SDK_CLIENT_SCRIPT), settings.url.toString(), QString::number(settings.calls),
                QString::number(settings.inFlight), QString::number(settings.warmup)});
    const bool finished = node.waitForFinished(600000);
    if (!finished || node.exitStatus() != QProcess::NormalExit || node.exitCode() != 0) {
        const QString says = QString::fromUtf8(node.readAllStandardError()).trimmed();
        *error = u"the SDK client (%1) failed: %2"_s.arg(QStringLiteral(TETHER_SDK_CLIENT_SCRIPT),
                                                          says.isEmpty() ? node.errorString() : says);
        node.kill();
        node.waitForFinished();
        return std::nullopt;
    }
    const QJsonObject json = QJsonDocument::fromJson(node.readAllStandardOutput()).object();
    return SideFigures{figuresFromJson(json.value(u"sequential").toObject()),
                       figuresFromJson(json.value(u"concurrent").toObject())};
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"tools/call over Streamable HTTP against server-everything: Tether beside the official TypeScript SDK."_s);
    parser.addHelpOption();
    const QCommandLineOption callsOption(u"calls"_s, u"Timed calls per figure and round (default 1000)."_s, u"n"_s, u"1000"_s);
    const QCommandLineOption inFlightOption(u"in-flight"_s, u"Calls in flight for the concurrent figure (default 16)."_s,
                                            u"n"_s, u"16"_s);
    const QCommandLineOption warmupOption(u"warmup"_s, u"Untimed calls before each side's first figure (default 200)."_s,
                                          u"n"_s, u"200"_s);
    const QCommandLineOption roundsOption(u"rounds"_s, u"Rounds, each Tether then the SDK (default 3)."_s, u"n"_s, u"3"_s);
    parser.addOptions({callsOption, inFlightOption, warmupOption, roundsOption});
    parser.process(app);
    spdlog::set_level(spdlog::level::err);

    Settings settings;
    settings.calls = std::max(1, parser.value(callsOption).toInt());
    settings.inFlight = std::max(1, parser.value(inFlightOption).toInt());
    settings.warmup = std::max(0, parser.value(warmupOption).toInt());
    const int rounds = std::max(1, parser.value(roundsOption).toInt());

    Testing::ServerEverythingHttp server(u"streamableHttp"_s, Testing::freeLoopbackPort());
    if (!server.start()) {
        QTextStream(stderr) << "server-everything did not start: " << server.output << Qt::endl;
        return 1;
    }
    settings.url = server.url();

    SideFigures tether;
    SideFigures sdk;
    for (int round = 0; round < rounds; ++round) {
        QString error;
        const std::optional<SideFigures> tetherRound = measureTether(settings, &error);
        if (!tetherRound) {
            QTextStream(stderr) << "Tether's client failed: " << error << Qt::endl;
            return 1;
        }
        const std::optional<SideFigures> sdkRound = measureSdk(settings, &error);
        if (!sdkRound) {
            QTextStream(stderr) << error << Qt::endl;
            return 1;
        }
        tether.sequential.add(tetherRound->sequential);
        tether.concurrent.add(tetherRound->concurrent);
        sdk.sequential.add(sdkRound->sequential);
        sdk.concurrent.add(sdkRound->concurrent);
    }

    QTextStream out(stdout);
    out << "tools/call echo over Streamable HTTP to server-everything at " << settings.url.toString() << "\n"
        << rounds << " rounds of " << settings.calls << " timed calls per figure, after " << settings.warmup
        << " warm-up calls per side and round\n\n";
    const auto row = [&](const QString &label, const Figures &ours, const Figures &theirs) {
        const double ratio = ours.callsPerSecond() / theirs.callsPerSecond();
        out << label << "\n"
            << "  Tether                   " << describe(ours) << "\n"
            << "  TypeScript SDK           " << describe(theirs) << "\n"
            << "  throughput ratio (Tether ÷ SDK): " << QString::number(ratio, 'f', 2) << "   (target: at least 1)\n";
    };
    row(u"sequential (one call at a time)"_s, tether.sequential, sdk.sequential);
    row(u"%1 in flight"_s.arg(settings.inFlight), tether.concurrent, sdk.concurrent);
    return 0;
}
