// The values of the control protocol cross the socket and come back whole.
#include "control/controlprotocol.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;

class TestControlProtocol final : public QObject
{
    Q_OBJECT

private slots:
    void aStatusComesBackWhole()
    {
        ServerStatus status;
        status.name = u"demo"_s;
        status.transport = u"stdio: demo"_s;
        status.state = ServerState::Retrying;
        status.enabled = false;
        status.reason = u"connection failed"_s;
        status.attempt = 3;
        status.maxAttempts = 5;
        status.nextDelayMs = 2000;
        status.nextRetryAt = QDateTime::fromMSecsSinceEpoch(1'800'000'000'123, Qt::UTC);
        status.generation = 7;
        status.outages = 2;
        status.connectedMsTotal = 123456;
        status.pid = 4242;
        status.toolCount = 12;
        status.connectedSince = QDateTime::fromMSecsSinceEpoch(1'799'999'999'001, Qt::UTC);
        status.heartbeatMisses = 1;
        status.lastError = u"boom"_s;
        status.cause = u"command not found"_s;
        status.lastExitCode = 3;
        status.lastExitSignal = 9;
        status.lastStderrTail = {u"a"_s, u"b"_s};
        status.lastExitGeneration = 6;
        status.signInScope = u"mcp:read"_s;
        status.scopeRefused = true;
        status.configErrors = {u"bad"_s};
        status.sessions = 2;
        status.protocolVersion = u"2026-07-28"_s;
        const ServerStatus back = Control::serverStatusFromJson(Control::toJson(status));
        QCOMPARE(Control::toJson(back), Control::toJson(status));
        QCOMPARE(back.nextRetryAt, status.nextRetryAt);
        QCOMPARE(back.lastExitSignal, std::optional<int>(9));
        QCOMPARE(back.state, ServerState::Retrying);
    }

    void aServerRequestComesBackAsAsked()
    {
        const ServerRequest request{u"demo"_s, u"elicitation/create"_s, QJsonObject{{u"message"_s, u"Who are you?"_s}}, {}};
        const ServerRequest back = Control::askedRequest(Control::askParams(request));
        QCOMPARE(back.serverName, request.serverName);
        QCOMPARE(back.method, request.method);
        QCOMPARE(back.params, request.params);
    }

    void absentMembersKeepTheirDefaults()
    {
        const ServerStatus status = Control::serverStatusFromJson({{u"name"_s, u"x"_s}, {u"newer"_s, 1}});
        QCOMPARE(status.name, u"x"_s);
        QVERIFY(status.enabled);
        QVERIFY(!status.nextDelayMs);
        QVERIFY(!status.lastExitCode);
        QCOMPARE(status.state, ServerState::Stopped);
    }

    void anEventAToolAndACatalogComeBack()
    {
        ServerEvent event;
        event.time = QDateTime::fromMSecsSinceEpoch(1'800'000'000'000, Qt::UTC);
        event.server = u"demo"_s;
        event.kind = ServerEvent::Kind::StateChange;
        event.text = u"connected"_s;
        event.status.name = u"demo"_s;
        event.status.state = ServerState::Connected;
        const ServerEvent back = Control::serverEventFromJson(Control::toJson(event));
        QCOMPARE(back.time, event.time);
        QCOMPARE(back.kind, ServerEvent::Kind::StateChange);
        QCOMPARE(back.status.state, ServerState::Connected);
        QCOMPARE(Control::serverEventFromJson(Control::toJson(ServerEvent{{}, u"demo"_s, ServerEvent::Kind::ToolCall,
                                                                           u"warning"_s, u"called"_s, {}}))
                     .kind,
                 ServerEvent::Kind::ToolCall);

        QString error;
        const std::optional<ToolDefinition> definition =
            parseToolDefinition(QJsonObject{{u"name"_s, u"echo"_s}, {u"inputSchema"_s, QJsonObject{{u"type"_s, u"object"_s}}}},
                                &error);
        QVERIFY2(definition, qPrintable(error));
        const RegisteredTool tool{u"demo__echo"_s, u"demo"_s, *definition, false};
        QCOMPARE(Control::registeredToolFromJson(Control::toJson(tool)), std::optional<RegisteredTool>(tool));
        QVERIFY(!Control::registeredToolFromJson({{u"tool"_s, u"not a tool"_s}}));

        ServerCatalog catalog;
        catalog.offersResources = true;
        catalog.resources.append(*parseResource(QJsonObject{{u"uri"_s, u"demo://a"_s}, {u"name"_s, u"a"_s}}, &error));
        catalog.prompts.append(*parsePrompt(QJsonObject{{u"name"_s, u"greet"_s}}, &error));
        catalog.resourcesListed = true;
        QString server;
        const ServerCatalog back2 = Control::serverCatalogFromJson(Control::toJson(u"demo"_s, catalog), &server);
        QCOMPARE(server, u"demo"_s);
        QCOMPARE(back2.resources.size(), 1);
        QCOMPARE(back2.resources.first().uri, u"demo://a"_s);
        QCOMPARE(back2.prompts.first().name, u"greet"_s);
        QVERIFY(back2.offersResources && back2.resourcesListed && !back2.promptsListed);
    }

    void helloSaysWhenTheVersionsDiffer()
    {
        QCOMPARE(Control::helloRefusal({{u"protocolVersion"_s, Control::ProtocolVersion}}), std::nullopt);
        const std::optional<QString> refusal =
            Control::helloRefusal({{u"protocolVersion"_s, 2}, {u"instance"_s, QJsonObject{{u"version"_s, u"9.1"_s}}}});
        QVERIFY(refusal);
        QVERIFY2(refusal->contains(u"(version 9.1) speaks control protocol 2"_s), qPrintable(*refusal));
        QCOMPARE(Control::helloParams(u"tetherctl"_s).value(u"protocolVersion").toInt(), Control::ProtocolVersion);
    }
};

QTEST_GUILESS_MAIN(TestControlProtocol)
#include "tst_controlprotocol.moc"
