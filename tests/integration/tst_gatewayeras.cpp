// The gateway in both eras of MCP: hosts of the official TypeScript SDK v2 client, pinned to
// 2026-07-28, finding the era (auto) or speaking 2025-11-25 only (legacy), in front of
// `tetherctl serve`, with servers of the SDK v2 behind it that speak one era each; a server's
// questions reach the host across the break both ways (tests/integration/eras/).
#include "support/httpgatewayprocess.h"
#include "support/runprogram.h"
#include "support/testfiles.h"

#include "protocol/jsonrpc.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

const QString Peers = QStringLiteral(TETHER_ERA_PEERS);

QString node()
{
    return QStandardPaths::findExecutable(u"node"_s);
}

// The events erahost.mjs wrote, one object per line.
QList<QJsonObject> eventsOf(const ProgramRun &run)
{
    QList<QJsonObject> events;
    for (const QString &line : run.out.split(u'\n', Qt::SkipEmptyParts))
        events.append(QJsonDocument::fromJson(line.toUtf8()).object());
    return events;
}

QJsonObject eventNamed(const QList<QJsonObject> &events, const QString &event, const QString &name = {})
{
    for (const QJsonObject &entry : events) {
        if (entry.value(u"event") == event && (name.isEmpty() || entry.value(u"name") == name))
            return entry;
    }
    return {};
}

QString resultText(const QJsonObject &resultEvent)
{
    return resultEvent.value(u"result").toObject().value(u"content").toArray().first().toObject().value(u"text").toString();
}

} // namespace

class TestGatewayEras final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_configPath;
    QString m_startsLog; // a line for each start of a server of the config

    // erahost.mjs in `mode` with `arguments` (its --call and --listen), in front of `tetherctl
    // serve` over stdio, or of `gateway` (serve --http).
    ProgramRun host(const QString &mode, const QStringList &arguments, const HttpGatewayProcess *gateway = nullptr)
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"XDG_RUNTIME_DIR"_s, m_dir.path());
        // Assigned rather than chosen between two temporaries, which GCC 12's -O3 takes for dangling.
        QStringList face{u"--"_s, QStringLiteral(TETHERCTL), u"serve"_s, u"--config"_s, m_configPath};
        if (gateway)
            face = QStringList{u"--http"_s, gateway->url, QString::fromUtf8(gateway->token)};
        return runProgram(node(), QStringList{Peers + u"/erahost.mjs"_s, u"--mode"_s, mode} + arguments + face, environment,
                          60000);
    }

    // One POST to the gateway over HTTP: its status and body.
    std::pair<int, QJsonObject> post(const HttpGatewayProcess &gateway, const QJsonObject &body,
                                     const QList<std::pair<QByteArray, QByteArray>> &headers)
    {
        QNetworkAccessManager network;
        QNetworkRequest request{QUrl(gateway.url)};
        request.setHeader(QNetworkRequest::ContentTypeHeader, u"application/json"_s);
        request.setRawHeader("Accept", "application/json, text/event-stream");
        request.setRawHeader("Authorization", "Bearer " + gateway.token);
        for (const auto &[name, value] : headers)
            request.setRawHeader(name, value);
        QNetworkReply *reply = network.post(request, QJsonDocument(body).toJson(QJsonDocument::Compact));
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!finished.wait(30000))
            return {0, {}};
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QJsonObject answer = QJsonDocument::fromJson(reply->readAll()).object();
        reply->deleteLater();
        return {status, answer};
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(!node().isEmpty(), "node is not on PATH");
        QVERIFY2(QFileInfo::exists(QStringLiteral(TETHER_NODE_MODULES "/@modelcontextprotocol/client/package.json")),
                 "the SDK v2 client is not installed: run scripts/test.sh (or npm ci in the source folder)");
        QVERIFY(m_dir.isValid());
        m_configPath = m_dir.filePath(u"servers.json"_s);
        m_startsLog = m_dir.filePath(u"starts.log"_s);
        // Each server notes its start (through sh, which the config may name like any program).
        const auto server = [&](const QString &era) {
            const QJsonArray arguments{u"-c"_s, u"echo %1 >> \"$0\"; exec \"$1\" \"$2\" --era %1"_s.arg(era), m_startsLog,
                                       node(), QString(Peers + u"/eraserver.mjs"_s)};
            return QJsonObject{{u"command"_s, u"sh"_s}, {u"args"_s, arguments}};
        };
        const QJsonObject config{{u"mcpServers"_s, QJsonObject{{u"old"_s, server(u"2025"_s)}, {u"new"_s, server(u"2026"_s)}}}};
        QVERIFY(writeFile(m_configPath, QJsonDocument(config).toJson()));
    }

    // Each host speaks its era with the gateway, whatever its servers speak, and a server's
    // questions cross the break: a 2025 server's elicitation and sampling become input_required
    // for a 2026 host, and a 2026 server's input_required becomes requests to a 2025 host.
    void everyHostReachesEveryServer_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("protocol"); // what the host speaks with the gateway
        QTest::addColumn<bool>("overHttp");
        for (const bool http : {false, true}) {
            const QByteArray face = http ? QByteArray("http ") : QByteArray("stdio ");
            QTest::newRow(QByteArray(face + "pinned 2026").constData()) << u"2026"_s << u"2026-07-28"_s << http;
            QTest::newRow(QByteArray(face + "auto").constData()) << u"auto"_s << u"2026-07-28"_s << http;
            QTest::newRow(QByteArray(face + "legacy").constData()) << u"legacy"_s << u"2025-11-25"_s << http;
        }
    }

    void everyHostReachesEveryServer()
    {
        QFETCH(QString, mode);
        QFETCH(QString, protocol);
        QFETCH(bool, overHttp);
        QFile::remove(m_startsLog);
        std::unique_ptr<HttpGatewayProcess> gateway;
        if (overHttp) {
            gateway = std::make_unique<HttpGatewayProcess>(m_configPath, m_dir.path());
            QVERIFY(gateway->isServing());
        }
        const ProgramRun run = host(mode, {u"--call"_s, u"old__confirm"_s, u"{\"env\":\"prod\"}"_s,
                                           u"--call"_s, u"new__confirm"_s, u"{\"env\":\"staging\"}"_s,
                                           u"--call"_s, u"old__ask"_s, u"{\"q\":\"meaning?\"}"_s,
                                           u"--call"_s, u"new__ask"_s, u"{\"q\":\"meaning?\"}"_s,
                                           u"--call"_s, u"new__echo"_s, u"{\"text\":\"hi\"}"_s},
                                    gateway.get());
        QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
        const QList<QJsonObject> events = eventsOf(run);
        const QJsonObject connected = eventNamed(events, u"connected"_s);
        // The SDK names no version for a session it opened with initialize.
        QCOMPARE(connected.value(u"protocol").toString(protocol == u"2026-07-28" ? QString() : protocol), protocol);
        QCOMPARE(connected.value(u"server").toObject().value(u"name").toString(), u"tether"_s);
        const QJsonArray tools = eventNamed(events, u"tools"_s).value(u"names").toArray();
        QVERIFY(tools.contains(u"old__confirm"_s) && tools.contains(u"new__confirm"_s));

        QCOMPARE(resultText(eventNamed(events, u"result"_s, u"old__confirm"_s)), u"accept: deploy to prod confirm=true"_s);
        QCOMPARE(resultText(eventNamed(events, u"result"_s, u"new__confirm"_s)), u"accept: deploy to staging confirm=true"_s);
        QCOMPARE(resultText(eventNamed(events, u"result"_s, u"old__ask"_s)), u"sampled: 42"_s);
        QCOMPARE(resultText(eventNamed(events, u"result"_s, u"new__ask"_s)), u"sampled: 42"_s);
        QCOMPARE(resultText(eventNamed(events, u"result"_s, u"new__echo"_s)), u"hi"_s);
        int asked = 0;
        for (const QJsonObject &event : events)
            asked += event.value(u"event") == u"asked"_s;
        QCOMPARE(asked, 4);
        // A client finding the era asks server/discover of a process of its own: that one starts no server.
        QCOMPARE(QString::fromUtf8(readFile(m_startsLog)).split(u'\n', Qt::SkipEmptyParts).size(), 2);
    }

    // Over HTTP a stateless request's headers must say what its body says, and name a version
    // Tether speaks; each refusal is a 400 with the JSON-RPC error that says why.
    void statelessHttpRequestsAreJudged_data()
    {
        QTest::addColumn<QJsonObject>("body");
        QTest::addColumn<QByteArray>("version"); // MCP-Protocol-Version
        QTest::addColumn<QByteArray>("method");  // Mcp-Method
        QTest::addColumn<QByteArray>("name");    // Mcp-Name; empty: none
        QTest::addColumn<int>("code");

        const auto request = [](const QString &method, QJsonObject params, const QString &version = u"2026-07-28"_s) {
            params.insert(u"_meta"_s, QJsonObject{{u"io.modelcontextprotocol/protocolVersion"_s, version},
                                                  {u"io.modelcontextprotocol/clientCapabilities"_s, QJsonObject{}}});
            return QJsonObject{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, 7}, {u"method"_s, method}, {u"params"_s, params}};
        };
        const QJsonObject call = request(u"tools/call"_s, {{u"name"_s, u"new__echo"_s}, {u"arguments"_s, QJsonObject{{u"text"_s, u"x"_s}}}});
        QTest::newRow("method header disagrees") << call << QByteArray("2026-07-28") << QByteArray("tools/list")
                                                 << QByteArray("new__echo") << int(JsonRpc::HeaderMismatch);
        QTest::newRow("name header missing") << call << QByteArray("2026-07-28") << QByteArray("tools/call") << QByteArray()
                                             << int(JsonRpc::HeaderMismatch);
        QTest::newRow("version header disagrees") << call << QByteArray("2025-11-25") << QByteArray("tools/call")
                                                  << QByteArray("new__echo") << int(JsonRpc::HeaderMismatch);
        QTest::newRow("unknown version") << request(u"tools/list"_s, {}, u"2027-01-01"_s) << QByteArray("2027-01-01")
                                         << QByteArray("tools/list") << QByteArray() << int(JsonRpc::UnsupportedProtocolVersion);
        QJsonObject bare = request(u"tools/list"_s, {});
        bare.insert(u"params"_s, QJsonObject{});
        QTest::newRow("no envelope") << bare << QByteArray("2026-07-28") << QByteArray("tools/list") << QByteArray()
                                     << int(JsonRpc::InvalidParams);
    }

    void statelessHttpRequestsAreJudged()
    {
        QFETCH(QJsonObject, body);
        QFETCH(QByteArray, version);
        QFETCH(QByteArray, method);
        QFETCH(QByteArray, name);
        QFETCH(int, code);
        HttpGatewayProcess gateway(m_configPath, m_dir.path());
        QVERIFY(gateway.isServing());
        QList<std::pair<QByteArray, QByteArray>> headers{{"MCP-Protocol-Version", version}, {"Mcp-Method", method}};
        if (!name.isEmpty())
            headers.append({"Mcp-Name", name});
        const auto [status, answer] = post(gateway, body, headers);
        QCOMPARE(status, 400);
        QCOMPARE(answer.value(u"error").toObject().value(u"code").toInt(), code);
        if (code == JsonRpc::UnsupportedProtocolVersion) {
            const QJsonArray supported = answer.value(u"error").toObject().value(u"data").toObject().value(u"supported").toArray();
            QVERIFY(supported.contains(u"2026-07-28"_s) && supported.contains(u"2025-11-25"_s));
        }
        // The same request with headers that agree is served.
        if (code == JsonRpc::HeaderMismatch) {
            const auto [servedStatus, served] = post(gateway, body, {{"MCP-Protocol-Version", "2026-07-28"},
                                                                   {"Mcp-Method", "tools/call"}, {"Mcp-Name", "new__echo"}});
            QCOMPARE(servedStatus, 200);
            QCOMPARE(served.value(u"result").toObject().value(u"resultType").toString(), u"complete"_s);
        }
    }

    // A stateless host hears of list changes on its listen: over stdio, and over HTTP on the
    // listen's event stream.
    void aListeningHostHearsOfChanges_data()
    {
        QTest::addColumn<bool>("overHttp");
        QTest::newRow("stdio") << false;
        QTest::newRow("http") << true;
    }

    void aListeningHostHearsOfChanges()
    {
        QFETCH(bool, overHttp);
        std::unique_ptr<HttpGatewayProcess> gateway;
        if (overHttp) {
            gateway = std::make_unique<HttpGatewayProcess>(m_configPath, m_dir.path());
            QVERIFY(gateway->isServing());
        }
        const ProgramRun run = host(u"2026"_s, {u"--listen"_s, u"--call"_s, u"new__add-tool"_s, u"{}"_s}, gateway.get());
        QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
        QVERIFY(!eventNamed(eventsOf(run), u"list_changed"_s).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestGatewayEras)
#include "tst_gatewayeras.moc"
