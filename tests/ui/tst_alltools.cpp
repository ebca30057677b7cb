// Server ▸ All tools… in the window, on two real demo servers: every tool of both is listed with
// its server and state; typing searches names, servers and descriptions; a tool is called from
// the list (the Call tool dialog of that tool on its server opens) and hidden from AI clients
// (its server's "tools.disabled" is saved, the other server's same-named tool untouched); a server
// that stops takes its tools out of the list.
#include "mainwindow.h"
#include "toolcalldialog.h"
#include "config/configstore.h"
#include "manager/servermanager.h"
#include "support/namedchild.h"
#include "support/stopallandwait.h"
#include "support/testfiles.h"
#include "support/testprocess.h"

#include <QAction>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

class TestAllTools final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        // The window remembers its geometry in QSettings: never in the user's own files.
        QStandardPaths::setTestModeEnabled(true);
    }

    void everyToolOfEveryServerIsSearchedCalledAndHidden()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        const QJsonObject demo{{u"command"_s, demoServer().program}, {u"heartbeat"_s, QJsonObject{{u"enabled"_s, false}}}};
        QVERIFY(writeFile(path, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{{u"alpha"_s, demo},
                                                                                            {u"beta"_s, demo}}}}).toJson()));
        ServerManager manager;
        ConfigStore store({path, false}, {systemEnvironment(), {}}, dir.filePath(u"user.json"_s));
        connect(&store, &ConfigStore::documentChanged, &manager, &ServerManager::applyConfig);
        MainWindow window(manager, store);
        store.load();
        window.show();
        const auto connected = [&](const QString &name) {
            return manager.status(name) && manager.status(name)->state == ServerState::Connected;
        };
        QTRY_VERIFY_WITH_TIMEOUT(connected(u"alpha"_s) && connected(u"beta"_s), 10000);
        const qsizetype toolsEach = manager.registry().serverTools(u"alpha"_s).size();
        QVERIFY(toolsEach > 1);

        namedChild<QAction>(window, u"allTools"_s)->trigger();
        auto *dialog = namedChild<QDialog>(window, u"allToolsDialog"_s);
        QVERIFY(dialog->isVisible());
        auto *list = namedChild<QTreeView>(*dialog, u"allTools"_s);
        auto *search = namedChild<QLineEdit>(*dialog, u"toolSearch"_s);
        auto *count = namedChild<QLabel>(*dialog, u"toolCount"_s);
        auto *call = namedChild<QPushButton>(*dialog, u"callTool"_s);
        QAbstractItemModel *model = list->model();
        QCOMPARE(model->rowCount(), int(2 * toolsEach));
        const auto column = [&](const QString &title) {
            for (int section = 0; section < model->columnCount(); ++section) {
                if (model->headerData(section, Qt::Horizontal).toString() == title)
                    return section;
            }
            return -1;
        };
        const auto cell = [&](int row, const QString &title) { return model->index(row, column(title)).data().toString(); };
        const auto rowOf = [&](const QString &publicName) {
            for (int row = 0; row < model->rowCount(); ++row) {
                if (cell(row, u"Public name"_s).startsWith(publicName))
                    return row;
            }
            return -1;
        };

        // A word of a name, of a server, of a description.
        search->setText(u"ECHO"_s);
        QCOMPARE(model->rowCount(), 2);
        QCOMPARE(QSet<QString>({cell(0, u"Server"_s), cell(1, u"Server"_s)}), (QSet<QString>{u"alpha"_s, u"beta"_s}));
        QCOMPARE(cell(0, u"State"_s), u"Connected"_s);
        QCOMPARE(count->text(), u"2 of %1 tools"_s.arg(2 * toolsEach));
        search->setText(u"beta"_s);
        QCOMPARE(model->rowCount(), int(toolsEach));
        search->setText(u"message unchanged"_s); // the echo tool's description: "Returns its message unchanged."
        QVERIFY2(model->rowCount() == 2, qPrintable(cell(0, u"Description"_s)));
        search->clear();
        QCOMPARE(model->rowCount(), int(2 * toolsEach));

        // Calling: the dialog of that tool on its own server.
        list->setCurrentIndex(model->index(rowOf(u"beta__echo"_s), 0));
        QVERIFY(call->isEnabled());
        call->click();
        ToolCallDialog *callDialog = nullptr;
        QTRY_VERIFY((callDialog = window.findChild<ToolCallDialog *>()) != nullptr);
        QCOMPARE(callDialog->windowTitle(), u"Call echo on beta"_s);
        callDialog->close();

        // Hiding: saved for beta alone; the row stays, marked hidden.
        const QModelIndex betaEcho = model->index(rowOf(u"beta__echo"_s), 0);
        QVERIFY(betaEcho.flags() & Qt::ItemIsUserCheckable);
        QVERIFY(model->setData(betaEcho, Qt::Unchecked, Qt::CheckStateRole));
        const auto saved = [&](const QString &server) {
            return QJsonDocument::fromJson(readFile(path))[u"mcpServers"][server].toObject();
        };
        QCOMPARE(saved(u"beta"_s).value(u"tools"_s).toObject(), (QJsonObject{{u"disabled"_s, QJsonArray{u"echo"_s}}}));
        QVERIFY(!saved(u"alpha"_s).contains(u"tools"_s));
        QTRY_COMPARE(cell(rowOf(u"beta__echo"_s), u"Public name"_s), u"beta__echo (hidden)"_s);
        QCOMPARE(cell(rowOf(u"alpha__echo"_s), u"Public name"_s), u"alpha__echo"_s);

        // A server that stops takes its tools out of the list; the other's stay.
        manager.stop(u"alpha"_s);
        QTRY_COMPARE(model->rowCount(), int(toolsEach));
        QCOMPARE(rowOf(u"alpha__echo"_s), -1);
        QCOMPARE(count->text(), u"%1 tools"_s.arg(toolsEach));

        QVERIFY(stopAllAndWait(manager));
    }
};

QTEST_MAIN(TestAllTools)
#include "tst_alltools.moc"
