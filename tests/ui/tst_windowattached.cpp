// A window opened on a config that a headless Tether (tetherctl daemon) runs is a client of it:
// the same table, tools, log and actions, fed by that Tether, and the servers stay when the window
// goes. Real processes: tetherctl daemon and the demo server.
#include "control/remoteservers.h"
#include "mainwindow.h"
#include "servertablemodel.h"
#include "support/fakeclientside.h"
#include "support/gatewayfixtures.h"
#include "support/namedchild.h"
#include "support/runprogram.h"

#include <QAction>
#include <QProcess>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

class TestWindowAttached final : public QObject
{
    Q_OBJECT

private:
    QProcessEnvironment environment() const
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"XDG_RUNTIME_DIR"_s, m_home.path());
        environment.insert(u"XDG_STATE_HOME"_s, m_home.filePath(u"state"_s));
        environment.insert(u"TETHER_TOKEN_STORE"_s, u"file"_s);
        return environment;
    }

    QJsonObject statusOf(const QString &server) const
    {
        const ProgramRun run = runProgram(QStringLiteral(TETHERCTL), {u"status"_s, u"--json"_s, u"--config"_s, m_config},
                                          environment());
        for (const QJsonValue &row : QJsonDocument::fromJson(run.out.toUtf8()).array()) {
            if (row.toObject().value(u"server").toString() == server)
                return row.toObject();
        }
        return {};
    }

    // tetherctl daemon on the config, with every server connected.
    void startDaemon(QProcess &daemon) const
    {
        daemon.setProcessEnvironment(environment());
        daemon.start(QStringLiteral(TETHERCTL), {u"daemon"_s, u"--config"_s, m_config});
        QVERIFY(daemon.waitForStarted());
        QTRY_COMPARE_WITH_TIMEOUT(statusOf(u"b"_s).value(u"state"_s).toString(), u"Connected"_s, 15000);
    }

    QTemporaryDir m_home;
    QString m_config;

private slots:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        qputenv("XDG_RUNTIME_DIR", m_home.path().toLocal8Bit());
        m_config = writeServersFile(m_home, configText({{u"a"_s, demoEntry()}, {u"b"_s, demoEntry()}}));
    }

    void theWindowShowsAndDrivesTheServersOfTheInstance()
    {
        QProcess daemon;
        startDaemon(daemon);
        if (QTest::currentTestFailed())
            return;
        const qint64 bPid = statusOf(u"b"_s).value(u"pid"_s).toInteger();
        qint64 aPid = 0; // once it is started again from tetherctl

        Attachment attachment = attachToInstance(m_config, u"test window"_s);
        QVERIFY2(attachment.client, qPrintable(attachment.why));
        QCOMPARE(attachment.client->instance().kind, u"daemon"_s);
        ConfigStore store({m_config, false}, programConfigContext());
        {
            RemoteServers servers(std::move(attachment.client), store);
            QSignalSpy lost(&servers, &RemoteServers::lost);
            MainWindow window(servers, store);
            store.load(ConfigStore::FileChanges::Ignore);
            servers.start();
            window.show();

            // The table is the instance's: its states and its pids.
            auto *model = namedChild<ServerTableModel>(window, u"serverModel"_s);
            const auto rowOf = [model](const QString &name) {
                for (int row = 0; row < model->rowCount(); ++row) {
                    if (model->index(row, 0).data(ServerTableModel::NameRole).toString() == name)
                        return row;
                }
                return -1;
            };
            QTRY_COMPARE(model->rowCount(), 2);
            QTRY_COMPARE(model->index(rowOf(u"a"_s), ServerTableModel::State).data().toString(), u"Connected"_s);
            QCOMPARE(model->index(rowOf(u"b"_s), ServerTableModel::Pid).data().toLongLong(), bPid);
            QTRY_VERIFY(servers.registry().find(u"a__echo"_s).has_value());
            QTRY_VERIFY(!servers.eventLog().events(u"a"_s).isEmpty());
            QVERIFY(servers.serverConfig(u"a"_s));

            // Stop from the window: the instance stops it, and the window shows it.
            QTableView *table = window.table();
            table->selectRow(rowOf(u"a"_s));
            namedChild<QAction>(window, u"stopServer"_s)->trigger();
            QTRY_COMPARE_WITH_TIMEOUT(statusOf(u"a"_s).value(u"state"_s).toString(), u"Stopped"_s, 10000);
            QTRY_COMPARE(model->index(rowOf(u"a"_s), ServerTableModel::State).data().toString(), u"Stopped"_s);
            // And from tetherctl: the window sees it too.
            QCOMPARE(runProgram(QStringLiteral(TETHERCTL), {u"start"_s, u"a"_s, u"--config"_s, m_config}, environment()).exitCode, 0);
            QTRY_COMPARE_WITH_TIMEOUT(model->index(rowOf(u"a"_s), ServerTableModel::State).data().toString(), u"Connected"_s,
                                      10000);
            aPid = statusOf(u"a"_s).value(u"pid"_s).toInteger();

            // Calls go to the instance's servers; a cancelled one is answered at once.
            std::optional<ToolCallReply> echoed;
            servers.callTool(u"b"_s, u"echo"_s, QJsonObject{{u"message"_s, u"attached"_s}},
                             [&echoed](const ToolCallReply &reply) { echoed = reply; });
            QTRY_VERIFY(echoed);
            QVERIFY2(!echoed->error, qPrintable(echoed->error ? echoed->error->message : QString()));
            QCOMPARE(renderContent(echoed->result.content), u"attached"_s);
            std::optional<ToolCallReply> slept;
            const ToolCallTicket ticket = servers.callTool(u"b"_s, u"sleep"_s, QJsonObject{{u"ms"_s, 60000}},
                                                           [&slept](const ToolCallReply &reply) { slept = reply; });
            QVERIFY(servers.cancelToolCall(ticket, u"changed my mind"_s));
            QVERIFY(slept && slept->error);
            QCOMPARE(slept->error->code, int(JsonRpc::RequestCancelled));
            QVERIFY(!servers.cancelToolCall(ticket));
            // What the server asks while a call runs is asked of the part of the window that made it.
            const auto asker = std::make_shared<FakeClient>(u"the tool call dialog"_s);
            RpcReply accepted;
            accepted.result = QJsonObject{{u"action"_s, u"accept"_s},
                                          {u"content"_s, QJsonObject{{u"name"_s, u"Ada"_s}, {u"confirm"_s, true}}}};
            asker->answerAtOnce = accepted;
            ToolCallInput elicit(QJsonObject{});
            elicit.origin = asker;
            std::optional<ToolCallReply> elicited;
            servers.callTool(u"b"_s, u"elicit"_s, elicit, [&elicited](const ToolCallReply &reply) { elicited = reply; });
            QTRY_VERIFY(elicited);
            QVERIFY2(!elicited->error, qPrintable(elicited->error ? elicited->error->message : QString()));
            QCOMPARE(asker->requests.size(), 1);
            QCOMPARE(asker->requests.first().method, u"elicitation/create"_s);
            QCOMPARE(renderContent(elicited->result.content), u"action: accept; content: {\"confirm\":true,\"name\":\"Ada\"}"_s);

            // A server taken out of the file: the instance follows the file, and the window follows the instance.
            QVERIFY(writeFile(m_config, configText({{u"a"_s, demoEntry()}})));
            QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 1, 10000);
            QTRY_VERIFY(!servers.registry().find(u"b__echo"_s).has_value());
            QCOMPARE(servers.serverNames(), QStringList{u"a"_s});
            QVERIFY(writeFile(m_config, configText({{u"a"_s, demoEntry()}, {u"b"_s, demoEntry()}})));
            QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 2, 10000);
            QCOMPARE(lost.size(), 0);
            // The window goes with a call still running: the daemon cancels it, and goes on.
            servers.callTool(u"a"_s, u"sleep"_s, QJsonObject{{u"ms"_s, 60000}}, [](const ToolCallReply &) {});
        }
        // The window has gone; the servers stay where they run.
        QTRY_COMPARE_WITH_TIMEOUT(statusOf(u"b"_s).value(u"state"_s).toString(), u"Connected"_s, 10000);
        QCOMPARE(statusOf(u"a"_s).value(u"pid"_s).toInteger(), aPid);
        QCOMPARE(daemon.state(), QProcess::Running);

        ::kill(pid_t(daemon.processId()), SIGTERM);
        QVERIFY(daemon.waitForFinished(15000));
    }

    void aWindowIsToldAtOnceWhenTheInstanceDies()
    {
        QProcess daemon;
        startDaemon(daemon);
        if (QTest::currentTestFailed())
            return;
        Attachment attachment = attachToInstance(m_config, u"test window"_s);
        QVERIFY2(attachment.client, qPrintable(attachment.why));
        ConfigStore store({m_config, false}, programConfigContext());
        RemoteServers servers(std::move(attachment.client), store);
        QSignalSpy lost(&servers, &RemoteServers::lost);
        QSignalSpy ready(&servers, &RemoteServers::ready);
        servers.start();
        QTRY_COMPARE(ready.size(), 1);
        daemon.kill();
        QTRY_COMPARE(lost.size(), 1);
        QVERIFY2(lost.first().first().toString().contains(u"has gone"_s), qPrintable(lost.first().first().toString()));
        // What was shown stays, as the instance's last word.
        QCOMPARE(servers.statuses().size(), 2);
        QTRY_COMPARE(daemon.state(), QProcess::NotRunning);
    }
};

QTEST_MAIN(TestWindowAttached)
#include "tst_windowattached.moc"
