// The gateway in process, over demo servers that really run, with hosts played by the test: calls,
// progress and cancellation per host, outages, lost calls, list_changed, the Log.
#include "gateway/gateway.h"
#include "gateway/gatewaysession.h"
#include "support/demoserverconfig.h"
#include "support/fakehostchannel.h"
#include "support/stopallandwait.h"
#include "support/testprocess.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

ServerConfig demo(const QString &name, const QStringList &arguments = {}, int initialDelayMs = 50)
{
    ServerConfig config = demoServerConfig(name, arguments);
    config.reconnect = resolveReconnectPolicy(name, {{u"initialDelayMs"_s, initialDelayMs},
                                                     {u"maxDelayMs"_s, std::max(initialDelayMs, 200)},
                                                     {u"jitter"_s, 0}}).policy;
    return config;
}

bool connected(const ServerManager &manager, const QString &name)
{
    const auto status = manager.status(name);
    return status && status->state == ServerState::Connected;
}

QJsonObject callRequest(const QJsonValue &id, const QString &tool, const QJsonObject &arguments,
                        const QJsonValue &progressToken = QJsonValue(QJsonValue::Undefined))
{
    QJsonObject params{{u"name"_s, tool}, {u"arguments"_s, arguments}};
    if (!progressToken.isUndefined())
        params.insert(u"_meta"_s, QJsonObject{{u"progressToken"_s, progressToken}});
    return hostRequest(id, u"tools/call"_s, params);
}

QString resultText(const QJsonObject &response)
{
    return response.value(u"result").toObject().value(u"content").toArray().at(0).toObject().value(u"text").toString();
}

bool isToolError(const QJsonObject &response)
{
    return response.value(u"result").toObject().value(u"isError").toBool();
}

QList<double> progressOf(const FakeHostChannel &channel, const QJsonValue &id)
{
    QList<double> values;
    for (const FakeHostChannel::Sent &sent : channel.sent) {
        if (sent.role == HostChannel::Role::Progress && sent.request == id)
            values.append(sent.message.value(u"params").toObject().value(u"progress").toDouble());
    }
    return values;
}

QStringList listedNames(const QJsonObject &response)
{
    QStringList names;
    for (const QJsonValue &tool : response.value(u"result").toObject().value(u"tools").toArray())
        names.append(tool.toObject().value(u"name").toString());
    return names;
}

bool logged(ServerManager &manager, const QString &server, ServerEvent::Kind kind, const QString &text)
{
    const QList<ServerEvent> events = manager.eventLog().events(server);
    return std::any_of(events.cbegin(), events.cend(),
                       [&](const ServerEvent &event) { return event.kind == kind && event.text.contains(text); });
}

// A manager running `servers`, a gateway over it, and hosts connected to the gateway.
struct Setup
{
    explicit Setup(const QList<ServerConfig> &servers, GatewayConfig config = {})
    {
        manager.applyConfig(configDocument(servers));
        gateway = std::make_unique<Gateway>(manager, config);
    }
    ~Setup()
    {
        gateway.reset();
        if (!stopAllAndWait(manager))
            qWarning("the servers did not stop");
    }
    Q_DISABLE_COPY_MOVE(Setup)

    GatewaySession *connect(FakeHostChannel &channel, const QString &clientName = u"test-host"_s)
    {
        GatewaySession *session = gateway->openSession(&channel);
        session->receiveMessage(initializeRequest(0, clientName));
        return session;
    }

    ServerManager manager;
    std::unique_ptr<Gateway> gateway;
};

} // namespace

class TestGatewayCalls final : public QObject
{
    Q_OBJECT

private slots:
    void startingServersHoldTheFirstList()
    {
        Setup setup({demo(u"slow"_s, {u"--slow-initialize-ms"_s, u"500"_s})});
        QVERIFY(setup.gateway->isSettling());
        FakeHostChannel channel;
        GatewaySession *session = setup.connect(channel);
        session->receiveMessage(hostRequest(1, u"tools/list"_s));
        QVERIFY(!channel.response(1));
        QTRY_VERIFY_WITH_TIMEOUT(channel.response(1).has_value(), 10000);
        QVERIFY(connected(setup.manager, u"slow"_s));
        const QJsonArray tools = channel.response(1)->value(u"result").toObject().value(u"tools").toArray();
        QCOMPARE(tools.size(), 12);
        QCOMPARE(tools.at(0).toObject().value(u"name").toString(), u"slow__add"_s);
    }

    void twoHostsGetTheirOwnRepliesAndProgress()
    {
        Setup setup({demo(u"demo"_s)});
        QTRY_VERIFY_WITH_TIMEOUT(connected(setup.manager, u"demo"_s), 10000);
        FakeHostChannel first;
        FakeHostChannel second;
        GatewaySession *a = setup.connect(first, u"host-a"_s);
        GatewaySession *b = setup.connect(second, u"host-b"_s);
        // The same request id and the same progress token on both.
        a->receiveMessage(callRequest(1, u"demo__sleep"_s, {{u"ms"_s, 300}}, u"token"_s));
        b->receiveMessage(callRequest(1, u"demo__sleep"_s, {{u"ms"_s, 700}}, u"token"_s));
        b->receiveMessage(callRequest(2, u"demo__echo"_s, {{u"message"_s, u"for b"_s}}));
        QTRY_VERIFY_WITH_TIMEOUT(first.response(1) && second.response(1) && second.response(2), 10000);
        QCOMPARE(resultText(*first.response(1)), u"slept 300 ms"_s);
        QCOMPARE(resultText(*second.response(1)), u"slept 700 ms"_s);
        QCOMPARE(resultText(*second.response(2)), u"for b"_s);
        QVERIFY(!first.response(2));
        for (const auto &[channel, total] : {std::pair{&first, 300}, std::pair{&second, 700}}) {
            const QList<QJsonObject> progress = channel->notifications(u"notifications/progress"_s);
            QVERIFY(!progress.isEmpty());
            for (const QJsonObject &notification : progress) {
                const QJsonObject params = notification.value(u"params").toObject();
                QCOMPARE(params.value(u"progressToken").toString(), u"token"_s);
                QCOMPARE(params.value(u"total").toInt(), total);
            }
        }
        const GatewayStatus status = setup.gateway->status();
        QCOMPARE(status.hosts.size(), 2);
        QCOMPARE(status.hosts.at(0).clientName, u"host-a"_s);
        QCOMPARE(status.hosts.at(1).clientName, u"host-b"_s);
        QCOMPARE(status.callsByServer, (QList<std::pair<QString, quint64>>{{u"demo"_s, 3}}));
    }

    void callsAppearInTheServersLogWithoutTheirArguments()
    {
        Setup setup({demo(u"demo"_s)});
        QTRY_VERIFY_WITH_TIMEOUT(connected(setup.manager, u"demo"_s), 10000);
        FakeHostChannel channel;
        GatewaySession *session = setup.connect(channel, u"Claude Desktop"_s);
        session->receiveMessage(callRequest(1, u"demo__echo"_s, {{u"message"_s, u"an-argument-that-stays-private"_s}}));
        session->receiveMessage(callRequest(2, u"demo__fail"_s, {}));
        QTRY_VERIFY_WITH_TIMEOUT(channel.response(1) && channel.response(2), 10000);
        QVERIFY(logged(setup.manager, u"demo"_s, ServerEvent::Kind::ToolCall, u"Claude Desktop 1.0 called demo__echo: ok ("_s));
        QVERIFY(logged(setup.manager, u"demo"_s, ServerEvent::Kind::ToolCall,
                       u"Claude Desktop 1.0 called demo__fail: tool error ("_s));
        for (const ServerEvent &event : setup.manager.eventLog().events(u"demo"_s))
            QVERIFY(!event.text.contains(u"an-argument-that-stays-private"_s));
    }

    void theHostEndingCancelsItsCalls()
    {
        Setup setup({demo(u"demo"_s)});
        QTRY_VERIFY_WITH_TIMEOUT(connected(setup.manager, u"demo"_s), 10000);
        FakeHostChannel channel;
        GatewaySession *session = setup.connect(channel);
        session->receiveMessage(callRequest(1, u"demo__sleep"_s, {{u"ms"_s, 30000}}, 1));
        QTRY_VERIFY_WITH_TIMEOUT(!progressOf(channel, 1).isEmpty(), 10000);
        QCOMPARE(setup.manager.callsInFlight(), 1);
        setup.gateway->closeSession(session, u"the host disconnected"_s);
        QCOMPARE(setup.manager.callsInFlight(), 0);
        QCOMPARE(channel.endedWithoutResponse, QList<QJsonValue>{QJsonValue(1)});
        QVERIFY(!channel.response(1));
        // The server itself was told.
        QTRY_VERIFY_WITH_TIMEOUT(logged(setup.manager, u"demo"_s, ServerEvent::Kind::Stderr, u"cancelled request"_s), 10000);
    }

    void theHostCancelsOneCall()
    {
        Setup setup({demo(u"demo"_s)});
        QTRY_VERIFY_WITH_TIMEOUT(connected(setup.manager, u"demo"_s), 10000);
        FakeHostChannel channel;
        GatewaySession *session = setup.connect(channel);
        session->receiveMessage(callRequest(u"long"_s, u"demo__sleep"_s, {{u"ms"_s, 30000}}, u"p"_s));
        QTRY_VERIFY_WITH_TIMEOUT(!progressOf(channel, u"long"_s).isEmpty(), 10000);
        // An id still in flight cannot be used again.
        session->receiveMessage(callRequest(u"long"_s, u"demo__echo"_s, {{u"message"_s, u"x"_s}}));
        const auto refused = channel.response(u"long"_s);
        QVERIFY(refused);
        QCOMPARE(refused->value(u"error").toObject().value(u"code").toInt(), int(JsonRpc::InvalidRequest));
        channel.sent.clear();

        session->receiveMessage(JsonRpc::makeNotification(u"notifications/cancelled"_s,
                                                          {{u"requestId"_s, u"long"_s}, {u"reason"_s, u"enough"_s}}));
        QCOMPARE(channel.endedWithoutResponse, QList<QJsonValue>{QJsonValue(u"long"_s)});
        QCOMPARE(setup.manager.callsInFlight(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(logged(setup.manager, u"demo"_s, ServerEvent::Kind::Stderr, u"cancelled request"_s), 10000);
        QVERIFY(logged(setup.manager, u"demo"_s, ServerEvent::Kind::ToolCall, u"cancelled by test-host 1.0: enough"_s));
        // Nothing at all for it afterwards, and the session goes on.
        session->receiveMessage(callRequest(2, u"demo__echo"_s, {{u"message"_s, u"after"_s}}));
        QTRY_VERIFY_WITH_TIMEOUT(channel.response(2).has_value(), 10000);
        QCOMPARE(resultText(*channel.response(2)), u"after"_s);
        QVERIFY(!channel.response(u"long"_s));
        QCOMPARE(progressOf(channel, u"long"_s), QList<double>());
    }

    void aLostReadOnlyCallGoesAgainWithProgressThatOnlyRises()
    {
        Setup setup({demo(u"demo"_s, {}, 200)});
        QTRY_VERIFY_WITH_TIMEOUT(connected(setup.manager, u"demo"_s), 10000);
        const qint64 pid = setup.manager.status(u"demo"_s)->pid;
        FakeHostChannel channel;
        GatewaySession *session = setup.connect(channel);
        session->receiveMessage(callRequest(1, u"demo__sleep"_s, {{u"ms"_s, 1500}}, 7));
        QTRY_VERIFY_WITH_TIMEOUT(progressOf(channel, 1).size() >= 3, 10000);
        QVERIFY(::kill(pid_t(pid), SIGKILL) == 0);
        QTRY_VERIFY_WITH_TIMEOUT(channel.response(1).has_value(), 20000);
        QCOMPARE(resultText(*channel.response(1)), u"slept 1500 ms"_s);
        QVERIFY(setup.manager.status(u"demo"_s)->pid != pid);
        // The second run's progress starts over; the host sees only values above the last it got.
        const QList<double> progress = progressOf(channel, 1);
        for (qsizetype i = 1; i < progress.size(); ++i)
            QVERIFY2(progress.at(i) > progress.at(i - 1), qPrintable(u"%1 after %2"_s.arg(progress.at(i)).arg(progress.at(i - 1))));
        QCOMPARE(channel.sent.last().role, HostChannel::Role::Response); // nothing after it
        // An outage changes no tool: no list_changed.
        QVERIFY(channel.notifications(u"notifications/tools/list_changed"_s).isEmpty());
    }

    void aLostCallThatMayHaveRunIsNotSentAgain()
    {
        Setup setup({demo(u"demo"_s)});
        QTRY_VERIFY_WITH_TIMEOUT(connected(setup.manager, u"demo"_s), 10000);
        FakeHostChannel channel;
        GatewaySession *session = setup.connect(channel);
        session->receiveMessage(callRequest(1, u"demo__crash"_s, {{u"code"_s, 4}}));
        QTRY_VERIFY_WITH_TIMEOUT(channel.response(1).has_value(), 10000);
        QVERIFY(isToolError(*channel.response(1)));
        const QString text = resultText(*channel.response(1));
        QVERIFY2(text.startsWith(u"Tool 'demo__crash' did not finish: "_s) && text.contains(u"code 4"_s)
                     && text.contains(u"the call may have run, so it is not sent again: 'crash' is not marked read-only "
                                      "or idempotent"_s),
                 qPrintable(text));
        QTRY_VERIFY_WITH_TIMEOUT(connected(setup.manager, u"demo"_s), 10000);
        QCOMPARE(setup.manager.status(u"demo"_s)->generation, quint64(2));
    }

    void aServerWhoseNextRetryComesTooLateAnswersAtOnce()
    {
        GatewayConfig config;
        config.outageWait = std::chrono::milliseconds(5000);
        Setup setup({demo(u"demo"_s, {}, 60000)}, config);
        QTRY_VERIFY_WITH_TIMEOUT(connected(setup.manager, u"demo"_s), 10000);
        FakeHostChannel channel;
        GatewaySession *session = setup.connect(channel);
        QVERIFY(::kill(pid_t(setup.manager.status(u"demo"_s)->pid), SIGKILL) == 0);
        QTRY_COMPARE_WITH_TIMEOUT(setup.manager.status(u"demo"_s)->state, ServerState::Reconnecting, 10000);
        // Its tools stay listed.
        session->receiveMessage(hostRequest(1, u"tools/list"_s));
        QCOMPARE(channel.response(1)->value(u"result").toObject().value(u"tools").toArray().size(), 12);
        session->receiveMessage(callRequest(2, u"demo__echo"_s, {{u"message"_s, u"x"_s}}));
        QTRY_VERIFY_WITH_TIMEOUT(channel.response(2).has_value(), 2000);
        QVERIFY(isToolError(*channel.response(2)));
        const QString text = resultText(*channel.response(2));
        QVERIFY2(text.startsWith(u"Tool 'demo__echo' is unavailable: server 'demo' is reconnecting (attempt 1/10, next "
                                 "retry in "_s)
                     && !text.contains(u"waited"_s),
                 qPrintable(text));
    }

    void toolsOfAServerThatIsDownAnswerWithItsState_data()
    {
        QTest::addColumn<QString>("how");
        QTest::addColumn<QString>("expected");
        QTest::newRow("disabled") << u"disable"_s
                                  << u"Tool 'demo__echo' is unavailable: server 'demo' is disabled; enable it in Tether to "
                                     "use its tools."_s;
        QTest::newRow("stopped") << u"stop"_s
                                 << u"Tool 'demo__echo' is unavailable: server 'demo' is stopped; start it in Tether to use "
                                    "its tools."_s;
    }

    void toolsOfAServerThatIsDownAnswerWithItsState()
    {
        QFETCH(QString, how);
        QFETCH(QString, expected);
        Setup setup({demo(u"demo"_s)});
        QTRY_VERIFY_WITH_TIMEOUT(connected(setup.manager, u"demo"_s), 10000);
        FakeHostChannel channel;
        GatewaySession *session = setup.connect(channel);
        session->receiveMessage(hostRequest(1, u"tools/list"_s));
        if (how == u"disable")
            setup.manager.setEnabled(u"demo"_s, false);
        else
            setup.manager.stop(u"demo"_s);
        QTRY_COMPARE_WITH_TIMEOUT(setup.manager.status(u"demo"_s)->state, ServerState::Stopped, 10000);
        // The host may not have listed again yet: the name it knows says what is wrong.
        session->receiveMessage(callRequest(2, u"demo__echo"_s, {{u"message"_s, u"x"_s}}));
        QVERIFY(channel.response(2));
        QVERIFY(isToolError(*channel.response(2)));
        QCOMPARE(resultText(*channel.response(2)), expected);
        QTRY_COMPARE_WITH_TIMEOUT(channel.notifications(u"notifications/tools/list_changed"_s).size(), 1, 5000);
    }

    void aServerThatGivesUpLeavesTheListAndAnswersAtOnce()
    {
        // The demo server, until a file says it may no longer start.
        QTemporaryDir dir;
        const QString refuse = dir.filePath(u"refuse"_s);
        ServerConfig config = demo(u"demo"_s);
        config.command.arguments = QStringList{u"-c"_s, u"test -e \"$1\" && exit 3; exec \"$0\""_s,
                                               config.command.program, refuse};
        config.command.program = u"/bin/sh"_s;
        config.reconnect.maxAttempts = 1;
        Setup setup({config});
        QTRY_VERIFY_WITH_TIMEOUT(connected(setup.manager, u"demo"_s), 10000);
        FakeHostChannel channel;
        GatewaySession *session = setup.connect(channel);
        session->receiveMessage(hostRequest(1, u"tools/list"_s));
        QCOMPARE(listedNames(*channel.response(1)).size(), 12);

        QVERIFY(QFile(refuse).open(QIODevice::WriteOnly));
        QVERIFY(::kill(pid_t(setup.manager.status(u"demo"_s)->pid), SIGKILL) == 0);
        QTRY_COMPARE_WITH_TIMEOUT(setup.manager.status(u"demo"_s)->state, ServerState::Failed, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(channel.notifications(u"notifications/tools/list_changed"_s).size(), 1, 5000);
        session->receiveMessage(hostRequest(2, u"tools/list"_s));
        QCOMPARE(listedNames(*channel.response(2)), QStringList());
        // A host that still knows the name hears at once what became of its server.
        session->receiveMessage(callRequest(3, u"demo__echo"_s, {{u"message"_s, u"x"_s}}));
        QVERIFY(channel.response(3));
        QVERIFY(isToolError(*channel.response(3)));
        const QString text = resultText(*channel.response(3));
        QVERIFY2(text.startsWith(u"Tool 'demo__echo' is unavailable: server 'demo' has failed"_s), qPrintable(text));
    }

    void aServerRemovedOrWithOtherToolsChangesTheList()
    {
        ServerConfig config = demo(u"demo"_s);
        Setup setup({config, demo(u"other"_s)});
        QTRY_VERIFY_WITH_TIMEOUT(connected(setup.manager, u"demo"_s) && connected(setup.manager, u"other"_s), 10000);
        FakeHostChannel channel;
        GatewaySession *session = setup.connect(channel);
        const auto listChanged = [&] { return channel.notifications(u"notifications/tools/list_changed"_s).size(); };

        // Removed from the config: its tools go, and a call of one is an unknown tool's.
        setup.manager.applyConfig(configDocument({config}));
        QTRY_COMPARE_WITH_TIMEOUT(listChanged(), 1, 5000);
        session->receiveMessage(hostRequest(1, u"tools/list"_s));
        QVERIFY(!listedNames(*channel.response(1)).contains(u"other__echo"_s));
        QCOMPARE(listedNames(*channel.response(1)).size(), 12);
        session->receiveMessage(callRequest(2, u"other__echo"_s, {{u"message"_s, u"x"_s}}));
        QTRY_VERIFY_WITH_TIMEOUT(channel.response(2).has_value(), 5000);
        QCOMPARE(channel.response(2)->value(u"error").toObject().value(u"message").toString(), u"Unknown tool: other__echo"_s);

        // Back with one tool more: the host hears of it once it is listed.
        config.command.arguments = {u"--tools"_s, u"1"_s};
        setup.manager.applyConfig(configDocument({config}));
        QTRY_COMPARE_WITH_TIMEOUT(listChanged(), 2, 10000);
        session->receiveMessage(hostRequest(3, u"tools/list"_s));
        QCOMPARE(listedNames(*channel.response(3)).size(), 13);
    }

    void aBurstOfChangesSendsOneListChanged()
    {
        ServerConfig config = demo(u"demo"_s);
        Setup setup({config});
        QTRY_VERIFY_WITH_TIMEOUT(connected(setup.manager, u"demo"_s), 10000);
        const qint64 pid = setup.manager.status(u"demo"_s)->pid;
        FakeHostChannel channel;
        GatewaySession *session = setup.connect(channel);
        const auto listChanged = [&] { return channel.notifications(u"notifications/tools/list_changed"_s).size(); };

        config.hiddenTools = {u"echo"_s, u"add"_s, u"format"_s};
        const ConfigChange change = setup.manager.applyConfig(configDocument({config}));
        QCOMPARE(change.toolsUpdated, QStringList{u"demo"_s});
        QCOMPARE(change.unchanged, QStringList{u"demo"_s});
        QTRY_COMPARE_WITH_TIMEOUT(listChanged(), 1, 5000);
        QVERIFY(!QTest::qWaitFor([&] { return listChanged() > 1; }, 600));
        QCOMPARE(setup.manager.status(u"demo"_s)->pid, pid); // no restart

        session->receiveMessage(hostRequest(1, u"tools/list"_s));
        QStringList names;
        for (const QJsonValue &tool : channel.response(1)->value(u"result").toObject().value(u"tools").toArray())
            names.append(tool.toObject().value(u"name").toString());
        QCOMPARE(names, (QStringList{u"demo__crash"_s, u"demo__elicit"_s, u"demo__elicit-url"_s, u"demo__fail"_s,
                                     u"demo__hang"_s, u"demo__image"_s, u"demo__roots"_s, u"demo__sample"_s,
                                     u"demo__sleep"_s}));
        // Hidden is unknown, even to a host that knew the name.
        session->receiveMessage(callRequest(2, u"demo__echo"_s, {{u"message"_s, u"x"_s}}));
        QCOMPARE(channel.response(2)->value(u"error").toObject().value(u"code").toInt(), int(JsonRpc::InvalidParams));
        QCOMPARE(channel.response(2)->value(u"error").toObject().value(u"message").toString(), u"Unknown tool: demo__echo"_s);

        config.hiddenTools.clear();
        setup.manager.applyConfig(configDocument({config}));
        QTRY_COMPARE_WITH_TIMEOUT(listChanged(), 2, 5000);
        // The same set again: nothing to tell.
        setup.manager.applyConfig(configDocument({config}));
        QVERIFY(!QTest::qWaitFor([&] { return listChanged() > 2; }, 600));
    }
};

QTEST_GUILESS_MAIN(TestGatewayCalls)
#include "tst_gatewaycalls.moc"
