// Many supervised demo servers from one configuration: reload, routing, invalid servers.
#include "common/logging.h"
#include "manager/servermanager.h"
#include "support/awaitreply.h"
#include "support/demoserverconfig.h"
#include "support/policyprinters.h"
#include "support/stopallandwait.h"
#include "support/testfiles.h"
#include "support/testprocess.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

// Retried quickly, so that a restart does not slow the test.
ServerConfig demo(const QString &name, const QStringList &arguments = {})
{
    ServerConfig config = demoServerConfig(name, arguments);
    config.reconnect = resolveReconnectPolicy(name, {{u"initialDelayMs"_s, 20}, {u"maxDelayMs"_s, 200}}).policy;
    return config;
}

bool allConnected(const ServerManager &manager, const QStringList &names)
{
    return std::all_of(names.cbegin(), names.cend(), [&](const QString &name) {
        const auto status = manager.status(name);
        return status && status->state == ServerState::Connected;
    });
}

qint64 pidOf(const ServerManager &manager, const QString &name)
{
    return manager.status(name).value_or(ServerStatus{}).pid;
}

ToolCallReply call(ServerManager &manager, const QString &server, const QString &tool, const QJsonObject &arguments)
{
    return awaitToolCall([&](ToolCallHandler onReply) {
        if (server.isEmpty())
            manager.callTool(tool, arguments, std::move(onReply));
        else
            manager.callTool(server, tool, arguments, std::move(onReply));
    }, 10000);
}

// Every answer a call got, to check there is exactly one.
struct Replies
{
    ToolCallHandler handler()
    {
        return [this](const ToolCallReply &reply) { received.append(reply); };
    }

    QList<ToolCallReply> received;
};

bool serverLogged(ServerManager &manager, const QString &server, const QString &text)
{
    const QList<ServerEvent> events = manager.eventLog().events(server);
    return std::any_of(events.cbegin(), events.cend(), [&](const ServerEvent &event) {
        return event.kind == ServerEvent::Kind::Stderr && event.text.contains(text);
    });
}

} // namespace

class TestServerManager final : public QObject
{
    Q_OBJECT

private slots:
    void runsEveryServerAndUnitesTheirTools()
    {
        ServerManager manager;
        const ConfigChange change = manager.applyConfig(configDocument({demo(u"alpha"_s), demo(u"beta"_s, {u"--tools"_s, u"2"_s})}));
        QCOMPARE(change.added, (QStringList{u"alpha"_s, u"beta"_s}));
        QTRY_VERIFY_WITH_TIMEOUT(allConnected(manager, {u"alpha"_s, u"beta"_s}), 10000);
        QCOMPARE(manager.serverNames(), (QStringList{u"alpha"_s, u"beta"_s}));
        QCOMPARE(manager.registry().count(), 12 + 14);
        QVERIFY(manager.registry().find(u"alpha__echo"_s).has_value());
        QVERIFY(manager.registry().find(u"beta__tool_2"_s).has_value());
        const qint64 alpha = pidOf(manager, u"alpha"_s);
        const qint64 beta = pidOf(manager, u"beta"_s);
        QVERIFY(alpha > 0 && beta > 0 && alpha != beta);
        QVERIFY(stopAllAndWait(manager));
        QVERIFY(!processAlive(alpha));
        QVERIFY(!processAlive(beta));
        QCOMPARE(manager.registry().count(), 0);
    }

    void reloadRestartsOnlyChangedServers()
    {
        ServerManager manager;
        manager.applyConfig(configDocument({demo(u"same"_s), demo(u"changed"_s), demo(u"removed"_s)}));
        QTRY_VERIFY_WITH_TIMEOUT(allConnected(manager, {u"same"_s, u"changed"_s, u"removed"_s}), 10000);
        const qint64 same = pidOf(manager, u"same"_s);
        const qint64 changed = pidOf(manager, u"changed"_s);
        const qint64 removed = pidOf(manager, u"removed"_s);

        const ConfigChange change = manager.applyConfig(
            configDocument({demo(u"same"_s), demo(u"changed"_s, {u"--tools"_s, u"1"_s}), demo(u"added"_s)}));
        QCOMPARE(change.unchanged, QStringList{u"same"_s});
        QCOMPARE(change.restarted, QStringList{u"changed"_s});
        QCOMPARE(change.removed, QStringList{u"removed"_s});
        QCOMPARE(change.added, QStringList{u"added"_s});
        QCOMPARE(manager.serverNames(), (QStringList{u"same"_s, u"changed"_s, u"added"_s}));

        QTRY_VERIFY_WITH_TIMEOUT(allConnected(manager, {u"same"_s, u"changed"_s, u"added"_s}), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(manager.registry().find(u"changed__tool_1"_s).has_value(), 10000);
        QCOMPARE(pidOf(manager, u"same"_s), same);
        QVERIFY(pidOf(manager, u"changed"_s) != changed);
        QVERIFY(!processAlive(changed));
        QVERIFY(!processAlive(removed));
        QVERIFY(!manager.registry().find(u"removed__echo"_s).has_value());
        QVERIFY(stopAllAndWait(manager));
    }

    void policyChangeIsAppliedWithoutARestart()
    {
        ServerManager manager;
        manager.applyConfig(configDocument({demo(u"policy"_s), demo(u"command"_s)}));
        QTRY_VERIFY_WITH_TIMEOUT(allConnected(manager, {u"policy"_s, u"command"_s}), 10000);
        const qint64 pid = pidOf(manager, u"policy"_s);
        const qint64 commandPid = pidOf(manager, u"command"_s);

        // A quick heartbeat that a hung server fails, and a slow first retry without jitter.
        ServerConfig policy = demo(u"policy"_s);
        policy.reconnect = resolveReconnectPolicy(u"policy"_s, {{u"initialDelayMs"_s, 4000}, {u"maxDelayMs"_s, 8000},
                                                               {u"maxAttempts"_s, 3}, {u"jitter"_s, 0}}).policy;
        policy.heartbeat = resolveHeartbeatPolicy(u"policy"_s, {{u"intervalMs"_s, 200}, {u"timeoutMs"_s, 100},
                                                               {u"maxFailures"_s, 1}}).policy;
        // A policy change together with another change still restarts.
        ServerConfig command = demo(u"command"_s, {u"--tools"_s, u"1"_s});
        command.reconnect.maxAttempts = 3;
        const ConfigChange change = manager.applyConfig(configDocument({policy, command}));
        QCOMPARE(change.policyUpdated, QStringList{u"policy"_s});
        QCOMPARE(change.restarted, QStringList{u"command"_s});
        QVERIFY(change.unchanged.isEmpty());

        QCOMPARE(manager.status(u"policy"_s)->state, ServerState::Connected);
        QCOMPARE(pidOf(manager, u"policy"_s), pid);
        QCOMPARE(manager.status(u"policy"_s)->maxAttempts, 3);
        QCOMPARE(manager.serverConfig(u"policy"_s)->reconnect, policy.reconnect);
        const ServerEvent logged = manager.eventLog().events(u"policy"_s).constLast();
        QCOMPARE(logged.kind, ServerEvent::Kind::ConfigChange);
        QVERIFY2(logged.text.contains(u"reconnect up to 3 times, 4 s to 8 s apart, jitter 0"_s)
                     && logged.text.contains(u"heartbeat every 200 ms"_s)
                     && logged.text.contains(u"without a restart"_s),
                 qPrintable(logged.text));

        // The running session now pings: hung, it is lost and retried after the new first delay.
        manager.callTool(u"policy"_s, u"hang"_s, {}, [](const ToolCallReply &) {});
        QTRY_COMPARE_WITH_TIMEOUT(manager.status(u"policy"_s)->state, ServerState::Reconnecting, 5000);
        const ServerStatus lost = *manager.status(u"policy"_s);
        QVERIFY2(lost.reason.contains(u"heartbeat"_s), qPrintable(lost.reason));
        QCOMPARE(lost.attempt, 1);
        QCOMPARE(lost.maxAttempts, 3);
        QCOMPARE(lost.nextDelayMs, std::optional<qint64>(4000));

        QTRY_VERIFY_WITH_TIMEOUT(allConnected(manager, {u"command"_s}), 10000);
        QVERIFY(pidOf(manager, u"command"_s) != commandPid);
        QVERIFY(!processAlive(commandPid));
        QVERIFY(stopAllAndWait(manager));
        QVERIFY(!processAlive(pid));
    }

    // A reconnect policy edited while a crashed server waits for its next retry takes effect at
    // once: the retry moves to the new curve's time, and a budget the retries that ran already
    // spend fails the server now, its tools gone, the event log saying why after the change.
    void policyEditDuringAnOutageTakesEffectAtOnce()
    {
        ServerManager manager;
        ServerConfig config = demo(u"crashing"_s);
        const auto withPolicy = [&](int initialDelayMs, int maxAttempts) {
            config.reconnect = resolveReconnectPolicy(u"crashing"_s, {{u"initialDelayMs"_s, initialDelayMs},
                                                                     {u"maxDelayMs"_s, 20000},
                                                                     {u"maxAttempts"_s, maxAttempts}, {u"jitter"_s, 0}})
                                   .policy;
            return configDocument({config});
        };
        const auto crash = [&] {
            manager.callTool(u"crashing"_s, u"crash"_s, {{u"code"_s, 5}}, [](const ToolCallReply &) {});
        };
        const auto waitingForRetry = [&](int attempt) {
            const ServerStatus status = *manager.status(u"crashing"_s);
            return status.state == ServerState::Reconnecting && status.attempt == attempt;
        };
        manager.applyConfig(withPolicy(10000, 10));
        QTRY_VERIFY_WITH_TIMEOUT(allConnected(manager, {u"crashing"_s}), 10000);
        const int tools = manager.status(u"crashing"_s)->toolCount;
        QVERIFY(tools > 0);
        crash();
        QTRY_VERIFY_WITH_TIMEOUT(waitingForRetry(1), 5000);
        QCOMPARE(manager.status(u"crashing"_s)->nextDelayMs, std::optional<qint64>(10000));

        // Retry 1 waits 1 s instead of 10 s, and the status says so at once.
        const QDateTime changedAt = QDateTime::currentDateTimeUtc();
        QCOMPARE(manager.applyConfig(withPolicy(1000, 10)).policyUpdated, QStringList{u"crashing"_s});
        ServerStatus status = *manager.status(u"crashing"_s);
        QCOMPARE(status.state, ServerState::Reconnecting);
        QCOMPARE(status.attempt, 1);
        QVERIFY(status.nextDelayMs && *status.nextDelayMs <= 1000);
        QVERIFY2(status.nextRetryAt <= changedAt.addMSecs(1000),
                 qPrintable(status.nextRetryAt.toString(Qt::ISODateWithMs)));
        QTRY_VERIFY_WITH_TIMEOUT(allConnected(manager, {u"crashing"_s}), 5000); // long before 10 s
        QCOMPARE(manager.status(u"crashing"_s)->generation, quint64(2));

        // Lost again within the stability window: retry 2 of the same outage waits 2 s. A budget
        // of one retry is spent by the one that ran: Failed now.
        crash();
        QTRY_VERIFY_WITH_TIMEOUT(waitingForRetry(2), 5000);
        QCOMPARE(manager.status(u"crashing"_s)->toolCount, tools); // kept through the outage
        QCOMPARE(manager.applyConfig(withPolicy(1000, 1)).policyUpdated, QStringList{u"crashing"_s});
        status = *manager.status(u"crashing"_s);
        QCOMPARE(status.state, ServerState::Failed);
        QCOMPARE(status.attempt, 1);
        QCOMPARE(status.maxAttempts, 1);
        QVERIFY(!status.nextRetryAt.isValid());
        QCOMPARE(status.toolCount, 0);
        QVERIFY(manager.registry().serverTools(u"crashing"_s).isEmpty());
        const QList<ServerEvent> events = manager.eventLog().events(u"crashing"_s);
        QVERIFY(events.size() >= 2);
        QCOMPARE(events.at(events.size() - 2).kind, ServerEvent::Kind::ConfigChange);
        QVERIFY2(events.at(events.size() - 2).text.contains(u"in effect now"_s), qPrintable(events.at(events.size() - 2).text));
        QCOMPARE(events.constLast().kind, ServerEvent::Kind::StateChange);
        QCOMPARE(events.constLast().status.state, ServerState::Failed);
        QVERIFY2(events.constLast().text.startsWith(u"gave up: the new reconnect policy allows 1 retry, and 1 already ran; "
                                                     "last error: connection lost: "_s),
                 qPrintable(events.constLast().text));
        // Past the 2 s the moved retry would have waited, nothing started again.
        QVERIFY(!QTest::qWaitFor([&] { return manager.status(u"crashing"_s)->generation > 2; }, 2500));
        QCOMPARE(manager.status(u"crashing"_s)->state, ServerState::Failed);
        QVERIFY(stopAllAndWait(manager));
    }

    // An HTTP server nothing listens for never had a connection: its cause and reason say where it
    // was refused, and nothing of a connection closed during initialize.
    void refusedHttpServerSaysWhereItCouldNotConnect()
    {
        const quint16 port = freeLoopbackPort();
        ServerConfig config;
        config.name = u"remote"_s;
        config.transport = TransportKind::StreamableHttp;
        config.url = u"http://127.0.0.1:%1/mcp"_s.arg(port);
        config.heartbeat.enabled = false;
        config.reconnect = resolveReconnectPolicy(config.name, {{u"initialDelayMs"_s, 10000}, {u"maxDelayMs"_s, 20000}})
                               .policy;
        ServerManager manager;
        manager.applyConfig(configDocument({config}));
        QTRY_COMPARE_WITH_TIMEOUT(manager.status(u"remote"_s)->state, ServerState::Retrying, 10000);
        const ServerStatus status = *manager.status(u"remote"_s);
        QCOMPARE(status.cause, u"could not connect to 127.0.0.1:%1: connection refused (is the server running and "
                               "listening at its url?)"_s.arg(port));
        QCOMPARE(status.reason, u"connection failed: could not connect to %1: connection refused; is the server running "
                                "and listening there?"_s.arg(config.url));
        QVERIFY(stopAllAndWait(manager));
    }

    void routesCalls()
    {
        ServerManager manager;
        manager.applyConfig(configDocument({demo(u"alpha"_s), demo(u"beta"_s, {u"--tools"_s, u"1"_s})}));
        QTRY_VERIFY_WITH_TIMEOUT(allConnected(manager, {u"alpha"_s, u"beta"_s}), 10000);

        QCOMPARE(renderContent(call(manager, u"alpha"_s, u"echo"_s, {{u"message"_s, u"to alpha"_s}}).result.content),
                 u"to alpha"_s);
        // By public name, and by a name only one server offers.
        QCOMPARE(renderContent(call(manager, {}, u"beta__add"_s, {{u"a"_s, 1}, {u"b"_s, 2}}).result.content), u"3"_s);
        QCOMPARE(renderContent(call(manager, {}, u"tool_1"_s, {{u"message"_s, u"routed"_s}}).result.content),
                 u"routed"_s);

        const ToolCallReply ambiguous = call(manager, {}, u"echo"_s, {});
        QVERIFY(ambiguous.error.has_value());
        QVERIFY2(ambiguous.error->message.contains(u"ambiguous"_s) && ambiguous.error->message.contains(u"alpha__echo"_s)
                     && ambiguous.error->message.contains(u"beta__echo"_s),
                 qPrintable(ambiguous.error->message));

        const ToolCallReply unknown = call(manager, {}, u"ecko"_s, {});
        QVERIFY(unknown.error.has_value());
        QVERIFY2(unknown.error->message.contains(u"no connected server offers a tool named 'ecko'"_s)
                     && unknown.error->message.contains(u"alpha__echo"_s),
                 qPrintable(unknown.error->message));

        const ToolCallReply noServer = call(manager, u"gamma"_s, u"echo"_s, {});
        QVERIFY2(noServer.error && noServer.error->message.contains(u"no server named 'gamma'"_s),
                 qPrintable(noServer.error->message));
        QVERIFY(stopAllAndWait(manager));
    }

    void invalidAndDisabledServersDoNotStopTheOthers()
    {
        ServerManager manager;
        ServerConfig invalid = demo(u"invalid"_s);
        invalid.errors = QStringList{u"test.json: server 'invalid': reconnect.maxAttempts = 0 is out of range"_s};
        ServerConfig disabled = demo(u"disabled"_s);
        disabled.enabled = false;
        manager.applyConfig(configDocument({invalid, disabled, demo(u"good"_s)}));
        QTRY_VERIFY_WITH_TIMEOUT(allConnected(manager, {u"good"_s}), 10000);
        const ServerStatus invalidStatus = *manager.status(u"invalid"_s);
        QCOMPARE(invalidStatus.state, ServerState::Stopped);
        QCOMPARE(invalidStatus.configErrors, invalid.errors);
        QVERIFY(invalidStatus.reason.contains(u"maxAttempts = 0"_s));
        const ServerStatus disabledStatus = *manager.status(u"disabled"_s);
        QCOMPARE(disabledStatus.state, ServerState::Stopped);
        QCOMPARE(disabledStatus.reason, u"disabled"_s);
        QCOMPARE(disabledStatus.pid, 0);

        // Enabled at run time it starts; disabled again it stops and a start is refused.
        manager.setEnabled(u"disabled"_s, true);
        QTRY_VERIFY_WITH_TIMEOUT(allConnected(manager, {u"disabled"_s}), 10000);
        const qint64 pid = pidOf(manager, u"disabled"_s);
        manager.setEnabled(u"disabled"_s, false);
        QTRY_COMPARE_WITH_TIMEOUT(manager.status(u"disabled"_s)->state, ServerState::Stopped, 10000);
        QVERIFY(!processAlive(pid));
        QCOMPARE(manager.status(u"disabled"_s)->reason, u"disabled"_s);
        manager.start(u"disabled"_s);
        QCOMPARE(manager.status(u"disabled"_s)->state, ServerState::Stopped);
        QVERIFY(stopAllAndWait(manager));
    }

    // A server that ignores SIGTERM takes about 4 s to stop: long enough to reload on top of it.
    void quickReloadsNeverRunTwoCopies()
    {
        const QStringList stubborn{u"--ignore-sigterm"_s};
        ServerManager manager;
        manager.applyConfig(configDocument({demo(u"x"_s, stubborn)}));
        QTRY_VERIFY_WITH_TIMEOUT(allConnected(manager, {u"x"_s}), 10000);
        const qint64 oldPid = pidOf(manager, u"x"_s);
        manager.applyConfig(configDocument({demo(u"x"_s, stubborn + QStringList{u"--tools"_s, u"1"_s})}));
        manager.applyConfig(configDocument({demo(u"x"_s, {u"--tools"_s, u"2"_s})}));
        QTRY_VERIFY_WITH_TIMEOUT(allConnected(manager, {u"x"_s}), 15000);
        QVERIFY2(!processAlive(oldPid), "the new process started while the old one still ran");
        QCOMPARE(manager.registry().serverTools(u"x"_s).size(), 14);
        QVERIFY(manager.registry().find(u"x__tool_2"_s).has_value());
        QVERIFY(stopAllAndWait(manager));
    }

    void stopAllDuringARestartKeepsItStopped()
    {
        const QStringList stubborn{u"--ignore-sigterm"_s};
        ServerManager manager;
        manager.applyConfig(configDocument({demo(u"x"_s, stubborn)}));
        QTRY_VERIFY_WITH_TIMEOUT(allConnected(manager, {u"x"_s}), 10000);
        manager.applyConfig(configDocument({demo(u"x"_s, {u"--tools"_s, u"1"_s})}));
        QSignalSpy stopped(&manager, &ServerManager::allStopped);
        manager.stopAll();
        QTRY_COMPARE_WITH_TIMEOUT(stopped.size(), 1, 10000);
        QCOMPARE(manager.status(u"x"_s)->state, ServerState::Stopped);
        // Nothing starts it behind our back, and allStopped came once.
        QVERIFY(!QTest::qWaitFor([&] { return manager.status(u"x"_s)->state != ServerState::Stopped; }, 500));
        QCOMPARE(stopped.size(), 1);
    }

    void allStoppedComesOnceEvenWhenEverythingWasStopped()
    {
        ServerManager manager;
        ServerConfig off = demo(u"off"_s);
        off.enabled = false;
        manager.applyConfig(configDocument({off, demo(u"removed"_s)}));
        QTRY_VERIFY_WITH_TIMEOUT(allConnected(manager, {u"removed"_s}), 10000);
        manager.applyConfig(configDocument({off}));
        QSignalSpy stopped(&manager, &ServerManager::allStopped);
        manager.stopAll();
        QCOMPARE(stopped.size(), 0); // never from inside stopAll()
        QTRY_COMPARE_WITH_TIMEOUT(stopped.size(), 1, 10000);
        QVERIFY(!QTest::qWaitFor([&] { return stopped.size() > 1; }, 300));
    }

    void cancelsACallInFlight()
    {
        ServerManager manager;
        manager.applyConfig(configDocument({demo(u"demo"_s)}));
        QTRY_VERIFY_WITH_TIMEOUT(allConnected(manager, {u"demo"_s}), 10000);

        Replies replies;
        int progressed = 0;
        const ToolCallTicket ticket = manager.callTool(u"demo"_s, u"sleep"_s, {{u"ms"_s, 20000}}, replies.handler(),
                                                       [&](const ProgressUpdate &) { ++progressed; });
        QVERIFY(ticket.isValid());
        QTRY_VERIFY_WITH_TIMEOUT(progressed > 0, 5000); // the server is sleeping
        QCOMPARE(manager.callsInFlight(), 1);

        QVERIFY(manager.cancelToolCall(ticket));
        QCOMPARE(replies.received.size(), 1); // answered at once
        const ToolCallReply &reply = replies.received.first();
        QVERIFY(reply.error.has_value());
        QCOMPARE(reply.error->code, int(JsonRpc::RequestCancelled));
        QVERIFY2(reply.error->message.contains(u"the call of 'sleep' on server 'demo' was cancelled"_s),
                 qPrintable(reply.error->message));
        QCOMPARE(manager.callsInFlight(), 0);
        // The server got notifications/cancelled: the demo server logs it on stderr.
        QTRY_VERIFY_WITH_TIMEOUT(serverLogged(manager, u"demo"_s, u"demo: cancelled request"_s), 5000);

        QVERIFY(!manager.cancelToolCall(ticket));
        QCOMPARE(replies.received.size(), 1);
        QCOMPARE(manager.status(u"demo"_s)->state, ServerState::Connected);
        QCOMPARE(renderContent(call(manager, u"demo"_s, u"echo"_s, {{u"message"_s, u"still here"_s}}).result.content),
                 u"still here"_s);
        QVERIFY(stopAllAndWait(manager));
    }

    void cancelsAQueuedPooledCall()
    {
        ServerConfig config = demo(u"pooled"_s);
        config.pool = {1, 1, 4};
        config.poolConfigured = true;
        ServerManager manager;
        manager.applyConfig(configDocument({config}));
        QTRY_VERIFY_WITH_TIMEOUT(allConnected(manager, {u"pooled"_s}), 10000);

        Replies running;
        Replies queued;
        const ToolCallTicket first = manager.callTool(u"pooled"_s, u"sleep"_s, {{u"ms"_s, 20000}}, running.handler());
        const ToolCallTicket second = manager.callTool(u"pooled"_s, u"echo"_s, {{u"message"_s, u"waits"_s}}, queued.handler());
        QVERIFY(first.id != second.id);

        QVERIFY(manager.cancelToolCall(second, u"no longer needed"_s));
        QCOMPARE(queued.received.size(), 1);
        QCOMPARE(queued.received.first().error->code, int(JsonRpc::RequestCancelled));
        QVERIFY2(queued.received.first().error->message.contains(u"no longer needed"_s),
                 qPrintable(queued.received.first().error->message));
        QVERIFY(running.received.isEmpty());

        // The session's one call is cancelled on the server, which frees the session.
        QVERIFY(manager.cancelToolCall(first));
        QCOMPARE(running.received.size(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(serverLogged(manager, u"pooled"_s, u"demo: cancelled request"_s), 5000);
        QCOMPARE(renderContent(call(manager, u"pooled"_s, u"echo"_s, {{u"message"_s, u"free again"_s}}).result.content),
                 u"free again"_s);
        QCOMPARE(queued.received.size(), 1);
        QCOMPARE(manager.callsInFlight(), 0);
        QVERIFY(stopAllAndWait(manager));
    }

    void aCallIsAnsweredOnceWhenTheServerStopsOrItFailsFast()
    {
        ServerManager manager;
        manager.applyConfig(configDocument({demo(u"demo"_s)}));
        QTRY_VERIFY_WITH_TIMEOUT(allConnected(manager, {u"demo"_s}), 10000);

        Replies stopped;
        const ToolCallTicket inFlight = manager.callTool(u"demo"_s, u"sleep"_s, {{u"ms"_s, 20000}}, stopped.handler());
        manager.stop(u"demo"_s);
        QTRY_COMPARE_WITH_TIMEOUT(stopped.received.size(), 1, 10000);
        QCOMPARE(stopped.received.first().error->code, int(JsonRpc::ConnectionClosed));
        QVERIFY(!manager.cancelToolCall(inFlight));
        QTRY_COMPARE_WITH_TIMEOUT(manager.status(u"demo"_s)->state, ServerState::Stopped, 10000);

        // A call to a stopped server fails later; cancelled first, it is answered once, cancelled.
        Replies failing;
        const ToolCallTicket failFast = manager.callTool(u"demo"_s, u"echo"_s, {{u"message"_s, u"x"_s}}, failing.handler());
        QVERIFY(manager.cancelToolCall(failFast));
        QCOMPARE(failing.received.size(), 1);
        QCOMPARE(failing.received.first().error->code, int(JsonRpc::RequestCancelled));
        QVERIFY(!QTest::qWaitFor([&] { return failing.received.size() > 1; }, 200));
        QCOMPARE(manager.callsInFlight(), 0);
        QCOMPARE(stopped.received.size(), 1);
    }

    void enablingWhileStoppingStartsOnceStopped()
    {
        ServerManager manager;
        manager.applyConfig(configDocument({demo(u"x"_s, {u"--ignore-sigterm"_s})}));
        QTRY_VERIFY_WITH_TIMEOUT(allConnected(manager, {u"x"_s}), 10000);
        const qint64 oldPid = pidOf(manager, u"x"_s);
        manager.setEnabled(u"x"_s, false);
        QCOMPARE(manager.status(u"x"_s)->state, ServerState::Stopping);
        manager.setEnabled(u"x"_s, true);
        QTRY_VERIFY_WITH_TIMEOUT(allConnected(manager, {u"x"_s}), 15000);
        QVERIFY(pidOf(manager, u"x"_s) != oldPid);
        QVERIFY(!processAlive(oldPid));
        QVERIFY(stopAllAndWait(manager));
    }

    // A server that repeats its token on stderr, in a log notification and in its error
    // messages: the event log the window shows and the log file hold it scrubbed.
    void eventLogAndLogFileShowNoSecret()
    {
        const QString secret = u"SECRET-TOKEN-123"_s;
        QTemporaryDir dataHome;
        qputenv("XDG_DATA_HOME", QFile::encodeName(dataHome.path()));
        const QString logPath = configureAppLogging();
        ServerConfig leaky = demo(u"leaky"_s, {u"--leak-env"_s, u"TOKEN"_s});
        leaky.command.environment = {{u"TOKEN"_s, secret}};
        ServerConfig dying = demo(u"dying"_s, {u"--leak-env"_s, u"TOKEN"_s, u"--exit-during-initialize"_s});
        dying.command.environment = leaky.command.environment;
        dying.reconnect.maxAttempts = 1;

        ServerManager manager;
        manager.applyConfig(configDocument({leaky, dying}));
        const auto logged = [&](const QString &server, ServerEvent::Kind kind) {
            const QList<ServerEvent> events = manager.eventLog().events(server);
            return std::any_of(events.cbegin(), events.cend(), [&](const ServerEvent &event) {
                return event.kind == kind && event.text.contains(u"(TOKEN=…)"_s);
            });
        };
        QTRY_VERIFY_WITH_TIMEOUT(logged(u"leaky"_s, ServerEvent::Kind::ServerLog), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(manager.status(u"dying"_s)->state == ServerState::Failed, 10000);
        QVERIFY(logged(u"leaky"_s, ServerEvent::Kind::Stderr));
        QVERIFY(logged(u"dying"_s, ServerEvent::Kind::StateChange));
        const ToolCallReply reply = call(manager, u"leaky"_s, u"no_such_tool"_s, {});
        QVERIFY(reply.error);
        QCOMPARE(reply.error->message, u"Unknown tool: no_such_tool (TOKEN=…)"_s);
        QVERIFY(stopAllAndWait(manager));

        for (const QString &server : {u"leaky"_s, u"dying"_s}) {
            for (const ServerEvent &event : manager.eventLog().events(server))
                QVERIFY2(!event.text.contains(secret) && !event.status.reason.contains(secret), qPrintable(event.text));
        }
        spdlog::set_default_logger(std::make_shared<spdlog::logger>("tether-test")); // lets go of the file
        const QString logFile = QString::fromUtf8(readFile(logPath));
        QVERIFY2(logFile.contains(u"exiting during initialize (TOKEN=…)"_s), qPrintable(logFile));
        QVERIFY2(!logFile.contains(secret), qPrintable(logFile));
    }
};

QTEST_GUILESS_MAIN(TestServerManager)
#include "tst_servermanager.moc"
