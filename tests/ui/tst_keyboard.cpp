// Every window with the keyboard alone: Tab reaches every control and each has an accessible
// name, Tab leaves the server table, Esc (and Ctrl+W for a window that is not modal) closes what
// the main window opens, and a screen reader hears each server's state and cause.
#include "elicitationformdialog.h"
#include "importdialog.h"
#include "mainwindow.h"
#include "urlelicitationdialog.h"
#include "servertablemodel.h"
#include "config/configimport.h"
#include "config/configstore.h"
#include "gateway/gatewayservice.h"
#include "manager/servermanager.h"
#include "support/namedchild.h"
#include "support/stopallandwait.h"
#include "support/tabwalk.h"
#include "support/testfiles.h"
#include "support/testprocess.h"

#include <QAccessible>
#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMenu>
#include <QPointer>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <functional>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

// The window on a demo server that works and one that fails, with the gateway to show.
struct WindowFixture
{
    WindowFixture()
        : path(dir.filePath(u"servers.json"_s))
    {
        const QJsonObject demo{{u"command"_s, demoServer().program}, {u"heartbeat"_s, QJsonObject{{u"enabled"_s, false}}}};
        QJsonObject broken = demo;
        broken.insert(u"args"_s, QJsonArray{u"--fail-at-startup"_s});
        broken.insert(u"reconnect"_s, QJsonObject{{u"maxAttempts"_s, 1}, {u"initialDelayMs"_s, 50}, {u"jitter"_s, 0}});
        writeFile(path, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{{u"demo"_s, demo}, {u"broken"_s, broken}}}})
                            .toJson());
        QObject::connect(&store, &ConfigStore::documentChanged, &manager, &ServerManager::applyConfig);
        QObject::connect(&store, &ConfigStore::documentChanged, &service, [this](const ConfigDocument &document) {
            service.applyConfig(document.gateway, store.savePath());
        });
        window.setGateway(&service);
        store.load();
        window.show();
    }
    ~WindowFixture()
    {
        if (!stopAllAndWait(manager))
            qWarning("the demo servers did not stop");
    }

    bool connected()
    {
        return manager.status(u"demo"_s)->state == ServerState::Connected
               && manager.status(u"broken"_s)->state == ServerState::Failed;
    }

    QTemporaryDir dir;
    QString path;
    ServerManager manager;
    ConfigStore store{{path, false}, {systemEnvironment(), {}}, dir.filePath(u"user.json"_s)};
    GatewayService service{manager};
    MainWindow window{manager, store};
};

// Runs `check` on the modal dialog that `open` shows, then closes it with Esc; false if no
// dialog came or Esc left it open.
bool checkModal(const std::function<void()> &open, const std::function<void(QDialog *)> &check)
{
    bool closedByEscape = false;
    QTimer::singleShot(0, qApp, [&] {
        auto *dialog = qobject_cast<QDialog *>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        check(dialog);
        QTest::keyClick(dialog, Qt::Key_Escape);
        closedByEscape = !dialog->isVisible();
        if (!closedByEscape)
            dialog->reject();
    });
    open();
    return closedByEscape;
}

QString problems(QWidget *window)
{
    return keyboardProblems(window).join(u"; "_s);
}

} // namespace

class TestKeyboard final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
    }

    void mainWindow()
    {
        WindowFixture fixture;
        QTRY_VERIFY_WITH_TIMEOUT(fixture.connected(), 15000);
        fixture.window.selectServer(u"demo"_s);
        fixture.window.table()->setFocus();
        QVERIFY2(keyboardProblems(&fixture.window).isEmpty(), qPrintable(problems(&fixture.window)));
        // Tab leaves the table: it does not walk its cells.
        QTableView *table = fixture.window.table();
        table->setFocus();
        QTest::keyClick(table, Qt::Key_Tab);
        QVERIFY(QApplication::focusWidget() != table);
        table->setFocus();
        QTest::keyClick(table, Qt::Key_Tab, Qt::ShiftModifier);
        QVERIFY(QApplication::focusWidget() != table);
        // Ctrl+F goes to the filter.
        QTest::keySequence(&fixture.window, QKeySequence::Find);
        QCOMPARE(QApplication::focusWidget()->objectName(), u"serverFilter"_s);
    }

    // The table's cells say to a screen reader which server, its state and why.
    void screenReaderHearsStateAndCause()
    {
        WindowFixture fixture;
        QTRY_VERIFY_WITH_TIMEOUT(fixture.connected(), 15000);
        QAccessibleInterface *table = QAccessible::queryAccessibleInterface(fixture.window.table());
        QVERIFY(table && table->tableInterface());
        QStringList heard;
        for (int row = 0; row < table->tableInterface()->rowCount(); ++row)
            heard.append(table->tableInterface()->cellAt(row, ServerTableModel::State)->text(QAccessible::Name));
        const QString cause = fixture.manager.status(u"broken"_s)->cause;
        QVERIFY(!cause.isEmpty());
        QVERIFY2(heard.contains(u"broken, Failed 1/1: "_s + cause), qPrintable(heard.join(u" | "_s)));
        QVERIFY2(heard.contains(u"demo, Connected: "_s + fixture.manager.status(u"demo"_s)->reason),
                 qPrintable(heard.join(u" | "_s)));
    }

    // The dialogs that servers open (a form to fill in, a page to visit) and Import servers:
    // every control reached by Tab and named, and Esc closes them.
    void dialogsOfServersAndImport()
    {
        WindowFixture fixture;
        const QJsonObject form{
            {u"message"_s, u"Who are you?"_s},
            {u"requestedSchema"_s,
             QJsonObject{{u"type"_s, u"object"_s},
                         {u"properties"_s,
                          QJsonObject{{u"name"_s, QJsonObject{{u"type"_s, u"string"_s}, {u"title"_s, u"Name"_s}}},
                                      {u"age"_s, QJsonObject{{u"type"_s, u"integer"_s}, {u"title"_s, u"Age"_s}}},
                                      {u"colour"_s, QJsonObject{{u"type"_s, u"string"_s},
                                                                {u"enum"_s, QJsonArray{u"red"_s, u"blue"_s}}}},
                                      {u"subscribe"_s, QJsonObject{{u"type"_s, u"boolean"_s}}}}},
                         {u"required"_s, QJsonArray{u"name"_s}}}}};
        const QJsonObject page{{u"message"_s, u"Sign the terms"_s}, {u"url"_s, u"https://example.com/terms"_s},
                               {u"elicitationId"_s, u"e1"_s}, {u"mode"_s, u"url"_s}};
        const QList<std::pair<QString, std::function<QDialog *()>>> dialogs{
            {u"form"_s, [&] { return new ElicitationFormDialog(u"demo"_s, form, &fixture.window); }},
            {u"url"_s, [&] { return new UrlElicitationDialog(u"demo"_s, page, &fixture.window); }},
            {u"import"_s, [&] { return new ImportDialog(ImportFormat::Cursor, fixture.store.document(), &fixture.window); }}};
        for (const auto &[name, make] : dialogs) {
            QPointer<QDialog> dialog = make();
            const QStringList found = keyboardProblems(dialog);
            QVERIFY2(found.isEmpty(), qPrintable(name + u": "_s + found.join(u"; "_s)));
            QTest::keyClick(dialog, Qt::Key_Escape);
            QTRY_VERIFY2(!dialog || !dialog->isVisible(), qPrintable(name + u": Esc did not close it"_s));
            delete dialog;
        }
    }

    // Each window the main window opens: every control reached by Tab and named, and closed by Esc.
    void secondaryWindows_data()
    {
        QTest::addColumn<QString>("action");
        QTest::addColumn<bool>("modal");
        QTest::newRow("Add server") << u"addServer"_s << true;
        QTest::newRow("Edit server") << u"editServer"_s << true;
        QTest::newRow("Reconnect policy") << u"editSettings"_s << true;
        QTest::newRow("Connect a client") << u"connectClient"_s << true;
        QTest::newRow("Call tool") << u"callTool"_s << false;
        QTest::newRow("All tools") << u"allTools"_s << false;
        QTest::newRow("Gateway") << u"showGateway"_s << false;
        QTest::newRow("Combined log") << u"showCombinedLog"_s << false;
    }

    void secondaryWindows()
    {
        QFETCH(QString, action);
        QFETCH(bool, modal);
        WindowFixture fixture;
        QTRY_VERIFY_WITH_TIMEOUT(fixture.connected(), 15000);
        fixture.window.selectServer(u"demo"_s);
        auto *tools = namedChild<QAbstractItemView>(fixture.window, u"tools"_s);
        QTRY_VERIFY(tools->model()->rowCount() > 0);
        tools->setCurrentIndex(tools->model()->index(0, 0));
        QAction *opener = namedChild<QAction>(fixture.window, action);
        QVERIFY(opener->isEnabled());
        if (modal) {
            QStringList found;
            QVERIFY2(checkModal([opener] { opener->trigger(); }, [&found](QDialog *dialog) { found = keyboardProblems(dialog); }),
                     "Esc did not close it");
            QVERIFY2(found.isEmpty(), qPrintable(found.join(u"; "_s)));
            return;
        }
        // The window it opens: the one shown besides the main window.
        const auto open = [&]() -> QPointer<QWidget> {
            opener->trigger();
            QPointer<QWidget> opened;
            (void)QTest::qWaitFor([&] {
                for (QWidget *widget : QApplication::topLevelWidgets()) {
                    if (widget->isVisible() && widget != &fixture.window && !qobject_cast<QMenu *>(widget))
                        opened = widget;
                }
                return !opened.isNull();
            });
            return opened;
        };
        QPointer<QWidget> opened = open();
        QVERIFY(opened);
        QVERIFY2(keyboardProblems(opened).isEmpty(), qPrintable(problems(opened)));
        QTest::keyClick(opened, Qt::Key_Escape);
        QTRY_VERIFY2(!opened || !opened->isVisible(), "Esc did not close it");
        opened = open();
        QVERIFY(opened);
        QApplication::setActiveWindow(opened); // which the offscreen platform does not do
        QTest::keySequence(opened, QKeySequence::Close);
        QTRY_VERIFY2(!opened || !opened->isVisible(), "Ctrl+W did not close it");
        // QTest leaves Ctrl held otherwise, and the next selection would be a Ctrl+click.
        QTest::keyRelease(&fixture.window, Qt::Key_Control);
    }
};

QTEST_MAIN(TestKeyboard)
#include "tst_keyboard.moc"
