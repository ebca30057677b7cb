// Tether's client in both eras of MCP (2026-07-28, stateless; 2025-11-25, with a handshake),
// against servers of the official TypeScript SDK v2 that speak the handshake era only, the
// stateless era only, or both, over stdio and Streamable HTTP (tests/integration/eras/).
#include "session/mcpclientsession.h"
#include "supervisor/connectionsupervisor.h"
#include "supervisor/toolregistry.h"
#include "support/awaitreply.h"
#include "support/fakeclientside.h"
#include "support/nodepeer.h"
#include "support/openready.h"
#include "transport/stdiotransport.h"
#include "transport/streamablehttptransport.h"

#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

const QString ServerScript = QStringLiteral(TETHER_ERA_PEERS "/eraserver.mjs");

// Where one server of the test runs: its command line (stdio) or its own process and URL (HTTP).
struct EraServer
{
    QString era; // "2025", "both", "2026"
    bool overHttp = false;
    std::unique_ptr<NodePeer> process{}; // HTTP
    QString url{};

    bool start()
    {
        if (!overHttp)
            return true;
        process = std::make_unique<NodePeer>(ServerScript, QStringList{u"--era"_s, era, u"--http"_s});
        url = process->ready().value(u"mcp").toString();
        if (url.isEmpty())
            qWarning("the era server did not start: %s", qPrintable(process->stderrText));
        return !url.isEmpty();
    }

    TransportFactory transport() const
    {
        if (overHttp) {
            return [url = url] {
                return std::make_unique<StreamableHttpTransport>(HttpServerEndpoint{QUrl(url), {}, {}});
            };
        }
        return [era = era] {
            return std::make_unique<StdioTransport>(StdioServerCommand{
                QStandardPaths::findExecutable(u"node"_s), {ServerScript, u"--era"_s, era}, {}, {}, {}});
        };
    }
};

SessionOptions optionsFor(std::optional<ProtocolEra> pinned, const std::shared_ptr<ClientSide> &client = {})
{
    SessionOptions options;
    options.serverName = u"era"_s;
    options.requestTimeout = std::chrono::seconds(20);
    options.clientCapabilities = clientFeatureCapabilities();
    options.clientSide = client;
    options.roots = QJsonArray{QJsonObject{{u"uri"_s, u"file:///work/project"_s}, {u"name"_s, u"project"_s}}};
    options.pinnedEra = pinned;
    return options;
}

QString firstText(const ToolCallReply &reply)
{
    return reply.result.content.isEmpty() ? QString() : reply.result.content.first().toObject().value(u"text").toString();
}

void addServerRows()
{
    QTest::addColumn<QString>("era");
    QTest::addColumn<bool>("overHttp");
    for (const bool http : {false, true}) {
        for (const QString &era : {u"2025"_s, u"both"_s, u"2026"_s}) {
            const QByteArray name = QByteArray(http ? "http " : "stdio ") + era.toUtf8();
            QTest::newRow(name.constData()) << era << http;
        }
    }
}

} // namespace

class TestProtocolEras final : public QObject
{
    Q_OBJECT

private:
    // A session to `server`, opened; nullptr (with a failure) when it did not get ready.
    std::unique_ptr<McpClientSession> openSession(EraServer &server, std::optional<ProtocolEra> pinned,
                                                  const std::shared_ptr<ClientSide> &client = {})
    {
        auto session = std::make_unique<McpClientSession>(server.transport()(), optionsFor(pinned, client));
        if (!openReady(*session, 30000))
            return nullptr;
        return session;
    }

    ToolCallReply call(McpClientSession &session, const QString &tool, const QJsonObject &arguments)
    {
        return awaitToolCall([&](ToolCallHandler onReply) { session.callTool(tool, ToolCallInput{arguments}, std::move(onReply)); },
                             30000);
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(!QStandardPaths::findExecutable(u"node"_s).isEmpty(), "node is not on PATH");
        QVERIFY2(QFileInfo::exists(QStringLiteral(TETHER_NODE_MODULES "/@modelcontextprotocol/server/package.json")),
                 "the SDK v2 server is not installed: run scripts/test.sh (or npm ci in the source folder)");
    }

    // Auto opens with initialize and turns to server/discover on -32022; a pinned era is the only
    // one tried, and a server that does not speak it is a failure that says what to set.
    void opensInTheEraBothSpeak_data()
    {
        QTest::addColumn<QString>("era");
        QTest::addColumn<bool>("overHttp");
        QTest::addColumn<std::optional<ProtocolEra>>("pinned");
        QTest::addColumn<QString>("expected"); // the version spoken, or a part of the failure

        const std::optional<ProtocolEra> autoEra;
        const std::optional<ProtocolEra> stateless = ProtocolEra::Stateless;
        const std::optional<ProtocolEra> handshake = ProtocolEra::Handshake;
        for (const bool http : {false, true}) {
            const QByteArray face = http ? QByteArray("http ") : QByteArray("stdio ");
            const auto row = [&](const char *name, const QString &era, std::optional<ProtocolEra> pinned, const QString &expected) {
                QTest::newRow(QByteArray(face + name).constData()) << era << http << pinned << expected;
            };
            row("2025 auto", u"2025"_s, autoEra, u"2025-11-25"_s);
            row("2025 pinned 2025", u"2025"_s, handshake, u"2025-11-25"_s);
            row("2025 pinned 2026", u"2025"_s, stateless,
                u"does not speak protocol 2026-07-28, to which its \"protocol\" setting pins it"_s);
            row("both auto", u"both"_s, autoEra, u"2025-11-25"_s);
            row("both pinned 2025", u"both"_s, handshake, u"2025-11-25"_s);
            row("both pinned 2026", u"both"_s, stateless, u"2026-07-28"_s);
            row("2026 auto", u"2026"_s, autoEra, u"2026-07-28"_s);
            row("2026 pinned 2026", u"2026"_s, stateless, u"2026-07-28"_s);
            row("2026 pinned 2025", u"2026"_s, handshake,
                u"speaks protocol 2026-07-28 only, and its \"protocol\" setting pins it to 2025-11-25"_s);
        }
    }

    void opensInTheEraBothSpeak()
    {
        QFETCH(QString, era);
        QFETCH(bool, overHttp);
        QFETCH(std::optional<ProtocolEra>, pinned);
        QFETCH(QString, expected);
        EraServer server{era, overHttp};
        QVERIFY(server.start());
        McpClientSession session(server.transport()(), optionsFor(pinned));
        QSignalSpy ready(&session, &McpClientSession::ready);
        QSignalSpy failed(&session, &McpClientSession::failed);
        session.open();
        QTRY_COMPARE_WITH_TIMEOUT(ready.size() + failed.size(), 1, 30000);
        if (expected.startsWith(u"20"_s)) {
            QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
            QCOMPARE(session.serverIdentity().protocolVersion, expected);
            QCOMPARE(session.era(), *eraOfVersion(expected));
            QCOMPARE(session.serverIdentity().name, u"era-server-"_s + era);
            QVERIFY(session.serverIdentity().capabilities.contains(u"tools"));
            // Both eras list and call alike.
            const ToolListReply tools = awaitToolList([&](ToolListHandler onReply) { session.listTools(std::move(onReply)); }, 30000);
            QVERIFY(!tools.error);
            QCOMPARE(tools.tools.size(), 8);
            const ToolCallReply echoed = call(session, u"echo"_s, {{u"text"_s, u"hello"_s}});
            QVERIFY2(!echoed.error, qPrintable(echoed.error ? echoed.error->message : QString()));
            QCOMPARE(firstText(echoed), u"hello"_s);
        } else {
            QCOMPARE(failed.size(), 1);
            QVERIFY2(failed.first().first().toString().contains(expected), qPrintable(failed.first().first().toString()));
        }
    }

    // A session that starts with server/discover (the era a server was found to speak before)
    // turns to initialize when the server has since come to speak the handshake era only.
    void discoverFirstFallsBackToInitialize_data() { addServerRows(); }

    void discoverFirstFallsBackToInitialize()
    {
        QFETCH(QString, era);
        QFETCH(bool, overHttp);
        EraServer server{era, overHttp};
        QVERIFY(server.start());
        SessionOptions options = optionsFor(std::nullopt);
        options.firstEra = ProtocolEra::Stateless;
        McpClientSession session(server.transport()(), options);
        QVERIFY(openReady(session, 30000));
        QCOMPARE(session.serverIdentity().protocolVersion, era == u"2025" ? u"2025-11-25"_s : u"2026-07-28"_s);
        QCOMPARE(session.eraToTryFirst(), session.era());
    }

    // The stateless era's questions (input_required) are answered by the client whose request it
    // is, exactly as a server's requests are in the handshake era, and the request goes again
    // with the answers and the server's requestState byte for byte (the server checks it).
    void serverQuestionsAreAnsweredInEitherEra_data() { addServerRows(); }

    void serverQuestionsAreAnsweredInEitherEra()
    {
        QFETCH(QString, era);
        QFETCH(bool, overHttp);
        if (overHttp && era != u"2026")
            QSKIP("the SDK serves the handshake era over HTTP without sessions, so its server asks no client");
        EraServer server{era, overHttp};
        QVERIFY(server.start());
        auto client = std::make_shared<FakeClient>(u"the test"_s);
        auto session = openSession(server, era == u"2025" ? std::optional<ProtocolEra>() : ProtocolEra::Stateless);
        QVERIFY(session);
        session->setClientSide(client);

        ToolCallInput input{QJsonObject{{u"env"_s, u"prod"_s}}};
        input.origin = client;
        client->answerAtOnce = RpcReply{QJsonObject{{u"action"_s, u"accept"_s}, {u"content"_s, QJsonObject{{u"confirm"_s, true}}}},
                                        std::nullopt};
        ToolCallReply confirmed = awaitToolCall(
            [&](ToolCallHandler onReply) { session->callTool(u"confirm"_s, input, std::move(onReply)); }, 30000);
        QVERIFY2(!confirmed.error, qPrintable(confirmed.error ? confirmed.error->message : QString()));
        QVERIFY2(!confirmed.result.isError, qPrintable(firstText(confirmed)));
        QCOMPARE(firstText(confirmed), u"accept: deploy to prod confirm=true"_s);
        QCOMPARE(client->requests.size(), 1);
        QCOMPARE(client->requests.first().method, u"elicitation/create"_s);
        QCOMPARE(client->requests.first().params.value(u"message").toString(), u"Deploy to prod?"_s);

        client->answerAtOnce = RpcReply{QJsonObject{{u"role"_s, u"assistant"_s},
                                                    {u"content"_s, QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, u"42"_s}}},
                                                    {u"model"_s, u"test-model"_s}},
                                        std::nullopt};
        input.arguments = QJsonObject{{u"q"_s, u"meaning?"_s}};
        const ToolCallReply sampled = awaitToolCall(
            [&](ToolCallHandler onReply) { session->callTool(u"ask"_s, input, std::move(onReply)); }, 30000);
        QVERIFY2(!sampled.error, qPrintable(sampled.error ? sampled.error->message : QString()));
        QCOMPARE(firstText(sampled), u"sampled: 42"_s);
        QCOMPARE(client->requests.last().method, u"sampling/createMessage"_s);
    }

    // Roots are the session's: its client side's, or the config's when it has none.
    void rootsOfAStatelessSession()
    {
        EraServer server{u"2026"_s, false};
        QVERIFY(server.start());
        auto session = openSession(server, std::nullopt);
        QVERIFY(session);
        const ToolCallReply reply = call(*session, u"roots"_s, {});
        QVERIFY(!reply.error);
        QCOMPARE(firstText(reply), u"roots: file:///work/project"_s);
    }

    void aRefusedQuestionFailsTheRequest()
    {
        EraServer server{u"2026"_s, false};
        QVERIFY(server.start());
        auto client = std::make_shared<FakeClient>(u"the test"_s);
        auto session = openSession(server, std::nullopt);
        QVERIFY(session);
        ToolCallInput input{QJsonObject{{u"q"_s, u"x"_s}}};
        input.origin = client;
        client->answerAtOnce = RpcReply::failure(JsonRpc::MethodNotFound, u"no model here"_s);
        const ToolCallReply reply = awaitToolCall(
            [&](ToolCallHandler onReply) { session->callTool(u"ask"_s, input, std::move(onReply)); }, 30000);
        QVERIFY(reply.error);
        QCOMPARE(reply.error->code, int(JsonRpc::MethodNotFound));
        QVERIFY2(reply.error->message.contains(u"server 'era' needed an answer to go on with tools/call, and the client "
                                               "gave none: no model here"_s),
                 qPrintable(reply.error->message));
    }

    // A server that asks again whatever the answer is given up on after MaxInputRounds (10)
    // rounds: the client is asked 10 times, and the server is called 11 times (the first call and
    // a retry after each answer); the 11th input_required ends the request.
    void anEndlessRoundOfQuestionsIsBounded()
    {
        EraServer server{u"2026"_s, false};
        QVERIFY(server.start());
        auto client = std::make_shared<FakeClient>(u"the test"_s);
        auto session = openSession(server, std::nullopt);
        QVERIFY(session);
        ToolCallInput input{QJsonObject{}};
        input.origin = client;
        client->answerAtOnce = RpcReply{QJsonObject{{u"action"_s, u"accept"_s}, {u"content"_s, QJsonObject{{u"confirm"_s, true}}}},
                                        std::nullopt};
        const ToolCallReply reply = awaitToolCall(
            [&](ToolCallHandler onReply) { session->callTool(u"nag"_s, input, std::move(onReply)); }, 30000);
        QVERIFY(reply.error);
        QCOMPARE(reply.error->code, int(JsonRpc::InvalidReply));
        QVERIFY2(reply.error->message.contains(u"server 'era' asked for input 10 times for one tools/call and still was not done"_s),
                 qPrintable(reply.error->message));
        QCOMPARE(client->requests.size(), 10);
        for (qsizetype i = 0; i < client->requests.size(); ++i) {
            QCOMPARE(client->requests.at(i).method, u"elicitation/create"_s);
            QCOMPARE(client->requests.at(i).params.value(u"message").toString(), u"Sure? (round %1)"_s.arg(i + 1));
        }
        QCOMPARE(client->cancelled.size(), 0); // every question was answered: none is withdrawn

        const ToolCallReply count = call(*session, u"nag-count"_s, {});
        QVERIFY2(!count.error, qPrintable(count.error ? count.error->message : QString()));
        QCOMPARE(firstText(count), u"11"_s);
        QCOMPARE(session->pendingRequestCount(), 1); // the listen alone
    }

    // Cancelled while its client still answers, a request ends at once and the question is
    // withdrawn; the id the caller knows is the one it cancels by.
    void cancelledWhileTheClientAnswers()
    {
        EraServer server{u"2026"_s, false};
        QVERIFY(server.start());
        auto client = std::make_shared<FakeClient>(u"the test"_s);
        auto session = openSession(server, std::nullopt);
        QVERIFY(session);
        ToolCallInput input{QJsonObject{{u"env"_s, u"prod"_s}}};
        input.origin = client;
        std::optional<ToolCallReply> reply;
        const qint64 id = session->callTool(u"confirm"_s, input, [&](const ToolCallReply &r) { reply = r; });
        QTRY_COMPARE_WITH_TIMEOUT(client->requests.size(), 1, 30000);
        session->cancel(id, u"the person closed the form"_s);
        QVERIFY(reply);
        QVERIFY(reply->error);
        QCOMPARE(reply->error->code, int(JsonRpc::RequestCancelled));
        QCOMPARE(client->cancelled.size(), 1);
        QCOMPARE(client->cancelled.first().second, u"the person closed the form"_s);
        // A late answer is taken by nobody.
        client->replies.first()(RpcReply{QJsonObject{{u"action"_s, u"accept"_s}}, std::nullopt});
        QCOMPARE(session->pendingRequestCount(), 1); // the listen alone
    }

    // subscriptions/listen brings what changes: list changes, and updates of the resources
    // subscribed to (resources/subscribe is answered by the session: the listen asks for them).
    void listenBringsChanges_data()
    {
        QTest::addColumn<bool>("overHttp");
        QTest::newRow("stdio") << false;
        QTest::newRow("http") << true;
    }

    void listenBringsChanges()
    {
        QFETCH(bool, overHttp);
        EraServer server{u"2026"_s, overHttp};
        QVERIFY(server.start());
        auto shared = std::make_shared<FakeClient>(u"the shared side"_s);
        auto session = openSession(server, std::nullopt, shared);
        QVERIFY(session);
        QSignalSpy toolsChanged(session.get(), &McpClientSession::toolsListChanged);
        QCOMPARE(call(*session, u"add-tool"_s, {}).result.isError, false);
        QTRY_VERIFY_WITH_TIMEOUT(toolsChanged.size() >= 1, 15000);
        const ToolListReply tools = awaitToolList([&](ToolListHandler onReply) { session->listTools(std::move(onReply)); }, 30000);
        QCOMPARE(tools.tools.size(), 9);

        const RpcReply subscribed = awaitRpc([&](ReplyHandler onReply) {
            session->request(u"resources/subscribe"_s, {{u"uri"_s, u"file:///readme.txt"_s}}, std::move(onReply));
        }, 10000);
        QVERIFY(subscribed.ok());
        // The new listen is open once the server acknowledged it; a touch after that is heard
        // (QTRY waits on the event loop between touches).
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                call(*session, u"touch"_s, {});
                return std::any_of(shared->notifications.cbegin(), shared->notifications.cend(), [](const auto &n) {
                    return n.method == u"notifications/resources/updated";
                });
            }(),
            15000);
        const auto updated = std::find_if(shared->notifications.cbegin(), shared->notifications.cend(),
                                          [](const auto &n) { return n.method == u"notifications/resources/updated"; });
        QCOMPARE(updated->params.value(u"uri").toString(), u"file:///readme.txt"_s);
        QVERIFY2(!updated->params.contains(u"_meta"), "the listen's subscription id is the session's own business");
    }

    // The stateless era has no ping: the heartbeat's probe is server/discover.
    void statelessLivenessIsDiscover()
    {
        EraServer server{u"2026"_s, false};
        QVERIFY(server.start());
        auto session = openSession(server, std::nullopt);
        QVERIFY(session);
        std::optional<RpcReply> answered;
        QCOMPARE(session->ping([&](const RpcReply &reply) { answered = reply; }), u"server/discover"_s);
        QTRY_VERIFY_WITH_TIMEOUT(answered.has_value(), 10000);
        QVERIFY(answered->ok());
    }

    // The supervisor: the era found is shown, a pinned era the server does not speak fails at once
    // without a retry, and -32022 names both sides' versions.
    void supervisorShowsTheEraAndGivesUpOnAWrongPin()
    {
        EraServer server{u"2026"_s, false};
        QVERIFY(server.start());
        ToolRegistry registry;
        SupervisorSettings settings;
        settings.requestTimeout = std::chrono::seconds(20);
        ConnectionSupervisor found(u"found"_s, server.transport(), settings, &registry);
        found.start();
        QTRY_COMPARE_WITH_TIMEOUT(found.status().state, ServerState::Connected, 30000);
        QCOMPARE(found.status().protocolVersion, u"2026-07-28"_s);
        QCOMPARE(found.status().toolCount, 8);

        settings.pinnedEra = ProtocolEra::Handshake;
        ConnectionSupervisor pinned(u"pinned"_s, server.transport(), settings, &registry);
        pinned.start();
        QTRY_COMPARE_WITH_TIMEOUT(pinned.status().state, ServerState::Failed, 30000);
        QCOMPARE(pinned.status().generation, quint64(1)); // never retried
        QCOMPARE(pinned.status().cause, u"speaks protocol 2026-07-28 only (set \"protocol\" to \"auto\")"_s);
        found.stop();
        pinned.stop();
        QTRY_COMPARE_WITH_TIMEOUT(found.status().state, ServerState::Stopped, 10000);
    }
};

QTEST_GUILESS_MAIN(TestProtocolEras)
#include "tst_protocoleras.moc"
