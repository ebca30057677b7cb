// One host's session with the gateway, over a gateway with no servers: the lifecycle and what
// each kind of bad or unexpected message is answered with.
#include "gateway/gateway.h"
#include "gateway/gatewaysession.h"
#include "support/fakehostchannel.h"

#include <QJsonArray>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

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
};

QTEST_GUILESS_MAIN(TestGatewaySession)
#include "tst_gatewaysession.moc"
