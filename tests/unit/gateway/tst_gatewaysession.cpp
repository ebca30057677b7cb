// One host's session with the gateway, over a gateway with no servers: the lifecycle and what
// each kind of bad or unexpected message is answered with.
#include "gateway/gateway.h"
#include "gateway/gatewaysession.h"
#include "support/clientrequests.h"
#include "support/fakehostchannel.h"

#include "config/serverconfig.h"
#include "gateway/gatewaytasks.h"

#include <QJsonArray>
#include <QPointer>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

const QString HostLabel = u"test-host 1.0"_s;

// An initialize whose client declares `capabilities`.
QJsonObject initializeWith(const QJsonObject &capabilities)
{
    QJsonObject request = initializeRequest();
    QJsonObject params = request.value(u"params").toObject();
    params.insert(u"capabilities"_s, capabilities);
    request.insert(u"params"_s, params);
    return request;
}

QJsonObject everyClientFeature()
{
    return {{u"sampling"_s, QJsonObject{}},
            {u"elicitation"_s, QJsonObject{{u"form"_s, QJsonObject{}}, {u"url"_s, QJsonObject{}}}},
            {u"roots"_s, QJsonObject{{u"listChanged"_s, true}}}};
}

// A config with one server that is never started: its entry (roots, perHost) is all there is.
ConfigDocument configWithDisabledServer(const QString &name, const QJsonArray &roots = {})
{
    ServerConfig server;
    server.name = name;
    server.enabled = false;
    server.roots = roots;
    ConfigDocument config;
    config.servers.append(server);
    return config;
}

// What a server's request forwarded to a host came back with.
struct Answers
{
    QList<RpcReply> replies;
    QList<ProgressUpdate> progress;

    ReplyHandler reply()
    {
        return [this](const RpcReply &reply) { replies.append(reply); };
    }
    ProgressHandler onProgress()
    {
        return [this](const ProgressUpdate &update) { progress.append(update); };
    }
};


// --- Stateless hosts (MCP 2026-07-28): the _meta envelope each request carries, spelled as the
// wire has it rather than with Tether's own constants, so a renamed key fails here.

const QString VersionKey = u"io.modelcontextprotocol/protocolVersion"_s;
const QString CapabilitiesKey = u"io.modelcontextprotocol/clientCapabilities"_s;
const QString ClientInfoKey = u"io.modelcontextprotocol/clientInfo"_s;
const QString LogLevelKey = u"io.modelcontextprotocol/logLevel"_s;
const QString ServerInfoKey = u"io.modelcontextprotocol/serverInfo"_s;
const QString SubscriptionIdKey = u"io.modelcontextprotocol/subscriptionId"_s;
const QString StatelessVersion = u"2026-07-28"_s;
const QString StatelessHostLabel = u"era-host 2.0"_s;

QJsonObject envelope(const QJsonObject &capabilities = {}, const QString &logLevel = {},
                     const QString &version = StatelessVersion)
{
    QJsonObject meta{{VersionKey, version},
                     {CapabilitiesKey, capabilities},
                     {ClientInfoKey, QJsonObject{{u"name"_s, u"era-host"_s}, {u"version"_s, u"2.0"_s}}}};
    if (!logLevel.isEmpty())
        meta.insert(LogLevelKey, logLevel);
    return meta;
}

// A stateless host's request: `params` with `meta` as its _meta.
QJsonObject statelessRequest(const QJsonValue &id, const QString &method, QJsonObject params = {},
                             const QJsonObject &meta = envelope())
{
    params.insert(u"_meta"_s, meta);
    return hostRequest(id, method, params);
}

// Tether as a stateless host sees it in each result's _meta.
QJsonObject tetherServerInfoMeta()
{
    return {{ServerInfoKey, initializeResult(u"2025-11-25"_s, {}).value(u"serverInfo")}};
}

QJsonObject errorOf(const std::optional<QJsonObject> &response)
{
    return response ? response->value(u"error").toObject() : QJsonObject();
}

} // namespace

class TestGatewaySession final : public QObject
{
    Q_OBJECT

private slots:
    void answers_data()
    {
        QTest::addColumn<bool>("initialized");
        QTest::addColumn<QByteArray>("payload");
        QTest::addColumn<QJsonValue>("id");   // of the response expected
        QTest::addColumn<int>("code");        // its error code; 0: a result; 1: nothing is sent at all

        const QJsonValue null(QJsonValue::Null);
        QTest::newRow("ping before initialize") << false << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"ping"})")
                                                << QJsonValue(1) << 0;
        QTest::newRow("tools/list before initialize")
            << false << QByteArray(R"({"jsonrpc":"2.0","id":"a","method":"tools/list"})") << QJsonValue(u"a"_s)
            << int(JsonRpc::InvalidRequest);
        QTest::newRow("initialize without a version")
            << false << QByteArray(R"({"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{}}})")
            << QJsonValue(2) << int(JsonRpc::InvalidParams);
        QTest::newRow("initialize twice")
            << true << QByteArray(R"({"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})")
            << QJsonValue(2) << int(JsonRpc::InvalidRequest);
        QTest::newRow("ping") << true << QByteArray(R"({"jsonrpc":"2.0","id":3,"method":"ping"})") << QJsonValue(3) << 0;
        QTest::newRow("tools/list") << true << QByteArray(R"({"jsonrpc":"2.0","id":4,"method":"tools/list"})")
                                    << QJsonValue(4) << 0;
        QTest::newRow("bad cursor") << true
                                    << QByteArray(R"({"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":"%%"}})")
                                    << QJsonValue(4) << int(JsonRpc::InvalidParams);
        QTest::newRow("unknown tool")
            << true << QByteArray(R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"demo__echo"}})")
            << QJsonValue(5) << int(JsonRpc::InvalidParams);
        // Calls read without parsing, and those left to the parser, are answered alike.
        QTest::newRow("unknown tool, string id, arguments")
            << true
            << QByteArray(R"( { "params" : {"arguments":{"m":[1]},"name":"demo__echo"}, "id":"c", "method":"tools/call","jsonrpc":"2.0"} )")
            << QJsonValue(u"c"_s) << int(JsonRpc::InvalidParams);
        QTest::newRow("unknown tool, a name with escapes")
            << true << QByteArray(R"({"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"demo__echo"}})")
            << QJsonValue(13) << int(JsonRpc::InvalidParams);
        QTest::newRow("unknown tool, a progress token")
            << true
            << QByteArray(R"({"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":1}}})")
            << QJsonValue(14) << int(JsonRpc::InvalidParams);
        QTest::newRow("arguments not an object")
            << true << QByteArray(R"({"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"x","arguments":[]}})")
            << QJsonValue(15) << int(JsonRpc::InvalidParams);
        QTest::newRow("an empty name") << true
                                       << QByteArray(R"({"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":""}})")
                                       << QJsonValue(16) << int(JsonRpc::InvalidParams);
        QTest::newRow("call without a name") << true
                                             << QByteArray(R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{}})")
                                             << QJsonValue(6) << int(JsonRpc::InvalidParams);
        QTest::newRow("resources/list") << true << QByteArray(R"({"jsonrpc":"2.0","id":7,"method":"resources/list"})")
                                        << QJsonValue(7) << 0;
        QTest::newRow("an unknown method") << true << QByteArray(R"({"jsonrpc":"2.0","id":17,"method":"sing/song"})")
                                           << QJsonValue(17) << int(JsonRpc::MethodNotFound);
        QTest::newRow("an unknown prompt")
            << true << QByteArray(R"({"jsonrpc":"2.0","id":18,"method":"prompts/get","params":{"name":"none__such"}})")
            << QJsonValue(18) << int(JsonRpc::InvalidParams);
        QTest::newRow("a log level that is none")
            << true << QByteArray(R"({"jsonrpc":"2.0","id":19,"method":"logging/setLevel","params":{"level":"loud"}})")
            << QJsonValue(19) << int(JsonRpc::InvalidParams);
        QTest::newRow("a task nobody made")
            << true << QByteArray(R"({"jsonrpc":"2.0","id":20,"method":"tasks/get","params":{"taskId":"x__1"}})")
            << QJsonValue(20) << int(JsonRpc::InvalidParams);
        QTest::newRow("a read of a URI nobody lists")
            << true << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"resources/read\",\"params\":{\"uri\":\"demo:x\"}}")
            << QJsonValue(21) << -32002;
        QTest::newRow("not JSON") << true << QByteArray(R"({"jsonrpc":"2.0","id":8,)") << null << int(JsonRpc::ParseError);
        QTest::newRow("a batch") << true << QByteArray(R"([{"jsonrpc":"2.0","id":9,"method":"ping"}])") << null
                                 << int(JsonRpc::InvalidRequest);
        QTest::newRow("no jsonrpc member") << true << QByteArray(R"({"id":10,"method":"ping"})") << QJsonValue(10)
                                           << int(JsonRpc::InvalidRequest);
        QTest::newRow("null id") << true << QByteArray(R"({"jsonrpc":"2.0","id":null,"method":"ping"})") << null
                                 << int(JsonRpc::InvalidRequest);
        QTest::newRow("fractional id") << true << QByteArray(R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})") << null
                                       << int(JsonRpc::InvalidRequest);
        QTest::newRow("params not an object") << true
                                              << QByteArray(R"({"jsonrpc":"2.0","id":11,"method":"tools/list","params":[]})")
                                              << QJsonValue(11) << int(JsonRpc::InvalidRequest);
        QTest::newRow("a response nobody asked for") << true << QByteArray(R"({"jsonrpc":"2.0","id":12,"result":{}})")
                                                     << null << 1;
        QTest::newRow("cancelled for an unknown request")
            << true << QByteArray(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}})")
            << null << 1;
        QTest::newRow("initialized") << true << QByteArray(R"({"jsonrpc":"2.0","method":"notifications/initialized"})")
                                     << null << 1;
        QTest::newRow("another notification")
            << true << QByteArray(R"({"jsonrpc":"2.0","method":"notifications/roots/list_changed"})") << null << 1;
    }

    void answers()
    {
        QFETCH(bool, initialized);
        QFETCH(QByteArray, payload);
        QFETCH(QJsonValue, id);
        QFETCH(int, code);
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel channel;
        GatewaySession *session = gateway.openSession(&channel);
        if (initialized) {
            session->receiveMessage(initializeRequest());
            QVERIFY(session->isInitialized());
            channel.sent.clear();
        }
        session->receive(payload);
        if (code == 1) {
            QVERIFY(channel.sent.isEmpty());
            return;
        }
        QCOMPARE(channel.sent.size(), 1);
        const QJsonObject response = channel.sent.first().message;
        QCOMPARE(channel.sent.first().role, HostChannel::Role::Response);
        QCOMPARE(response.value(u"jsonrpc").toString(), u"2.0"_s);
        QCOMPARE(response.value(u"id"), id);
        if (code == 0) {
            QVERIFY2(response.contains(u"result"), QJsonDocument(response).toJson().constData());
        } else {
            QCOMPARE(response.value(u"error").toObject().value(u"code").toInt(), code);
            QVERIFY(!response.value(u"error").toObject().value(u"message").toString().isEmpty());
        }
    }

    void initializeNegotiatesAndNamesTheHost()
    {
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel channel;
        GatewaySession *session = gateway.openSession(&channel);
        QJsonObject request = initializeRequest(u"init"_s, u"Claude Desktop"_s);
        QJsonObject params = request.value(u"params").toObject();
        params.insert(u"protocolVersion"_s, u"2026-07-28"_s);
        request.insert(u"params"_s, params);
        session->receiveMessage(request);
        const auto response = channel.response(u"init"_s);
        QVERIFY(response);
        QCOMPARE(response->value(u"result").toObject(), initializeResult(u"2025-11-25"_s, gateway.capabilities()));
        QCOMPARE(session->protocolVersion(), u"2025-11-25"_s);
        const GatewayStatus status = gateway.status();
        QCOMPARE(status.hosts.size(), 1);
        QCOMPARE(status.hosts.first().clientName, u"Claude Desktop"_s);
        QCOMPARE(status.hosts.first().clientVersion, u"1.0"_s);
        QCOMPARE(status.hosts.first().transport, u"test"_s);
        gateway.closeSession(session, u"the test ends"_s);
        QCOMPARE(gateway.status().hosts.size(), 0);
    }

    void emptyToolList()
    {
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel channel;
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(initializeRequest());
        session->receiveMessage(hostRequest(1, u"tools/list"_s));
        QCOMPARE(channel.response(1)->value(u"result").toObject(), (QJsonObject{{u"tools"_s, QJsonArray{}}}));
    }

    void theInitializeResultDeclaresWhatTheServersOffer_data()
    {
        QTest::addColumn<bool>("disabledServer");
        QTest::newRow("no servers") << false;
        QTest::newRow("a disabled server counts for nothing") << true;
    }

    void theInitializeResultDeclaresWhatTheServersOffer()
    {
        QFETCH(bool, disabledServer);
        ServerManager manager;
        if (disabledServer)
            manager.applyConfig(configWithDisabledServer(u"github"_s));
        Gateway gateway(manager);
        FakeHostChannel channel;
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(initializeRequest(u"init"_s));
        const auto response = channel.response(u"init"_s);
        QVERIFY(response);
        const QJsonObject result = response->value(u"result").toObject();
        QCOMPARE(result.value(u"capabilities").toObject(),
                 (QJsonObject{{u"tools"_s, QJsonObject{{u"listChanged"_s, true}}}}));
        QCOMPARE(result.value(u"protocolVersion").toString(), u"2025-11-25"_s);
        QCOMPARE(result.value(u"serverInfo").toObject().value(u"name").toString(), u"tether"_s);
    }

    void emptyListsHaveTheirMembers_data()
    {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QString>("member");
        QTest::newRow("resources/list") << u"resources/list"_s << u"resources"_s;
        QTest::newRow("resources/templates/list") << u"resources/templates/list"_s << u"resourceTemplates"_s;
        QTest::newRow("prompts/list") << u"prompts/list"_s << u"prompts"_s;
        QTest::newRow("tools/list") << u"tools/list"_s << u"tools"_s;
    }

    void emptyListsHaveTheirMembers()
    {
        QFETCH(QString, method);
        QFETCH(QString, member);
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel channel;
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(initializeRequest());
        session->receiveMessage(hostRequest(1, method));
        const auto response = channel.response(1);
        QVERIFY(response);
        QCOMPARE(response->value(u"result").toObject(), (QJsonObject{{member, QJsonArray{}}}));
        // A null cursor is the start too.
        session->receiveMessage(hostRequest(2, method, {{u"cursor"_s, QJsonValue::Null}}));
        QCOMPARE(channel.response(2)->value(u"result").toObject(), (QJsonObject{{member, QJsonArray{}}}));
    }

    void listsRefuseACursorTetherDidNotGive_data()
    {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QString>("what");
        QTest::newRow("resources/list") << u"resources/list"_s << u"list the resources from"_s;
        QTest::newRow("resources/templates/list") << u"resources/templates/list"_s << u"list the resource templates from"_s;
        QTest::newRow("prompts/list") << u"prompts/list"_s << u"list the prompts from"_s;
    }

    void listsRefuseACursorTetherDidNotGive()
    {
        QFETCH(QString, method);
        QFETCH(QString, what);
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel channel;
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(initializeRequest());
        session->receiveMessage(hostRequest(1, method, {{u"cursor"_s, u"%%"_s}}));
        const QJsonObject error = channel.response(1)->value(u"error").toObject();
        QCOMPARE(error.value(u"code").toInt(), int(JsonRpc::InvalidParams));
        QVERIFY2(error.value(u"message").toString().contains(what), qPrintable(error.value(u"message").toString()));
    }

    void logMessagesReachTheHostAtItsLevel_data()
    {
        QTest::addColumn<QString>("hostLevel"); // empty: the host set none
        QTest::addColumn<QString>("level");
        QTest::addColumn<bool>("passes");
        QTest::newRow("no level set: debug") << QString() << u"debug"_s << true;
        QTest::newRow("warning: info") << u"warning"_s << u"info"_s << false;
        QTest::newRow("warning: notice") << u"warning"_s << u"notice"_s << false;
        QTest::newRow("warning: warning") << u"warning"_s << u"warning"_s << true;
        QTest::newRow("warning: error") << u"warning"_s << u"error"_s << true;
        QTest::newRow("debug: debug") << u"debug"_s << u"debug"_s << true;
        QTest::newRow("emergency: alert") << u"emergency"_s << u"alert"_s << false;
        QTest::newRow("emergency: emergency") << u"emergency"_s << u"emergency"_s << true;
    }

    void logMessagesReachTheHostAtItsLevel()
    {
        QFETCH(QString, hostLevel);
        QFETCH(QString, level);
        QFETCH(bool, passes);
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel channel;
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(initializeRequest());
        QSignalSpy levelChanged(session, &GatewaySession::logLevelChanged);
        if (!hostLevel.isEmpty()) {
            session->receiveMessage(hostRequest(1, u"logging/setLevel"_s, {{u"level"_s, hostLevel}}));
            QCOMPARE(channel.response(1)->value(u"result").toObject(), QJsonObject());
            QCOMPARE(levelChanged.size(), 1);
        }
        QCOMPARE(session->logLevel(), hostLevel);
        channel.sent.clear();
        const QJsonObject data{{u"query"_s, u"slow"_s}};
        session->passOn(u"github"_s, u"notifications/message"_s,
                        {{u"level"_s, level}, {u"logger"_s, u"db"_s}, {u"data"_s, data}});
        if (!passes) {
            QVERIFY(channel.sent.isEmpty());
            return;
        }
        QCOMPARE(channel.sent.size(), 1);
        QCOMPARE(channel.sent.first().role, HostChannel::Role::Notification);
        const QJsonObject message = channel.sent.first().message;
        QCOMPARE(message.value(u"method").toString(), u"notifications/message"_s);
        QCOMPARE(message.value(u"params").toObject(),
                 (QJsonObject{{u"level"_s, level}, {u"logger"_s, u"github/db"_s}, {u"data"_s, data}}));
    }

    void aLogMessageWithoutLoggerIsTheServers()
    {
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel channel;
        GatewaySession *session = gateway.openSession(&channel);
        // Before initialize nothing reaches the host.
        session->passOn(u"github"_s, u"notifications/message"_s, {{u"level"_s, u"error"_s}, {u"data"_s, u"x"_s}});
        QVERIFY(channel.sent.isEmpty());
        session->receiveMessage(initializeRequest());
        channel.sent.clear();
        session->passOn(u"github"_s, u"notifications/message"_s, {{u"level"_s, u"error"_s}, {u"data"_s, u"x"_s}});
        QCOMPARE(channel.notifications(u"notifications/message"_s).size(), 1);
        QCOMPARE(channel.notifications(u"notifications/message"_s)
                     .first()
                     .value(u"params")
                     .toObject()
                     .value(u"logger")
                     .toString(),
                 u"github"_s);
    }

    void eachHostKeepsItsOwnLevel()
    {
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel quietChannel;
        FakeHostChannel chattyChannel;
        GatewaySession *quiet = gateway.openSession(&quietChannel);
        GatewaySession *chatty = gateway.openSession(&chattyChannel);
        quiet->receiveMessage(initializeRequest());
        chatty->receiveMessage(initializeRequest());
        quiet->receiveMessage(hostRequest(1, u"logging/setLevel"_s, {{u"level"_s, u"error"_s}}));
        chatty->receiveMessage(hostRequest(1, u"logging/setLevel"_s, {{u"level"_s, u"debug"_s}}));
        QCOMPARE(quiet->logLevel(), u"error"_s);
        QCOMPARE(chatty->logLevel(), u"debug"_s);
        for (GatewaySession *session : {quiet, chatty})
            session->passOn(u"github"_s, u"notifications/message"_s, {{u"level"_s, u"info"_s}, {u"data"_s, u"x"_s}});
        QVERIFY(quietChannel.notifications(u"notifications/message"_s).isEmpty());
        QCOMPARE(chattyChannel.notifications(u"notifications/message"_s).size(), 1);
    }

    // A resource update reaches a host only for a subscription it holds. Holding one needs a
    // server that lists the resource (ResourceCatalog::serverFor), which no unit test has: here
    // the updates that must not pass.
    void aResourceUpdateNeedsTheHostsSubscription()
    {
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel channel;
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(initializeRequest());
        session->receiveMessage(hostRequest(1, u"resources/subscribe"_s, {{u"uri"_s, u"file:///x.txt"_s}}));
        QCOMPARE(channel.response(1)->value(u"error").toObject().value(u"code").toInt(), -32002);
        session->receiveMessage(hostRequest(2, u"resources/subscribe"_s, {}));
        QCOMPARE(channel.response(2)->value(u"error").toObject().value(u"code").toInt(), int(JsonRpc::InvalidParams));
        channel.sent.clear();
        session->passOn(u"fs"_s, u"notifications/resources/updated"_s, {{u"uri"_s, u"file:///x.txt"_s}});
        QVERIFY(channel.sent.isEmpty());
    }

    // The gateway subscribes a server while any host holds a subscription; a subscription the
    // server refused is nobody's. A refusal (here: no such server) leaves no host counted, so the
    // next host's subscription goes to the server again rather than being taken as held.
    void aRefusedSubscriptionIsNobodys()
    {
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel firstChannel;
        FakeHostChannel secondChannel;
        GatewaySession *first = gateway.openSession(&firstChannel);
        GatewaySession *second = gateway.openSession(&secondChannel);
        std::optional<RpcReply> firstReply;
        std::optional<RpcReply> secondReply;
        gateway.setSubscribed(first, u"fs"_s, u"file:///x.txt"_s, true, [&](const RpcReply &reply) { firstReply = reply; });
        QVERIFY(!firstReply); // answered from the event loop
        QTRY_VERIFY(firstReply);
        QVERIFY(!firstReply->ok());
        QVERIFY2(firstReply->error->message.contains(u"'fs'"_s), qPrintable(firstReply->error->message));
        gateway.setSubscribed(second, u"fs"_s, u"file:///x.txt"_s, true, [&](const RpcReply &reply) { secondReply = reply; });
        QTRY_VERIFY(secondReply);
        QVERIFY2(!secondReply->ok(), "taken as held by the host whose subscription was refused");
        // Ending a subscription nobody holds asks nothing of the server.
        std::optional<RpcReply> ended;
        gateway.setSubscribed(first, u"fs"_s, u"file:///x.txt"_s, false, [&](const RpcReply &reply) { ended = reply; });
        QTRY_VERIFY(ended);
        QVERIFY(ended->ok());
    }

    // A host's subscription made while another host's first one is on its way to the server shares
    // its outcome: when the server refuses, nobody holds it, and the next host's goes to the server.
    void aSubscriptionJoiningOneOnItsWayIsRefusedWithIt()
    {
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel channels[3];
        GatewaySession *first = gateway.openSession(&channels[0]);
        GatewaySession *second = gateway.openSession(&channels[1]);
        GatewaySession *third = gateway.openSession(&channels[2]);
        std::optional<RpcReply> firstReply;
        std::optional<RpcReply> secondReply;
        std::optional<RpcReply> thirdReply;
        const QString uri = u"file:///x.txt"_s;
        gateway.setSubscribed(first, u"fs"_s, uri, true, [&](const RpcReply &reply) { firstReply = reply; });
        gateway.setSubscribed(second, u"fs"_s, uri, true, [&](const RpcReply &reply) { secondReply = reply; });
        QTRY_VERIFY(firstReply && secondReply);
        QVERIFY(!firstReply->ok());
        QVERIFY2(!secondReply->ok(), "told it holds a subscription the server refused");
        gateway.setSubscribed(third, u"fs"_s, uri, true, [&](const RpcReply &reply) { thirdReply = reply; });
        QTRY_VERIFY(thirdReply);
        QVERIFY2(!thirdReply->ok(), "taken as held although the server refused it");
    }

    void aTasksStatusReachesTheHostWhoseTaskItIs()
    {
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel ownerChannel;
        FakeHostChannel otherChannel;
        GatewaySession *owner = gateway.openSession(&ownerChannel);
        GatewaySession *other = gateway.openSession(&otherChannel);
        owner->receiveMessage(initializeRequest());
        other->receiveMessage(initializeRequest());
        const QString id = gateway.tasks().add(u"github"_s, u"t1"_s, owner);
        const QJsonObject status{{u"taskId"_s, u"t1"_s}, {u"status"_s, u"working"_s}};
        for (GatewaySession *session : {owner, other})
            session->passOn(u"github"_s, u"notifications/tasks/status"_s, status);
        const QList<QJsonObject> told = ownerChannel.notifications(u"notifications/tasks/status"_s);
        QCOMPARE(told.size(), 1);
        QCOMPARE(told.first().value(u"params").toObject(),
                 (QJsonObject{{u"taskId"_s, id}, {u"status"_s, u"working"_s}}));
        QVERIFY(otherChannel.notifications(u"notifications/tasks/status"_s).isEmpty());
        // Another server's task of the same id, and a task nobody made, reach nobody.
        owner->passOn(u"fs"_s, u"notifications/tasks/status"_s, status);
        owner->passOn(u"github"_s, u"notifications/tasks/status"_s, {{u"taskId"_s, u"t2"_s}});
        QCOMPARE(ownerChannel.notifications(u"notifications/tasks/status"_s).size(), 1);
    }

    // A task is its host's alone: another host cannot see or use it, and it is forgotten when its
    // host leaves.
    void aTaskIsItsHostsAlone()
    {
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel ownerChannel;
        FakeHostChannel otherChannel;
        GatewaySession *owner = gateway.openSession(&ownerChannel);
        GatewaySession *other = gateway.openSession(&otherChannel);
        owner->receiveMessage(initializeRequest());
        other->receiveMessage(initializeRequest());
        const QString task = gateway.tasks().add(u"github"_s, u"t1"_s, owner);
        for (const QString &method : {u"tasks/get"_s, u"tasks/result"_s, u"tasks/cancel"_s}) {
            otherChannel.sent.clear();
            other->receiveMessage(hostRequest(1, method, {{u"taskId"_s, task}}));
            const QJsonObject error = otherChannel.response(1)->value(u"error").toObject();
            QCOMPARE(error.value(u"code").toInt(), int(JsonRpc::InvalidParams));
            QVERIFY(error.value(u"message").toString().contains(task));
        }
        other->receiveMessage(hostRequest(2, u"tasks/list"_s));
        QCOMPARE(otherChannel.response(2)->value(u"result").toObject(), (QJsonObject{{u"tasks"_s, QJsonArray{}}}));
        // The owner's request goes to the task's server (which this manager does not know).
        owner->receiveMessage(hostRequest(3, u"tasks/get"_s, {{u"taskId"_s, task}}));
        QVERIFY(!ownerChannel.response(3));
        QTRY_VERIFY(ownerChannel.response(3));
        const QString message = ownerChannel.response(3)->value(u"error").toObject().value(u"message").toString();
        QVERIFY2(message.contains(u"'github'"_s), qPrintable(message));
        gateway.closeSession(owner, u"the owner left"_s);
        QVERIFY(!gateway.tasks().find(task));
    }

    void otherNotificationsAreNotPassedOn()
    {
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel channel;
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(initializeRequest());
        channel.sent.clear();
        session->passOn(u"github"_s, u"notifications/tools/list_changed"_s, {});
        session->passOn(u"github"_s, u"notifications/progress"_s, {{u"progressToken"_s, 1}, {u"progress"_s, 1}});
        session->passOn(u"github"_s, u"notifications/whatever"_s, {});
        QVERIFY(channel.sent.isEmpty());
    }

    // The completion of a URL-mode elicitation goes to the host that was asked for it, and only
    // there: the gateway's shared side passes a completion on to every session.
    void anElicitationsCompletionReachesOnlyTheHostAsked()
    {
        Answers answers; // before the gateway: its sessions answer it as they go
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel askedChannel;
        FakeHostChannel otherChannel;
        GatewaySession *asked = gateway.openSession(&askedChannel);
        GatewaySession *other = gateway.openSession(&otherChannel);
        asked->receiveMessage(initializeWith(everyClientFeature()));
        other->receiveMessage(initializeWith(everyClientFeature()));
        asked->forwardServerRequest({u"github"_s, u"elicitation/create"_s, urlParams(u"e-1"_s), {}}, answers.reply(),
                                    answers.onProgress());
        const QJsonObject complete{{u"elicitationId"_s, u"e-1"_s}};
        for (GatewaySession *session : {asked, other})
            session->passOn(u"github"_s, u"notifications/elicitation/complete"_s, complete);
        QCOMPARE(askedChannel.notifications(u"notifications/elicitation/complete"_s).size(), 1);
        QCOMPARE(askedChannel.notifications(u"notifications/elicitation/complete"_s).first().value(u"params").toObject(),
                 complete);
        QVERIFY2(otherChannel.notifications(u"notifications/elicitation/complete"_s).isEmpty(),
                 "a host that was never asked heard of another host's elicitation");
    }

    // --- A server's requests passed on to the host ---

    void aRequestTheHostDidNotDeclareIsAnsweredForIt_data()
    {
        QTest::addColumn<QJsonObject>("capabilities");
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("method");
        QTest::addColumn<QJsonObject>("params");
        const QJsonObject none;
        const QJsonObject formOnly{{u"elicitation"_s, QJsonObject{{u"form"_s, QJsonObject{}}}}};
        QTest::newRow("sampling") << none << u"github"_s << u"sampling/createMessage"_s << samplingParams();
        QTest::newRow("form elicitation") << none << u"github"_s << u"elicitation/create"_s << formParams();
        QTest::newRow("url elicitation, form declared")
            << formOnly << u"github"_s << u"elicitation/create"_s << urlParams(u"e"_s);
        QTest::newRow("sampling, elicitation declared")
            << formOnly << u"github"_s << u"sampling/createMessage"_s << samplingParams();
        QTest::newRow("roots: the config's") << none << u"github"_s << u"roots/list"_s << QJsonObject{};
        QTest::newRow("roots of a server the config does not know") << formOnly << u"gone"_s << u"roots/list"_s
                                                                    << QJsonObject{};
    }

    void aRequestTheHostDidNotDeclareIsAnsweredForIt()
    {
        Answers answers; // before the gateway: its sessions answer it as they go
        QFETCH(QJsonObject, capabilities);
        QFETCH(QString, server);
        QFETCH(QString, method);
        QFETCH(QJsonObject, params);
        const QJsonArray roots{QJsonObject{{u"uri"_s, u"file:///work/project"_s}, {u"name"_s, u"project"_s}}};
        ServerManager manager;
        manager.applyConfig(configWithDisabledServer(u"github"_s, roots));
        Gateway gateway(manager);
        FakeHostChannel channel;
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(initializeWith(capabilities));
        channel.sent.clear();
        const quint64 handle
            = session->forwardServerRequest({server, method, params, {}}, answers.reply(), answers.onProgress());
        QCOMPARE(handle, quint64(0));
        QVERIFY(channel.sent.isEmpty());
        QCOMPARE(answers.replies.size(), 1);
        const RpcReply &reply = answers.replies.first();
        if (method == u"roots/list") {
            QVERIFY(reply.ok());
            QCOMPARE(reply.result.toObject(), (QJsonObject{{u"roots"_s, server == u"github"_s ? roots : QJsonArray()}}));
            return;
        }
        QVERIFY(!reply.ok());
        QCOMPARE(reply.error->code, int(JsonRpc::MethodNotFound));
        QVERIFY2(reply.error->message.contains(HostLabel) && reply.error->message.contains(method),
                 qPrintable(reply.error->message));
    }

    void aDeclaredRequestGoesToTheHostWithTethersProgressToken()
    {
        Answers answers; // before the gateway: its sessions answer it as they go
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel channel;
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(initializeWith(everyClientFeature()));
        channel.sent.clear();
        QJsonObject params = samplingParams();
        params.insert(u"_meta"_s, QJsonObject{{u"progressToken"_s, u"srv-7"_s}, {u"trace"_s, u"abc"_s}});
        const quint64 handle = session->forwardServerRequest({u"github"_s, u"sampling/createMessage"_s, params, {}},
                                                             answers.reply(), answers.onProgress());
        QVERIFY(handle != 0);
        QCOMPARE(channel.sent.size(), 1);
        const FakeHostChannel::Sent sent = channel.sent.first();
        QCOMPARE(sent.role, HostChannel::Role::Request);
        QVERIFY2(sent.request.isUndefined() || sent.request.isNull(), "no request of the host's to go with");
        const QJsonObject message = sent.message;
        QCOMPARE(message.value(u"method").toString(), u"sampling/createMessage"_s);
        const QJsonValue id = message.value(u"id");
        QCOMPARE(id.toInteger(), qint64(handle));
        QJsonObject expected = samplingParams();
        expected.insert(u"_meta"_s, QJsonObject{{u"progressToken"_s, id}, {u"trace"_s, u"abc"_s}});
        QCOMPARE(message.value(u"params").toObject(), expected);
        QVERIFY(answers.replies.isEmpty());

        // The host's progress, under Tether's token, reaches the server's handler.
        session->receiveMessage(JsonRpc::makeNotification(
            u"notifications/progress"_s,
            {{u"progressToken"_s, id}, {u"progress"_s, 0.5}, {u"total"_s, 1}, {u"message"_s, u"thinking"_s}}));
        QCOMPARE(answers.progress.size(), 1);
        QCOMPARE(answers.progress.first().progress, 0.5);
        QCOMPARE(answers.progress.first().total.value_or(-1), 1.0);
        QCOMPARE(answers.progress.first().message, u"thinking"_s);

        // The host's answer completes the reply, once.
        const QJsonObject result{{u"role"_s, u"assistant"_s},
                                 {u"content"_s, QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, u"hello"_s}}},
                                 {u"model"_s, u"claude"_s}};
        session->receiveMessage(JsonRpc::makeResult(id, result));
        QCOMPARE(answers.replies.size(), 1);
        QVERIFY(answers.replies.first().ok());
        QCOMPARE(answers.replies.first().result.toObject(), result);
        session->receiveMessage(JsonRpc::makeResult(id, result));
        session->receiveMessage(
            JsonRpc::makeNotification(u"notifications/progress"_s, {{u"progressToken"_s, id}, {u"progress"_s, 0.9}}));
        QCOMPARE(answers.replies.size(), 1);
        QCOMPARE(answers.progress.size(), 1);
    }

    void aRequestAskingNoProgressGoesWithoutToken()
    {
        Answers answers; // before the gateway: its sessions answer it as they go
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel channel;
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(initializeWith(everyClientFeature()));
        channel.sent.clear();
        session->forwardServerRequest({u"github"_s, u"elicitation/create"_s, formParams(), {}}, answers.reply(),
                                      answers.onProgress());
        QCOMPARE(channel.sent.size(), 1);
        const QJsonObject message = channel.sent.first().message;
        QCOMPARE(message.value(u"params").toObject(), formParams());
        session->receiveMessage(JsonRpc::makeNotification(
            u"notifications/progress"_s, {{u"progressToken"_s, message.value(u"id")}, {u"progress"_s, 1}}));
        QVERIFY(answers.progress.isEmpty());
    }

    void theHostsRefusalIsTheHostsOwnAnswer()
    {
        Answers answers; // before the gateway: its sessions answer it as they go
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel channel;
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(initializeWith(everyClientFeature()));
        channel.sent.clear();
        session->forwardServerRequest({u"github"_s, u"sampling/createMessage"_s, samplingParams(), {}}, answers.reply(),
                                      answers.onProgress());
        const QJsonValue id = channel.sent.first().message.value(u"id");
        session->receiveMessage(JsonRpc::makeError(id, -1, u"User rejected sampling request"_s));
        QCOMPARE(answers.replies.size(), 1);
        QVERIFY(!answers.replies.first().ok());
        QCOMPARE(answers.replies.first().error->code, -1);
        QCOMPARE(answers.replies.first().error->message, u"User rejected sampling request"_s);
        QVERIFY(answers.replies.first().fromServer);
    }

    // Over HTTP a server's request goes on the stream of the host's request it serves: the host's
    // request to that server, or for a task's request the tasks/result that waits on the task.
    void aServersRequestGoesWithTheHostsRequestItServes()
    {
        Answers answers; // before the gateway: its sessions answer it as they go
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel channel;
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(initializeWith(everyClientFeature()));
        const QString task = gateway.tasks().add(u"github"_s, u"t1"_s, session);
        // Both wait on the manager (which answers from the event loop: there is no such server).
        session->receiveMessage(hostRequest(41, u"tasks/get"_s, {{u"taskId"_s, task}}));
        session->receiveMessage(hostRequest(42, u"tasks/result"_s, {{u"taskId"_s, task}}));
        QVERIFY(!channel.response(41));
        QVERIFY(!channel.response(42));
        channel.sent.clear();
        session->forwardServerRequest({u"github"_s, u"sampling/createMessage"_s, samplingParams(), {}}, answers.reply(),
                                      answers.onProgress());
        session->forwardServerRequest({u"fs"_s, u"sampling/createMessage"_s, samplingParams(), {}}, answers.reply(),
                                      answers.onProgress());
        QJsonObject params = formParams();
        params.insert(u"_meta"_s, taskMeta(u"t1"_s));
        session->forwardServerRequest({u"github"_s, u"elicitation/create"_s, params, {}}, answers.reply(),
                                      answers.onProgress());
        QCOMPARE(channel.sent.size(), 3);
        QCOMPARE(channel.sent.at(0).request, QJsonValue(41));
        QVERIFY(channel.sent.at(1).request.isUndefined() || channel.sent.at(1).request.isNull());
        QCOMPARE(channel.sent.at(2).request, QJsonValue(42));
        // The task is named as the host knows it.
        QCOMPARE(channel.sent.at(2)
                     .message.value(u"params")
                     .toObject()
                     .value(u"_meta")
                     .toObject()
                     .value(u"io.modelcontextprotocol/related-task")
                     .toObject()
                     .value(u"taskId")
                     .toString(),
                 task);
        QTRY_VERIFY(channel.response(41) && channel.response(42));
    }

    void cancellingAServersRequestTellsTheHost()
    {
        Answers answers; // before the gateway: its sessions answer it as they go
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel channel;
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(initializeWith(everyClientFeature()));
        channel.sent.clear();
        const quint64 handle = session->forwardServerRequest({u"github"_s, u"sampling/createMessage"_s, samplingParams(), {}},
                                                             answers.reply(), answers.onProgress());
        session->cancelServerRequest(handle, u"the server gave up"_s);
        QCOMPARE(channel.sent.size(), 2);
        const FakeHostChannel::Sent cancelled = channel.sent.last();
        QCOMPARE(cancelled.role, HostChannel::Role::Request);
        QCOMPARE(cancelled.message.value(u"method").toString(), u"notifications/cancelled"_s);
        QCOMPARE(cancelled.message.value(u"params").toObject(),
                 (QJsonObject{{u"requestId"_s, qint64(handle)}, {u"reason"_s, u"the server gave up"_s}}));
        QCOMPARE(answers.replies.size(), 1);
        QCOMPARE(answers.replies.first().error->code, int(JsonRpc::RequestCancelled));
        // The host's late answer changes nothing; nor does a second cancel.
        session->receiveMessage(JsonRpc::makeResult(qint64(handle), QJsonObject{{u"model"_s, u"m"_s}}));
        session->cancelServerRequest(handle, u"again"_s);
        QCOMPARE(answers.replies.size(), 1);
        QCOMPARE(channel.sent.size(), 2);
    }

    void aHostLeavingFailsEveryServerRequestWaitingOnIt_data()
    {
        QTest::addColumn<bool>("closeSession");
        QTest::newRow("cancelAllCalls") << false;
        QTest::newRow("closeSession") << true;
    }

    void aHostLeavingFailsEveryServerRequestWaitingOnIt()
    {
        QFETCH(bool, closeSession);
        Answers sampling; // before the gateway: its sessions answer them as they go
        Answers elicitation;
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel channel;
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(initializeWith(everyClientFeature()));
        session->forwardServerRequest({u"github"_s, u"sampling/createMessage"_s, samplingParams(), {}}, sampling.reply(),
                                      sampling.onProgress());
        session->forwardServerRequest({u"fs"_s, u"elicitation/create"_s, formParams(), {}}, elicitation.reply(),
                                      elicitation.onProgress());
        if (closeSession)
            gateway.closeSession(session, u"the host left"_s);
        else
            session->cancelAllCalls(u"the host left"_s);
        for (const Answers *answers : {&sampling, &elicitation}) {
            QCOMPARE(answers->replies.size(), 1);
            const RpcReply &reply = answers->replies.first();
            QVERIFY(!reply.ok());
            QCOMPARE(reply.error->code, int(JsonRpc::InternalError));
            QVERIFY2(reply.error->message.contains(HostLabel) && reply.error->message.contains(u"the host left"_s),
                     qPrintable(reply.error->message));
        }
    }

    void aHostWhoseInputEndsAnswersNothingMore()
    {
        Answers before; // before the gateway: its sessions answer them as they go
        Answers after;
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel channel;
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(initializeWith(everyClientFeature()));
        session->forwardServerRequest({u"github"_s, u"sampling/createMessage"_s, samplingParams(), {}}, before.reply(),
                                      before.onProgress());
        const qsizetype sent = channel.sent.size();
        QSignalSpy changed(session, &GatewaySession::hostChanged);
        session->endInput(u"the host closed stdin"_s);
        // The host stays connected, for what it still reads, but is asked nothing more.
        session->forwardServerRequest({u"fs"_s, u"elicitation/create"_s, formParams(), {}}, after.reply(), after.onProgress());
        QCOMPARE(channel.sent.size(), sent);
        for (const Answers *answers : {&before, &after}) {
            QCOMPARE(answers->replies.size(), 1);
            const RpcReply &reply = answers->replies.first();
            QVERIFY(!reply.ok());
            QCOMPARE(reply.error->code, int(JsonRpc::InternalError));
            QVERIFY2(reply.error->message.contains(HostLabel) && reply.error->message.contains(u"the host closed stdin"_s),
                     qPrintable(reply.error->message));
        }
        QVERIFY(!session->hasRequests());
        QCOMPARE(changed.size(), 0); // none of its own requests ended
        // What reaches the session still gets its answer (a line read just before the input ended).
        session->receiveMessage(hostRequest(5, u"tools/list"_s));
        QVERIFY(channel.response(5));
    }

    void aStatelessHostWhoseInputEndsHasItsListenEnded()
    {
        FakeHostChannel channel; // before the gateway, which ends on it what is still open
        ServerManager manager;
        Gateway gateway(manager);
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(statelessRequest(1, u"server/discover"_s));
        session->receiveMessage(statelessRequest(7, u"subscriptions/listen"_s,
                                                 {{u"notifications"_s, QJsonObject{{u"toolsListChanged"_s, true}}}}));
        QVERIFY(session->hasRequests());
        QSignalSpy changed(session, &GatewaySession::hostChanged);
        // Only a cancel would end a listen, and none can come now.
        session->endInput(u"the host closed stdin"_s);
        QCOMPARE(channel.endedWithoutResponse, (QList<QJsonValue>{QJsonValue(7)}));
        QVERIFY(!session->hasRequests());
        QVERIFY(changed.size() >= 1);
    }

    void aHostDeclaringRootsIsAskedForThem()
    {
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel channel;
        GatewaySession *session = gateway.openSession(&channel);
        QSignalSpy rootsChanged(session, &GatewaySession::rootsChanged);
        session->receiveMessage(initializeWith(everyClientFeature()));
        QVERIFY(session->declaresRoots());
        QVERIFY(channel.notifications(u"roots/list"_s).isEmpty()); // not before initialized
        session->receiveMessage(JsonRpc::makeNotification(u"notifications/initialized"_s));
        QCOMPARE(channel.notifications(u"roots/list"_s).size(), 1);
        QCOMPARE(channel.sent.last().role, HostChannel::Role::Request);
        const QJsonArray roots{QJsonObject{{u"uri"_s, u"file:///home/me/project"_s}, {u"name"_s, u"project"_s}}};
        session->receiveMessage(JsonRpc::makeResult(channel.notifications(u"roots/list"_s).last().value(u"id"),
                                                    QJsonObject{{u"roots"_s, roots}}));
        QCOMPARE(session->roots(), roots);
        QCOMPARE(rootsChanged.size(), 1);
        // Asked again, the same roots change nothing; an answer without roots keeps them.
        session->receiveMessage(JsonRpc::makeNotification(u"notifications/roots/list_changed"_s));
        QCOMPARE(channel.notifications(u"roots/list"_s).size(), 2);
        session->receiveMessage(JsonRpc::makeResult(channel.notifications(u"roots/list"_s).last().value(u"id"),
                                                    QJsonObject{{u"roots"_s, roots}}));
        QCOMPARE(rootsChanged.size(), 1);
        session->receiveMessage(JsonRpc::makeNotification(u"notifications/roots/list_changed"_s));
        session->receiveMessage(JsonRpc::makeResult(channel.notifications(u"roots/list"_s).last().value(u"id"),
                                                    QJsonObject{{u"roots"_s, u"none"_s}}));
        QCOMPARE(session->roots(), roots);
        QCOMPARE(rootsChanged.size(), 1);
    }

    void aHostNotDeclaringRootsIsNotAsked()
    {
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel channel;
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(initializeRequest());
        session->receiveMessage(JsonRpc::makeNotification(u"notifications/initialized"_s));
        session->receiveMessage(JsonRpc::makeNotification(u"notifications/roots/list_changed"_s));
        QVERIFY(!session->declaresRoots());
        QVERIFY(channel.notifications(u"roots/list"_s).isEmpty());
    }

    // The host's client side: what a server asks for the host's requests goes through it, and it
    // outlives the session safely.
    void theHostsClientSide()
    {
        Answers answers; // before the gateway: its sessions answer them as they go
        Answers late;
        ServerManager manager;
        Gateway gateway(manager);
        FakeHostChannel channel;
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(initializeWith(everyClientFeature()));
        const std::shared_ptr<ClientSide> side = session->clientSide();
        QVERIFY(side);
        QCOMPARE(side->clientLabel(), HostLabel);
        QVERIFY(side->wantsOwnSession());
        channel.sent.clear();
        const quint64 handle = side->serverRequest({u"github"_s, u"roots/list"_s, {}, {}}, answers.reply(), answers.onProgress());
        QCOMPARE(channel.notifications(u"roots/list"_s).size(), 1);
        side->serverNotification(u"github"_s, u"notifications/message"_s, {{u"level"_s, u"info"_s}, {u"data"_s, u"x"_s}});
        QCOMPARE(channel.notifications(u"notifications/message"_s).size(), 1);
        side->cancelServerRequest(handle, u"no longer needed"_s);
        QCOMPARE(channel.notifications(u"notifications/cancelled"_s).size(), 1);
        QCOMPARE(answers.replies.size(), 1);

        const QPointer<GatewaySession> guard(session);
        gateway.closeSession(session, u"the test ends"_s);
        QTRY_VERIFY(!guard);
        QCOMPARE(side->serverRequest({u"github"_s, u"sampling/createMessage"_s, samplingParams(), {}}, late.reply(),
                                     late.onProgress()),
                 quint64(0));
        QCOMPARE(late.replies.size(), 1);
        QVERIFY(!late.replies.first().ok());
        QVERIFY(late.replies.first().error->message.contains(u"disconnected"_s));
        side->cancelServerRequest(1, u"nothing to cancel"_s);
        side->serverNotification(u"github"_s, u"notifications/message"_s, {{u"level"_s, u"info"_s}});
        QCOMPARE(side->clientLabel(), u"a host that has left"_s);
    }

    // --- Stateless hosts (MCP 2026-07-28) ---

    void aFirstEnvelopedRequestMakesTheHostStateless_data()
    {
        QTest::addColumn<QString>("method");
        QTest::newRow("server/discover") << u"server/discover"_s;
        QTest::newRow("tools/list") << u"tools/list"_s;
    }

    void aFirstEnvelopedRequestMakesTheHostStateless()
    {
        QFETCH(QString, method);
        FakeHostChannel channel; // before the gateway, which ends on it what is still open
        ServerManager manager;
        Gateway gateway(manager);
        GatewaySession *session = gateway.openSession(&channel);
        QSignalSpy hostChanged(session, &GatewaySession::hostChanged);
        QVERIFY(!session->isStateless());
        QVERIFY(!session->isInitialized());
        session->receiveMessage(statelessRequest(1, method));
        QVERIFY(session->isStateless());
        QVERIFY(session->isInitialized());
        QCOMPARE(session->protocolVersion(), StatelessVersion);
        QCOMPARE(session->clientName(), u"era-host"_s);
        QCOMPARE(session->clientVersion(), u"2.0"_s);
        QCOMPARE(session->hostLabel(), StatelessHostLabel);
        QVERIFY(hostChanged.size() >= 1);
        const auto response = channel.response(1);
        QVERIFY(response);
        QVERIFY2(response->contains(u"result"), QJsonDocument(*response).toJson().constData());
        const GatewayStatus status = gateway.status();
        QCOMPARE(status.hosts.size(), 1);
        QCOMPARE(status.hosts.first().clientName, u"era-host"_s);
        QCOMPARE(status.hosts.first().clientVersion, u"2.0"_s);
        // A later request does not rename the host.
        QJsonObject other = envelope();
        other.insert(ClientInfoKey, QJsonObject{{u"name"_s, u"someone-else"_s}, {u"version"_s, u"9"_s}});
        session->receiveMessage(statelessRequest(2, u"tools/list"_s, {}, other));
        QVERIFY(channel.response(2));
        QCOMPARE(session->hostLabel(), StatelessHostLabel);
    }

    void serverDiscoverSaysWhatTetherOffers()
    {
        FakeHostChannel channel; // before the gateway, which ends on it what is still open
        ServerManager manager;
        Gateway gateway(manager);
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(statelessRequest(u"d"_s, u"server/discover"_s));
        QCOMPARE(channel.sent.size(), 1);
        QCOMPARE(channel.sent.first().role, HostChannel::Role::Response);
        QCOMPARE(channel.sent.first().request, QJsonValue(u"d"_s));
        const auto response = channel.response(u"d"_s);
        QVERIFY(response);
        const QJsonObject expected{
            {u"supportedVersions"_s, QJsonArray{StatelessVersion}},
            {u"capabilities"_s, QJsonObject{{u"tools"_s, QJsonObject{{u"listChanged"_s, true}}}}},
            {u"resultType"_s, u"complete"_s},
            {u"ttlMs"_s, 0},
            {u"cacheScope"_s, u"private"_s},
            {u"_meta"_s, tetherServerInfoMeta()},
        };
        const QJsonObject result = response->value(u"result").toObject();
        QCOMPARE(result, expected);
        QCOMPARE(result.value(u"_meta").toObject().value(ServerInfoKey).toObject().value(u"name").toString(), u"tether"_s);
        QVERIFY(!result.value(u"capabilities").toObject().contains(u"tasks"));
        QVERIFY(!result.contains(u"serverInfo")); // it lives in _meta in this era
    }

    void aRequestWithoutTheEnvelopeIsRefused_data()
    {
        QTest::addColumn<QJsonValue>("meta"); // undefined: no _meta at all
        QTest::newRow("no _meta") << QJsonValue(QJsonValue::Undefined);
        QTest::newRow("an empty _meta") << QJsonValue(QJsonObject{});
        QTest::newRow("only a progress token") << QJsonValue(QJsonObject{{u"progressToken"_s, 1}});
        QJsonObject noCapabilities = envelope();
        noCapabilities.remove(CapabilitiesKey);
        QTest::newRow("no clientCapabilities") << QJsonValue(noCapabilities);
        QJsonObject capabilitiesNotObject = envelope();
        capabilitiesNotObject.insert(CapabilitiesKey, u"all"_s);
        QTest::newRow("clientCapabilities not an object") << QJsonValue(capabilitiesNotObject);
        QJsonObject noVersion = envelope();
        noVersion.remove(VersionKey);
        QTest::newRow("no protocolVersion") << QJsonValue(noVersion);
        QJsonObject versionNotString = envelope();
        versionNotString.insert(VersionKey, 20260728);
        QTest::newRow("protocolVersion not a string") << QJsonValue(versionNotString);
    }

    void aRequestWithoutTheEnvelopeIsRefused()
    {
        QFETCH(QJsonValue, meta);
        FakeHostChannel channel; // before the gateway, which ends on it what is still open
        ServerManager manager;
        Gateway gateway(manager);
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(statelessRequest(1, u"server/discover"_s));
        QVERIFY(session->isStateless());
        channel.sent.clear();
        QJsonObject params;
        if (!meta.isUndefined())
            params.insert(u"_meta"_s, meta);
        session->receiveMessage(hostRequest(2, u"tools/list"_s, params));
        QCOMPARE(channel.sent.size(), 1);
        const QJsonObject error = errorOf(channel.response(2));
        QCOMPARE(error.value(u"code").toInt(), int(JsonRpc::InvalidParams));
        QVERIFY(!error.value(u"message").toString().isEmpty());
        QCOMPARE(error.value(u"data").toObject(),
                 (QJsonObject{{u"envelope"_s, QJsonObject{{u"missing"_s, QJsonArray{u"_meta"_s}}}}}));
        // The host stays what its first request made it.
        QVERIFY(session->isStateless());
        QVERIFY(session->isInitialized());
        QCOMPARE(session->protocolVersion(), StatelessVersion);
    }

    void aVersionTetherDoesNotSpeakIsRefused_data()
    {
        QTest::addColumn<bool>("first"); // the host's first request, or one after a good one
        QTest::addColumn<QString>("version");
        QTest::newRow("first, a later revision") << true << u"2027-01-01"_s;
        QTest::newRow("later, a later revision") << false << u"2027-01-01"_s;
        QTest::newRow("later, a handshake revision") << false << u"2025-11-25"_s;
    }

    void aVersionTetherDoesNotSpeakIsRefused()
    {
        QFETCH(bool, first);
        QFETCH(QString, version);
        FakeHostChannel channel; // before the gateway, which ends on it what is still open
        ServerManager manager;
        Gateway gateway(manager);
        GatewaySession *session = gateway.openSession(&channel);
        if (!first) {
            session->receiveMessage(statelessRequest(1, u"server/discover"_s));
            QVERIFY(channel.response(1));
            channel.sent.clear();
        }
        session->receiveMessage(statelessRequest(2, u"tools/list"_s, {}, envelope({}, {}, version)));
        QCOMPARE(channel.sent.size(), 1);
        const QJsonObject error = errorOf(channel.response(2));
        QCOMPARE(error.value(u"code").toInt(), -32022);
        QVERIFY2(error.value(u"message").toString().contains(version), qPrintable(error.value(u"message").toString()));
        // The stateless revisions, then the handshake ones: every version Tether speaks.
        const QJsonArray supported{u"2026-07-28"_s, u"2025-11-25"_s, u"2025-06-18"_s, u"2025-03-26"_s, u"2024-11-05"_s};
        QCOMPARE(error.value(u"data").toObject(),
                 (QJsonObject{{u"supported"_s, supported}, {u"requested"_s, version}}));
        QCOMPARE(session->isInitialized(), !first);
        QCOMPARE(session->protocolVersion(), first ? QString() : StatelessVersion);
    }

    void handshakeOnlyMethodsAreRefused_data()
    {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QJsonObject>("params");
        const QJsonObject uri{{u"uri"_s, u"file:///x.txt"_s}};
        const QJsonObject task{{u"taskId"_s, u"x__1"_s}};
        QTest::newRow("initialize") << u"initialize"_s
                                    << initializeRequest().value(u"params").toObject();
        QTest::newRow("ping") << u"ping"_s << QJsonObject{};
        QTest::newRow("logging/setLevel") << u"logging/setLevel"_s << QJsonObject{{u"level"_s, u"debug"_s}};
        QTest::newRow("resources/subscribe") << u"resources/subscribe"_s << uri;
        QTest::newRow("resources/unsubscribe") << u"resources/unsubscribe"_s << uri;
        QTest::newRow("tasks/get") << u"tasks/get"_s << task;
        QTest::newRow("tasks/result") << u"tasks/result"_s << task;
        QTest::newRow("tasks/cancel") << u"tasks/cancel"_s << task;
        QTest::newRow("tasks/list") << u"tasks/list"_s << QJsonObject{};
    }

    void handshakeOnlyMethodsAreRefused()
    {
        QFETCH(QString, method);
        QFETCH(QJsonObject, params);
        FakeHostChannel channel; // before the gateway, which ends on it what is still open
        ServerManager manager;
        Gateway gateway(manager);
        GatewaySession *session = gateway.openSession(&channel);
        QSignalSpy levelChanged(session, &GatewaySession::logLevelChanged);
        session->receiveMessage(statelessRequest(1, u"server/discover"_s));
        channel.sent.clear();
        session->receiveMessage(statelessRequest(2, method, params));
        QCOMPARE(channel.sent.size(), 1);
        const QJsonObject error = errorOf(channel.response(2));
        QCOMPARE(error.value(u"code").toInt(), int(JsonRpc::MethodNotFound));
        QVERIFY2(error.value(u"message").toString().contains(method), qPrintable(error.value(u"message").toString()));
        // Refused, not done: no second initialize, no level set.
        QCOMPARE(session->protocolVersion(), StatelessVersion);
        QCOMPARE(session->logLevel(), QString());
        QCOMPARE(levelChanged.size(), 0);
    }

    void listsCarryTheResultTypeAndCacheHints_data()
    {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QString>("member");
        QTest::newRow("tools/list") << u"tools/list"_s << u"tools"_s;
        QTest::newRow("resources/list") << u"resources/list"_s << u"resources"_s;
        QTest::newRow("resources/templates/list") << u"resources/templates/list"_s << u"resourceTemplates"_s;
        QTest::newRow("prompts/list") << u"prompts/list"_s << u"prompts"_s;
    }

    void listsCarryTheResultTypeAndCacheHints()
    {
        QFETCH(QString, method);
        QFETCH(QString, member);
        FakeHostChannel channel; // before the gateway, which ends on it what is still open
        ServerManager manager;
        Gateway gateway(manager);
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(statelessRequest(1, u"server/discover"_s));
        channel.sent.clear();
        session->receiveMessage(statelessRequest(2, method));
        QCOMPARE(channel.sent.size(), 1);
        QCOMPARE(channel.sent.first().role, HostChannel::Role::Response);
        const auto response = channel.response(2);
        QVERIFY(response);
        QCOMPARE(response->value(u"result").toObject(), (QJsonObject{{member, QJsonArray{}},
                                                                     {u"resultType"_s, u"complete"_s},
                                                                     {u"ttlMs"_s, 0},
                                                                     {u"cacheScope"_s, u"private"_s},
                                                                     {u"_meta"_s, tetherServerInfoMeta()}}));
    }

    void aListenIsAcknowledgedUnderItsId()
    {
        FakeHostChannel channel; // before the gateway, which ends on it what is still open
        ServerManager manager;
        Gateway gateway(manager);
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(statelessRequest(1, u"server/discover"_s));
        channel.sent.clear();
        const QJsonObject wanted{{u"toolsListChanged"_s, true},
                                 {u"promptsListChanged"_s, true},
                                 {u"resourcesListChanged"_s, false},
                                 {u"resourceSubscriptions"_s, QJsonArray{u"file:///nobody-lists-this"_s}}};
        session->receiveMessage(statelessRequest(u"listen-1"_s, u"subscriptions/listen"_s, {{u"notifications"_s, wanted}}));
        QCOMPARE(channel.sent.size(), 1);
        const FakeHostChannel::Sent sent = channel.sent.first();
        QCOMPARE(sent.role, HostChannel::Role::Progress); // on the listen's own stream
        QCOMPARE(sent.request, QJsonValue(u"listen-1"_s));
        QCOMPARE(sent.message.value(u"method").toString(), u"notifications/subscriptions/acknowledged"_s);
        QVERIFY(!sent.message.contains(u"id"));
        // What is honored: the lists asked for; a resource no server lists could never be told of.
        QCOMPARE(sent.message.value(u"params").toObject(),
                 (QJsonObject{{u"notifications"_s,
                               QJsonObject{{u"toolsListChanged"_s, true}, {u"promptsListChanged"_s, true}}},
                              {u"_meta"_s, QJsonObject{{SubscriptionIdKey, u"listen-1"_s}}}}));
        // The listen stays open: no response, nothing ended.
        QVERIFY(!channel.response(u"listen-1"_s));
        QVERIFY(channel.endedWithoutResponse.isEmpty());
    }

    void aListenWithoutNotificationsIsRefused_data()
    {
        QTest::addColumn<QJsonValue>("notifications"); // undefined: none
        QTest::newRow("none") << QJsonValue(QJsonValue::Undefined);
        QTest::newRow("an array") << QJsonValue(QJsonArray{u"toolsListChanged"_s});
        QTest::newRow("true") << QJsonValue(true);
        QTest::newRow("null") << QJsonValue(QJsonValue::Null);
    }

    void aListenWithoutNotificationsIsRefused()
    {
        QFETCH(QJsonValue, notifications);
        FakeHostChannel channel; // before the gateway, which ends on it what is still open
        ServerManager manager;
        Gateway gateway(manager);
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(statelessRequest(1, u"server/discover"_s));
        channel.sent.clear();
        QJsonObject params;
        if (!notifications.isUndefined())
            params.insert(u"notifications"_s, notifications);
        session->receiveMessage(statelessRequest(2, u"subscriptions/listen"_s, params));
        QCOMPARE(channel.sent.size(), 1);
        QCOMPARE(errorOf(channel.response(2)).value(u"code").toInt(), int(JsonRpc::InvalidParams));
        QVERIFY(channel.notifications(u"notifications/subscriptions/acknowledged"_s).isEmpty());
        // Nothing is kept open under its id: the id is free for the next request.
        session->receiveMessage(statelessRequest(2, u"tools/list"_s));
        QVERIFY(channel.response(2));
        QCOMPARE(channel.sent.size(), 2);
        QVERIFY(channel.sent.last().message.contains(u"result"));
    }

    void aListenEndsWhenTheHostCancelsIt()
    {
        FakeHostChannel channel; // before the gateway, which ends on it what is still open
        ServerManager manager;
        Gateway gateway(manager);
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(statelessRequest(1, u"server/discover"_s));
        const QJsonObject listenParams{{u"notifications"_s, QJsonObject{{u"toolsListChanged"_s, true}}}};
        session->receiveMessage(statelessRequest(7, u"subscriptions/listen"_s, listenParams));
        QCOMPARE(channel.notifications(u"notifications/subscriptions/acknowledged"_s).size(), 1);
        // Open: its id is in use.
        channel.sent.clear();
        session->receiveMessage(statelessRequest(7, u"tools/list"_s));
        QCOMPARE(channel.sent.size(), 1);
        QCOMPARE(errorOf(channel.response(7)).value(u"code").toInt(), int(JsonRpc::InvalidRequest));
        channel.sent.clear();
        // Another request's cancel leaves it open.
        session->receiveMessage(JsonRpc::makeNotification(u"notifications/cancelled"_s, {{u"requestId"_s, 8}}));
        QVERIFY(channel.endedWithoutResponse.isEmpty());
        // Its own ends it, with no response; a notification needs no envelope.
        session->receiveMessage(JsonRpc::makeNotification(u"notifications/cancelled"_s,
                                                          {{u"requestId"_s, 7}, {u"reason"_s, u"done listening"_s}}));
        QVERIFY(channel.sent.isEmpty());
        QCOMPARE(channel.endedWithoutResponse, (QList<QJsonValue>{QJsonValue(7)}));
        // Ended: the id is free again, and a second cancel changes nothing.
        session->receiveMessage(JsonRpc::makeNotification(u"notifications/cancelled"_s, {{u"requestId"_s, 7}}));
        QCOMPARE(channel.endedWithoutResponse.size(), 1);
        session->receiveMessage(statelessRequest(7, u"subscriptions/listen"_s, listenParams));
        QCOMPARE(channel.notifications(u"notifications/subscriptions/acknowledged"_s).size(), 1);
        QVERIFY(!channel.response(7));
    }

    void aRetryNamingNothingWaitingIsRefused_data()
    {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QJsonObject>("params");
        const QJsonObject answers{{u"q1"_s, QJsonObject{{u"action"_s, u"accept"_s}}}};
        QTest::newRow("tools/call, an unknown requestState")
            << u"tools/call"_s
            << QJsonObject{{u"name"_s, u"demo__echo"_s}, {u"requestState"_s, u"no-such-state"_s}, {u"inputResponses"_s, answers}};
        QTest::newRow("prompts/get, inputResponses alone")
            << u"prompts/get"_s << QJsonObject{{u"name"_s, u"demo__greet"_s}, {u"inputResponses"_s, answers}};
        QTest::newRow("resources/read, an empty requestState")
            << u"resources/read"_s << QJsonObject{{u"uri"_s, u"demo:x"_s}, {u"requestState"_s, u""_s}};
    }

    void aRetryNamingNothingWaitingIsRefused()
    {
        QFETCH(QString, method);
        QFETCH(QJsonObject, params);
        FakeHostChannel channel; // before the gateway, which ends on it what is still open
        ServerManager manager;
        Gateway gateway(manager);
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(statelessRequest(1, u"server/discover"_s));
        channel.sent.clear();
        session->receiveMessage(statelessRequest(2, method, params, envelope(everyClientFeature())));
        QCOMPARE(channel.sent.size(), 1);
        const QJsonObject error = errorOf(channel.response(2));
        QCOMPARE(error.value(u"code").toInt(), int(JsonRpc::InvalidParams));
        QCOMPARE(error.value(u"data").toObject(), (QJsonObject{{u"reason"_s, u"invalid_request_state"_s}}));
        QVERIFY2(error.value(u"message").toString().contains(u"requestState"_s),
                 qPrintable(error.value(u"message").toString()));
    }

    void aServersQuestionWithNoHostRequestRunningIsRefused_data()
    {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QJsonObject>("params");
        QTest::newRow("sampling") << u"sampling/createMessage"_s << samplingParams();
        QTest::newRow("form elicitation") << u"elicitation/create"_s << formParams();
        QTest::newRow("url elicitation") << u"elicitation/create"_s << urlParams(u"e-1"_s);
        QTest::newRow("roots") << u"roots/list"_s << QJsonObject{};
    }

    void aServersQuestionWithNoHostRequestRunningIsRefused()
    {
        QFETCH(QString, method);
        QFETCH(QJsonObject, params);
        Answers answers; // before the gateway: its sessions answer it as they go
        FakeHostChannel channel; // before the gateway, which ends on it what is still open
        ServerManager manager;
        manager.applyConfig(configWithDisabledServer(
            u"github"_s, QJsonArray{QJsonObject{{u"uri"_s, u"file:///work/project"_s}}}));
        Gateway gateway(manager);
        GatewaySession *session = gateway.openSession(&channel);
        // The host declares everything: still there is no request of its to ask it in.
        session->receiveMessage(statelessRequest(1, u"server/discover"_s, {}, envelope(everyClientFeature())));
        QVERIFY(session->isStateless());
        channel.sent.clear();
        const quint64 handle
            = session->forwardServerRequest({u"github"_s, method, params, {}}, answers.reply(), answers.onProgress());
        QCOMPARE(handle, quint64(0));
        QVERIFY(channel.sent.isEmpty());
        QCOMPARE(answers.replies.size(), 1);
        const RpcReply &reply = answers.replies.first();
        QVERIFY(!reply.ok());
        QCOMPARE(reply.error->code, int(JsonRpc::MethodNotFound));
        QVERIFY2(reply.error->message.contains(StatelessHostLabel), qPrintable(reply.error->message));
    }

    void aResourceNotFoundIsInvalidParamsForAStatelessHost()
    {
        FakeHostChannel channel; // before the gateway, which ends on it what is still open
        ServerManager manager;
        Gateway gateway(manager);
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(statelessRequest(1, u"server/discover"_s));
        channel.sent.clear();
        session->receiveMessage(statelessRequest(2, u"resources/read"_s, {{u"uri"_s, u"demo:x"_s}}));
        QCOMPARE(channel.sent.size(), 1);
        const QJsonObject error = errorOf(channel.response(2));
        QCOMPARE(error.value(u"code").toInt(), int(JsonRpc::InvalidParams));
        QCOMPARE(error.value(u"data").toObject().value(u"uri").toString(), u"demo:x"_s);
    }

    void aStatelessHostsLogLevelComesFromTheEnvelope()
    {
        FakeHostChannel channel; // before the gateway, which ends on it what is still open
        ServerManager manager;
        Gateway gateway(manager);
        GatewaySession *session = gateway.openSession(&channel);
        QSignalSpy levelChanged(session, &GatewaySession::logLevelChanged);
        const auto log = [&](const QString &level) {
            session->passOn(u"github"_s, u"notifications/message"_s, {{u"level"_s, level}, {u"data"_s, u"x"_s}});
        };
        session->receiveMessage(statelessRequest(1, u"server/discover"_s, {}, envelope({}, u"warning"_s)));
        QCOMPARE(session->logLevel(), u"warning"_s);
        QCOMPARE(levelChanged.size(), 1);
        channel.sent.clear();
        log(u"info"_s);
        QVERIFY(channel.sent.isEmpty());
        log(u"error"_s);
        QCOMPARE(channel.notifications(u"notifications/message"_s).size(), 1);
        QCOMPARE(channel.notifications(u"notifications/message"_s).first().value(u"params").toObject(),
                 (QJsonObject{{u"level"_s, u"error"_s}, {u"logger"_s, u"github"_s}, {u"data"_s, u"x"_s}}));
        // A level that is none is no change; a request without one asks for no log messages at all.
        session->receiveMessage(statelessRequest(2, u"tools/list"_s, {}, envelope({}, u"loud"_s)));
        QCOMPARE(session->logLevel(), u"warning"_s);
        QCOMPARE(levelChanged.size(), 1);
        session->receiveMessage(statelessRequest(3, u"tools/list"_s));
        QCOMPARE(session->logLevel(), QString());
        QCOMPARE(levelChanged.size(), 2);
        channel.sent.clear();
        log(u"emergency"_s);
        QVERIFY(channel.sent.isEmpty());
    }

    void aHandshakeHostIsUnaffected()
    {
        FakeHostChannel channel; // before the gateway, which ends on it what is still open
        ServerManager manager;
        Gateway gateway(manager);
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(initializeRequest());
        QVERIFY(session->isInitialized());
        QVERIFY(!session->isStateless());
        QCOMPARE(session->protocolVersion(), u"2025-11-25"_s);
        QVERIFY(!channel.response(0)->value(u"result").toObject().contains(u"resultType"));
        // Plain results, with or without an envelope on the request.
        session->receiveMessage(hostRequest(1, u"tools/list"_s));
        QCOMPARE(channel.response(1)->value(u"result").toObject(), (QJsonObject{{u"tools"_s, QJsonArray{}}}));
        session->receiveMessage(statelessRequest(2, u"tools/list"_s));
        QCOMPARE(channel.response(2)->value(u"result").toObject(), (QJsonObject{{u"tools"_s, QJsonArray{}}}));
        QVERIFY(!session->isStateless());
        QCOMPARE(session->protocolVersion(), u"2025-11-25"_s);
        QCOMPARE(session->hostLabel(), HostLabel);
        // Its handshake methods work; the stateless era's are not its own.
        session->receiveMessage(hostRequest(3, u"ping"_s));
        QCOMPARE(channel.response(3)->value(u"result").toObject(), QJsonObject());
        session->receiveMessage(hostRequest(4, u"resources/read"_s, {{u"uri"_s, u"demo:x"_s}}));
        QCOMPARE(errorOf(channel.response(4)).value(u"code").toInt(), -32002);
        session->receiveMessage(statelessRequest(5, u"server/discover"_s));
        QCOMPARE(errorOf(channel.response(5)).value(u"code").toInt(), int(JsonRpc::MethodNotFound));
        // Its log level is the one it sets, not an envelope's.
        session->receiveMessage(statelessRequest(6, u"tools/list"_s, {}, envelope({}, u"error"_s)));
        QCOMPARE(session->logLevel(), QString());
    }

    // An initialize is what makes a host a handshake host, an envelope on it or not.
    void anInitializeFirstIsAHandshakeHost()
    {
        FakeHostChannel channel; // before the gateway, which ends on it what is still open
        ServerManager manager;
        Gateway gateway(manager);
        GatewaySession *session = gateway.openSession(&channel);
        QJsonObject request = initializeRequest(u"init"_s);
        QJsonObject params = request.value(u"params").toObject();
        params.insert(u"_meta"_s, envelope());
        request.insert(u"params"_s, params);
        session->receiveMessage(request);
        QVERIFY(!session->isStateless());
        QVERIFY(session->isInitialized());
        const QJsonObject result = channel.response(u"init"_s)->value(u"result").toObject();
        QCOMPARE(result.value(u"protocolVersion").toString(), u"2025-11-25"_s);
        QVERIFY(!result.contains(u"resultType"));
    }

    // A host whose first request names a version Tether does not speak is refused, and may still
    // initialize: the era is chosen by the first request that is taken.
    void aRefusedFirstRequestLeavesTheEraOpen()
    {
        FakeHostChannel channel;
        ServerManager manager;
        Gateway gateway(manager);
        GatewaySession *session = gateway.openSession(&channel);
        session->receiveMessage(statelessRequest(u"probe"_s, u"server/discover"_s, {}, envelope({}, {}, u"2027-01-01"_s)));
        QCOMPARE(errorOf(channel.response(u"probe"_s)).value(u"code").toInt(), int(JsonRpc::UnsupportedProtocolVersion));
        QVERIFY(!session->isStateless());
        session->receiveMessage(initializeRequest(u"init"_s));
        QVERIFY(session->isInitialized());
        QVERIFY(!session->isStateless());
        QCOMPARE(channel.response(u"init"_s)->value(u"result").toObject().value(u"protocolVersion").toString(), u"2025-11-25"_s);
    }
};

QTEST_GUILESS_MAIN(TestGatewaySession)
#include "tst_gatewaysession.moc"
