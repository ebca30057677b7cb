// Logs to take away, in the window on real demo servers: the export of one server's log and of
// every server's, the combined log with its filters and how it follows new events, a call from
// the Call tool dialog in the server's Log, Copy command run by a shell, Copy URL, and Open log
// folder with and without a folder. And the logs to read, on events made up here: a fixed-pitch
// font, columns that line up, warnings and errors in colours that read on light and dark
// palettes, the times in view, following at the bottom only, and a combined log that Esc,
// Ctrl+W and Close close.
#include "combinedlogview.h"
#include "eventlogview.h"
#include "mainwindow.h"
#include "schemaform.h"
#include "timelineview.h"
#include "toolcalldialog.h"
#include "common/logging.h"
#include "config/configstore.h"
#include "manager/eventlogtext.h"
#include "manager/servermanager.h"
#include "support/demoserverconfig.h"
#include "support/mnemonicchecks.h"
#include "support/namedchild.h"
#include "support/stopallandwait.h"
#include "support/testfiles.h"
#include "support/testprocess.h"

#include <QAccessible>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDesktopServices>
#include <QDir>
#include <QFileDialog>
#include <QFontInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QScrollBar>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTimer>
#include <QTreeView>
#include <QTreeWidget>

#include <cmath>

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

ServerEvent madeUpEvent(const QString &server, ServerEvent::Kind kind, const QString &text)
{
    ServerEvent event;
    event.time = QDateTime::currentDateTime();
    event.server = server;
    event.kind = kind;
    event.text = text;
    event.status.name = server;
    event.status.state = ServerState::Connected;
    return event;
}

ServerEvent stderrLine(const QString &server, const QString &text)
{
    return madeUpEvent(server, ServerEvent::Kind::Stderr, text);
}

ServerEvent stateChange(const QString &server, ServerState state, const QString &text)
{
    ServerEvent event = madeUpEvent(server, ServerEvent::Kind::StateChange, text);
    event.status.state = state;
    return event;
}

ServerEvent logMessage(const QString &server, const QString &level, const QString &text)
{
    ServerEvent event = madeUpEvent(server, ServerEvent::Kind::ServerLog, text);
    event.level = level;
    return event;
}

// One of each level: info (a stderr line), a warning and an error (state changes), a server's
// own info and error messages.
QList<ServerEvent> eventsOfEachLevel(const QString &server)
{
    return {stderrLine(server, u"listening"_s), stateChange(server, ServerState::Retrying, u"exited with 1"_s),
            stateChange(server, ServerState::Failed, u"gave up"_s), logMessage(server, u"info"_s, u"ready"_s),
            logMessage(server, u"critical"_s, u"disk full"_s)};
}

// WCAG's contrast ratio of two colours, from 1 (the same) to 21 (black on white).
double contrast(const QColor &first, const QColor &second)
{
    const auto luminance = [](const QColor &colour) {
        const auto linear = [](double channel) {
            return channel <= 0.03928 ? channel / 12.92 : std::pow((channel + 0.055) / 1.055, 2.4);
        };
        return 0.2126 * linear(colour.redF()) + 0.7152 * linear(colour.greenF()) + 0.0722 * linear(colour.blueF());
    };
    const auto [darker, lighter] = std::minmax(luminance(first), luminance(second));
    return (lighter + 0.05) / (darker + 0.05);
}

// The colour a line is shown in: the whole line's own, or the palette's text colour.
QColor shownColour(const QTextBlock &line, const QPalette &palette)
{
    QColor colour;
    for (QTextBlock::iterator it = line.begin(); !it.atEnd(); ++it) {
        const QTextCharFormat format = it.fragment().charFormat();
        const QColor fragment = format.hasProperty(QTextFormat::ForegroundBrush) ? format.foreground().color()
                                                                                 : palette.color(QPalette::Text);
        if (colour.isValid() && fragment != colour)
            return {}; // the line is not in one colour
        colour = fragment;
    }
    return colour;
}

QTextBlock lineAt(const QPlainTextEdit *view, int number)
{
    return view->document()->findBlockByNumber(number);
}

QPalette paletteOn(const QColor &base, const QColor &text)
{
    QPalette palette = QApplication::palette();
    palette.setColor(QPalette::Base, base);
    palette.setColor(QPalette::Text, text);
    palette.setColor(QPalette::Window, base);
    palette.setColor(QPalette::WindowText, text);
    return palette;
}

// Servers that never start: their names are in the window, their events made up.
ConfigDocument disabledServers(const QStringList &names)
{
    QList<ServerConfig> servers;
    for (const QString &name : names) {
        servers.append(demoServerConfig(name));
        servers.last().enabled = false;
    }
    return configDocument(servers);
}

// The first line in view.
QString topLine(const QPlainTextEdit *view)
{
    return view->cursorForPosition(QPoint(2, 2)).block().text();
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
        QVERIFY2(lines(text).first().contains(u"  broken  error      state   Failed: "_s), qPrintable(text->toPlainText()));
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
        const auto connections = [&] { return text->toPlainText().count(u"  beta    info       state   Connected"_s); };
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
        QTRY_VERIFY(log->toPlainText().contains(u"  info       call    window called echo: ok ("_s));
        QTRY_VERIFY(log->toPlainText().contains(u"  warning    call    window called fail: tool error ("_s));
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

    void logsAreInAFixedPitchFont()
    {
        ServerManager manager;
        EventLogView log;
        CombinedLogView combined(manager);
        TimelineView timeline;
        for (const QWidget *view : {static_cast<const QWidget *>(namedChild<QPlainTextEdit>(log, u"logText"_s)),
                                    static_cast<const QWidget *>(namedChild<QPlainTextEdit>(combined, u"combinedLogText"_s)),
                                    static_cast<const QWidget *>(&timeline)}) {
            QVERIFY2(QFontInfo(view->font()).fixedPitch(), qPrintable(QFontInfo(view->font()).family()));
            QCOMPARE(view->fontMetrics().horizontalAdvance(u"iiii"_s), view->fontMetrics().horizontalAdvance(u"WWWW"_s));
        }
    }

    void logColumnsLineUp()
    {
        // One server's log: time, level, kind, then what happened, wherever each level and kind.
        EventLogView log;
        auto *text = namedChild<QPlainTextEdit>(log, u"logText"_s);
        const QList<ServerEvent> events = eventsOfEachLevel(u"demo"_s);
        log.setEvents(events);
        QCOMPARE(lines(text).size(), events.size());
        const auto textColumn = [](const QString &line, const ServerEvent &event) { return line.indexOf(eventText(event)); };
        for (qsizetype at = 0; at < events.size(); ++at) {
            const QString line = lines(text).at(at);
            QCOMPARE(textColumn(line, events.at(at)), textColumn(lines(text).first(), events.first()));
            QVERIFY2(line.mid(14).startsWith(eventLevel(events.at(at))), qPrintable(line)); // after "HH:mm:ss.zzz  "
        }
        QVERIFY2(lines(text).at(1).contains(u"  warning    state   Retrying: exited with 1"_s), qPrintable(lines(text).at(1)));
        // A line appended lines up too.
        log.appendEvent(logMessage(u"demo"_s, u"warning"_s, u"slow"_s));
        QTRY_COMPARE(lines(text).size(), events.size() + 1);
        QCOMPARE(lines(text).last().indexOf(u"slow"_s), textColumn(lines(text).first(), events.first()));

        // The combined log: the server too, as wide as the longest name.
        ServerManager manager;
        manager.applyConfig(disabledServers({u"a"_s, u"much-longer-name"_s}));
        CombinedLogView combined(manager);
        combined.show();
        QList<ServerEvent> both = eventsOfEachLevel(u"a"_s) + eventsOfEachLevel(u"much-longer-name"_s);
        for (const ServerEvent &event : std::as_const(both))
            manager.eventLog().append(event);
        auto *combinedText = namedChild<QPlainTextEdit>(combined, u"combinedLogText"_s);
        QTRY_COMPARE(lines(combinedText).size(), both.size());
        const QString first = lines(combinedText).first();
        for (qsizetype at = 0; at < both.size(); ++at) {
            const QString line = lines(combinedText).at(at);
            QCOMPARE(textColumn(line, both.at(at)), textColumn(first, both.first()));
            QCOMPARE(line.indexOf(eventLevel(both.at(at)), 14 + 2), first.indexOf(u"info"_s, 14 + 2));
        }
        QVERIFY2(first.contains(u"  a                 info       stderr  listening"_s), qPrintable(first));
    }

    void warningsAndErrorsReadOnLightAndDark_data()
    {
        QTest::addColumn<QColor>("base");
        QTest::addColumn<QColor>("text");
        QTest::newRow("white") << QColor(0xff, 0xff, 0xff) << QColor(0, 0, 0);
        QTest::newRow("light grey") << QColor(0xe0, 0xe0, 0xe0) << QColor(0x20, 0x20, 0x20);
        QTest::newRow("dark grey") << QColor(0x3c, 0x3c, 0x3c) << QColor(0xee, 0xee, 0xee);
        QTest::newRow("nearly black") << QColor(0x1b, 0x1e, 0x20) << QColor(0xfc, 0xfc, 0xfc);
        QTest::newRow("black") << QColor(0, 0, 0) << QColor(0xff, 0xff, 0xff);
    }

    void warningsAndErrorsReadOnLightAndDark()
    {
        QFETCH(QColor, base);
        QFETCH(QColor, text);
        const QPalette palette = paletteOn(base, text);
        const QList<ServerEvent> events = eventsOfEachLevel(u"demo"_s);
        const QList<LogSeverity> severities{LogSeverity::Other, LogSeverity::Warning, LogSeverity::Error,
                                            LogSeverity::Other, LogSeverity::Error};
        // Each line as its level says: info in the text colour, warnings and errors in colours
        // of their own that read on the base.
        const auto checkLines = [&](const QPlainTextEdit *view, int from) {
            QColor warning;
            QColor error;
            for (int at = 0; at < events.size(); ++at) {
                const QColor shown = shownColour(lineAt(view, from + at), palette);
                const QString line = lineAt(view, from + at).text();
                QVERIFY2(shown.isValid(), qPrintable(line));
                if (severities.at(at) == LogSeverity::Other) {
                    QCOMPARE(shown, text);
                    continue;
                }
                QVERIFY2(shown != text, qPrintable(line));
                QVERIFY2(contrast(shown, base) >= 4.5,
                         qPrintable(u"%1 on %2: %3"_s.arg(shown.name(), base.name()).arg(contrast(shown, base))));
                (severities.at(at) == LogSeverity::Error ? error : warning) = shown;
            }
            QVERIFY(warning.isValid() && error.isValid());
            QVERIFY(warning != error);
        };
        EventLogView log;
        log.setPalette(palette);
        auto *logText = namedChild<QPlainTextEdit>(log, u"logText"_s);
        log.setEvents(events);
        checkLines(logText, 0);
        for (const ServerEvent &event : events)
            log.appendEvent(event);
        QTRY_COMPARE(logText->document()->blockCount(), 2 * events.size());
        checkLines(logText, int(events.size()));

        // The Timeline's rows: warnings and errors in the same colours as the log's.
        TimelineView timeline;
        timeline.setPalette(palette);
        timeline.setEvents(events + QList<ServerEvent>{stateChange(u"demo"_s, ServerState::Connected, {})});
        timeline.appendEvent(stateChange(u"demo"_s, ServerState::Retrying, u"again"_s));
        QCOMPARE(timeline.topLevelItemCount(), 4); // Retrying, Failed, Connected, Retrying
        const auto rowColour = [&](int row) {
            const QVariant colour = timeline.topLevelItem(row)->data(4, Qt::ForegroundRole);
            return colour.isValid() ? colour.value<QColor>() : palette.color(QPalette::Text);
        };
        const QColor warning = shownColour(lineAt(logText, 1), palette);
        const QColor error = shownColour(lineAt(logText, 2), palette);
        QCOMPARE(rowColour(0), warning);
        QCOMPARE(rowColour(1), error);
        QCOMPARE(rowColour(2), text);
        QCOMPARE(rowColour(3), warning);
        QCOMPARE(timeline.topLevelItem(1)->data(0, Qt::ForegroundRole).value<QColor>(), error); // the whole row

        // A switch between light and dark while shown: the lines take the other palette's colours.
        const QPalette other = paletteOn(text, base);
        log.setPalette(other);
        timeline.setPalette(other);
        QCOMPARE(shownColour(lineAt(logText, 1), other), logSeverityColour(LogSeverity::Warning, other));
        QCOMPARE(shownColour(lineAt(logText, 2), other), logSeverityColour(LogSeverity::Error, other));
        QCOMPARE(shownColour(lineAt(logText, 0), other), base);
        QVERIFY(logSeverityColour(LogSeverity::Warning, other) != warning);
        QCOMPARE(rowColour(0), logSeverityColour(LogSeverity::Warning, other));
    }

    void logOpensWithTheTimesInView_data()
    {
        QTest::addColumn<bool>("shownFirst");
        QTest::newRow("Log tab open") << true;   // another server selected while the Log tab shows
        QTest::newRow("Log tab later") << false; // the Log tab opened after the server was selected
    }

    void logOpensWithTheTimesInView()
    {
        QFETCH(bool, shownFirst);
        // Lines wider than the view, the last the widest: where it ends is not where the view opens.
        QList<ServerEvent> events;
        for (int i = 0; i < 100; ++i)
            events.append(stderrLine(u"demo"_s, u"line %1 "_s.arg(i) + QString(i * 3, u'x')));
        EventLogView log;
        log.resize(400, 200);
        const auto show = [&] {
            log.show();
            return QTest::qWaitForWindowExposed(&log);
        };
        if (shownFirst)
            QVERIFY(show());
        log.setEvents(events);
        if (!shownFirst)
            QVERIFY(show());
        auto *text = namedChild<QPlainTextEdit>(log, u"logText"_s);
        QTRY_VERIFY(text->horizontalScrollBar()->maximum() > 0);
        QCOMPARE(text->horizontalScrollBar()->value(), 0);
        QVERIFY(text->verticalScrollBar()->maximum() > 0);
        QCOMPARE(text->verticalScrollBar()->value(), text->verticalScrollBar()->maximum()); // the newest in view
        log.appendEvent(stderrLine(u"demo"_s, QString(1000, u'y')));
        QTRY_COMPARE(lines(text).size(), events.size() + 1);
        QCOMPARE(text->horizontalScrollBar()->value(), 0);
        QCOMPARE(text->verticalScrollBar()->value(), text->verticalScrollBar()->maximum());
    }

    void logFollowsAtTheBottomOnly()
    {
        EventLogView log;
        log.resize(500, 200);
        log.show();
        QVERIFY(QTest::qWaitForWindowExposed(&log));
        auto *text = namedChild<QPlainTextEdit>(log, u"logText"_s);
        auto *follow = namedChild<QCheckBox>(log, u"logFollow"_s);
        QScrollBar *scroll = text->verticalScrollBar();
        const auto atBottom = [scroll] { return scroll->value() == scroll->maximum(); };
        int made = 0;
        // Appended, and shown: lines that come close together are added together.
        const auto appendLine = [&] {
            const QString line = u"line %1"_s.arg(++made);
            log.appendEvent(stderrLine(u"demo"_s, line));
            return QTest::qWaitFor([&] { return lines(text).last().endsWith(line); });
        };
        QList<ServerEvent> events;
        for (; made < 100; ++made)
            events.append(stderrLine(u"demo"_s, u"line %1"_s.arg(made)));
        log.setEvents(events);
        QVERIFY(scroll->maximum() > 0);
        QVERIFY(atBottom());
        QVERIFY(follow->isChecked());

        int maximum = scroll->maximum();
        QVERIFY(appendLine());
        QCOMPARE(scroll->maximum(), maximum + 1);
        QVERIFY(atBottom());

        // Scrolled up: the reader's lines stay in view, and Follow says it is off.
        scroll->setValue(10);
        QVERIFY(!follow->isChecked());
        const QString top = topLine(text);
        QVERIFY(appendLine());
        QVERIFY(appendLine());
        QCOMPARE(scroll->value(), 10);
        QCOMPARE(topLine(text), top);

        // Back at the bottom: it follows again.
        scroll->setValue(scroll->maximum());
        QVERIFY(follow->isChecked());
        QVERIFY(appendLine());
        QVERIFY(atBottom());
        QVERIFY2(lines(text).last().endsWith(u"line %1"_s.arg(made)), qPrintable(lines(text).last()));

        // Follow turned off at the bottom: new lines come in below the view; on: the view goes down.
        follow->click();
        QVERIFY(!follow->isChecked());
        maximum = scroll->maximum();
        QVERIFY(appendLine());
        QCOMPARE(scroll->value(), maximum);
        QVERIFY(!atBottom());
        follow->click();
        QVERIFY(atBottom());
        QVERIFY(appendLine());
        QVERIFY(atBottom());

        // The keyboard: Ctrl+Home goes up (and stops following), Ctrl+End down (and follows).
        text->setFocus();
        QTest::keyClick(text, Qt::Key_Home, Qt::ControlModifier);
        QCOMPARE(scroll->value(), 0);
        QVERIFY(!follow->isChecked());
        QTest::keyClick(text, Qt::Key_End, Qt::ControlModifier);
        QVERIFY(follow->isChecked());
        QVERIFY(appendLine());
        QVERIFY(atBottom());
    }

    void logKeepsTheReadersPlaceWhileTheOldestGo()
    {
        EventLogText text(50);
        text.resize(400, 200);
        text.show();
        QVERIFY(QTest::qWaitForWindowExposed(&text));
        QList<ServerEvent> events;
        for (int i = 0; i < 60; ++i)
            events.append(stderrLine(u"demo"_s, u"line %1"_s.arg(i)));
        text.setEvents(events);
        QCOMPARE(text.document()->blockCount(), 50); // the last 50
        QVERIFY(lines(&text).first().endsWith(u"line 10"_s));
        text.verticalScrollBar()->setValue(10);
        const QString top = topLine(&text);
        for (int i = 0; i < 5; ++i)
            text.appendEvent(stderrLine(u"demo"_s, u"more %1"_s.arg(i)));
        QTRY_VERIFY(lines(&text).last().endsWith(u"more 4"_s));
        QCOMPARE(text.document()->blockCount(), 50);
        QVERIFY(lines(&text).first().endsWith(u"line 15"_s));
        QCOMPARE(topLine(&text), top);
        QVERIFY(!text.isFollowing());
    }

    void timelineFollowsAtTheBottomOnly()
    {
        QList<ServerEvent> events;
        for (int i = 0; i < 100; ++i)
            events.append(stateChange(u"demo"_s, i % 2 ? ServerState::Connected : ServerState::Reconnecting,
                                      u"change %1"_s.arg(i)));
        TimelineView timeline;
        timeline.resize(500, 200);
        // Filled while hidden, as behind another tab: it shows the newest rows when it shows.
        timeline.setEvents(events);
        timeline.show();
        QVERIFY(QTest::qWaitForWindowExposed(&timeline));
        QScrollBar *scroll = timeline.verticalScrollBar();
        QTRY_VERIFY(scroll->maximum() > 0);
        QTRY_COMPARE(scroll->value(), scroll->maximum());
        const int maximum = scroll->maximum();
        const auto appendRow = [&](const QString &text) {
            timeline.appendEvent(stateChange(u"demo"_s, ServerState::Retrying, text));
        };

        appendRow(u"new 1"_s);
        QTRY_COMPARE(scroll->maximum(), maximum + 1);
        QCOMPARE(scroll->value(), scroll->maximum());

        // Scrolled up: it stays.
        scroll->setValue(5);
        appendRow(u"new 2"_s);
        QTRY_COMPARE(scroll->maximum(), maximum + 2);
        QCOMPARE(scroll->value(), 5);

        // Back at the bottom: it follows again.
        scroll->setValue(scroll->maximum());
        appendRow(u"new 3"_s);
        QTRY_COMPARE(scroll->maximum(), maximum + 3);
        QCOMPARE(scroll->value(), scroll->maximum());
        QCOMPARE(timeline.topLevelItem(timeline.topLevelItemCount() - 1)->text(4), u"new 3"_s);
    }

    void combinedLogClosesWithEscCtrlWAndClose()
    {
        ServerManager manager;
        manager.applyConfig(disabledServers({u"demo"_s}));
        CombinedLogView view(manager);
        const auto open = [&] {
            view.show();
            view.activateWindow();
            return QTest::qWaitForWindowActive(&view);
        };
        auto *server = namedChild<QComboBox>(view, u"combinedLogServer"_s);
        auto *level = namedChild<QComboBox>(view, u"combinedLogLevel"_s);
        auto *search = namedChild<QLineEdit>(view, u"combinedLogSearch"_s);
        auto *follow = namedChild<QCheckBox>(view, u"combinedLogFollow"_s);
        auto *text = namedChild<QPlainTextEdit>(view, u"combinedLogText"_s);
        auto *close = namedChild<QPushButton>(view, u"combinedLogClose"_s);

        QVERIFY(open());
        search->setFocus();
        QTest::keyClick(search, Qt::Key_Escape);
        QVERIFY(!view.isVisible());

        QVERIFY(open());
        text->setFocus();
        QTest::keyClick(text, Qt::Key_W, Qt::ControlModifier);
        QVERIFY(!view.isVisible());

        QVERIFY(open());
        QVERIFY(close->isVisible());
        close->click();
        QVERIFY(!view.isVisible());

        // Alt and the underlined letter: Follow and Close.
        QVERIFY(open());
        QVERIFY2(mnemonicProblems(&view).isEmpty(), qPrintable(mnemonicProblems(&view).join(u"; "_s)));
        QVERIFY(follow->isChecked());
        QTest::keyClick(&view, Qt::Key_F, Qt::AltModifier);
        QTRY_VERIFY(!follow->isChecked());
        QTest::keyClick(&view, Qt::Key_C, Qt::AltModifier);
        QTRY_VERIFY(!view.isVisible());

        // Tab goes through every control in the order they are seen, each with a name to read.
        QVERIFY(open());
        server->setFocus();
        QList<QWidget *> reached{QApplication::focusWidget()};
        for (int i = 0; i < 6; ++i) {
            QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
            reached.append(QApplication::focusWidget());
        }
        const QList<QWidget *> expected{server, level, search, follow, text, close, server};
        QCOMPARE(reached, expected);
        for (QWidget *control : expected) {
            QAccessibleInterface *accessible = QAccessible::queryAccessibleInterface(control);
            QVERIFY(accessible);
            QVERIFY2(!accessible->text(QAccessible::Name).isEmpty(), control->metaObject()->className());
        }
    }

    void logTabIsReachedAndNamed()
    {
        EventLogView log;
        log.show();
        QVERIFY(QTest::qWaitForWindowActive(&log));
        auto *kind = namedChild<QComboBox>(log, u"logLevel"_s);
        const QList<QWidget *> expected{kind, namedChild<QLineEdit>(log, u"logSearch"_s),
                                        namedChild<QCheckBox>(log, u"logFollow"_s),
                                        namedChild<QPlainTextEdit>(log, u"logText"_s), kind};
        kind->setFocus();
        QList<QWidget *> reached{QApplication::focusWidget()};
        for (int i = 1; i < expected.size(); ++i) {
            QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
            reached.append(QApplication::focusWidget());
        }
        QCOMPARE(reached, expected);
        for (QWidget *control : expected) {
            QAccessibleInterface *accessible = QAccessible::queryAccessibleInterface(control);
            QVERIFY(accessible);
            QVERIFY2(!accessible->text(QAccessible::Name).isEmpty(), control->metaObject()->className());
        }
        // Alt+W (Alt+F is the window's File menu) turns following off and on.
        QVERIFY(mnemonicProblems(&log).isEmpty());
        QTest::keyClick(&log, Qt::Key_W, Qt::AltModifier);
        QTRY_VERIFY(!namedChild<QCheckBox>(log, u"logFollow"_s)->isChecked());
    }
};

QTEST_MAIN(TestWindowLogs)
#include "tst_windowlogs.moc"
