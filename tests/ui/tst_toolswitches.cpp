// The Tools tab's switches in the window, on a real demo server: unchecking a tool saves it in the
// server's "tools.disabled" like any other edit; the tool stays listed, greyed and marked hidden,
// and can still be called from the window; checking it again takes it out of the file.
#include "mainwindow.h"
#include "config/configstore.h"
#include "manager/servermanager.h"
#include "support/namedchild.h"
#include "support/stopallandwait.h"
#include "support/testfiles.h"
#include "support/testprocess.h"

#include <QAction>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPalette>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

class TestToolSwitches final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        // The window remembers its geometry in QSettings: never in the user's own files.
        QStandardPaths::setTestModeEnabled(true);
    }

    void uncheckingAToolSavesItHiddenAndKeepsItListed()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        const QJsonObject demo{{u"command"_s, demoServer().program}, {u"heartbeat"_s, QJsonObject{{u"enabled"_s, false}}}};
        QVERIFY(writeFile(path, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{{u"demo"_s, demo}}}}).toJson()));
        ServerManager manager;
        ConfigStore store({path, false}, {systemEnvironment(), {}}, dir.filePath(u"user.json"_s));
        connect(&store, &ConfigStore::documentChanged, &manager, &ServerManager::applyConfig);
        MainWindow window(manager, store);
        store.load();
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(manager.status(u"demo"_s)->state == ServerState::Connected, 10000);
        window.selectServer(u"demo"_s);

        QTreeView *tools = namedChild<QTreeView>(window, u"tools"_s);
        QTRY_VERIFY(tools->model()->rowCount() > 0);
        const auto echo = [&] {
            return tools->model()->match(tools->model()->index(0, 0), Qt::DisplayRole, u"echo"_s, 1, Qt::MatchExactly).value(0);
        };
        QVERIFY(echo().flags() & Qt::ItemIsUserCheckable);
        QCOMPARE(echo().data(Qt::CheckStateRole).value<Qt::CheckState>(), Qt::Checked);

        // What a click on the check box does.
        QVERIFY(tools->model()->setData(echo(), Qt::Unchecked, Qt::CheckStateRole));
        const auto saved = [&] { return QJsonDocument::fromJson(readFile(path))[u"mcpServers"][u"demo"].toObject(); };
        QCOMPARE(saved().value(u"tools").toObject(), (QJsonObject{{u"disabled"_s, QJsonArray{u"echo"_s}}}));
        QCOMPARE(saved().value(u"command").toString(), demoServer().program); // the rest of the entry as it was
        QTRY_COMPARE(echo().data(Qt::CheckStateRole).value<Qt::CheckState>(), Qt::Unchecked);
        QCOMPARE(echo().siblingAtColumn(1).data().toString(), u"demo__echo (hidden)"_s);
        QCOMPARE(echo().data(Qt::ForegroundRole).value<QBrush>(), QPalette().brush(QPalette::Disabled, QPalette::Text));
        // The switch is the gateway's: the server was not restarted, and the window can still call the tool.
        QCOMPARE(manager.status(u"demo"_s)->state, ServerState::Connected);
        tools->setCurrentIndex(echo());
        QVERIFY(namedChild<QAction>(window, u"callTool"_s)->isEnabled());

        QVERIFY(tools->model()->setData(echo(), Qt::Checked, Qt::CheckStateRole));
        QVERIFY(!saved().contains(u"tools"_s));
        QTRY_COMPARE(echo().data(Qt::CheckStateRole).value<Qt::CheckState>(), Qt::Checked);
        QCOMPARE(echo().siblingAtColumn(1).data().toString(), u"demo__echo"_s);

        QVERIFY(stopAllAndWait(manager));
    }
};

QTEST_MAIN(TestToolSwitches)
#include "tst_toolswitches.moc"
