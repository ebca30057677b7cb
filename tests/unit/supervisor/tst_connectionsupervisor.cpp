#include "supervisor/connectionsupervisor.h"
#include "support/faketransport.h"

#include <QJsonArray>
#include <QPointer>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <mutex>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;
using namespace Tether;
using Testing::FakeTransport;

namespace Tether {
// Readable QCOMPARE failures for states.
char *toString(ServerState state)
{
    return QTest::toString(stateName(state));
}
} // namespace Tether

namespace {

// The supervisor's spdlog output, kept for assertions on log levels and printed only when a
// test fails.
class LogCapture final : public spdlog::sinks::base_sink<std::mutex>
{
public:
    struct Entry
    {
        spdlog::level::level_enum level;
        QString text;
    };

    QList<Entry> entries;

protected:
    void sink_it_(const spdlog::details::log_msg &message) override
    {
        entries.append({message.level, QString::fromUtf8(message.payload.data(), qsizetype(message.payload.size()))});
    }
    void flush_() override {}
};

} // namespace

// Tells the test when the supervisor built a new generation's transport.
class GenerationProbe final : public QObject
{
    Q_OBJECT

signals:
    void created(int generation);
};

namespace {

SupervisorSettings fastSettings()
{
    SupervisorSettings settings;
    settings.reconnect.enabled = true;
    settings.reconnect.initialDelayMs = 10;
    settings.reconnect.maxDelayMs = 40;
    settings.reconnect.maxAttempts = 3;
    settings.reconnect.jitter = 0.0;
    settings.heartbeat.enabled = false;
    settings.requestTimeout = 5000ms;
    settings.closeTimeout = 300ms;
    settings.random = [] { return 0.5; };
    return settings;
}

QJsonObject tool(const QString &name)
{
    return {{u"name"_s, name}, {u"description"_s, QString(u"the "_s + name + u" tool"_s)},
            {u"inputSchema"_s, QJsonObject{{u"type"_s, u"object"_s}}}};
}

QJsonArray tools(const QStringList &names)
{
    QJsonArray list;
    for (const QString &name : names)
        list.append(tool(name));
    return list;
}

QJsonObject initializeResult()
{
    return {{u"protocolVersion"_s, u"2025-11-25"_s},
            {u"capabilities"_s, QJsonObject{{u"tools"_s, QJsonObject{{u"listChanged"_s, true}}}}},
            {u"serverInfo"_s, QJsonObject{{u"name"_s, u"fake-server"_s}, {u"version"_s, u"1.0"_s}}}};
}

QJsonObject textResult(const QString &text)
{
    return {{u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, text}}}}, {u"isError"_s, false}};
}

QJsonObject notification(const QString &method)
{
    return JsonRpc::makeNotification(method);
}

TransportClosure crashClosure(int exitCode = 1)
{
    TransportClosure closure;
    closure.requested = false;
    closure.exitCode = exitCode;
    closure.stderrTail = {u"boom"_s};
    return closure;
}

TransportClosure requestedClosure()
{
    TransportClosure closure;
    closure.requested = true;
    closure.exitCode = 0;
    return closure;
}

struct CallOutcome
{
    bool done = false;
    ToolCallReply reply;
};

QList<ServerStatus> statuses(const QSignalSpy &spy)
{
    QList<ServerStatus> list;
    for (const QList<QVariant> &arguments : spy)
        list.append(arguments.at(0).value<ServerStatus>());
    return list;
}

QList<ServerState> states(const QSignalSpy &spy)
{
    QList<ServerState> list;
    for (const ServerStatus &status : statuses(spy))
        list.append(status.state);
    return list;
}

// One supervisor of the server "demo" over fake transports, one per generation, kept in
// creation order. The factory also checks the no-overlap rule: no earlier transport may still
// be open when the next one is built.
struct Harness
{
    explicit Harness(const SupervisorSettings &settings = fastSettings())
        : supervisor(u"demo"_s, [this] { return makeTransport(); }, settings, &registry)
    {}

    std::unique_ptr<Transport> makeTransport()
    {
        for (const QPointer<FakeTransport> &previous : std::as_const(fakes)) {
            if (previous && previous->isOpen())
                overlapped = true;
        }
        auto transport = std::make_unique<FakeTransport>();
        if (configure)
            configure(transport.get(), int(fakes.size()) + 1);
        fakes.append(transport.get());
        emit probe.created(int(fakes.size()));
        return transport;
    }

    int generations() const { return int(fakes.size()); }
    FakeTransport *fake(int generation) const
    {
        return generation >= 1 && generation <= fakes.size() ? fakes.at(generation - 1).data() : nullptr;
    }

    bool waitForGeneration(int generation)
    {
        return QTest::qWaitFor([&] { return generations() >= generation; }, 2000) && fake(generation);
    }

    // Waits until `generation` has sent its initialize request.
    bool waitForInitialize(int generation)
    {
        if (!waitForGeneration(generation))
            return false;
        const QPointer<FakeTransport> transport = fake(generation);
        return QTest::qWaitFor([&] { return !transport || transport->countSent(u"initialize"_s) == 1; }, 2000)
               && transport;
    }

    bool answerInitialize(int generation)
    {
        if (!waitForInitialize(generation))
            return false;
        FakeTransport *transport = fake(generation);
        transport->inject(JsonRpc::makeResult(transport->lastSent(u"initialize"_s).value(u"id"), initializeResult()));
        return true;
    }

    bool failInitialize(int generation)
    {
        if (!waitForInitialize(generation))
            return false;
        FakeTransport *transport = fake(generation);
        transport->inject(JsonRpc::makeError(transport->lastSent(u"initialize"_s).value(u"id"),
                                             JsonRpc::InvalidParams, u"unsupported client"_s));
        return true;
    }

    // Answers the latest tools/list request of `generation`, once at least `count` were sent.
    bool answerToolsList(int generation, const QJsonArray &list, int count = 1)
    {
        const QPointer<FakeTransport> transport = fake(generation);
        if (!transport
            || !QTest::qWaitFor([&] { return !transport || transport->countSent(u"tools/list"_s) >= count; }, 2000)
            || !transport)
            return false;
        transport->inject(JsonRpc::makeResult(transport->lastSent(u"tools/list"_s).value(u"id"),
                                              QJsonObject{{u"tools"_s, list}}));
        return true;
    }

    bool connectGeneration(int generation, const QJsonArray &list = tools({u"echo"_s, u"add"_s}))
    {
        return answerInitialize(generation) && answerToolsList(generation, list)
               && supervisor.state() == ServerState::Connected && supervisor.status().generation == quint64(generation);
    }

    // The server process of `generation` exits on its own.
    bool crash(int generation, int exitCode = 1)
    {
        FakeTransport *transport = fake(generation);
        if (!transport)
            return false;
        transport->finishClose(crashClosure(exitCode));
        return true;
    }

    // The server of `generation` dies while Tether waits for its initialize result.
    bool crashDuringInitialize(int generation)
    {
        return waitForInitialize(generation) && crash(generation);
    }

    // Nothing builds a new generation for `ms` (an event-driven wait for a signal that must not come).
    bool noNewGenerationWithin(int ms)
    {
        QSignalSpy created(&probe, &GenerationProbe::created);
        return !created.wait(ms);
    }

    std::shared_ptr<CallOutcome> call(const QString &toolName)
    {
        auto outcome = std::make_shared<CallOutcome>();
        supervisor.callTool(toolName, QJsonObject{{u"text"_s, u"hi"_s}}, [outcome](const ToolCallReply &reply) {
            outcome->done = true;
            outcome->reply = reply;
        });
        return outcome;
    }

    bool available(const QString &publicName) const
    {
        const auto registered = registry.find(publicName);
        return registered && registered->available;
    }

    // Declared before the supervisor: it uses them until it is destroyed.
    ToolRegistry registry;
    GenerationProbe probe;
    QList<QPointer<FakeTransport>> fakes;
    std::function<void(FakeTransport *, int generation)> configure;
    bool overlapped = false;
    ConnectionSupervisor supervisor;
};

void holdCloseOf(Harness &h, QList<int> generations)
{
    h.configure = [generations](FakeTransport *transport, int generation) {
        if (generations.contains(generation))
            transport->closeOnRequest = false;
    };
}

} // namespace

class TestConnectionSupervisor final : public QObject
{
    Q_OBJECT

    std::shared_ptr<LogCapture> m_logs;

    bool logged(spdlog::level::level_enum level, const QStringList &fragments) const
    {
        return std::any_of(m_logs->entries.cbegin(), m_logs->entries.cend(), [&](const LogCapture::Entry &entry) {
            return entry.level == level
                   && std::all_of(fragments.cbegin(), fragments.cend(),
                                  [&](const QString &fragment) { return entry.text.contains(fragment); });
        });
    }

private slots:
    void initTestCase()
    {
        qRegisterMetaType<ServerStatus>();
        qRegisterMetaType<ToolChange>();
        qRegisterMetaType<ServerCatalog>();
        m_logs = std::make_shared<LogCapture>();
        auto logger = std::make_shared<spdlog::logger>("tst_connectionsupervisor", m_logs);
        logger->set_level(spdlog::level::debug);
        spdlog::set_default_logger(logger);
    }

    void init()
    {
        m_logs->entries.clear();
        // Any Qt warning (a leaked QProcess, a bad connect, …) fails the test.
        QTest::failOnWarning(QRegularExpression(u".*"_s));
    }

    void cleanup()
    {
        if (!QTest::currentTestFailed())
            return;
        for (const LogCapture::Entry &entry : std::as_const(m_logs->entries)) {
            std::fprintf(stderr, "  log [%s] %s\n", spdlog::level::to_string_view(entry.level).data(),
                         qPrintable(entry.text));
        }
    }

    // 1. Start -> Starting -> Connected, tools registered under public names, calls reach the server.
    void startConnectsRegistersToolsAndServesCalls()
    {
        Harness h;
        QSignalSpy stateSpy(&h.supervisor, &ConnectionSupervisor::stateChanged);
        QSignalSpy toolsSpy(&h.registry, &ToolRegistry::toolsChanged);

        h.supervisor.start();
        QCOMPARE(h.supervisor.state(), ServerState::Starting);
        QCOMPARE(h.generations(), 1);
        QVERIFY(h.waitForInitialize(1));
        QVERIFY(h.answerInitialize(1));
        QCOMPARE(h.fake(1)->countSent(u"notifications/initialized"_s), 1);
        QTRY_COMPARE(h.fake(1)->countSent(u"tools/list"_s), 1);
        QCOMPARE(h.supervisor.state(), ServerState::Starting); // not before the tools are known
        QVERIFY(h.answerToolsList(1, tools({u"echo"_s, u"add"_s})));

        QCOMPARE(h.supervisor.state(), ServerState::Connected);
        QCOMPARE(states(stateSpy), (QList<ServerState>{ServerState::Starting, ServerState::Connected}));
        const ServerStatus status = h.supervisor.status();
        QCOMPARE(status.name, u"demo"_s);
        QCOMPARE(status.generation, quint64(1));
        QCOMPARE(status.attempt, 0);
        QCOMPARE(status.maxAttempts, 3);
        QCOMPARE(status.toolCount, 2);
        QVERIFY(status.connectedSince.isValid());
        QVERIFY(!status.nextDelayMs);

        QCOMPARE(h.registry.count(), 2);
        QVERIFY(h.available(u"demo__echo"_s));
        QVERIFY(h.available(u"demo__add"_s));
        QCOMPARE(h.registry.find(u"demo__echo"_s)->definition.name, u"echo"_s);
        QCOMPARE(toolsSpy.size(), 1);
        const ToolChange change = toolsSpy.at(0).at(0).value<ToolChange>();
        QCOMPARE(change.serverName, u"demo"_s);
        QCOMPARE(change.added, (QStringList{u"demo__echo"_s, u"demo__add"_s}));
        QVERIFY(change.removed.isEmpty());

        const auto outcome = h.call(u"echo"_s);
        QCOMPARE(h.fake(1)->countSent(u"tools/call"_s), 1);
        const QJsonObject request = h.fake(1)->lastSent(u"tools/call"_s);
        QCOMPARE(request.value(u"params").toObject().value(u"name").toString(), u"echo"_s);
        QCOMPARE(request.value(u"params").toObject().value(u"arguments").toObject().value(u"text").toString(), u"hi"_s);
        QVERIFY(!outcome->done);
        h.fake(1)->inject(JsonRpc::makeResult(request.value(u"id"), textResult(u"hi back"_s)));
        QTRY_VERIFY(outcome->done);
        QVERIFY(!outcome->reply.error);
        QCOMPARE(outcome->reply.result.content.at(0).toObject().value(u"text").toString(), u"hi back"_s);
        QVERIFY(logged(spdlog::level::info, {u"connected with 2 tools"_s}));
    }

    // The catalog: listed once connected, only what the server offers, again on list_changed;
    // of two listings in flight the newer one's answer is kept, whichever comes last.
    void catalogFollowsWhatTheServerOffers()
    {
        Harness h;
        QSignalSpy catalogs(&h.supervisor, &ConnectionSupervisor::catalogChanged);
        h.supervisor.start();
        QVERIFY(h.waitForInitialize(1));
        FakeTransport *fake = h.fake(1);
        QJsonObject result = initializeResult();
        result.insert(u"capabilities"_s, QJsonObject{{u"tools"_s, QJsonObject{}}, {u"resources"_s, QJsonObject{}}});
        fake->inject(JsonRpc::makeResult(fake->lastSent(u"initialize"_s).value(u"id"), result));
        QCOMPARE(fake->countSent(u"resources/list"_s), 0); // not before it is connected
        QVERIFY(h.answerToolsList(1, tools({u"echo"_s})));
        QCOMPARE(h.supervisor.state(), ServerState::Connected);
        QTRY_COMPARE(fake->countSent(u"resources/list"_s), 1);
        QCOMPARE(fake->countSent(u"prompts/list"_s), 0);
        QVERIFY(h.supervisor.catalog().offersResources && !h.supervisor.catalog().offersPrompts);
        QVERIFY(!h.supervisor.catalog().isListed());

        // Each request of `method` sent so far, by id, for answers out of order.
        const auto ids = [fake](const QString &method) {
            QJsonArray found;
            for (const QJsonObject &message : std::as_const(fake->sent)) {
                if (message.value(u"method").toString() == method)
                    found.append(message.value(u"id"));
            }
            return found;
        };
        const auto resources = [](const QString &uri) {
            return QJsonObject{{u"resources"_s, QJsonArray{QJsonObject{{u"uri"_s, uri}, {u"name"_s, uri}}}}};
        };
        const QJsonObject noTemplates{{u"resourceTemplates"_s, QJsonArray{}}};
        fake->inject(JsonRpc::makeResult(ids(u"resources/list"_s).at(0), resources(u"a:first"_s)));
        fake->inject(JsonRpc::makeResult(ids(u"resources/templates/list"_s).at(0), noTemplates));
        QVERIFY(h.supervisor.catalog().isListed());
        QCOMPARE(h.supervisor.catalog().resources.first().uri, u"a:first"_s);
        const qsizetype changesSoFar = catalogs.size();

        fake->inject(notification(u"notifications/resources/list_changed"_s));
        fake->inject(notification(u"notifications/resources/list_changed"_s));
        QCOMPARE(ids(u"resources/list"_s).size(), 3);
        // The newer listing ends first; the older one's answer, later, changes nothing.
        fake->inject(JsonRpc::makeResult(ids(u"resources/list"_s).at(2), resources(u"a:newest"_s)));
        fake->inject(JsonRpc::makeResult(ids(u"resources/templates/list"_s).at(1), noTemplates));
        fake->inject(JsonRpc::makeResult(ids(u"resources/list"_s).at(1), resources(u"a:older"_s)));
        fake->inject(JsonRpc::makeResult(ids(u"resources/templates/list"_s).at(2), noTemplates));
        QCOMPARE(h.supervisor.catalog().resources.size(), 1);
        QCOMPARE(h.supervisor.catalog().resources.first().uri, u"a:newest"_s);
        QCOMPARE(catalogs.size(), changesSoFar + 1);
        QCOMPARE(catalogs.last().first().value<ServerCatalog>(), h.supervisor.catalog());

        // A listing that fails keeps the list before it and says why.
        fake->inject(notification(u"notifications/resources/list_changed"_s));
        fake->inject(JsonRpc::makeResult(ids(u"resources/list"_s).at(3), QJsonObject{{u"resources"_s, 5}}));
        QCOMPARE(h.supervisor.catalog().resources.first().uri, u"a:newest"_s);
        QVERIFY2(h.supervisor.catalog().resourcesError.contains(u"\"resources\" is a number, not an array"_s),
                 qPrintable(h.supervisor.catalog().resourcesError));
        QVERIFY(logged(spdlog::level::warn, {u"could not list its resources"_s, u"the previous list stays"_s}));

        // A stop empties it.
        QSignalSpy stopped(&h.supervisor, &ConnectionSupervisor::stopped);
        h.supervisor.stop();
        QTRY_COMPARE(stopped.size(), 1);
        QCOMPARE(h.supervisor.catalog(), ServerCatalog{});
    }

    // 2. A crash of an established connection recovers with a fresh generation and no tool flapping.
    void recoversFromACrashWithoutToolFlapping()
    {
        Harness h;
        h.supervisor.start();
        QVERIFY(h.connectGeneration(1));
        QSignalSpy toolsSpy(&h.registry, &ToolRegistry::toolsChanged);
        QSignalSpy stateSpy(&h.supervisor, &ConnectionSupervisor::stateChanged);

        QVERIFY(h.crash(1));
        ServerStatus status = h.supervisor.status();
        QCOMPARE(status.state, ServerState::Reconnecting);
        QVERIFY2(status.reason.startsWith(u"connection lost"_s), qPrintable(status.reason));
        QVERIFY2(status.reason.contains(u"process exited with code 1"_s), qPrintable(status.reason));
        QCOMPARE(status.attempt, 1);
        QCOMPARE(status.maxAttempts, 3);
        QCOMPARE(status.nextDelayMs, std::optional<qint64>(10));
        QVERIFY(status.nextRetryAt.isValid());
        QCOMPARE(status.lastExitCode, std::optional<int>(1));
        QCOMPARE(status.lastStderrTail, QStringList{u"boom"_s});
        QVERIFY(!status.connectedSince.isValid());
        QVERIFY(logged(spdlog::level::warn, {u"attempt 1/3"_s, u"10 ms"_s}));

        // The tools stay registered through the outage, unavailable; calls fail fast.
        QCOMPARE(h.registry.count(), 2);
        QCOMPARE(status.toolCount, 2);
        QVERIFY(h.registry.find(u"demo__echo"_s));
        QVERIFY(!h.available(u"demo__echo"_s));
        QVERIFY(!h.available(u"demo__add"_s));
        const auto failing = h.call(u"echo"_s);
        QVERIFY(!failing->done); // never re-enters the caller
        QTRY_VERIFY(failing->done);
        QVERIFY(failing->reply.error);
        QVERIFY2(failing->reply.error->message.contains(u"reconnecting"_s), qPrintable(failing->reply.error->message));

        // The next generation starts after the backoff, only once the first one has closed.
        QCOMPARE(h.generations(), 1);
        QVERIFY(h.waitForGeneration(2));
        QVERIFY(!h.overlapped);
        QVERIFY(h.connectGeneration(2));

        status = h.supervisor.status();
        QCOMPARE(status.state, ServerState::Connected);
        QCOMPARE(status.generation, quint64(2));
        QCOMPARE(status.toolCount, 2);
        QCOMPARE(toolsSpy.size(), 0); // identical definitions: no change signal
        QCOMPARE(h.registry.count(), 2); // no duplicates, no leaks
        QVERIFY(h.available(u"demo__echo"_s));
        QVERIFY(h.available(u"demo__add"_s));
        QCOMPARE(states(stateSpy),
                 (QList<ServerState>{ServerState::Reconnecting, ServerState::Starting, ServerState::Connected}));
        QVERIFY(logged(spdlog::level::info, {u"recovered after 1 attempt"_s}));

        // Calls go to the new generation.
        const auto outcome = h.call(u"echo"_s);
        QCOMPARE(h.fake(2)->countSent(u"tools/call"_s), 1);
        h.fake(2)->inject(JsonRpc::makeResult(h.fake(2)->lastSent(u"tools/call"_s).value(u"id"), textResult(u"two"_s)));
        QTRY_VERIFY(outcome->done);
        QVERIFY(!outcome->reply.error);
        QCOMPARE(outcome->reply.result.content.at(0).toObject().value(u"text").toString(), u"two"_s);
        QVERIFY(!h.fake(1) || h.fake(1)->countSent(u"tools/call"_s) == 0);
        QVERIFY(!h.overlapped);
    }

    // 3. "connection failed" (Retrying) for attempts that never connected, "connection lost"
    // (Reconnecting) for an established generation that ended.
    void failureWording_data()
    {
        QTest::addColumn<int>("scenario");
        QTest::addColumn<ServerState>("expectedState");
        QTest::addColumn<QString>("reasonPrefix");
        QTest::addColumn<int>("attempt");
        QTest::addColumn<qint64>("delayMs");

        QTest::newRow("initial attempt fails") << 0 << ServerState::Retrying << u"connection failed"_s << 1 << qint64(10);
        QTest::newRow("retry attempt fails") << 1 << ServerState::Retrying << u"connection failed"_s << 2 << qint64(20);
        QTest::newRow("established connection lost")
            << 2 << ServerState::Reconnecting << u"connection lost"_s << 1 << qint64(10);
        QTest::newRow("recovered connection lost again")
            << 3 << ServerState::Reconnecting << u"connection lost"_s << 2 << qint64(20);
    }

    void failureWording()
    {
        QFETCH(int, scenario);
        QFETCH(ServerState, expectedState);
        QFETCH(QString, reasonPrefix);
        QFETCH(int, attempt);
        QFETCH(qint64, delayMs);

        Harness h;
        h.supervisor.start();
        switch (scenario) {
        case 0:
            QVERIFY(h.crashDuringInitialize(1));
            break;
        case 1:
            QVERIFY(h.crashDuringInitialize(1));
            QVERIFY(h.crashDuringInitialize(2));
            break;
        case 2:
            QVERIFY(h.connectGeneration(1));
            QVERIFY(h.crash(1));
            break;
        case 3:
            QVERIFY(h.connectGeneration(1));
            QVERIFY(h.crash(1));
            QVERIFY(h.connectGeneration(2));
            QVERIFY(h.crash(2));
            break;
        }
        const ServerStatus status = h.supervisor.status();
        QCOMPARE(status.state, expectedState);
        QVERIFY2(status.reason.startsWith(reasonPrefix), qPrintable(status.reason));
        QCOMPARE(status.attempt, attempt);
        QCOMPARE(status.nextDelayMs, std::optional<qint64>(delayMs));
        QVERIFY(logged(spdlog::level::warn, {reasonPrefix, u"attempt %1/3"_s.arg(attempt)}));
        QVERIFY(!h.overlapped);
    }

    // 3b. Reconnect disabled: Disconnected, nothing restarts, Start recovers by hand.
    void reconnectDisabledWaitsForManualStart_data()
    {
        QTest::addColumn<bool>("established");
        QTest::addColumn<QString>("reasonPrefix");
        QTest::newRow("initial attempt fails") << false << u"connection failed"_s;
        QTest::newRow("established connection lost") << true << u"connection lost"_s;
    }

    void reconnectDisabledWaitsForManualStart()
    {
        QFETCH(bool, established);
        QFETCH(QString, reasonPrefix);

        SupervisorSettings settings = fastSettings();
        settings.reconnect.enabled = false;
        Harness h(settings);
        h.supervisor.start();
        if (established) {
            QVERIFY(h.connectGeneration(1));
            QVERIFY(h.crash(1));
        } else {
            QVERIFY(h.crashDuringInitialize(1));
        }

        ServerStatus status = h.supervisor.status();
        QCOMPARE(status.state, ServerState::Disconnected);
        QVERIFY2(status.reason.startsWith(reasonPrefix), qPrintable(status.reason));
        QVERIFY2(status.reason.contains(u"reconnect is disabled"_s), qPrintable(status.reason));
        // What to do, in the words of whoever reads it: the window's buttons, tetherctl's command.
        QVERIFY2(status.reason.endsWith(u"; use Reconnect or Start to connect again"_s), qPrintable(status.reason));
        const QString attached = reasonFor(status.reason, status.name, ReasonReader::Attached);
        QVERIFY2(attached.endsWith(u"; connect it again with: tetherctl reconnect "_s + status.name), qPrintable(attached));
        QVERIFY2(attached.startsWith(reasonPrefix), qPrintable(attached));
        QVERIFY(!reasonFor(status.reason, status.name, ReasonReader::OwnRun).contains(u"Reconnect or Start"_s));
        QVERIFY(!status.nextDelayMs);
        QVERIFY(logged(spdlog::level::err, {reasonPrefix, u"reconnect is disabled for this server"_s}));
        QVERIFY(!logged(spdlog::level::err, {u"Reconnect or Start"_s}));
        // The last good tools stay registered (unavailable), as before reconnection existed.
        QCOMPARE(h.registry.count(), established ? 2 : 0);
        const auto failing = h.call(u"echo"_s);
        QTRY_VERIFY(failing->done);
        QVERIFY(failing->reply.error);
        QVERIFY2(failing->reply.error->message.contains(u"disconnected"_s), qPrintable(failing->reply.error->message));

        QVERIFY(h.noNewGenerationWithin(100));
        QCOMPARE(h.generations(), 1);
        QCOMPARE(h.supervisor.state(), ServerState::Disconnected);

        h.supervisor.start();
        QCOMPARE(h.generations(), 2);
        QVERIFY(h.connectGeneration(2));
        status = h.supervisor.status();
        QCOMPARE(status.state, ServerState::Connected);
        QCOMPARE(status.attempt, 0);
        QCOMPARE(h.registry.count(), 2);
        QVERIFY(h.available(u"demo__echo"_s));
        QVERIFY(!h.overlapped);
    }

    // 4a. A list_changed before the initialize result neither breaks nor duplicates the first sync.
    void listChangedBeforeInitializeResultIsCoveredByTheFirstSync()
    {
        Harness h;
        QSignalSpy toolsSpy(&h.registry, &ToolRegistry::toolsChanged);
        h.supervisor.start();
        QVERIFY(h.waitForInitialize(1));
        h.fake(1)->inject(notification(u"notifications/tools/list_changed"_s));
        QCOMPARE(h.fake(1)->countSent(u"tools/list"_s), 0);
        QVERIFY(h.answerInitialize(1));
        QTRY_COMPARE(h.fake(1)->countSent(u"tools/list"_s), 1);
        QVERIFY(h.answerToolsList(1, tools({u"echo"_s})));
        QCOMPARE(h.supervisor.state(), ServerState::Connected);
        QCOMPARE(toolsSpy.size(), 1);
        QCOMPARE(h.registry.count(), 1);

        QSignalSpy sent(h.fake(1), &FakeTransport::messageSent);
        QVERIFY(!sent.wait(50));
        QCOMPARE(h.fake(1)->countSent(u"tools/list"_s), 1);
    }

    // 4b. A list_changed while the initial tools/list is in flight is queued behind it.
    void listChangedDuringTheInitialSyncResyncsOnce_data()
    {
        QTest::addColumn<QStringList>("secondList");
        QTest::addColumn<QStringList>("added");
        QTest::addColumn<QStringList>("removed");
        QTest::newRow("identical list") << QStringList{u"echo"_s, u"add"_s} << QStringList{} << QStringList{};
        QTest::newRow("changed list") << QStringList{u"echo"_s, u"multiply"_s} << QStringList{u"demo__multiply"_s}
                                      << QStringList{u"demo__add"_s};
    }

    void listChangedDuringTheInitialSyncResyncsOnce()
    {
        QFETCH(QStringList, secondList);
        QFETCH(QStringList, added);
        QFETCH(QStringList, removed);

        Harness h;
        QSignalSpy toolsSpy(&h.registry, &ToolRegistry::toolsChanged);
        h.supervisor.start();
        QVERIFY(h.answerInitialize(1));
        QTRY_COMPARE(h.fake(1)->countSent(u"tools/list"_s), 1);
        // Two notifications while the first sync runs: one more sync covers both.
        h.fake(1)->inject(notification(u"notifications/tools/list_changed"_s));
        h.fake(1)->inject(notification(u"notifications/tools/list_changed"_s));
        QCOMPARE(h.fake(1)->countSent(u"tools/list"_s), 1); // serialised: not while one is in flight

        QVERIFY(h.answerToolsList(1, tools({u"echo"_s, u"add"_s})));
        QCOMPARE(h.supervisor.state(), ServerState::Connected);
        QCOMPARE(toolsSpy.size(), 1);
        QTRY_COMPARE(h.fake(1)->countSent(u"tools/list"_s), 2);
        QVERIFY(h.answerToolsList(1, tools(secondList), 2));

        const bool changed = !added.isEmpty() || !removed.isEmpty();
        QCOMPARE(toolsSpy.size(), changed ? 2 : 1);
        if (changed) {
            const ToolChange change = toolsSpy.at(1).at(0).value<ToolChange>();
            QCOMPARE(change.added, added);
            QCOMPARE(change.removed, removed);
            QVERIFY(change.changed.isEmpty());
        }
        QCOMPARE(h.registry.count(), int(secondList.size()));
        for (const QString &name : std::as_const(secondList))
            QVERIFY(h.available(publicToolName(u"demo"_s, name)));
        QCOMPARE(h.supervisor.state(), ServerState::Connected);

        QSignalSpy sent(h.fake(1), &FakeTransport::messageSent);
        QVERIFY(!sent.wait(50));
        QCOMPARE(h.fake(1)->countSent(u"tools/list"_s), 2);
    }

    // 5a. No overlap: the next generation waits for the failed one's close signal, past the backoff.
    void nextGenerationWaitsForThePreviousClose()
    {
        Harness h;
        holdCloseOf(h, {1});
        h.supervisor.start();
        QVERIFY(h.failInitialize(1));
        QVERIFY(h.fake(1)->closeRequested);
        ServerStatus status = h.supervisor.status();
        QCOMPARE(status.state, ServerState::Retrying);
        QVERIFY2(status.reason.startsWith(u"connection failed"_s), qPrintable(status.reason));
        QVERIFY2(status.reason.contains(u"unsupported client"_s), qPrintable(status.reason));

        // The 10 ms backoff passes many times over; still only one generation.
        QVERIFY(h.noNewGenerationWithin(150));
        QCOMPARE(h.generations(), 1);

        h.fake(1)->finishClose(requestedClosure());
        QCOMPARE(h.generations(), 2);
        QVERIFY(!h.overlapped);
        QVERIFY(h.connectGeneration(2));
        QCOMPARE(h.supervisor.status().generation, quint64(2));
    }

    // A server that is gone (lost) is shown reconnecting with its exit at once; the next one
    // starts only once its transport has closed (what it started is killed by then).
    void aLostServerReconnectsOnceItsTransportCloses()
    {
        Harness h;
        holdCloseOf(h, {1});
        h.supervisor.start();
        QVERIFY(h.connectGeneration(1));
        emit h.fake(1)->lost(crashClosure(7));
        ServerStatus status = h.supervisor.status();
        QCOMPARE(status.state, ServerState::Reconnecting);
        QVERIFY2(status.reason.contains(u"process exited with code 7"_s), qPrintable(status.reason));
        QCOMPARE(status.lastExitCode, std::optional<int>(7));
        QVERIFY(!h.available(u"echo"_s));

        QVERIFY(h.noNewGenerationWithin(150));
        QCOMPARE(h.generations(), 1);
        TransportClosure closed = crashClosure(7);
        closed.requested = true;
        h.fake(1)->finishClose(closed);
        QCOMPARE(h.generations(), 2);
        QVERIFY(!h.overlapped);
        QVERIFY(h.connectGeneration(2));
    }

    // 5b. A close signal that never comes stops reconnection instead of running two copies.
    void missingCloseSignalFailsClosed()
    {
        Harness h;
        holdCloseOf(h, {1});
        h.supervisor.start();
        QVERIFY(h.failInitialize(1));
        QCOMPARE(h.supervisor.state(), ServerState::Retrying);

        QTRY_COMPARE_WITH_TIMEOUT(h.supervisor.state(), ServerState::Failed, 3000);
        const ServerStatus status = h.supervisor.status();
        QVERIFY2(status.reason.contains(u"could not stop the previous server process"_s), qPrintable(status.reason));
        QVERIFY2(status.reason.contains(u"pid"_s), qPrintable(status.reason));
        QVERIFY(!status.nextDelayMs);
        QCOMPARE(h.generations(), 1);
        QVERIFY(logged(spdlog::level::err, {u"could not stop the previous server process"_s}));

        QVERIFY(h.noNewGenerationWithin(150));
        // A late close changes nothing either.
        h.fake(1)->finishClose(requestedClosure());
        QVERIFY(h.noNewGenerationWithin(100));
        QCOMPARE(h.generations(), 1);
        QCOMPARE(h.supervisor.state(), ServerState::Failed);
        QVERIFY(!h.overlapped);
    }

    // 6a. Stop is quiescent: stopped() only once the generation has really closed.
    void stopWaitsForTheCloseSignal()
    {
        Harness h;
        holdCloseOf(h, {1});
        QSignalSpy stoppedSpy(&h.supervisor, &ConnectionSupervisor::stopped);
        QSignalSpy toolsSpy(&h.registry, &ToolRegistry::toolsChanged);
        h.supervisor.start();
        QVERIFY(h.connectGeneration(1));

        h.supervisor.stop();
        QCOMPARE(h.supervisor.state(), ServerState::Stopping);
        QVERIFY(h.fake(1)->closeRequested);
        QVERIFY(!stoppedSpy.wait(50));
        QCOMPARE(h.supervisor.state(), ServerState::Stopping);

        h.fake(1)->finishClose(requestedClosure());
        QCOMPARE(stoppedSpy.size(), 1);
        QCOMPARE(stoppedSpy.at(0).at(0).toBool(), true);
        const ServerStatus status = h.supervisor.status();
        QCOMPARE(status.state, ServerState::Stopped);
        QCOMPARE(status.reason, u"stopped"_s);
        QCOMPARE(h.registry.count(), 0);
        QCOMPARE(status.toolCount, 0);
        QCOMPARE(toolsSpy.size(), 2); // registered, then unregistered
        QCOMPARE(toolsSpy.at(1).at(0).value<ToolChange>().removed, (QStringList{u"demo__echo"_s, u"demo__add"_s}));
        QVERIFY(h.noNewGenerationWithin(100));
        QCOMPARE(h.generations(), 1);
    }

    // 6b. A close that never completes is an incomplete shutdown and never restarts anything.
    void stopWithoutCloseSignalIsAnIncompleteShutdown()
    {
        Harness h;
        holdCloseOf(h, {1});
        QSignalSpy stoppedSpy(&h.supervisor, &ConnectionSupervisor::stopped);
        h.supervisor.start();
        QVERIFY(h.connectGeneration(1));

        h.supervisor.stop();
        QCOMPARE(h.supervisor.state(), ServerState::Stopping);
        QVERIFY(stoppedSpy.wait(3000));
        QCOMPARE(stoppedSpy.size(), 1);
        QCOMPARE(stoppedSpy.at(0).at(0).toBool(), false);
        ServerStatus status = h.supervisor.status();
        QCOMPARE(status.state, ServerState::Stopped);
        QVERIFY2(status.reason.contains(u"incomplete shutdown"_s), qPrintable(status.reason));
        QCOMPARE(h.registry.count(), 0);
        QVERIFY(logged(spdlog::level::err, {u"incomplete shutdown"_s}));

        QVERIFY(h.noNewGenerationWithin(150));
        h.fake(1)->finishClose(crashClosure(137));
        QVERIFY(h.noNewGenerationWithin(100));
        status = h.supervisor.status();
        QCOMPARE(status.state, ServerState::Stopped);
        QVERIFY2(status.reason.contains(u"incomplete shutdown"_s), qPrintable(status.reason));
        QCOMPARE(stoppedSpy.size(), 1);
        QCOMPARE(h.generations(), 1);
    }

    // 7. A server that never starts runs 1 + maxAttempts times, with doubling, capped delays.
    void failureCapStopsAfterMaxAttempts_data()
    {
        QTest::addColumn<int>("maxAttempts");
        QTest::newRow("1 retry") << 1;
        QTest::newRow("2 retries") << 2;
        QTest::newRow("4 retries") << 4;
    }

    void failureCapStopsAfterMaxAttempts()
    {
        QFETCH(int, maxAttempts);
        SupervisorSettings settings = fastSettings();
        settings.reconnect.maxAttempts = maxAttempts;
        Harness h(settings);
        h.supervisor.start();

        for (int generation = 1; generation <= maxAttempts; ++generation) {
            QVERIFY(h.crashDuringInitialize(generation));
            const ServerStatus status = h.supervisor.status();
            QCOMPARE(status.state, ServerState::Retrying);
            QCOMPARE(status.attempt, generation);
            QCOMPARE(status.nextDelayMs, std::optional<qint64>(std::min(10 << (generation - 1), 40)));
        }
        QVERIFY(h.crashDuringInitialize(maxAttempts + 1));
        const ServerStatus status = h.supervisor.status();
        QCOMPARE(status.state, ServerState::Failed);
        QVERIFY2(status.reason.startsWith(u"gave up after %1 attempt"_s.arg(maxAttempts)), qPrintable(status.reason));
        QVERIFY2(status.reason.contains(u"connection failed"_s), qPrintable(status.reason));
        QVERIFY(!status.nextDelayMs);
        QVERIFY(logged(spdlog::level::err, {u"gave up"_s}));
        QVERIFY(h.noNewGenerationWithin(150));
        QCOMPARE(h.generations(), 1 + maxAttempts);
        QVERIFY(!h.overlapped);
    }

    // 7b. Final failure unregisters the last good tools; Start afterwards works again.
    void failureCapUnregistersTools()
    {
        Harness h;
        QSignalSpy toolsSpy(&h.registry, &ToolRegistry::toolsChanged);
        h.supervisor.start();
        QVERIFY(h.connectGeneration(1));
        QCOMPARE(h.registry.count(), 2);
        QVERIFY(h.crash(1));
        for (int generation = 2; generation <= 4; ++generation) {
            QCOMPARE(h.registry.count(), 2); // kept through the outage
            QVERIFY(h.crashDuringInitialize(generation));
        }
        QCOMPARE(h.supervisor.state(), ServerState::Failed);
        QCOMPARE(h.registry.count(), 0);
        QCOMPARE(h.supervisor.status().toolCount, 0);
        QCOMPARE(toolsSpy.size(), 2);
        QCOMPARE(toolsSpy.at(1).at(0).value<ToolChange>().removed, (QStringList{u"demo__echo"_s, u"demo__add"_s}));
        const auto failing = h.call(u"echo"_s);
        QTRY_VERIFY(failing->done);
        QVERIFY(failing->reply.error);
        QVERIFY2(failing->reply.error->message.contains(u"failed"_s), qPrintable(failing->reply.error->message));
        QVERIFY(h.noNewGenerationWithin(150));
        QCOMPARE(h.generations(), 4);

        h.supervisor.start();
        QVERIFY(h.connectGeneration(5));
        QCOMPARE(h.registry.count(), 2);
        QCOMPARE(h.supervisor.status().attempt, 0);
        QVERIFY(!h.overlapped);
    }

    // 8a. Stop during a pending backoff cancels it.
    void stopCancelsAPendingBackoff()
    {
        SupervisorSettings settings = fastSettings();
        settings.reconnect.initialDelayMs = 30;
        Harness h(settings);
        QSignalSpy stoppedSpy(&h.supervisor, &ConnectionSupervisor::stopped);
        h.supervisor.start();
        QVERIFY(h.connectGeneration(1));
        QVERIFY(h.crash(1));
        QCOMPARE(h.supervisor.state(), ServerState::Reconnecting);

        h.supervisor.stop();
        QTRY_COMPARE(stoppedSpy.size(), 1);
        QCOMPARE(stoppedSpy.at(0).at(0).toBool(), true);
        QCOMPARE(h.supervisor.state(), ServerState::Stopped);
        QVERIFY(!h.supervisor.status().nextDelayMs);
        QCOMPARE(h.registry.count(), 0);
        QVERIFY(h.noNewGenerationWithin(150));
        QCOMPARE(h.generations(), 1);
        QCOMPARE(h.supervisor.state(), ServerState::Stopped);
    }

    // 8b. Stop while the initial tools/list is in flight: its late reply changes nothing.
    // A list that takes the registry more than one event-loop turn to name.
    static QJsonArray manyTools()
    {
        QStringList names;
        for (qsizetype i = 0; i < ToolRegistry::DefaultNamingStepsPerTurn; ++i)
            names.append(u"tool_%1"_s.arg(i));
        return tools(names);
    }

    void aLargeToolListIsRegisteredOverSeveralTurnsBeforeConnected()
    {
        Harness h;
        QSignalSpy toolsSpy(&h.registry, &ToolRegistry::toolsChanged);
        h.supervisor.start();
        QVERIFY(h.answerInitialize(1));
        QVERIFY(h.answerToolsList(1, manyTools()));
        // Not in the turn that brought the list: the other servers' events come in between.
        QCOMPARE(h.supervisor.state(), ServerState::Starting);
        QCOMPARE(h.registry.count(), 0);
        QTRY_COMPARE(h.supervisor.state(), ServerState::Connected);
        QCOMPARE(h.registry.count(), int(ToolRegistry::DefaultNamingStepsPerTurn));
        QCOMPARE(h.supervisor.status().toolCount, int(ToolRegistry::DefaultNamingStepsPerTurn));
        QVERIFY(h.available(u"demo__tool_0"_s));
        QCOMPARE(toolsSpy.size(), 1);
    }

    void stopWhileALargeToolListIsRegisteredRegistersNothing()
    {
        // The stop must outlast the other server's registration, however slow the build.
        SupervisorSettings settings = fastSettings();
        settings.closeTimeout = std::chrono::minutes(1);
        Harness h(settings);
        holdCloseOf(h, {1}); // stopping lasts until the close signal
        QSignalSpy toolsSpy(&h.registry, &ToolRegistry::toolsChanged);
        QSignalSpy stoppedSpy(&h.supervisor, &ConnectionSupervisor::stopped);
        h.supervisor.start();
        QVERIFY(h.answerInitialize(1));
        QVERIFY(h.answerToolsList(1, manyTools()));
        h.supervisor.stop();
        // The registry finishes replacements in order: once another server's large one is done,
        // the dropped one would have been too.
        QList<ToolDefinition> other;
        for (const QJsonValue &entry : manyTools()) {
            QString error;
            other.append(*parseToolDefinition(entry, &error));
        }
        QObject context;
        bool otherDone = false;
        h.registry.replaceServerToolsInTurns(u"other"_s, other, &context, [&](const ToolChange &) { otherDone = true; });
        QTRY_VERIFY(otherDone);
        QCOMPARE(h.supervisor.state(), ServerState::Stopping);
        QVERIFY(h.registry.serverTools(u"demo"_s).isEmpty());
        QCOMPARE(toolsSpy.size(), 1); // the other server's
        h.fake(1)->finishClose(requestedClosure());
        QTRY_COMPARE(stoppedSpy.size(), 1);
        QCOMPARE(toolsSpy.size(), 1);
    }

    void crashWhileALargeToolListIsRegisteredLeavesItUnavailable()
    {
        Harness h;
        h.supervisor.start();
        QVERIFY(h.answerInitialize(1));
        QVERIFY(h.answerToolsList(1, manyTools()));
        QVERIFY(h.crash(1));
        // As if the list had been registered just before the crash: there, but not callable.
        QTRY_COMPARE(h.registry.count(), int(ToolRegistry::DefaultNamingStepsPerTurn));
        QVERIFY(h.registry.find(u"demo__tool_0"_s));
        QVERIFY(!h.available(u"demo__tool_0"_s));
        QVERIFY(h.supervisor.state() != ServerState::Connected);
        QVERIFY(h.connectGeneration(2));
        QCOMPARE(h.registry.count(), 2);
        QVERIFY(h.available(u"demo__echo"_s));
    }

    void stopQuiescesAnInFlightSync_data()
    {
        QTest::addColumn<bool>("holdClose");
        QTest::newRow("closes at once") << false;
        QTest::newRow("close signal later") << true;
    }

    void stopQuiescesAnInFlightSync()
    {
        QFETCH(bool, holdClose);
        Harness h;
        if (holdClose)
            holdCloseOf(h, {1});
        QSignalSpy stoppedSpy(&h.supervisor, &ConnectionSupervisor::stopped);
        QSignalSpy toolsSpy(&h.registry, &ToolRegistry::toolsChanged);
        h.supervisor.start();
        QVERIFY(h.answerInitialize(1));
        QTRY_COMPARE(h.fake(1)->countSent(u"tools/list"_s), 1);

        h.supervisor.stop();
        const QPointer<FakeTransport> first = h.fake(1);
        QVERIFY(first); // not yet deleted: no event loop ran since
        first->inject(JsonRpc::makeResult(first->lastSent(u"tools/list"_s).value(u"id"),
                                          QJsonObject{{u"tools"_s, tools({u"echo"_s})}}));
        QCOMPARE(h.registry.count(), 0);
        QCOMPARE(toolsSpy.size(), 0);
        if (holdClose) {
            QCOMPARE(h.supervisor.state(), ServerState::Stopping);
            QCOMPARE(stoppedSpy.size(), 0);
            first->finishClose(requestedClosure());
        }
        QTRY_COMPARE(stoppedSpy.size(), 1);
        QCOMPARE(stoppedSpy.at(0).at(0).toBool(), true);
        QCOMPARE(h.supervisor.state(), ServerState::Stopped);
        QCOMPARE(h.registry.count(), 0);
        QCOMPARE(toolsSpy.size(), 0);
        QVERIFY(h.noNewGenerationWithin(100));
        QCOMPARE(h.generations(), 1);
    }

    // 9. A close reported after dispose schedules nothing.
    void closeAfterStopSchedulesNothing_data()
    {
        QTest::addColumn<bool>("connected");
        QTest::newRow("connected generation") << true;
        QTest::newRow("failed attempt still closing") << false;
    }

    void closeAfterStopSchedulesNothing()
    {
        QFETCH(bool, connected);
        Harness h;
        holdCloseOf(h, {1});
        QSignalSpy stoppedSpy(&h.supervisor, &ConnectionSupervisor::stopped);
        h.supervisor.start();
        if (connected)
            QVERIFY(h.connectGeneration(1));
        else
            QVERIFY(h.failInitialize(1)); // Retrying; generation 1 asked to close, not closed yet

        h.supervisor.stop();
        QCOMPARE(h.supervisor.state(), ServerState::Stopping);
        // The process ends with a crash-like exit after the stop: still just the end of the stop.
        h.fake(1)->finishClose(crashClosure(1));
        QCOMPARE(stoppedSpy.size(), 1);
        QCOMPARE(stoppedSpy.at(0).at(0).toBool(), true);
        QCOMPARE(h.supervisor.state(), ServerState::Stopped);
        QVERIFY(h.noNewGenerationWithin(150));
        QCOMPARE(h.generations(), 1);
        QCOMPARE(h.supervisor.state(), ServerState::Stopped);
        QCOMPARE(stoppedSpy.size(), 1);
    }

    // 10a. A connection that outlives the stability window ends the outage: the next loss starts afresh.
    void stableConnectionResetsTheBudget()
    {
        Harness h;
        h.supervisor.start();
        QVERIFY(h.connectGeneration(1));
        QVERIFY(h.crash(1));
        QCOMPARE(h.supervisor.status().attempt, 1);
        QVERIFY(h.connectGeneration(2));
        QCOMPARE(h.supervisor.status().attempt, 1); // the outage lasts until the window has passed

        // The stability window (= maxDelayMs, 40 ms) passes while connected.
        QTRY_COMPARE_WITH_TIMEOUT(h.supervisor.status().attempt, 0, 2000);
        QVERIFY(logged(spdlog::level::info, {u"retry budget is reset"_s}));
        QVERIFY(h.crash(2));
        const ServerStatus status = h.supervisor.status();
        QCOMPARE(status.state, ServerState::Reconnecting);
        QCOMPARE(status.attempt, 1);
        QCOMPARE(status.nextDelayMs, std::optional<qint64>(10));
    }

    // 10a'. The outage ends when the window has passed even if the timer that checks it wakes up
    // early: Qt's default (coarse) timers may fire up to 5% early (a 20 s+ interval becomes a
    // VeryCoarseTimer, up to 500 ms early). Here the window is 300 ms and the connection is made
    // at a moment for which Qt's coarse rounding (300 ms: to a 100 ms boundary within 15 ms)
    // rounds the wake-up time down, so the timer fires ~15 ms before the window has passed.
    void stabilityWindowEndsTheOutageEvenWhenItsTimerFiresEarly()
    {
        SupervisorSettings settings = fastSettings();
        settings.reconnect.maxDelayMs = 300;
        Harness h(settings);
        h.supervisor.start();
        QVERIFY(h.connectGeneration(1));
        QVERIFY(h.crash(1));
        QVERIFY(h.answerInitialize(2));
        QTRY_COMPARE(h.fake(2)->countSent(u"tools/list"_s), 1);
        // Connect when the monotonic clock's millisecond is 20..40 past a 100 ms boundary.
        const auto phase = [] {
            using namespace std::chrono;
            return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count() % 100;
        };
        QVERIFY(QTest::qWaitFor([&] { return phase() >= 20 && phase() <= 40; }, 2000));
        QVERIFY(h.answerToolsList(2, tools({u"echo"_s, u"add"_s})));
        QCOMPARE(h.supervisor.state(), ServerState::Connected);
        QCOMPARE(h.supervisor.status().attempt, 1);

        // A running event loop (not QTRY's sleeps), so the timer fires when Qt decides it should.
        QSignalSpy statusSpy(&h.supervisor, &ConnectionSupervisor::statusChanged);
        statusSpy.wait(700);
        QCOMPARE(h.supervisor.status().attempt, 0);
        // The budget itself is still judged right at the next loss (connectionLost re-checks).
        QVERIFY(h.crash(2));
        QCOMPARE(h.supervisor.status().attempt, 1);
    }

    // 10b. A crash loop whose connects briefly succeed cannot launder its budget.
    void crashLoopExhaustsTheBudget()
    {
        Harness h;
        QSignalSpy toolsSpy(&h.registry, &ToolRegistry::toolsChanged);
        h.supervisor.start();
        const QList<qint64> delays{10, 20, 40};
        for (int generation = 1; generation <= 3; ++generation) {
            QVERIFY(h.connectGeneration(generation));
            QVERIFY(h.crash(generation));
            const ServerStatus status = h.supervisor.status();
            QCOMPARE(status.state, ServerState::Reconnecting);
            QCOMPARE(status.attempt, generation);
            QCOMPARE(status.nextDelayMs, std::optional<qint64>(delays.at(generation - 1)));
        }
        QVERIFY(h.connectGeneration(4));
        QVERIFY(h.crash(4));
        const ServerStatus status = h.supervisor.status();
        QCOMPARE(status.state, ServerState::Failed);
        QVERIFY2(status.reason.startsWith(u"gave up after 3 attempts"_s), qPrintable(status.reason));
        QVERIFY2(status.reason.contains(u"connection lost"_s), qPrintable(status.reason));
        QCOMPARE(h.registry.count(), 0);
        QCOMPARE(toolsSpy.size(), 2); // registered once, unregistered once
        QVERIFY(h.noNewGenerationWithin(150));
        QCOMPARE(h.generations(), 4);
        QVERIFY(!h.overlapped);
    }

    // 11. Two failure signals for one generation schedule exactly one retry.
    void twoFailureSignalsScheduleOneRetry_data()
    {
        QTest::addColumn<int>("scenario");
        QTest::newRow("initialize error, then the process exits") << 0;
        QTest::newRow("initial tools/list error, then the process exits") << 1;
    }

    void twoFailureSignalsScheduleOneRetry()
    {
        QFETCH(int, scenario);
        Harness h;
        holdCloseOf(h, {1});
        h.supervisor.start();
        if (scenario == 0) {
            QVERIFY(h.failInitialize(1));
        } else {
            QVERIFY(h.answerInitialize(1));
            QTRY_COMPARE(h.fake(1)->countSent(u"tools/list"_s), 1);
            h.fake(1)->inject(JsonRpc::makeError(h.fake(1)->lastSent(u"tools/list"_s).value(u"id"),
                                                 JsonRpc::InternalError, u"no tools today"_s));
        }
        QCOMPARE(h.supervisor.state(), ServerState::Retrying);
        QCOMPARE(h.supervisor.status().attempt, 1);
        QVERIFY(h.fake(1)->closeRequested);

        h.fake(1)->finishClose(crashClosure(1)); // the second signal
        QCOMPARE(h.supervisor.status().attempt, 1);
        QVERIFY2(h.supervisor.status().reason.startsWith(u"connection failed"_s), qPrintable(h.supervisor.status().reason));

        QVERIFY(h.waitForGeneration(2));
        QVERIFY(h.noNewGenerationWithin(150));
        QCOMPARE(h.generations(), 2);
        QCOMPARE(h.supervisor.state(), ServerState::Starting);
        QCOMPARE(h.supervisor.status().attempt, 1);
        QVERIFY(h.connectGeneration(2));
        QVERIFY(!h.overlapped);
    }

    // 12. Stale generations are inert: a closing one, and a closed one after the next exists.
    void staleGenerationsAreInert()
    {
        Harness h;
        holdCloseOf(h, {1});
        QSignalSpy toolsSpy(&h.registry, &ToolRegistry::toolsChanged);
        QSignalSpy stderrSpy(&h.supervisor, &ConnectionSupervisor::stderrLine);
        QSignalSpy logSpy(&h.supervisor, &ConnectionSupervisor::serverLogMessage);
        h.supervisor.start();
        QVERIFY(h.connectGeneration(1));
        QCOMPARE(toolsSpy.size(), 1);
        // A re-sync is in flight when generation 1 is replaced.
        h.fake(1)->inject(notification(u"notifications/tools/list_changed"_s));
        QCOMPARE(h.fake(1)->countSent(u"tools/list"_s), 2);

        h.supervisor.reconnect();
        FakeTransport *first = h.fake(1);
        QVERIFY(first->closeRequested);
        QCOMPARE(h.generations(), 1); // waits for the close

        // Generation 1 is closing and no longer current: nothing it says counts.
        first->inject(JsonRpc::makeResult(first->lastSent(u"tools/list"_s).value(u"id"),
                                          QJsonObject{{u"tools"_s, tools({u"other"_s})}}));
        first->inject(notification(u"notifications/tools/list_changed"_s));
        first->inject(JsonRpc::makeNotification(u"notifications/message"_s,
                                                {{u"level"_s, u"info"_s}, {u"data"_s, u"stale"_s}}));
        emit first->stderrLine(u"stale stderr"_s);
        QCOMPARE(toolsSpy.size(), 1);
        QCOMPARE(h.registry.count(), 2);
        QVERIFY(h.registry.find(u"demo__echo"_s));
        QVERIFY(!h.registry.find(u"demo__other"_s));
        QCOMPARE(first->countSent(u"tools/list"_s), 2);
        QCOMPARE(stderrSpy.size(), 0);
        QCOMPARE(logSpy.size(), 0);
        QCOMPARE(h.supervisor.state(), ServerState::Starting);

        first->finishClose(requestedClosure());
        QCOMPARE(h.generations(), 2);
        QVERIFY(!h.overlapped);
        // Generation 2 exists; generation 1's transport still exists until the event loop runs.
        QVERIFY(h.fake(1));
        h.fake(1)->inject(JsonRpc::makeResult(first->lastSent(u"tools/list"_s).value(u"id"),
                                              QJsonObject{{u"tools"_s, tools({u"other"_s})}}));
        h.fake(1)->inject(notification(u"notifications/tools/list_changed"_s));
        h.fake(1)->finishClose(crashClosure(3));
        emit h.fake(1)->stderrLine(u"stale stderr"_s);
        QCOMPARE(h.supervisor.state(), ServerState::Starting);
        QCOMPARE(h.supervisor.status().generation, quint64(2));
        QCOMPARE(h.generations(), 2);
        QCOMPARE(toolsSpy.size(), 1);
        QCOMPARE(stderrSpy.size(), 0);

        QVERIFY(h.connectGeneration(2));
        emit h.fake(2)->stderrLine(u"current stderr"_s);
        QCOMPARE(stderrSpy.size(), 1); // the current generation's output does get through
        QCOMPARE(toolsSpy.size(), 1);
        QCOMPARE(h.registry.count(), 2);
        QCOMPARE(h.fake(2)->countSent(u"tools/list"_s), 1);
        QVERIFY(h.noNewGenerationWithin(100));
        QCOMPARE(h.supervisor.state(), ServerState::Connected);
    }

    // 13a. maxFailures unanswered pings in a row are a connection loss.
    void unansweredHeartbeatsAreAConnectionLoss()
    {
        SupervisorSettings settings = fastSettings();
        settings.heartbeat = {true, 50, 20, 2};
        settings.reconnect.initialDelayMs = 200; // keep generation 2 away while we look
        settings.reconnect.maxDelayMs = 400;
        Harness h(settings);
        QSignalSpy statusSpy(&h.supervisor, &ConnectionSupervisor::statusChanged);
        h.supervisor.start();
        QVERIFY(h.connectGeneration(1));

        QTRY_COMPARE_WITH_TIMEOUT(h.supervisor.state(), ServerState::Reconnecting, 3000);
        const ServerStatus status = h.supervisor.status();
        QVERIFY2(status.reason.startsWith(u"connection lost"_s), qPrintable(status.reason));
        QVERIFY2(status.reason.contains(u"heartbeat"_s), qPrintable(status.reason));
        QCOMPARE(status.attempt, 1);
        QVERIFY(h.fake(1) == nullptr || h.fake(1)->countSent(u"ping"_s) == 2);
        bool warnedWhileConnected = false;
        for (const ServerStatus &snapshot : statuses(statusSpy))
            warnedWhileConnected |= snapshot.state == ServerState::Connected && snapshot.heartbeatMisses == 1;
        QVERIFY(warnedWhileConnected);
        QVERIFY(logged(spdlog::level::warn, {u"missed a heartbeat (1/2)"_s}));
    }

    // 13b. Any answer to a ping, even an error (but -32601, which says it has no ping), proves the
    // server alive.
    void answeredPingResetsTheMisses_data()
    {
        QTest::addColumn<bool>("errorReply");
        QTest::newRow("error reply") << true;
        QTest::newRow("result reply") << false;
    }

    void answeredPingResetsTheMisses()
    {
        QFETCH(bool, errorReply);
        SupervisorSettings settings = fastSettings();
        settings.heartbeat = {true, 50, 20, 2};
        settings.reconnect.initialDelayMs = 200;
        settings.reconnect.maxDelayMs = 400;
        Harness h(settings);
        int pings = 0;
        int pingsAtLoss = 0;
        h.configure = [&pings, errorReply](FakeTransport *transport, int) {
            QObject::connect(transport, &FakeTransport::messageSent, transport, [&pings, errorReply, transport](const QJsonObject &message) {
                if (message.value(u"method").toString() != u"ping")
                    return;
                // Ping 2 is answered; pings 1, 3 and 4 are not.
                if (++pings != 2)
                    return;
                const QJsonValue id = message.value(u"id");
                QMetaObject::invokeMethod(
                    transport,
                    [transport, id, errorReply] {
                        transport->inject(errorReply ? JsonRpc::makeError(id, JsonRpc::InternalError, u"busy"_s)
                                                     : JsonRpc::makeResult(id, QJsonObject{}));
                    },
                    Qt::QueuedConnection);
            });
        };
        QSignalSpy statusSpy(&h.supervisor, &ConnectionSupervisor::statusChanged);
        connect(&h.supervisor, &ConnectionSupervisor::stateChanged, this, [&](const ServerStatus &status) {
            if (status.state == ServerState::Reconnecting && pingsAtLoss == 0)
                pingsAtLoss = pings;
        });
        h.supervisor.start();
        QVERIFY(h.connectGeneration(1));

        QTRY_COMPARE_WITH_TIMEOUT(h.supervisor.state(), ServerState::Reconnecting, 3000);
        QVERIFY2(h.supervisor.status().reason.contains(u"heartbeat"_s), qPrintable(h.supervisor.status().reason));
        // Without the reset, ping 3 would have been the second miss in a row.
        QCOMPARE(pingsAtLoss, 4);
        QList<int> misses;
        for (const ServerStatus &snapshot : statuses(statusSpy)) {
            if (snapshot.state == ServerState::Connected
                && (misses.isEmpty() || misses.last() != snapshot.heartbeatMisses))
                misses.append(snapshot.heartbeatMisses);
        }
        QCOMPARE(misses, (QList<int>{0, 1, 0, 1}));
        QVERIFY(logged(spdlog::level::info, {u"answers pings again"_s}));
    }

    // 13c. An error the transport made up (HTTP 502 from a proxy, its own timeout) is no
    // answer of the server: pings failed so count as misses.
    void transportErrorsToPingsAreMisses()
    {
        SupervisorSettings settings = fastSettings();
        settings.heartbeat = {true, 50, 1000, 2};
        settings.reconnect.initialDelayMs = 200;
        settings.reconnect.maxDelayMs = 400;
        Harness h(settings);
        h.configure = [](FakeTransport *transport, int) {
            QObject::connect(transport, &FakeTransport::messageSent, transport, [transport](const QJsonObject &message) {
                if (message.value(u"method").toString() != u"ping")
                    return;
                const QJsonValue id = message.value(u"id");
                QMetaObject::invokeMethod(
                    transport,
                    [transport, id] {
                        transport->inject(JsonRpc::makeError(id, JsonRpc::TransportError,
                                                             u"http://proxy/mcp answered 'ping' with HTTP 502"_s));
                    },
                    Qt::QueuedConnection);
            });
        };
        h.supervisor.start();
        QVERIFY(h.connectGeneration(1));

        QTRY_COMPARE_WITH_TIMEOUT(h.supervisor.state(), ServerState::Reconnecting, 3000);
        const QString reason = h.supervisor.status().reason;
        QVERIFY2(reason.contains(u"heartbeat: 2 pings in a row got no answer: "_s) && reason.contains(u"HTTP 502"_s),
                 qPrintable(reason));
    }

    // 13d. A server the heartbeat found hung is ended at once (its transport aborted); one whose
    // connection failed any other way gets the transport's bounded close.
    void hungServerIsAbortedOthersAreClosed_data()
    {
        QTest::addColumn<bool>("hung");
        QTest::newRow("pings unanswered") << true;
        QTest::newRow("server crashed") << false;
    }

    void hungServerIsAbortedOthersAreClosed()
    {
        QFETCH(bool, hung);
        SupervisorSettings settings = fastSettings();
        settings.heartbeat = {hung, 50, 20, 1};
        settings.reconnect.initialDelayMs = 200; // keep generation 2 away while we look
        settings.reconnect.maxDelayMs = 400;
        Harness h(settings);
        h.supervisor.start();
        QVERIFY(h.connectGeneration(1));
        QSignalSpy aborted(h.fake(1), &FakeTransport::abortRequested);
        QSignalSpy closed(h.fake(1), &Transport::closed);
        if (!hung)
            QVERIFY(h.crash(1));

        QTRY_COMPARE_WITH_TIMEOUT(h.supervisor.state(), ServerState::Reconnecting, 3000);
        QTRY_COMPARE(closed.size(), 1);
        QCOMPARE(aborted.size(), hung ? 1 : 0);
        QCOMPARE(h.supervisor.status().reason.contains(u"heartbeat"_s), hung);
    }

    // A new reconnect policy during an outage takes effect at once: the scheduled retry moves to
    // the new curve's time, and when the new budget is spent the server fails now, its tools gone.
    void policyChangeDuringAnOutageTakesEffectAtOnce()
    {
        SupervisorSettings settings = fastSettings();
        settings.reconnect.initialDelayMs = 5000;
        settings.reconnect.maxDelayMs = 20000;
        settings.reconnect.maxAttempts = 10;
        Harness h(settings);
        h.supervisor.start();
        QVERIFY(h.connectGeneration(1));
        QVERIFY(h.crash(1));
        QCOMPARE(h.supervisor.state(), ServerState::Reconnecting);
        QCOMPARE(h.supervisor.status().nextDelayMs, std::optional<qint64>(5000));
        QCOMPARE(h.registry.count(), 2); // kept through the outage

        // A shorter curve: retry 1 now waits 20 ms from when it was scheduled, not 5 s.
        QSignalSpy statusSpy(&h.supervisor, &ConnectionSupervisor::statusChanged);
        ReconnectPolicy quicker = settings.reconnect;
        quicker.initialDelayMs = 20;
        quicker.maxDelayMs = 40;
        const QDateTime before = QDateTime::currentDateTimeUtc();
        h.supervisor.setReconnectPolicy(quicker);
        QCOMPARE(statusSpy.size(), 1);
        ServerStatus status = statusSpy.at(0).at(0).value<ServerStatus>();
        QCOMPARE(status.state, ServerState::Reconnecting);
        QCOMPARE(status.attempt, 1);
        QCOMPARE(status.maxAttempts, 10);
        QVERIFY(status.nextDelayMs && *status.nextDelayMs <= 20);
        QVERIFY2(status.nextRetryAt.isValid() && status.nextRetryAt <= before.addMSecs(21),
                 qPrintable(status.nextRetryAt.toString(Qt::ISODateWithMs)));
        QVERIFY(h.waitForGeneration(2));

        // Retry 1 fails; retry 2 is scheduled. A budget of 1 is spent by the retry that ran.
        QVERIFY(h.crashDuringInitialize(2));
        QCOMPARE(h.supervisor.state(), ServerState::Retrying);
        QCOMPARE(h.supervisor.status().attempt, 2);
        QSignalSpy stateSpy(&h.supervisor, &ConnectionSupervisor::stateChanged);
        ReconnectPolicy smaller = quicker;
        smaller.maxAttempts = 1;
        smaller.initialDelayMs = 1000; // the retry it would have moved never runs
        smaller.maxDelayMs = 2000;
        h.supervisor.setReconnectPolicy(smaller);
        QCOMPARE(stateSpy.size(), 1);
        status = stateSpy.at(0).at(0).value<ServerStatus>();
        QCOMPARE(status.state, ServerState::Failed);
        QCOMPARE(status.attempt, 1);
        QCOMPARE(status.maxAttempts, 1);
        QVERIFY(!status.nextDelayMs);
        QVERIFY(!status.nextRetryAt.isValid());
        QVERIFY2(status.reason.startsWith(u"gave up: the new reconnect policy allows 1 retry, and 1 already ran; last "
                                          "error: connection failed: "_s),
                 qPrintable(status.reason));
        QCOMPARE(status.toolCount, 0);
        QCOMPARE(h.registry.count(), 0);
        QVERIFY(logged(spdlog::level::err, {u"new reconnect policy"_s, u"tools are unregistered"_s}));
        QVERIFY(h.noNewGenerationWithin(200));
        QCOMPARE(h.supervisor.state(), ServerState::Failed);
    }

    // Reconnect turned off while a retry waits: Disconnected at once, waiting for Reconnect or Start.
    void reconnectTurnedOffDuringAnOutageDisconnects()
    {
        Harness h;
        h.supervisor.start();
        QVERIFY(h.connectGeneration(1));
        ReconnectPolicy slow = h.supervisor.settings().reconnect;
        slow.initialDelayMs = 150;
        slow.maxDelayMs = 300;
        h.supervisor.setReconnectPolicy(slow); // Connected: nothing visible changes
        QCOMPARE(h.supervisor.state(), ServerState::Connected);
        QVERIFY(h.crash(1));
        QCOMPARE(h.supervisor.state(), ServerState::Reconnecting);
        QCOMPARE(h.supervisor.status().nextDelayMs, std::optional<qint64>(150));

        ReconnectPolicy off = slow;
        off.enabled = false;
        h.supervisor.setReconnectPolicy(off);
        const ServerStatus status = h.supervisor.status();
        QCOMPARE(status.state, ServerState::Disconnected);
        QCOMPARE(status.attempt, 0);
        QVERIFY(!status.nextRetryAt.isValid());
        QVERIFY2(status.reason.startsWith(u"reconnect was turned off, so the scheduled retry will not run"_s),
                 qPrintable(status.reason));
        QVERIFY(h.noNewGenerationWithin(400));
        QCOMPARE(h.supervisor.state(), ServerState::Disconnected);

        h.supervisor.start(); // the manual way back
        QVERIFY(h.connectGeneration(2));
    }

    // 14a. Reconnect during an outage cancels the backoff and starts now with a fresh budget.
    void reconnectDuringAnOutageStartsAFreshAttempt()
    {
        SupervisorSettings settings = fastSettings();
        settings.reconnect.initialDelayMs = 200;
        settings.reconnect.maxDelayMs = 400;
        Harness h(settings);
        h.supervisor.start();
        QVERIFY(h.connectGeneration(1));
        QVERIFY(h.crash(1));
        QCOMPARE(h.supervisor.status().attempt, 1);
        QCOMPARE(h.supervisor.status().nextDelayMs, std::optional<qint64>(200));

        h.supervisor.reconnect();
        QCOMPARE(h.generations(), 2);
        ServerStatus status = h.supervisor.status();
        QCOMPARE(status.state, ServerState::Starting);
        QCOMPARE(status.attempt, 0);
        QVERIFY(!status.nextDelayMs);
        QVERIFY(h.waitForInitialize(2));

        // The cancelled backoff (200 ms) must not fire: no status change at all while we wait.
        QSignalSpy statusSpy(&h.supervisor, &ConnectionSupervisor::statusChanged);
        QVERIFY(!statusSpy.wait(350));
        QCOMPARE(h.supervisor.status().reason, status.reason);
        QCOMPARE(h.generations(), 2);

        QVERIFY(h.connectGeneration(2));
        status = h.supervisor.status();
        QCOMPARE(status.attempt, 0);
        QCOMPARE(h.registry.count(), 2);
        // A fresh budget: a loss now is attempt 1 of a new outage.
        QVERIFY(h.crash(2));
        QCOMPARE(h.supervisor.status().attempt, 1);
        QVERIFY(!h.overlapped);
    }

    // 14b. Reconnect while connected closes the current generation first, then connects anew.
    void reconnectWhileConnectedReplacesTheGeneration_data()
    {
        QTest::addColumn<bool>("holdClose");
        QTest::newRow("closes at once") << false;
        QTest::newRow("close signal later") << true;
    }

    void reconnectWhileConnectedReplacesTheGeneration()
    {
        QFETCH(bool, holdClose);
        Harness h;
        if (holdClose)
            holdCloseOf(h, {1});
        QSignalSpy toolsSpy(&h.registry, &ToolRegistry::toolsChanged);
        h.supervisor.start();
        QVERIFY(h.connectGeneration(1));
        QCOMPARE(toolsSpy.size(), 1);

        h.supervisor.reconnect();
        QVERIFY(h.fake(1)->closeRequested);
        QCOMPARE(h.supervisor.state(), ServerState::Starting);
        if (holdClose) {
            QVERIFY(h.noNewGenerationWithin(100));
            QCOMPARE(h.generations(), 1);
            h.fake(1)->finishClose(requestedClosure());
        }
        QCOMPARE(h.generations(), 2);
        QVERIFY(!h.overlapped);
        QVERIFY(h.connectGeneration(2));
        const ServerStatus status = h.supervisor.status();
        QCOMPARE(status.generation, quint64(2));
        QCOMPARE(status.attempt, 0);
        QCOMPARE(toolsSpy.size(), 1);
        QCOMPARE(h.registry.count(), 2);
        QVERIFY(h.available(u"demo__echo"_s));

        const auto outcome = h.call(u"add"_s);
        QCOMPARE(h.fake(2)->countSent(u"tools/call"_s), 1);
        h.fake(2)->inject(JsonRpc::makeResult(h.fake(2)->lastSent(u"tools/call"_s).value(u"id"), textResult(u"3"_s)));
        QTRY_VERIFY(outcome->done);
        QVERIFY(!outcome->reply.error);
    }

    // Jitter spreads a delay by the injected random factor, capped at maxDelayMs.
    void backoffDelayUsesTheInjectedRandomSource_data()
    {
        QTest::addColumn<double>("jitter");
        QTest::addColumn<double>("random");
        QTest::addColumn<int>("failures");
        QTest::addColumn<qint64>("delayMs");
        QTest::newRow("no jitter") << 0.0 << 0.9 << 1 << qint64(10);
        QTest::newRow("lowest factor") << 0.2 << 0.0 << 1 << qint64(8);
        QTest::newRow("high factor") << 0.2 << 0.75 << 1 << qint64(11);
        QTest::newRow("second retry, low") << 0.5 << 0.0 << 2 << qint64(10);
        QTest::newRow("capped at maxDelayMs") << 0.2 << 0.99 << 3 << qint64(40);
    }

    void backoffDelayUsesTheInjectedRandomSource()
    {
        QFETCH(double, jitter);
        QFETCH(double, random);
        QFETCH(int, failures);
        QFETCH(qint64, delayMs);
        SupervisorSettings settings = fastSettings();
        settings.reconnect.jitter = jitter;
        settings.random = [random] { return random; };
        Harness h(settings);
        h.supervisor.start();
        for (int generation = 1; generation <= failures; ++generation)
            QVERIFY(h.crashDuringInitialize(generation));
        QCOMPARE(h.supervisor.status().attempt, failures);
        QCOMPARE(h.supervisor.status().nextDelayMs, std::optional<qint64>(delayMs));
    }

    // stateChanged carries "the snapshot right after" the change: its reason, delay and tool
    // count must be those of the new state, also when a transport reports closed at once.
    void stateChangedCarriesTheNewStatus_data()
    {
        QTest::addColumn<int>("scenario");
        QTest::addColumn<ServerState>("state");
        QTest::addColumn<QString>("reasonPrefix");
        QTest::newRow("crash (closed before the failure)") << 0 << ServerState::Reconnecting << u"connection lost"_s;
        QTest::newRow("initialize error, transport closes at once") << 1 << ServerState::Retrying << u"connection failed"_s;
        QTest::newRow("final failure, transport closes at once") << 2 << ServerState::Failed << u"gave up"_s;
        QTest::newRow("stop, transport closes at once") << 3 << ServerState::Stopping << u"stopping"_s;
    }

    void stateChangedCarriesTheNewStatus()
    {
        QFETCH(int, scenario);
        QFETCH(ServerState, state);
        QFETCH(QString, reasonPrefix);
        Harness h;
        QSignalSpy stateSpy(&h.supervisor, &ConnectionSupervisor::stateChanged);
        h.supervisor.start();
        switch (scenario) {
        case 0:
            QVERIFY(h.connectGeneration(1));
            QVERIFY(h.crash(1));
            break;
        case 1:
            QVERIFY(h.failInitialize(1));
            break;
        case 2:
            QVERIFY(h.connectGeneration(1));
            QVERIFY(h.crash(1));
            for (int generation = 2; generation <= 4; ++generation)
                QVERIFY(h.failInitialize(generation));
            break;
        case 3:
            QVERIFY(h.connectGeneration(1));
            h.supervisor.stop();
            break;
        }
        std::optional<ServerStatus> snapshot;
        for (const ServerStatus &status : statuses(stateSpy)) {
            if (status.state == state)
                snapshot = status;
        }
        QVERIFY(snapshot);
        QVERIFY2(snapshot->reason.startsWith(reasonPrefix), qPrintable(snapshot->reason));
        if (state == ServerState::Retrying || state == ServerState::Reconnecting)
            QCOMPARE(snapshot->nextDelayMs, std::optional<qint64>(10));
        if (state == ServerState::Failed)
            QCOMPARE(snapshot->toolCount, 0);
    }

    // A generation whose transport closes because the server asks for a sign-in: Sign-in
    // needed, no retry (whatever the policy), tools unregistered, calls told how to sign in;
    // a start leaves it.
    void signInClosureWaitsForASignIn_data()
    {
        QTest::addColumn<bool>("established");
        QTest::addColumn<bool>("reconnect");
        QTest::newRow("initialize answered 401") << false << true;
        QTest::newRow("token refused while connected") << true << true;
        QTest::newRow("reconnect off") << false << false;
    }

    void signInClosureWaitsForASignIn()
    {
        QFETCH(bool, established);
        QFETCH(bool, reconnect);
        SupervisorSettings settings = fastSettings();
        settings.reconnect.enabled = reconnect;
        Harness h(settings);
        QSignalSpy stateSpy(&h.supervisor, &ConnectionSupervisor::stateChanged);
        h.supervisor.start();
        if (established)
            QVERIFY(h.connectGeneration(1));
        else
            QVERIFY(h.waitForInitialize(1));
        TransportClosure closure;
        closure.error = u"https://mcp.example.com/mcp asks for sign-in (scope mcp:read mcp:write)"_s;
        BearerChallenge challenge;
        challenge.status = 401;
        challenge.scope = u"mcp:read  mcp:write"_s;
        closure.signIn = SignInRequired{challenge, u"no token"_s};
        h.fake(1)->finishClose(closure);

        const ServerStatus status = h.supervisor.status();
        QCOMPARE(status.state, ServerState::SignInNeeded);
        QCOMPARE(stateName(status.state), u"Sign-in needed"_s);
        QCOMPARE(status.reason, u"sign-in needed: https://mcp.example.com/mcp asks for sign-in (scope mcp:read mcp:write): "
                                "no token; use Sign in, or run: tetherctl login demo"_s);
        QCOMPARE(status.signInScope, u"mcp:read mcp:write"_s);
        QCOMPARE(status.attempt, 0);
        QVERIFY(!status.nextDelayMs);
        QCOMPARE(status.outages, quint64(0));
        QCOMPARE(h.registry.count(), 0);
        QCOMPARE(states(stateSpy).last(), ServerState::SignInNeeded);
        QVERIFY(!states(stateSpy).contains(ServerState::Retrying) && !states(stateSpy).contains(ServerState::Reconnecting));
        QVERIFY(logged(spdlog::level::warn, {u"sign-in needed"_s, u"tetherctl login demo"_s}));
        const auto failing = h.call(u"echo"_s);
        QTRY_VERIFY(failing->done);
        QVERIFY(failing->reply.error);
        QCOMPARE(failing->reply.error->message,
                 u"server 'demo' needs sign-in; use Sign in, or run: tetherctl login demo"_s);
        QVERIFY(h.noNewGenerationWithin(150));
        QCOMPARE(h.generations(), 1);

        h.supervisor.start();
        QVERIFY(h.connectGeneration(2));
        QVERIFY(h.supervisor.status().signInScope.isEmpty());
        QVERIFY(!h.overlapped);
    }
};

QTEST_GUILESS_MAIN(TestConnectionSupervisor)
#include "tst_connectionsupervisor.moc"
