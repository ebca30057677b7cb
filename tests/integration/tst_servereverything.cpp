// End to end against the official reference server @modelcontextprotocol/server-everything
// (pinned in package-lock.json, installed by scripts/test.sh) over stdio.
#include "session/mcpclientsession.h"
#include "support/awaitreply.h"
#include "support/openready.h"
#include "support/testprocess.h"

#include <QFileInfo>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

class TestServerEverything final : public QObject
{
    Q_OBJECT

private:
    ToolCallReply call(const QString &tool, const QJsonObject &arguments, ProgressHandler onProgress = {})
    {
        return awaitToolCall([&](ToolCallHandler onReply) {
            m_session->callTool(tool, arguments, std::move(onReply), std::move(onProgress));
        }, 30000);
    }

    std::unique_ptr<McpClientSession> m_session;
    qint64 m_pid = 0;

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(serverEverythingScript()),
                 "server-everything is not installed: run scripts/test.sh (or npm ci in the source folder)");
        QVERIFY2(!serverEverything().program.isEmpty(), "node is not on PATH");
    }

    void handshakeDespiteAnEarlyListChanged()
    {
        auto transport = std::make_unique<StdioTransport>(serverEverything());
        StdioTransport *stdio = transport.get();
        m_session = std::make_unique<McpClientSession>(std::move(transport), SessionOptions{u"everything"_s, std::chrono::seconds(30)});
        QSignalSpy changed(m_session.get(), &McpClientSession::toolsListChanged);
        bool changedBeforeReady = false;
        connect(m_session.get(), &McpClientSession::toolsListChanged, this,
                [&] { changedBeforeReady |= !m_session->isReady(); });
        QVERIFY(openReady(*m_session, 30000));
        // server-everything announces list_changed as soon as it is initialized, racing the
        // first tools/list: it is passed on once the session is ready, never before.
        QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 10000);
        QVERIFY(!changedBeforeReady);
        QCOMPARE(m_session->serverIdentity().protocolVersion, u"2025-11-25"_s);
        QVERIFY(m_session->serverIdentity().capabilities.contains(u"tools"));
        m_pid = stdio->processId();
        QVERIFY(processAlive(m_pid));
    }

    void listsEveryTool()
    {
        const ToolListReply reply = awaitToolList([&](ToolListHandler onReply) { m_session->listTools(std::move(onReply)); }, 30000);
        QVERIFY(!reply.error);
        QVERIFY(reply.warnings.isEmpty());
        QStringList names;
        for (const ToolDefinition &tool : reply.tools) {
            names.append(tool.name);
            QVERIFY2(!tool.description.isEmpty(), qPrintable(tool.name));
            QCOMPARE(tool.inputSchema().value(u"type").toString(), u"object"_s);
        }
        // The tools this pinned version offers a client without sampling, roots or elicitation.
        const QStringList expected{u"echo"_s, u"get-annotated-message"_s, u"get-env"_s, u"get-resource-links"_s,
                                   u"get-resource-reference"_s, u"get-structured-content"_s, u"get-sum"_s,
                                   u"get-tiny-image"_s, u"gzip-file-as-resource"_s, u"toggle-simulated-logging"_s,
                                   u"toggle-subscriber-updates"_s, u"trigger-long-running-operation"_s,
                                   u"simulate-research-query"_s};
        QCOMPARE(names, expected);
    }

    void callsEcho()
    {
        const ToolCallReply reply = call(u"echo"_s, {{u"message"_s, u"hello from Tether"_s}});
        QVERIFY(!reply.error);
        QVERIFY(!reply.result.isError);
        QCOMPARE(renderContent(reply.result.content), u"Echo: hello from Tether"_s);
    }

    void callsGetSumAndRendersAnImage()
    {
        const ToolCallReply sum = call(u"get-sum"_s, {{u"a"_s, 2}, {u"b"_s, 40}});
        QVERIFY(!sum.error);
        QVERIFY(renderContent(sum.result.content).contains(u"42"_s));

        const ToolCallReply image = call(u"get-tiny-image"_s, {});
        QVERIFY(!image.error);
        QVERIFY2(renderContent(image.result.content).contains(u"[image: image/png"_s),
                 qPrintable(renderContent(image.result.content)));
    }

    void progressOfALongRunningOperation()
    {
        QList<ProgressUpdate> updates;
        const ToolCallReply reply = call(u"trigger-long-running-operation"_s, {{u"duration"_s, 1}, {u"steps"_s, 3}},
                                         [&](const ProgressUpdate &u) { updates.append(u); });
        QVERIFY(!reply.error);
        QCOMPARE(updates.size(), 3);
        QCOMPARE(updates.last().total, std::optional<double>(3));
    }

    void pingsTheServer()
    {
        QVERIFY(awaitRpc([&](ReplyHandler onReply) { m_session->ping(std::move(onReply)); }, 30000).ok());
    }

    void closesCleanly()
    {
        QSignalSpy closed(m_session.get(), &McpClientSession::closed);
        m_session->close();
        QTRY_VERIFY_WITH_TIMEOUT(closed.size() == 1, 10000);
        QVERIFY(!processAlive(m_pid));
        m_session.reset();
    }
};

QTEST_GUILESS_MAIN(TestServerEverything)
#include "tst_servereverything.moc"
