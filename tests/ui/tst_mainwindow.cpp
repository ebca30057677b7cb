// The window: its table model, the actions per state, the countdown, and the window driving
// real demo servers.
#include "emptyhint.h"
#include "mainwindow.h"
#include "mnemonics.h"
#include "stateicons.h"
#include "welcomebanner.h"
#include "serveractions.h"
#include "servertablemodel.h"
#include "trayicon.h"
#include "windowsize.h"
#include "config/configedit.h"
#include "config/configstore.h"
#include "manager/servermanager.h"
#include "support/namedchild.h"
#include "support/stopallandwait.h"
#include "support/testfiles.h"
#include "support/testprocess.h"

#include <QAbstractItemModelTester>
#include <QAccessible>
#include <QMenuBar>
#include <QPushButton>
#include <QScrollBar>
#include <QToolBar>
#include <QAbstractButton>
#include <QAction>
#include <QLabel>
#include <QApplication>
#include <QFileInfo>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMessageBox>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QPlainTextEdit>
#include <QScreen>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeWidget>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

Q_DECLARE_METATYPE(Tether::ServerState)
Q_DECLARE_METATYPE(Tether::TrayNotice)

namespace {

const ConfigContext Context{systemEnvironment(), {}};

// A config file of demo servers in a folder of its own, run the way the tether program runs it.
struct ConfigFixture
{
    explicit ConfigFixture(const QJsonObject &servers)
        : path(dir.filePath(u"servers.json"_s))
    {
        writeFile(path, QJsonDocument(QJsonObject{{u"mcpServers"_s, servers}}).toJson());
        QObject::connect(&store, &ConfigStore::documentChanged, &manager, &ServerManager::applyConfig);
    }

    QJsonObject file() const
    {
        return QJsonDocument::fromJson(readFile(path)).object();
    }

    QTemporaryDir dir;
    QString path;
    ServerManager manager;
    ConfigStore store{{path, false}, Context, dir.filePath(u"user.json"_s)};
};

QJsonObject demoEntry(const QJsonObject &extra = {})
{
    QJsonObject entry{{u"command"_s, demoServer().program}, {u"heartbeat"_s, QJsonObject{{u"enabled"_s, false}}}};
    for (auto it = extra.begin(); it != extra.end(); ++it)
        entry.insert(it.key(), it.value());
    return entry;
}

// A demo server that refuses to start, and is Failed after one quick retry.
QJsonObject failingEntry()
{
    return demoEntry({{u"args"_s, QJsonArray{u"--fail-at-startup"_s}},
                      {u"reconnect"_s, QJsonObject{{u"initialDelayMs"_s, 50}, {u"maxDelayMs"_s, 50},
                                                   {u"maxAttempts"_s, 1}, {u"jitter"_s, 0}}}});
}

// Answers the next modal message box with the button whose text is `button`.
void answerNextMessageBox(const QString &button)
{
    QTimer::singleShot(0, qApp, [button] {
        auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
        QVERIFY(box);
        for (QAbstractButton *candidate : box->buttons()) {
            if (candidate->text() == button) {
                candidate->click();
                return;
            }
        }
        QFAIL("no such button");
    });
}

// The window's parts, by the names it gives them.
QAction *action(const MainWindow &window, const QString &name)
{
    return namedChild<QAction>(window, name);
}

ServerTableModel *serverModel(const MainWindow &window)
{
    return namedChild<ServerTableModel>(window, u"serverModel"_s);
}

ServerStatus status(const QString &name, ServerState state)
{
    ServerStatus s;
    s.name = name;
    s.state = state;
    s.maxAttempts = 10;
    return s;
}

} // namespace

class TestMainWindow final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        // The window remembers its geometry in QSettings: never in the user's own files.
        QStandardPaths::setTestModeEnabled(true);
    }

    void modelPassesTheModelTester()
    {
        ServerTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setStatuses({status(u"a"_s, ServerState::Connected), status(u"b"_s, ServerState::Stopped)});
        model.updateStatus(status(u"c"_s, ServerState::Starting));
        ServerStatus retrying = status(u"b"_s, ServerState::Retrying);
        retrying.attempt = 2;
        retrying.nextRetryAt = QDateTime::currentDateTimeUtc().addSecs(5);
        model.updateStatus(retrying);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.removeServer(u"a"_s);
        QCOMPARE(model.rowCount(), 2);
        // The batch queued before the removal goes out with its rows moved up, under the tester.
        QTRY_VERIFY(!changed.isEmpty());
        for (const QList<QVariant> &arguments : std::as_const(changed))
            QVERIFY(arguments.at(1).toModelIndex().row() < model.rowCount());
        const QString state = model.index(0, ServerTableModel::State).data().toString();
        QVERIFY2(state.startsWith(u"Retrying 2/10 · in "_s), qPrintable(state));
        QVERIFY(!model.index(0, ServerTableModel::State).data(Qt::DecorationRole).value<QIcon>().isNull());
    }

    void remoteServersShowTheirUrlInsteadOfAPid()
    {
        ServerTableModel model;
        ServerStatus remote = status(u"remote"_s, ServerState::Connected);
        remote.transport = u"http: https://mcp.example.com/mcp"_s;
        ServerStatus local = status(u"local"_s, ServerState::Connected);
        local.transport = u"stdio: tether-demo-server"_s;
        local.pid = 4242;
        ServerStatus stopped = status(u"stopped"_s, ServerState::Stopped);
        stopped.transport = u"stdio: tether-demo-server"_s;
        model.setStatuses({remote, local, stopped});
        QCOMPARE(model.index(0, ServerTableModel::Transport).data().toString(), u"http"_s);
        QCOMPARE(model.index(0, ServerTableModel::Pid).data().toString(), u"https://mcp.example.com/mcp"_s);
        QCOMPARE(model.index(1, ServerTableModel::Pid).data().toLongLong(), 4242);
        QVERIFY(!model.index(2, ServerTableModel::Pid).data().isValid());
    }

    void changesAreBatched()
    {
        ServerTableModel model;
        QList<ServerStatus> many;
        for (int i = 0; i < 200; ++i)
            many.append(status(u"s%1"_s.arg(i), ServerState::Connected));
        model.setStatuses(many);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        for (int round = 0; round < 5; ++round) {
            for (int i = 0; i < 200; ++i)
                model.updateStatus(status(u"s%1"_s.arg(i), round % 2 ? ServerState::Connected : ServerState::Reconnecting));
        }
        QCOMPARE(changed.size(), 0); // nothing yet: queued
        QTRY_COMPARE(changed.size(), 1); // 1000 updates of 200 rows: one merged range
        const QModelIndex topLeft = changed.at(0).at(0).toModelIndex();
        const QModelIndex bottomRight = changed.at(0).at(1).toModelIndex();
        QCOMPARE(topLeft.row(), 0);
        QCOMPARE(bottomRight.row(), 199);
    }

    void countdownAdvancesAndRepaintsOnlyCountingRows()
    {
        ServerTableModel model;
        ServerStatus counting = status(u"counting"_s, ServerState::Retrying);
        counting.nextRetryAt = QDateTime::currentDateTimeUtc().addMSecs(3000);
        ServerStatus up = status(u"up"_s, ServerState::Connected);
        up.connectedSince = QDateTime::currentDateTimeUtc();
        model.setStatuses({status(u"still"_s, ServerState::Stopped), counting, up});
        const QString first = model.index(1, ServerTableModel::State).data().toString();
        QVERIFY2(first.startsWith(u"Retrying · in 3.0 s"_s) || first.startsWith(u"Retrying · in 2.9 s"_s), qPrintable(first));
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        const auto count = [&](int row, int column) {
            return std::count_if(changed.cbegin(), changed.cend(), [&](const QList<QVariant> &arguments) {
                return arguments.at(0).toModelIndex().row() == row && arguments.at(0).toModelIndex().column() == column;
            });
        };
        QTRY_VERIFY_WITH_TIMEOUT(count(1, ServerTableModel::State) >= 12, 5000);
        QVERIFY(model.index(1, ServerTableModel::State).data().toString() != first);
        // The uptime shows whole seconds: repainted about once a second, not with every tenth.
        QVERIFY2(count(2, ServerTableModel::Uptime) <= 3, qPrintable(QString::number(count(2, ServerTableModel::Uptime))));
        for (const QList<QVariant> &arguments : std::as_const(changed)) {
            const QModelIndex topLeft = arguments.at(0).toModelIndex();
            const QModelIndex bottomRight = arguments.at(1).toModelIndex();
            if (topLeft.column() == ServerTableModel::Health)
                continue; // the strips move along every few seconds
            QCOMPARE(topLeft.row(), bottomRight.row());
            QCOMPARE(topLeft.column(), bottomRight.column());
            QVERIFY((topLeft.row() == 1 && topLeft.column() == ServerTableModel::State)
                    || (topLeft.row() == 2 && topLeft.column() == ServerTableModel::Uptime));
        }
        QCOMPARE(model.index(0, ServerTableModel::State).data().toString(), u"Stopped"_s);
    }

    // The State column carries the attempt and the countdown of an outage, and nothing of one
    // that has ended; screen readers hear the server, its state and the cause.
    void stateCellCarriesTheOutage()
    {
        const QDateTime now = QDateTime::currentDateTimeUtc();
        ServerStatus retrying = status(u"github"_s, ServerState::Retrying);
        retrying.attempt = 3;
        retrying.maxAttempts = 5;
        retrying.nextRetryAt = now.addMSecs(2000);
        QCOMPARE(ServerTableModel::stateCellText(retrying, now), u"Retrying 3/5 · in 2.0 s"_s);
        ServerStatus connected = status(u"github"_s, ServerState::Connected);
        connected.attempt = 4; // left over from the outage it came through
        QCOMPARE(ServerTableModel::stateCellText(connected, now), u"Connected"_s);
        ServerStatus failed = status(u"github"_s, ServerState::Failed);
        failed.attempt = 3;
        failed.maxAttempts = 3;
        failed.cause = u"command not found: github-mcp"_s;
        QCOMPARE(ServerTableModel::stateCellText(failed, now), u"Failed 3/3"_s);
        ServerTableModel model;
        model.setStatuses({failed});
        QCOMPARE(model.index(0, ServerTableModel::State).data(Qt::AccessibleTextRole).toString(),
                 u"github, Failed 3/3: command not found: github-mcp"_s);
    }

    void actionsPerState_data()
    {
        QTest::addColumn<ServerState>("state");
        QTest::addColumn<bool>("start");
        QTest::addColumn<bool>("stop");
        QTest::addColumn<bool>("reconnect");

        QTest::newRow("Stopped") << ServerState::Stopped << true << false << false;
        QTest::newRow("Starting") << ServerState::Starting << false << true << true;
        QTest::newRow("Connected") << ServerState::Connected << false << true << true;
        QTest::newRow("Retrying") << ServerState::Retrying << false << true << true;
        QTest::newRow("Reconnecting") << ServerState::Reconnecting << false << true << true;
        QTest::newRow("Failed") << ServerState::Failed << true << true << true;
        QTest::newRow("Disconnected") << ServerState::Disconnected << true << true << true;
        QTest::newRow("Stopping") << ServerState::Stopping << false << false << false;
    }

    void actionsPerState()
    {
        QFETCH(ServerState, state);
        QFETCH(bool, start);
        QFETCH(bool, stop);
        QFETCH(bool, reconnect);
        const ServerActions actions = availableActions(status(u"x"_s, state));
        QCOMPARE(actions.start, start);
        QCOMPARE(actions.stop, stop);
        QCOMPARE(actions.reconnect, reconnect);

        ServerStatus invalid = status(u"x"_s, state);
        invalid.configErrors = QStringList{u"bad"_s};
        const ServerActions none = availableActions(invalid);
        QVERIFY(!none.start && !none.stop && !none.reconnect);

        // A disabled server neither starts nor reconnects; one still running can be stopped.
        ServerStatus disabled = status(u"x"_s, state);
        disabled.enabled = false;
        const ServerActions held = availableActions(disabled);
        QVERIFY(!held.start && !held.reconnect);
        QCOMPARE(held.stop, stop);
    }

    void selectionActionsAreWhatAppliesToAnyOfIt()
    {
        const ServerActions mixed = availableActions(QList<ServerStatus>{status(u"a"_s, ServerState::Stopped),
                                                                         status(u"b"_s, ServerState::Connected)});
        QVERIFY(mixed.start && mixed.stop && mixed.reconnect);
        const ServerActions none = availableActions(QList<ServerStatus>{});
        QVERIFY(!none.start && !none.stop && !none.reconnect);
    }

    void retryFailedPicksTheFailingServers_data()
    {
        QTest::addColumn<ServerState>("state");
        QTest::addColumn<bool>("retried");
        QTest::newRow("Stopped") << ServerState::Stopped << false;
        QTest::newRow("Starting") << ServerState::Starting << false;
        QTest::newRow("Connected") << ServerState::Connected << false;
        QTest::newRow("Retrying") << ServerState::Retrying << true;
        QTest::newRow("Reconnecting") << ServerState::Reconnecting << true;
        QTest::newRow("Failed") << ServerState::Failed << true;
        QTest::newRow("Disconnected") << ServerState::Disconnected << true;
        QTest::newRow("Stopping") << ServerState::Stopping << false;
    }

    void retryFailedPicksTheFailingServers()
    {
        QFETCH(ServerState, state);
        QFETCH(bool, retried);
        QCOMPARE(needsRetry(status(u"x"_s, state)), retried);
        ServerStatus invalid = status(u"x"_s, state);
        invalid.configErrors = QStringList{u"bad"_s};
        QVERIFY(!needsRetry(invalid));
        ServerStatus disabled = status(u"x"_s, state);
        disabled.enabled = false;
        QVERIFY(!needsRetry(disabled));
    }

    void disabledServersShowAsDisabled()
    {
        ServerStatus disabled = status(u"off"_s, ServerState::Stopped);
        disabled.enabled = false;
        disabled.reason = u"disabled"_s;
        ServerTableModel model;
        model.setStatuses({disabled, status(u"stopped"_s, ServerState::Stopped)});
        QCOMPARE(model.index(0, ServerTableModel::State).data().toString(), u"Disabled"_s);
        QCOMPARE(model.index(1, ServerTableModel::State).data().toString(), u"Stopped"_s);
        const auto icon = [&model](int row) {
            return model.index(row, ServerTableModel::State).data(Qt::DecorationRole).value<QIcon>().pixmap(16).toImage();
        };
        QVERIFY(!icon(0).isNull());
        QVERIFY(icon(0) != icon(1));
        QCOMPARE(summaryText({disabled, status(u"stopped"_s, ServerState::Stopped)}),
                 u"2 servers: 1 stopped, 1 disabled"_s);
        // Still stopping after it was disabled, it shows what it does.
        ServerStatus stopping = disabled;
        stopping.state = ServerState::Stopping;
        QCOMPARE(ServerTableModel::stateText(stopping), u"Stopping"_s);
    }

    void resourceColumnsShowTheSampledProcess()
    {
        ServerStatus local = status(u"local"_s, ServerState::Connected);
        local.transport = u"stdio: tether-demo-server"_s;
        local.pid = 4242;
        ServerStatus remote = status(u"remote"_s, ServerState::Connected);
        remote.transport = u"http: https://mcp.example.com/mcp"_s;
        ServerStatus stopped = status(u"stopped"_s, ServerState::Stopped);
        stopped.transport = u"stdio: tether-demo-server"_s;
        ServerStatus restarted = local;
        restarted.name = u"restarted"_s;
        restarted.pid = 4343;
        ServerTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setStatuses({local, remote, stopped, restarted});
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        const ProcessResources figures{4242, 12.54, 43 * 1024 * 1024 + 300 * 1024, 2};
        ProcessResources before = figures;
        before.pid = 4000; // of the process it had before its restart
        model.setResources({{u"local"_s, figures}, {u"restarted"_s, before}, {u"stopped"_s, figures}});
        QCOMPARE(changed.size(), 1); // one range for every row
        const auto text = [&model](int row, int column) { return model.index(row, column).data().toString(); };
        QCOMPARE(text(0, ServerTableModel::Cpu), u"13 %"_s);
        QCOMPARE(text(0, ServerTableModel::Memory), u"43.3 MiB"_s);
        for (int row : {1, 2}) {
            QCOMPARE(text(row, ServerTableModel::Cpu), u"—"_s);
            QCOMPARE(text(row, ServerTableModel::Memory), u"—"_s);
        }
        QCOMPARE(text(3, ServerTableModel::Memory), QString()); // not measured yet
        ProcessResources first = figures;
        first.cpuPercent.reset(); // one sample: no interval yet
        QCOMPARE(ServerTableModel::cpuText(local, first), QString());
        first.cpuPercent = 0.26;
        QCOMPARE(ServerTableModel::cpuText(local, first), u"0.3 %"_s);
    }

    void fittingWindowSize_data()
    {
        QTest::addColumn<QSize>("wanted");
        QTest::addColumn<QSize>("available");
        QTest::addColumn<QSize>("size");
        QTest::newRow("large screen") << QSize(1300, 700) << QSize(2560, 1400) << QSize(1300, 700);
        QTest::newRow("laptop") << QSize(1300, 700) << QSize(1366, 740) << QSize(1229, 666);
        QTest::newRow("narrow") << QSize(1300, 700) << QSize(800, 1200) << QSize(720, 700);
        QTest::newRow("no screen") << QSize(1300, 700) << QSize() << QSize(1300, 700);
    }

    void fittingWindowSize()
    {
        QFETCH(QSize, wanted);
        QFETCH(QSize, available);
        QFETCH(QSize, size);
        QCOMPARE(Tether::fittingWindowSize(wanted, available), size);
    }

    // Sized for a first run on the screen it opens on, with columns wide enough for their texts.
    void windowFitsTheScreenAndItsColumnsTheirTexts()
    {
        const QString longName = u"github-enterprise-issues"_s;
        const QString url = u"https://mcp.example.com/team/mcp"_s;
        ConfigFixture fixture({{longName, demoEntry({{u"enabled"_s, false}})},
                               {u"remote"_s, QJsonObject{{u"url"_s, url}, {u"enabled"_s, false}}}});
        MainWindow window(fixture.manager, fixture.store);
        fixture.store.load();
        window.show();
        const QRect screen = window.screen()->availableGeometry();
        QVERIFY2(window.width() <= screen.width() && window.height() <= screen.height(),
                 qPrintable(u"%1×%2 on %3×%4"_s.arg(window.width()).arg(window.height()).arg(screen.width()).arg(screen.height())));
        ServerTableModel *model = serverModel(window);
        QTRY_COMPARE(model->rowCount(), 2);
        // Every state's text, the longest included, is shown whole with its icon.
        for (ServerState state : AllServerStates)
            model->updateStatus(status(u"state %1"_s.arg(int(state)), state));
        ServerStatus disabled = status(u"disabled"_s, ServerState::Stopped);
        disabled.enabled = false;
        model->updateStatus(disabled);
        QTableView *table = window.table();
        // The optional columns too, as View ▸ Columns shows them.
        for (int column : {int(ServerTableModel::Transport), int(ServerTableModel::Pid)}) {
            auto *shown = namedChild<QAction>(window, u"column%1"_s.arg(column));
            if (!shown->isChecked())
                shown->trigger();
        }
        const QAbstractItemView *view = table; // where sizeHintForColumn, what the cells need, is public
        for (int column : {int(ServerTableModel::State), int(ServerTableModel::Name), int(ServerTableModel::Pid)}) {
            const int needed = view->sizeHintForColumn(column);
            QVERIFY2(table->columnWidth(column) >= needed,
                     qPrintable(u"column %1: %2 < %3"_s.arg(column).arg(table->columnWidth(column)).arg(needed)));
        }
        // Every header is read whole: what the header needs for its text and sort indicator (the
        // last column stretches to the window's edge).
        for (int column = 0; column + 1 < model->columnCount(); ++column) {
            const int needed = table->horizontalHeader()->sectionSizeHint(column);
            QVERIFY2(table->columnWidth(column) >= needed,
                     qPrintable(u"header %1: %2 < %3"_s.arg(model->headerData(column, Qt::Horizontal).toString())
                                    .arg(table->columnWidth(column)).arg(needed)));
        }
        MainWindow::windowSettings().remove(u"tableColumns"_s);
        QVERIFY(stopAllAndWait(fixture.manager));
    }

    // At 1024 px the cause of a failure is in sight: no sideways scrolling, and the Last event
    // column has room for it. Transport and PID / URL wait in View ▸ Columns, which remembers.
    void lastEventInSightAt1024()
    {
        MainWindow::windowSettings().remove(u"tableColumns"_s); // as on a first run
        ConfigFixture fixture({{u"github-enterprise-issues"_s, failingEntry()},
                               {u"remote"_s, QJsonObject{{u"url"_s, u"https://mcp.example.com/team/mcp"_s},
                                                         {u"enabled"_s, false}}}});
        {
            MainWindow window(fixture.manager, fixture.store);
            fixture.store.load();
            window.resize(1024, 700);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QTableView *table = window.table();
            QTRY_COMPARE(table->model()->rowCount(), 2);
            QTRY_VERIFY_WITH_TIMEOUT(fixture.manager.status(u"github-enterprise-issues"_s)->state == ServerState::Failed, 15000);
            QString widths;
            for (int column = 0; column < ServerTableModel::ColumnCount; ++column)
                widths += u" %1"_s.arg(table->columnWidth(column));
            QVERIFY2(table->horizontalScrollBar()->maximum() == 0,
                     qPrintable(u"viewport %1, columns%2"_s.arg(table->viewport()->width()).arg(widths)));
            const int lastEventWidth = table->viewport()->width()
                                       - table->horizontalHeader()->sectionViewportPosition(ServerTableModel::LastEvent);
            QVERIFY2(lastEventWidth >= table->fontMetrics().averageCharWidth() * 30, qPrintable(QString::number(lastEventWidth)));
            QVERIFY(table->isColumnHidden(ServerTableModel::Transport));
            QVERIFY(table->isColumnHidden(ServerTableModel::Pid));
            auto *pidShown = namedChild<QAction>(window, u"column%1"_s.arg(int(ServerTableModel::Pid)));
            QVERIFY(!pidShown->isChecked());
            pidShown->trigger();
            QVERIFY(!table->isColumnHidden(ServerTableModel::Pid));
        }
        MainWindow again(fixture.manager, fixture.store);
        QVERIFY(!again.table()->isColumnHidden(ServerTableModel::Pid));
        QVERIFY(again.table()->isColumnHidden(ServerTableModel::Transport));
        namedChild<QAction>(again, u"column%1"_s.arg(int(ServerTableModel::Pid)))->trigger(); // as it was for the others
        QVERIFY(stopAllAndWait(fixture.manager));
    }

    // Every toolbar and menu action has an icon (the theme's or Tether's own), and every menu
    // item a mnemonic of its own within its menu.
    void actionsHaveIconsAndMnemonics()
    {
        ConfigFixture fixture({});
        MainWindow window(fixture.manager, fixture.store);
        for (QAction *each : window.findChild<QToolBar *>(u"servers"_s)->actions()) {
            if (!each->isSeparator())
                QVERIFY2(!each->icon().pixmap(16).isNull(), qPrintable(each->text()));
        }
        for (QAction *menuAction : window.menuBar()->actions()) {
            QVERIFY2(!mnemonicOf(menuAction->text()).isNull(), qPrintable(menuAction->text()));
            QString letters;
            for (QAction *item : menuAction->menu()->actions()) {
                if (item->isSeparator())
                    continue;
                const QChar letter = mnemonicOf(item->text());
                QVERIFY2(!letter.isNull(), qPrintable(item->text()));
                QVERIFY2(!letters.contains(letter), qPrintable(item->text() + u" shares its letter"_s));
                letters += letter;
                QVERIFY2(!item->icon().isNull() || item->isCheckable() || item->menu() == nullptr,
                         qPrintable(item->text()));
            }
        }
    }

    // A selected row's state icon stands out from the selection's colour: the grey square of
    // Stopped used to vanish into it.
    void stateIconsReadOnASelectedRow()
    {
        const auto lightPixels = [](const QPixmap &pixmap) {
            const QImage image = pixmap.toImage();
            int count = 0;
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x)
                    count += qAlpha(image.pixel(x, y)) > 200 && qGray(image.pixel(x, y)) > 230;
            return count;
        };
        for (ServerState state : AllServerStates)
            QVERIFY2(lightPixels(stateIcon(state).pixmap(16, QIcon::Selected)) > 8, qPrintable(stateName(state)));
        QCOMPARE(lightPixels(stateIcon(ServerState::Stopped).pixmap(16, QIcon::Normal)), 0);
        QVERIFY(lightPixels(disabledIcon().pixmap(16, QIcon::Selected)) > 8);
    }

    // Enable, Disable and Remove act on every selected server.
    void editsActOnEverySelectedServer()
    {
        ConfigFixture fixture({{u"a"_s, demoEntry({{u"enabled"_s, false}})},
                               {u"b"_s, demoEntry({{u"enabled"_s, false}})},
                               {u"c"_s, demoEntry({{u"enabled"_s, false}})}});
        MainWindow window(fixture.manager, fixture.store);
        fixture.store.load();
        window.show();
        QTableView *table = window.table();
        QTRY_COMPARE(table->model()->rowCount(), 3);
        const auto selectAllBut = [&](const QString &name) {
            QItemSelection selection;
            for (int row = 0; row < table->model()->rowCount(); ++row) {
                const QModelIndex first = table->model()->index(row, 0);
                if (first.data(ServerTableModel::NameRole).toString() != name)
                    selection.select(first, table->model()->index(row, ServerTableModel::ColumnCount - 1));
            }
            table->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        };
        const auto enabled = [&](const QString &name) {
            return fixture.file()[u"mcpServers"_s][name][u"enabled"_s].toBool(true);
        };
        selectAllBut(u"b"_s);
        QAction *toggle = action(window, u"toggleEnabled"_s);
        QCOMPARE(toggle->text(), u"&Enable"_s);
        toggle->trigger();
        QTRY_VERIFY(enabled(u"a"_s) && enabled(u"c"_s));
        QVERIFY(!enabled(u"b"_s));
        selectAllBut(u"b"_s);
        QTRY_COMPARE(toggle->text(), u"&Disable"_s);
        answerNextMessageBox(u"&Remove"_s);
        action(window, u"removeServer"_s)->trigger();
        QTRY_VERIFY(!fixture.file()[u"mcpServers"_s].toObject().contains(u"a"_s));
        QCOMPARE(fixture.file()[u"mcpServers"_s].toObject().keys(), QStringList{u"b"_s});
        QVERIFY(stopAllAndWait(fixture.manager));
    }

    // A first run says what the demo is and how to add one's own servers; so does an empty config.
    void firstRunSaysHowToAddServers()
    {
        QTemporaryDir dir;
        ServerManager manager;
        ConfigStore demo{{dir.filePath(u"servers.json"_s), true}, Context, dir.filePath(u"user.json"_s)};
        {
            MainWindow window(manager, demo);
            demo.load();
            auto *banner = window.findChild<WelcomeBanner *>();
            QTRY_VERIFY(banner->text().contains(u"demo servers"_s));
            QVERIFY(window.findChild<QAbstractButton *>(u"welcomeAdd"_s));
            QVERIFY(window.findChild<QPushButton *>(u"welcomeImport"_s)->menu());
        }
        ConfigFixture empty({});
        MainWindow window(empty.manager, empty.store);
        empty.store.load();
        auto *banner = window.findChild<WelcomeBanner *>();
        QTRY_VERIFY(banner->text().startsWith(u"No servers yet"_s));
        writeFile(empty.path, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{{u"a"_s, demoEntry({{u"enabled"_s, false}})}}}}).toJson());
        QTRY_VERIFY(banner->text().isEmpty());
        QVERIFY(stopAllAndWait(empty.manager));
    }

    // An empty Tools tab says why: nothing selected, disabled, failed.
    void toolsTabSaysWhyItIsEmpty()
    {
        ConfigFixture fixture({{u"off"_s, demoEntry({{u"enabled"_s, false}})}, {u"bad"_s, failingEntry()}});
        MainWindow window(fixture.manager, fixture.store);
        fixture.store.load();
        window.show();
        auto *tools = namedChild<QAbstractItemView>(window, u"tools"_s);
        QTRY_COMPARE(window.table()->model()->rowCount(), 2);
        window.selectServer(u"off"_s);
        QTRY_VERIFY2(emptyHintShown(tools).contains(u"off is disabled"_s), qPrintable(emptyHintShown(tools)));
        window.selectServer(u"bad"_s);
        QTRY_VERIFY_WITH_TIMEOUT(fixture.manager.status(u"bad"_s)->state == ServerState::Failed, 15000);
        QTRY_VERIFY2(emptyHintShown(tools).startsWith(u"bad is not connected: "_s), qPrintable(emptyHintShown(tools)));
        QVERIFY(stopAllAndWait(fixture.manager));
    }

    // Sign in is offered to servers that sign in, not to every remote one; it keeps its place.
    void signInOnlyForServersThatSignIn()
    {
        ConfigFixture fixture({{u"refused"_s, QJsonObject{{u"url"_s, u"http://127.0.0.1:9/mcp"_s},
                                                          {u"reconnect"_s, QJsonObject{{u"maxAttempts"_s, 1}, {u"initialDelayMs"_s, 50}}}}}});
        MainWindow window(fixture.manager, fixture.store);
        fixture.store.load();
        window.show();
        QTRY_COMPARE(window.table()->model()->rowCount(), 1);
        window.selectServer(u"refused"_s);
        QTRY_VERIFY_WITH_TIMEOUT(fixture.manager.status(u"refused"_s)->state == ServerState::Failed, 15000);
        QVERIFY(!action(window, u"signIn"_s)->isVisible());
        QVERIFY(!action(window, u"signIn"_s)->isEnabled());
        QVERIFY(stopAllAndWait(fixture.manager));
    }

    // Start, Stop and Reconnect act on every selected server they apply to, and on no other.
    void multiSelectionActsOnEverySelectedServer()
    {
        ConfigFixture fixture({{u"a"_s, demoEntry()}, {u"b"_s, demoEntry()}, {u"c"_s, demoEntry()}});
        ServerManager &manager = fixture.manager;
        MainWindow window(manager, fixture.store);
        fixture.store.load();
        window.show();
        const QStringList names{u"a"_s, u"b"_s, u"c"_s};
        QTRY_VERIFY_WITH_TIMEOUT(std::all_of(names.cbegin(), names.cend(), [&](const QString &name) {
            return manager.status(name)->state == ServerState::Connected;
        }), 15000);
        QTableView *table = window.table();
        QItemSelection selection;
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            const QModelIndex first = table->model()->index(row, 0);
            if (first.data(ServerTableModel::NameRole).toString() != u"b"_s)
                selection.select(first, table->model()->index(row, ServerTableModel::ColumnCount - 1));
        }
        table->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QCOMPARE(window.selectedServers().size(), 2);
        const qint64 bPid = manager.status(u"b"_s)->pid;
        action(window, u"stopServer"_s)->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(manager.status(u"a"_s)->state == ServerState::Stopped
                                     && manager.status(u"c"_s)->state == ServerState::Stopped, 10000);
        QCOMPARE(manager.status(u"b"_s)->state, ServerState::Connected);
        QVERIFY(!action(window, u"stopServer"_s)->isEnabled());
        QTRY_VERIFY(action(window, u"startServer"_s)->isEnabled());
        // Edit acts on one server only; Remove and Disable on every selected one.
        QVERIFY(!action(window, u"editServer"_s)->isEnabled());
        QVERIFY(action(window, u"removeServer"_s)->isEnabled());
        QVERIFY(action(window, u"toggleEnabled"_s)->isEnabled());
        action(window, u"startServer"_s)->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(manager.status(u"a"_s)->state == ServerState::Connected
                                     && manager.status(u"c"_s)->state == ServerState::Connected, 10000);
        QCOMPARE(manager.status(u"b"_s)->pid, bPid);
        QVERIFY(stopAllAndWait(manager));
    }

    // Retry failed reconnects the failing servers only; Reconnect all asks before it restarts healthy ones.
    void retryFailedLeavesHealthyServersAlone()
    {
        const QJsonObject failing = failingEntry();
        ConfigFixture fixture({{u"bad"_s, failing}, {u"good"_s, demoEntry()}});
        ServerManager &manager = fixture.manager;
        MainWindow window(manager, fixture.store);
        fixture.store.load();
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(manager.status(u"bad"_s)->state == ServerState::Failed
                                     && manager.status(u"good"_s)->state == ServerState::Connected, 15000);
        const qint64 goodPid = manager.status(u"good"_s)->pid;
        const quint64 badGeneration = manager.status(u"bad"_s)->generation;
        QAction *retryFailed = action(window, u"retryFailed"_s);
        QTRY_VERIFY(retryFailed->isEnabled());
        retryFailed->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(manager.status(u"bad"_s)->generation > badGeneration, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(manager.status(u"bad"_s)->state, ServerState::Failed, 10000);
        QCOMPARE(manager.status(u"good"_s)->pid, goodPid);
        QCOMPARE(manager.status(u"good"_s)->state, ServerState::Connected);

        // Reconnect all restarts the connected server too: only once the user says so.
        QAction *reconnectAll = action(window, u"reconnectAll"_s);
        answerNextMessageBox(u"Cancel"_s);
        reconnectAll->trigger();
        QCOMPARE(manager.status(u"good"_s)->pid, goodPid);
        answerNextMessageBox(u"Reconnect all"_s);
        reconnectAll->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(manager.status(u"good"_s)->state == ServerState::Connected
                                     && manager.status(u"good"_s)->pid != goodPid, 10000);
        QVERIFY(stopAllAndWait(manager));
    }

    // The CPU and memory of a real server's processes, in its row and in Details.
    void resourcesOfARealServerInTheTableAndDetails()
    {
        ConfigFixture fixture({{u"demo"_s, demoEntry({{u"args"_s, QJsonArray{u"--spawn-grandchild"_s}}})}});
        ServerManager &manager = fixture.manager;
        MainWindow window(manager, fixture.store);
        fixture.store.load();
        window.show();
        QTRY_COMPARE_WITH_TIMEOUT(manager.status(u"demo"_s)->state, ServerState::Connected, 10000);
        window.selectServer(u"demo"_s);
        ServerTableModel *model = serverModel(window);
        QTRY_VERIFY_WITH_TIMEOUT(model->index(0, ServerTableModel::Memory).data().toString().endsWith(u" MiB"_s), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(model->index(0, ServerTableModel::Cpu).data().toString().endsWith(u" %"_s), 10000);
        const QString details = namedChild<QPlainTextEdit>(window, u"details"_s)->toPlainText();
        QVERIFY2(details.contains(u"2 processes: the server's and its descendants"_s), qPrintable(details));
        // The era the server speaks, found when it connected.
        QVERIFY2(details.contains(u"Protocol: MCP 2025-11-25"_s), qPrintable(details));
        QVERIFY(model->index(0, ServerTableModel::LastEvent).data(Qt::ToolTipRole).toString().contains(u"Protocol: MCP 2025-11-25"_s));
        QVERIFY(stopAllAndWait(manager));
        QTRY_COMPARE(model->index(0, ServerTableModel::Memory).data().toString(), u"—"_s);
    }

    void summary()
    {
        QCOMPARE(summaryText({}), u"0 servers"_s);
        ServerStatus invalid = status(u"d"_s, ServerState::Stopped);
        invalid.configErrors = QStringList{u"bad"_s};
        QCOMPARE(summaryText({status(u"a"_s, ServerState::Connected), status(u"b"_s, ServerState::Connected),
                              status(u"c"_s, ServerState::Reconnecting), invalid, status(u"e"_s, ServerState::Failed)}),
                 u"5 servers: 2 connected, 1 reconnecting, 1 failed, 1 invalid"_s);
        QCOMPARE(summaryText({status(u"a"_s, ServerState::Stopped)}), u"1 server: 1 stopped"_s);
    }

    // Last event leads with the cause while a server fails; the whole reason is in the tooltip.
    void lastEventShowsTheCauseFirst()
    {
        ServerStatus failed = status(u"github"_s, ServerState::Failed);
        failed.reason = u"connection failed: could not start 'github-mcp-server': No such file or directory; not retried, "
                        "since no retry can fix command not found: github-mcp-server (install it, or correct \"command\" "
                        "in the config)"_s;
        failed.cause = u"command not found: github-mcp-server (install it, or correct \"command\" in the config)"_s;
        QCOMPARE(ServerTableModel::lastEventText(failed), failed.cause);
        ServerTableModel model;
        model.setStatuses({failed});
        const QModelIndex lastEvent = model.index(0, ServerTableModel::LastEvent);
        QCOMPARE(lastEvent.data().toString(), failed.cause);
        const QString tip = lastEvent.data(Qt::ToolTipRole).toString();
        // The cause once: the reason that repeats it is left out.
        QVERIFY2(tip.contains(failed.cause) && tip.count(u"command not found"_s) == 1, qPrintable(tip));
        ServerStatus stateless = status(u"new"_s, ServerState::Connected);
        stateless.protocolVersion = u"2026-07-28"_s;
        QCOMPARE(ServerTableModel::protocolText(stateless), u"2026-07-28 (stateless)"_s);

        // Connected again, the row says so; the cause of the past failure is for Details.
        ServerStatus connected = failed;
        connected.state = ServerState::Connected;
        connected.reason = u"connected"_s;
        QCOMPARE(ServerTableModel::lastEventText(connected), u"connected"_s);
        for (const ServerState state : {ServerState::Retrying, ServerState::Reconnecting, ServerState::Disconnected}) {
            ServerStatus failing = failed;
            failing.state = state;
            QCOMPARE(ServerTableModel::lastEventText(failing), failed.cause);
        }
    }

    void trayShowsTheWorstState()
    {
        QCOMPARE(aggregateState({}), ServerState::Stopped);
        QCOMPARE(aggregateState({status(u"a"_s, ServerState::Connected), status(u"b"_s, ServerState::Stopped)}),
                 ServerState::Connected);
        QCOMPARE(aggregateState({status(u"a"_s, ServerState::Connected), status(u"b"_s, ServerState::Retrying),
                                 status(u"c"_s, ServerState::Reconnecting)}),
                 ServerState::Reconnecting);
        QCOMPARE(aggregateState({status(u"a"_s, ServerState::Disconnected), status(u"b"_s, ServerState::Failed)}),
                 ServerState::Failed);
        ServerStatus invalid = status(u"x"_s, ServerState::Failed);
        invalid.configErrors = QStringList{u"bad"_s};
        QCOMPARE(aggregateState({invalid, status(u"a"_s, ServerState::Connected)}), ServerState::Connected);
    }

    // One notice for servers that fail together: by name, so that a broken config is not a flood.
    void failureNoticesAreGrouped()
    {
        ServerStatus a = status(u"a"_s, ServerState::Failed);
        a.reason = u"gave up after 3 attempts: exited with code 3"_s;
        QCOMPARE(failureNotice({a}), (TrayNotice{u"a failed"_s, a.reason}));
        a.cause = u"exited with code 3: refusing to start"_s; // the cause first, as in the table
        QCOMPARE(failureNotice({a}), (TrayNotice{u"a failed"_s, a.cause}));
        const TrayNotice three = failureNotice({a, status(u"b"_s, ServerState::Failed), status(u"c"_s, ServerState::Failed)});
        QCOMPARE(three.title, u"3 servers failed: a, b, c"_s);
        QVERIFY2(three.message.startsWith(u"Open Tether to see why"_s), qPrintable(three.message));
    }

    // Servers waiting for a sign-in: the one notice says how to give it.
    void signInNoticesSayHow()
    {
        QCOMPARE(signInNotice({status(u"docs"_s, ServerState::SignInNeeded)}),
                 (TrayNotice{u"docs needs you to sign in"_s,
                             u"Select it in Tether and choose Sign in, or run: tetherctl login docs"_s}));
        QCOMPARE(signInNotice({status(u"docs"_s, ServerState::SignInNeeded), status(u"mail"_s, ServerState::SignInNeeded)}),
                 (TrayNotice{u"2 servers need you to sign in: docs, mail"_s, u"Select each in Tether and choose Sign in."_s}));
    }

    void trayGroupsFailuresThatComeTogether()
    {
        const QJsonObject failing = failingEntry();
        ConfigFixture fixture({{u"a"_s, failing}, {u"b"_s, failing}, {u"c"_s, failing}, {u"healthy"_s, demoEntry()}});
        MainWindow window(fixture.manager, fixture.store);
        TrayIcon tray(fixture.manager, &window);
        QSignalSpy notices(&tray, &TrayIcon::noticeShown);
        fixture.store.load();
        for (const QString &name : {u"a"_s, u"b"_s, u"c"_s})
            QTRY_VERIFY_WITH_TIMEOUT(fixture.manager.status(name)->state == ServerState::Failed, 15000);
        QTRY_COMPARE_WITH_TIMEOUT(notices.size(), 1, 2 * int(TrayIcon::FailureGroupingWindow.count()) + 1000);
        const TrayNotice notice = notices.first().first().value<TrayNotice>();
        QVERIFY2(notice.title.startsWith(u"3 servers failed: "_s), qPrintable(notice.title));
        for (const QString &name : {u"a"_s, u"b"_s, u"c"_s})
            QVERIFY2(notice.title.contains(name), qPrintable(notice.title));
        QVERIFY2(!notice.title.contains(u"healthy"_s), qPrintable(notice.title));
        QVERIFY(stopAllAndWait(fixture.manager));
        QCOMPARE(notices.size(), 1);
    }

    // Closing the window leaves Tether in the tray: it says so the first time, and never again.
    void closingToTheTraySaysSoOnce()
    {
        MainWindow::windowSettings().remove(u"closedToTrayTold"_s);
        ConfigFixture fixture({});
        for (int run = 0; run < 2; ++run) { // the second as after a restart of Tether
            MainWindow window(fixture.manager, fixture.store);
            TrayIcon tray(fixture.manager, &window);
            tray.show();
            QSignalSpy notices(&tray, &TrayIcon::noticeShown);
            for (int close = 0; close < 2; ++close) {
                window.show();
                window.close();
                QVERIFY(!window.isVisible());
            }
            QCOMPARE(notices.size(), run == 0 ? 1 : 0);
            if (run == 0) {
                const TrayNotice notice = notices.first().first().value<TrayNotice>();
                QCOMPARE(notice.title, u"Tether is still running"_s);
                QVERIFY2(notice.message.contains(u"Quit"_s), qPrintable(notice.message));
            }
        }
    }

    void windowDrivesRealServers()
    {
        ConfigFixture fixture({{u"demo"_s, demoEntry()}});
        ServerManager &manager = fixture.manager;
        MainWindow window(manager, fixture.store);
        ServerTableModel *model = serverModel(window);
        QAction *start = action(window, u"startServer"_s);
        QAction *stop = action(window, u"stopServer"_s);
        QAction *reconnect = action(window, u"reconnectServer"_s);
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        fixture.store.load();
        window.show();
        QTRY_COMPARE_WITH_TIMEOUT(model->index(0, ServerTableModel::State).data().toString(), u"Connected"_s, 10000);
        QCOMPARE(model->index(0, ServerTableModel::Tools).data().toInt(), 12);

        window.selectServer(u"demo"_s);
        QCOMPARE(window.selectedServer(), u"demo"_s);
        QVERIFY(!start->isEnabled());
        QVERIFY(stop->isEnabled());
        QVERIFY(reconnect->isEnabled());

        QTRY_VERIFY(stop->isEnabled());
        stop->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(model->index(0, ServerTableModel::State).data().toString(), u"Stopped"_s, 10000);
        QTRY_VERIFY(start->isEnabled());
        QVERIFY(!stop->isEnabled());

        start->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(model->index(0, ServerTableModel::State).data().toString(), u"Connected"_s, 10000);
        const qint64 pid = manager.status(u"demo"_s)->pid;
        QTRY_VERIFY(reconnect->isEnabled());
        reconnect->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(manager.status(u"demo"_s)->state != ServerState::Connected, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(manager.status(u"demo"_s)->pid != pid && manager.status(u"demo"_s)->state == ServerState::Connected, 10000);
        QVERIFY(!processAlive(pid));

        // The Log shows the server's stderr; the Timeline each state change in order.
        QTRY_VERIFY(namedChild<QPlainTextEdit>(window, u"logText"_s)->toPlainText().contains(u"stderr  demo: started pid"_s));
        const QTreeWidget *timeline = namedChild<QTreeWidget>(window, u"timeline"_s);
        QStringList states;
        for (int i = 0; i < timeline->topLevelItemCount(); ++i)
            states.append(timeline->topLevelItem(i)->text(1));
        QVERIFY2(states.join(u' ').contains(u"Connected Stopping Stopped Starting Connected"_s), qPrintable(states.join(u' ')));

        QVERIFY(stopAllAndWait(manager));
    }

    // Each crash row of the Timeline shows its own process's exit code and stderr.
    void timelineShowsEachCrashItsOwnExit()
    {
        ConfigFixture fixture({{u"demo"_s, demoEntry()}});
        ServerManager &manager = fixture.manager;
        MainWindow window(manager, fixture.store);
        fixture.store.load();
        window.show();
        window.selectServer(u"demo"_s);
        const QTreeWidget *timeline = namedChild<QTreeWidget>(window, u"timeline"_s);
        const auto crashRows = [timeline] {
            QList<const QTreeWidgetItem *> rows;
            for (int i = 0; i < timeline->topLevelItemCount(); ++i) {
                if (timeline->topLevelItem(i)->text(1) == u"Reconnecting"_s)
                    rows.append(timeline->topLevelItem(i));
            }
            return rows;
        };
        for (const int code : {5, 9}) {
            QTRY_VERIFY_WITH_TIMEOUT(manager.status(u"demo"_s)->state == ServerState::Connected, 10000);
            window.selectServer(u"demo"_s);
            const qsizetype before = crashRows().size();
            manager.callTool(u"demo"_s, u"crash"_s, {{u"code"_s, code}}, [](const ToolCallReply &) {});
            QTRY_COMPARE_WITH_TIMEOUT(crashRows().size(), before + 1, 10000);
        }
        const QList<const QTreeWidgetItem *> rows = crashRows();
        QCOMPARE(rows.at(0)->text(3), u"5"_s);
        QCOMPARE(rows.at(1)->text(3), u"9"_s);
        QVERIFY2(rows.at(1)->toolTip(4).contains(u"crash tool called"_s), qPrintable(rows.at(1)->toolTip(4)));
        QVERIFY(stopAllAndWait(manager));
    }

    void editsFromTheWindowAreSavedAndApplied()
    {
        ConfigFixture fixture({{u"keep"_s, demoEntry({{u"futureKey"_s, u"kept"_s}})}, {u"other"_s, demoEntry()}});
        MainWindow window(fixture.manager, fixture.store);
        fixture.store.load();
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(fixture.manager.status(u"other"_s)->state == ServerState::Connected, 10000);
        const qint64 keepPid = fixture.manager.status(u"keep"_s)->pid;

        // Disable: saved to the file, the server stops and stays stopped; Enable undoes it.
        QAction *enable = action(window, u"toggleEnabled"_s);
        window.selectServer(u"other"_s);
        QCOMPARE(enable->text(), u"&Disable"_s);
        enable->trigger();
        QCOMPARE(fixture.file()[u"mcpServers"_s][u"other"_s][u"enabled"_s].toBool(true), false);
        QTRY_COMPARE_WITH_TIMEOUT(fixture.manager.status(u"other"_s)->state, ServerState::Stopped, 10000);
        QTRY_COMPARE(enable->text(), u"&Enable"_s);
        enable->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(fixture.manager.status(u"other"_s)->state, ServerState::Connected, 10000);
        QCOMPARE(enable->text(), u"&Disable"_s);

        // Remove asks first; Cancel leaves everything as it was.
        const qint64 otherPid = fixture.manager.status(u"other"_s)->pid;
        QAction *remove = action(window, u"removeServer"_s);
        answerNextMessageBox(u"Cancel"_s);
        remove->trigger();
        QVERIFY(fixture.file()[u"mcpServers"_s].toObject().contains(u"other"_s));
        answerNextMessageBox(u"&Remove"_s);
        remove->trigger();
        QVERIFY(!fixture.file()[u"mcpServers"_s].toObject().contains(u"other"_s));
        QTRY_COMPARE_WITH_TIMEOUT(serverModel(window)->rowCount(), 1, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(otherPid), 10000);

        // The other server was left alone, and the key Tether does not know is still in the file.
        QCOMPARE(fixture.manager.status(u"keep"_s)->pid, keepPid);
        QCOMPARE(fixture.file()[u"mcpServers"_s][u"keep"_s][u"futureKey"_s].toString(), u"kept"_s);

        QVERIFY(stopAllAndWait(fixture.manager));
    }

    void startAndReconnectAllLeaveStoppedAndDisabledServersAlone()
    {
        ConfigFixture fixture({{u"run"_s, demoEntry()}, {u"held"_s, demoEntry()},
                               {u"off"_s, demoEntry({{u"enabled"_s, false}})}});
        ServerManager &manager = fixture.manager;
        MainWindow window(manager, fixture.store);
        fixture.store.load();
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(manager.status(u"run"_s)->state == ServerState::Connected
                                     && manager.status(u"held"_s)->state == ServerState::Connected, 10000);
        window.selectServer(u"off"_s);
        QVERIFY(!action(window, u"startServer"_s)->isEnabled());
        QCOMPARE(action(window, u"toggleEnabled"_s)->text(), u"&Enable"_s);

        manager.stop(u"held"_s);
        QTRY_COMPARE_WITH_TIMEOUT(manager.status(u"held"_s)->state, ServerState::Stopped, 10000);
        QCOMPARE(serverModel(window)->index(serverModel(window)->rowOf(u"off"_s), ServerTableModel::State).data().toString(),
                 u"Disabled"_s);
        const qint64 runPid = manager.status(u"run"_s)->pid;
        QAction *reconnectAll = action(window, u"reconnectAll"_s);
        QVERIFY(reconnectAll->isEnabled());
        answerNextMessageBox(u"Reconnect all"_s);
        reconnectAll->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(manager.status(u"run"_s)->state == ServerState::Connected
                                     && manager.status(u"run"_s)->pid != runPid, 10000);
        QCOMPARE(manager.status(u"held"_s)->state, ServerState::Stopped);
        QCOMPARE(manager.status(u"off"_s)->state, ServerState::Stopped);

        // With every server stopped there is nothing to reconnect.
        manager.stop(u"run"_s);
        QTRY_VERIFY_WITH_TIMEOUT(!reconnectAll->isEnabled(), 10000);
        QVERIFY(stopAllAndWait(manager));
    }

    void aBrokenConfigAtStartIsShownThenPickedUpWhenFixed()
    {
        ConfigFixture fixture({});
        writeFile(fixture.path, "{ \"mcpServers\": ");
        MainWindow window(fixture.manager, fixture.store);
        fixture.store.load();
        window.show();
        const QLabel *problem = namedChild<QLabel>(window, u"configProblem"_s);
        QAction *add = action(window, u"addServer"_s);
        QVERIFY(problem->isVisible());
        QVERIFY2(problem->text().contains(fixture.path), qPrintable(problem->text()));
        QVERIFY(!add->isEnabled());
        QVERIFY(!action(window, u"editSettings"_s)->isEnabled());

        writeFile(fixture.path, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{{u"demo"_s, demoEntry()}}}}).toJson());
        QTRY_VERIFY_WITH_TIMEOUT(!problem->isVisible(), 5000);
        QTRY_COMPARE_WITH_TIMEOUT(serverModel(window)->rowCount(), 1, 5000);
        QVERIFY(add->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(fixture.manager.status(u"demo"_s)->state == ServerState::Connected, 10000);
        QVERIFY(stopAllAndWait(fixture.manager));
    }

    void detailTabsShowToolsAndRedactedConfig()
    {
        qputenv("TETHER_TEST_SECRET", "hunter2-value");
        ConfigFixture fixture({{u"demo"_s, demoEntry({{u"env"_s, QJsonObject{{u"API_TOKEN"_s, u"${env:TETHER_TEST_SECRET}"_s},
                                                                             {u"PLAIN_SECRET"_s, u"literal-secret"_s}}}})}});
        MainWindow window(fixture.manager, fixture.store);
        fixture.store.load();
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(fixture.manager.status(u"demo"_s)->state == ServerState::Connected, 10000);
        window.selectServer(u"demo"_s);

        const QString config = namedChild<QPlainTextEdit>(window, u"serverConfig"_s)->toPlainText();
        QVERIFY2(config.contains(fixture.path) && config.contains(u"API_TOKEN"_s) && config.contains(u"PLAIN_SECRET"_s),
                 qPrintable(config));
        QVERIFY2(!config.contains(u"hunter2-value"_s) && !config.contains(u"literal-secret"_s), qPrintable(config));

        // Tools: name, public name, description, the input schema; Call needs a chosen tool.
        QTreeView *tools = namedChild<QTreeView>(window, u"tools"_s);
        QAction *callTool = action(window, u"callTool"_s);
        QTRY_VERIFY(tools->model()->rowCount() > 0);
        const auto row = [&](const QString &name) {
            return tools->model()->match(tools->model()->index(0, 0), Qt::DisplayRole, name, 1, Qt::MatchExactly).value(0);
        };
        const QModelIndex echo = row(u"echo"_s);
        QVERIFY(echo.isValid());
        QCOMPARE(echo.siblingAtColumn(1).data().toString(), u"demo__echo"_s);
        QCOMPARE(echo.siblingAtColumn(3).data().toString(), u"message: string"_s);
        QCOMPARE(row(u"crash"_s).siblingAtColumn(3).data().toString(), u"code?: integer"_s);
        QCOMPARE(row(u"format"_s).siblingAtColumn(3).data().toString(),
                 u"text: string, repeat?: integer, style?: plain|quoted|heading, uppercase?: boolean"_s);
        QVERIFY(!callTool->isEnabled());
        tools->setCurrentIndex(echo);
        QVERIFY(callTool->isEnabled());

        QVERIFY(stopAllAndWait(fixture.manager));
        QTRY_VERIFY(!callTool->isEnabled());
    }

    // The Config tab names the built-in config in words, not by its resource path, and shows a
    // server's entry as the file gives it, in its order; what the defaults fill in is marked apart.
    void configTabShowsTheEntryAsWritten()
    {
        QTemporaryDir dir;
        ServerManager manager;
        const ConfigContext context{systemEnvironment(), QFileInfo(demoServer().program).absolutePath()};
        ConfigStore store({QString::fromUtf16(EmbeddedConfigPath), true}, context, dir.filePath(u"servers.json"_s));
        QObject::connect(&store, &ConfigStore::documentChanged, &manager, &ServerManager::applyConfig);
        MainWindow window(manager, store);
        store.load();
        window.show();
        QTRY_VERIFY(manager.status(u"flaky"_s).has_value());
        window.selectServer(u"flaky"_s);

        const QString config = namedChild<QPlainTextEdit>(window, u"serverConfig"_s)->toPlainText();
        QVERIFY2(config.startsWith(u"From the built-in example config, not yet a file: the first edit saves it as %1"_s
                                       .arg(dir.filePath(u"servers.json"_s))), qPrintable(config));
        QVERIFY2(!config.contains(u":/"_s), qPrintable(config));
        const qsizetype effect = config.indexOf(u"In effect, with the defaults filling in what the entry leaves out:"_s);
        QVERIFY2(effect > 0, qPrintable(config));
        const QString written = config.sliced(0, effect);
        const QString inEffect = config.sliced(effect);
        QVERIFY2(written.contains(u"\"command\": \"${tether:bindir}/tether-demo-server\""_s), qPrintable(written));
        QVERIFY2(written.indexOf(u"\"command\""_s) < written.indexOf(u"\"args\""_s), qPrintable(written)); // the file's order
        QVERIFY2(written.contains(u"\"initialDelayMs\": 500"_s) && written.contains(u"\"maxDelayMs\": 5000"_s), qPrintable(written));
        for (const QString &filledIn : {u"maxAttempts"_s, u"jitter"_s, u"heartbeat"_s, u"timeoutMs"_s, u"pool"_s})
            QVERIFY2(!written.contains(filledIn) && inEffect.contains(filledIn), qPrintable(filledIn + u'\n' + config));
        QVERIFY2(inEffect.contains(u"\"maxAttempts\": 10"_s), qPrintable(inEffect));
        QVERIFY(stopAllAndWait(manager));
    }

    void configTabWarnsOfAKeyWrittenTwice()
    {
        ConfigFixture fixture({});
        QVERIFY(writeFile(fixture.path, "{\"mcpServers\": {\n  \"demo\": {\"command\": \"old\", \"enabled\": false,\n"
                                        "           \"command\": \"new\"}\n}}\n"));
        MainWindow window(fixture.manager, fixture.store);
        fixture.store.load();
        window.show();
        window.selectServer(u"demo"_s);
        const QString config = namedChild<QPlainTextEdit>(window, u"serverConfig"_s)->toPlainText();
        QVERIFY2(config.contains(u"Warning: %1: mcpServers.demo.command is defined 2 times (lines 2 and 3): JSON keeps "
                                 "only the last one, and Tether uses it; remove the others"_s.arg(fixture.path)),
                 qPrintable(config));
        QVERIFY2(config.contains(u"\"new\""_s) && !config.contains(u"\"old\""_s), qPrintable(config));
    }

    void healthStripRecordsBands()
    {
        ServerTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setStatuses({status(u"a"_s, ServerState::Starting)});
        model.updateStatus(status(u"a"_s, ServerState::Connected));
        model.updateStatus(status(u"a"_s, ServerState::Reconnecting));
        model.updateStatus(status(u"a"_s, ServerState::Failed));
        const auto spansNow = [&] {
            return model.index(0, ServerTableModel::Health).data(ServerTableModel::HealthRole).value<QList<HealthSpan>>();
        };
        // The current band grows from the moment it was recorded.
        QTRY_VERIFY(!spansNow().isEmpty() && spansNow().last().band == HealthBand::Failed);
        const QList<HealthSpan> spans = spansNow();
        for (qsizetype i = 1; i < spans.size(); ++i)
            QCOMPARE(spans.at(i).start, spans.at(i - 1).end);
        QVERIFY(model.index(0, ServerTableModel::Health).data(Qt::ToolTipRole).toString().startsWith(u"Last 10 min"_s));
        QCOMPARE(ServerTableModel::healthSummary({{QDateTime::fromSecsSinceEpoch(0, Qt::UTC), QDateTime::fromSecsSinceEpoch(570, Qt::UTC), HealthBand::Connected},
                                                  {QDateTime::fromSecsSinceEpoch(570, Qt::UTC), QDateTime::fromSecsSinceEpoch(600, Qt::UTC), HealthBand::Reconnecting}}),
                 u"connected 9 min 30 s, reconnecting 30 s"_s);
    }

    void eventLogIsCappedPerServer()
    {
        EventLog log(3);
        QSignalSpy appended(&log, &EventLog::appended);
        for (int i = 0; i < 5; ++i)
            log.append({{}, u"a"_s, ServerEvent::Kind::Stderr, u"stderr"_s, QString::number(i), {}});
        log.append({{}, u"b"_s, ServerEvent::Kind::Stderr, u"stderr"_s, u"other"_s, {}});
        QCOMPARE(appended.size(), 6);
        const QList<ServerEvent> events = log.events(u"a"_s);
        QCOMPARE(events.size(), 3);
        QCOMPARE(events.first().text, u"2"_s);
        QCOMPARE(events.last().text, u"4"_s);
        QVERIFY(events.last().time.isValid());
        QCOMPARE(log.events(u"b"_s).size(), 1);
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
