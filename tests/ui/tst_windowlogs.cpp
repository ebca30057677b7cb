// Logs to take away, in the window on real demo servers: the export of one server's log and of
// every server's, the combined log with its filters and how it follows new events, a call from
// the Call tool dialog in the server's Log, Copy command run by a shell, Copy URL, and Open log
// folder with and without a folder.
#include "combinedlogview.h"
#include "mainwindow.h"
#include "schemaform.h"
#include "toolcalldialog.h"
#include "common/logging.h"
#include "config/configstore.h"
#include "manager/eventlogtext.h"
#include "manager/servermanager.h"
#include "support/namedchild.h"
#include "support/stopallandwait.h"
#include "support/testfiles.h"
#include "support/testprocess.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDesktopServices>
#include <QDir>
#include <QFileDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QScrollBar>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

// A config of demo servers and the window on it, run the way the tether program runs them:
// "alpha" and "beta" connect (alpha writes 40 stderr lines first), "broken" fails at startup and
// gives up after one attempt, "local" (a command that needs quoting) and "remote" stay disabled.
struct WindowFixture
{
    WindowFixture()
        : path(dir.filePath(u"servers.json"_s))
    {
        QDir(dir.path()).mkpath(u"work dir"_s);
        const QJsonObject quiet{{u"enabled"_s, false}};
        const auto demo = [&](const QStringList &arguments, const QJsonObject &extra = {}) {
            QJsonObject entry{{u"command"_s, demoServer().program},
                              {u"args"_s, QJsonArray::fromStringList(arguments)},
                              {u"heartbeat"_s, quiet}};
            for (auto it = extra.begin(); it != extra.end(); ++it)
                entry.insert(it.key(), it.value());
            return entry;
        };
        const QJsonObject servers{
            {u"alpha"_s, demo({u"--stderr-lines"_s, u"40"_s})},
            {u"beta"_s, demo({})},
            {u"broken"_s, demo({u"--fail-at-startup"_s}, {{u"reconnect"_s, QJsonObject{{u"maxAttempts"_s, 1}}}})},
            {u"local"_s, demo({u"--stderr-lines"_s, u"2"_s, u"--log-file"_s, u"it's a log.txt"_s, u"--leak-env"_s,
                               u"DEMO_GREETING"_s},
                              {{u"enabled"_s, false},
                               {u"cwd"_s, dir.filePath(u"work dir"_s)},
                               {u"env"_s, QJsonObject{{u"DEMO_GREETING"_s, u"hello $USER \"world\""_s}}}})},
            {u"remote"_s, QJsonObject{{u"url"_s, u"http://127.0.0.1:9/mcp?token=abc&x=1"_s}, {u"enabled"_s, false}}},
        };
        writeFile(path, QJsonDocument(QJsonObject{{u"mcpServers"_s, servers}}).toJson());
        QObject::connect(&store, &ConfigStore::documentChanged, &manager, &ServerManager::applyConfig);
        store.load();
        window.show();
    }

    bool started()
    {
        const auto in = [&](const QString &name, ServerState state) {
            const std::optional<ServerStatus> status = manager.status(name);
            return status && status->state == state;
        };
        return QTest::qWaitFor([&] {
            return in(u"alpha"_s, ServerState::Connected) && in(u"beta"_s, ServerState::Connected)
                   && in(u"broken"_s, ServerState::Failed);
        }, 20000);
    }

    QAction *action(const QString &name) const { return namedChild<QAction>(window, name); }

    QTemporaryDir dir;
    QString path;
    ServerManager manager;
    ConfigStore store{{path, false}, {systemEnvironment(), {}}, dir.filePath(u"user.json"_s)};
    MainWindow window{manager, store};
};

// Runs `answer` on the next modal dialog of type T once it is open (looked for again while
// another one is still closing).
template<typename T>
void answerNextModal(std::function<void(T *)> answer, int triesLeft = 1000)
{
    QTimer::singleShot(10, qApp, [answer = std::move(answer), triesLeft]() mutable {
        auto *dialog = qobject_cast<T *>(QApplication::activeModalWidget());
        if (dialog && dialog->isVisible())
            answer(dialog);
        else if (triesLeft > 0)
            answerNextModal<T>(std::move(answer), triesLeft - 1);
        else
            QFAIL("no dialog of the expected kind opened");
    });
}

// Types `path` into a save dialog's file name, as a person does: selectFile() leaves the name
// alone while the name field has the focus, which the window system gives it or not.
void typeFileName(QFileDialog *dialog, const QString &path)
{
    namedChild<QLineEdit>(*dialog, u"fileNameEdit"_s)->setText(path);
    static_cast<QDialog *>(dialog)->accept(); // QFileDialog makes it protected
}

// Answers the next save dialog with `path`.
void saveAs(const QString &path)
{
    answerNextModal<QFileDialog>([path](QFileDialog *dialog) { typeFileName(dialog, path); });
}

// The text of the next message box, which is then closed.
void readNextMessageBox(QString *text)
{
    answerNextModal<QMessageBox>([text](QMessageBox *box) {
        *text = box->text();
        box->accept();
    });
}

QStringList lines(const QPlainTextEdit *view)
{
    return view->toPlainText().split(u'\n', Qt::SkipEmptyParts);
}

} // namespace

class UrlCatcher final : public QObject
{
    Q_OBJECT

public:
    QList<QUrl> opened;

public slots:
    void open(const QUrl &url) { opened.append(url); }
};

class TestWindowLogs final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        // The window's settings and the log folder: never the user's own.
        QStandardPaths::setTestModeEnabled(true);
    }

    void exportsOneServerOrEvery()
    {
        WindowFixture fixture;
        QVERIFY(fixture.started());
        fixture.window.selectServer(u"alpha"_s);

        const QString alphaPath = fixture.dir.filePath(u"alpha.log"_s);
        saveAs(alphaPath);
        fixture.action(u"exportServerLog"_s)->trigger();
        QStringList expected;
        for (const ServerEvent &event : fixture.manager.eventLog().events(u"alpha"_s))
            expected.append(eventLogLine(event));
        QVERIFY(expected.size() > 40); // its stderr lines and state changes
        QCOMPARE(QString::fromUtf8(readFile(alphaPath)), expected.join(u'\n') + u'\n');
        QVERIFY(expected.join(u'\n').contains(u"  alpha  info  state  Connected: "_s));

        // Every server's, as JSON lines: a .jsonl name chooses them.
        const QString allPath = fixture.dir.filePath(u"all.jsonl"_s);
        saveAs(allPath);
        fixture.action(u"exportAllLogs"_s)->trigger();
        const QList<ServerEvent> all = fixture.manager.eventLog().allEvents();
        const QList<QByteArray> written = readFile(allPath).split('\n');
        QCOMPARE(written.size(), all.size() + 1); // the last line ends too
        QSet<QString> servers;
        for (qsizetype i = 0; i < all.size(); ++i) {
            const QJsonObject line = QJsonDocument::fromJson(written.at(i)).object();
            QCOMPARE(line.value(u"server").toString(), all.at(i).server);
            QCOMPARE(line.value(u"text").toString(), all.at(i).text);
            servers.insert(line.value(u"server").toString());
        }
        QCOMPARE(servers, (QSet<QString>{u"alpha"_s, u"beta"_s, u"broken"_s}));

        // Where nothing can be written: said, and nothing else happens.
        // A folder that is a file: not even root can write there.
        QVERIFY(writeFile(fixture.dir.filePath(u"not-a-folder"_s), {}));
        const QString nowhere = fixture.dir.filePath(u"not-a-folder/export.log"_s);
        QString message;
        answerNextModal<QFileDialog>([&](QFileDialog *dialog) {
            readNextMessageBox(&message);
            typeFileName(dialog, nowhere);
        });
        fixture.action(u"exportServerLog"_s)->trigger();
        QVERIFY2(message.startsWith(u"The log of 'alpha' was not exported: cannot write the log to "_s + nowhere),
                 qPrintable(message));
        QVERIFY(!QFile::exists(nowhere));

        QVERIFY(stopAllAndWait(fixture.manager));
    }

    void combinedLogFiltersAndFollows()
    {
        WindowFixture fixture;
        QVERIFY(fixture.started());
        fixture.action(u"showCombinedLog"_s)->trigger();
        auto *view = namedChild<CombinedLogView>(fixture.window, u"combinedLog"_s);
        QVERIFY(view->isVisible());
        auto *text = namedChild<QPlainTextEdit>(*view, u"combinedLogText"_s);
        auto *server = namedChild<QComboBox>(*view, u"combinedLogServer"_s);
        auto *level = namedChild<QComboBox>(*view, u"combinedLogLevel"_s);
        auto *search = namedChild<QLineEdit>(*view, u"combinedLogSearch"_s);

        QCOMPARE(lines(text).size(), fixture.manager.eventLog().allEvents().size());
        for (const QString &name : {u"alpha"_s, u"beta"_s, u"broken"_s})
            QVERIFY2(text->toPlainText().contains(u"  "_s + name + u"  "_s), qPrintable(name));
        QCOMPARE(server->count(), 6); // all, and the five servers

        server->setCurrentIndex(server->findText(u"broken"_s));
        QVERIFY(!lines(text).isEmpty());
        for (const QString &line : lines(text))
            QVERIFY2(line.contains(u"  broken  "_s), qPrintable(line));
        server->setCurrentIndex(0);

        level->setCurrentIndex(level->findText(u"Errors"_s));
        QCOMPARE(lines(text).size(), 1); // broken gave up: nothing else is an error
        QVERIFY2(lines(text).first().contains(u"  broken  error  state  Failed: "_s), qPrintable(text->toPlainText()));
        level->setCurrentIndex(level->findText(u"Warnings and errors"_s));
        for (const QString &line : lines(text))
            QVERIFY2(line.contains(u"  warning  "_s) || line.contains(u"  error  "_s), qPrintable(line));
        level->setCurrentIndex(0);

        search->setText(u"REFUSING to start"_s);
        QVERIFY(!lines(text).isEmpty());
        for (const QString &line : lines(text))
            QVERIFY2(line.contains(u"refusing to start"_s) && line.contains(u"  broken  "_s), qPrintable(line));
        search->clear();

        // A reader who scrolled up stays there while new events come in.
        QScrollBar *scroll = text->verticalScrollBar();
        QVERIFY(scroll->maximum() > 0);
        QCOMPARE(scroll->value(), scroll->maximum());
        scroll->setValue(0);
        const auto connections = [&] { return text->toPlainText().count(u"beta  info  state  Connected"_s); };
        const int before = connections();
        fixture.manager.reconnect(u"beta"_s);
        QTRY_COMPARE_WITH_TIMEOUT(connections(), before + 1, 10000);
        QCOMPARE(scroll->value(), 0);
        // At the bottom, each new line is followed.
        scroll->setValue(scroll->maximum());
        fixture.manager.reconnect(u"beta"_s);
        QTRY_COMPARE_WITH_TIMEOUT(connections(), before + 2, 10000);
        QCOMPARE(scroll->value(), scroll->maximum());
        QVERIFY(text->toPlainText().endsWith(lines(text).last()));
        QVERIFY(lines(text).last().contains(u"beta"_s));

        QVERIFY(stopAllAndWait(fixture.manager));
    }

    void callFromTheDialogIsInTheServersLog()
    {
        WindowFixture fixture;
        QVERIFY(fixture.started());
        fixture.window.selectServer(u"beta"_s);
        auto *tools = namedChild<QTreeView>(fixture.window, u"tools"_s);
        QTRY_VERIFY(tools->model()->rowCount() > 0);
        const auto tool = [&](const QString &name) {
            return tools->model()->match(tools->model()->index(0, 0), Qt::DisplayRole, name, 1, Qt::MatchExactly).value(0);
        };
        const auto callFromTheWindow = [&](const QString &name, const QString &message) {
            tools->setCurrentIndex(tool(name));
            fixture.action(u"callTool"_s)->trigger();
            auto *dialog = fixture.window.findChild<ToolCallDialog *>();
            QVERIFY(dialog);
            auto *field = qobject_cast<QLineEdit *>(namedChild<SchemaForm>(*dialog, u"form"_s)->editor(u"message"_s));
            QVERIFY(field);
            field->setText(message);
            dialog->call();
            QTRY_VERIFY_WITH_TIMEOUT(!dialog->isCalling(), 10000);
            delete dialog;
        };
        callFromTheWindow(u"echo"_s, u"hello"_s);
        callFromTheWindow(u"fail"_s, u"on purpose"_s);

        auto *log = namedChild<QPlainTextEdit>(fixture.window, u"logText"_s);
        QTRY_VERIFY(log->toPlainText().contains(u"  call  window called echo: ok ("_s));
        QVERIFY(log->toPlainText().contains(u"  call  window called fail: tool error ("_s));
        // The Log tab's "Tool calls" shows these alone; the failed one is a warning.
        auto *kind = namedChild<QComboBox>(fixture.window, u"logLevel"_s);
        kind->setCurrentIndex(kind->findText(u"Tool calls"_s));
        QCOMPARE(lines(log).size(), 2);
        kind->setCurrentIndex(kind->findText(u"Warnings and errors"_s));
        QCOMPARE(lines(log).size(), 1);
        QVERIFY(lines(log).first().contains(u"window called fail: tool error"_s));
        const ServerEvent last = fixture.manager.eventLog().events(u"beta"_s).last();
        QCOMPARE(last.kind, ServerEvent::Kind::ToolCall);
        QCOMPARE(last.level, u"warning"_s);

        QVERIFY(stopAllAndWait(fixture.manager));
    }

    void copyCommandGivesALineAShellRuns()
    {
        WindowFixture fixture;
        QVERIFY(fixture.started());
        QAction *copyCommand = fixture.action(u"copyCommand"_s);
        QAction *copyUrl = fixture.action(u"copyUrl"_s);

        fixture.window.selectServer(u"local"_s);
        QVERIFY(copyCommand->isVisible() && copyCommand->isEnabled());
        QVERIFY(!copyUrl->isVisible());
        copyCommand->trigger();
        const QString line = QGuiApplication::clipboard()->text();
        QVERIFY2(line.startsWith(u"cd "_s) && line.contains(u"DEMO_GREETING="_s), qPrintable(line));

        // The shell runs the server as Tether would: in its folder, with its environment and
        // arguments, none of them expanded; stdin at its end stops it.
        QProcess shell;
        shell.start(u"/bin/sh"_s, {u"-c"_s, line});
        shell.closeWriteChannel();
        QVERIFY(shell.waitForFinished(10000));
        QCOMPARE(shell.exitCode(), 0);
        const QString said = QString::fromUtf8(shell.readAllStandardError());
        QVERIFY2(said.contains(u"stderr line 2 of 2"_s) && said.contains(u"hello $USER \"world\""_s), qPrintable(said));
        QVERIFY(QFile::exists(fixture.dir.filePath(u"work dir/it's a log.txt"_s)));

        fixture.window.selectServer(u"remote"_s);
        QVERIFY(!copyCommand->isVisible());
        QVERIFY(copyUrl->isVisible() && copyUrl->isEnabled());
        copyUrl->trigger();
        QCOMPARE(QGuiApplication::clipboard()->text(), u"http://127.0.0.1:9/mcp?token=abc&x=1"_s);

        QVERIFY(stopAllAndWait(fixture.manager));
    }

    void openLogFolderSaysWhenThereIsNone()
    {
        WindowFixture fixture;
        const QString folder = appLogFolder();
        QVERIFY(QDir(folder).removeRecursively());
        QString message;
        readNextMessageBox(&message);
        fixture.action(u"openLogFolder"_s)->trigger();
        QVERIFY2(message.startsWith(u"There is no log folder: "_s + folder + u" does not exist"_s), qPrintable(message));

        QVERIFY(QDir().mkpath(folder));
        UrlCatcher catcher;
        QDesktopServices::setUrlHandler(u"file"_s, &catcher, "open");
        fixture.action(u"openLogFolder"_s)->trigger();
        QDesktopServices::unsetUrlHandler(u"file"_s);
        QCOMPARE(catcher.opened, QList<QUrl>{QUrl::fromLocalFile(folder)});

        QVERIFY(stopAllAndWait(fixture.manager));
    }
};

QTEST_MAIN(TestWindowLogs)
#include "tst_windowlogs.moc"
