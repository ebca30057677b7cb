// The config as the window edits it: atomic saves, the embedded demo saved as the user's file,
// and outside edits picked up.
#include "config/configfile.h"
#include "config/configparser.h"
#include "config/configstore.h"
#include "support/fakeenvironment.h"
#include "support/testfiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

const ConfigContext Context{fakeEnvironment({}), u"/opt/tether/bin"_s};

QJsonObject withServer(QJsonObject root, const QString &name, const QString &command)
{
    QJsonObject servers = root.value(u"mcpServers"_s).toObject();
    servers.insert(name, QJsonObject{{u"command"_s, command}});
    root.insert(u"mcpServers"_s, servers);
    return root;
}

// Runs the server "one" alone, with a shorter request timeout; a file without it cannot run.
QStringList keepOne(ConfigDocument &document)
{
    const ServerConfig *one = document.server(u"one"_s);
    if (!one)
        return {u"no server named one"_s};
    ServerConfig kept = *one;
    kept.requestTimeout = std::chrono::milliseconds(500);
    document.servers = {kept};
    return {};
}



} // namespace

class TestConfigStore final : public QObject
{
    Q_OBJECT

private slots:
    void embeddedDemoIsSavedAsTheUserFile()
    {
        QTemporaryDir dir;
        const QString userPath = dir.filePath(u"tether/servers.json"_s);
        ConfigStore store({QString::fromUtf16(EmbeddedConfigPath), true}, Context, userPath);
        QSignalSpy changed(&store, &ConfigStore::documentChanged);
        store.load();
        QCOMPARE(changed.size(), 1);
        QVERIFY(store.isEmbedded());
        QCOMPARE(store.savePath(), userPath);
        QVERIFY(store.document().server(u"demo"_s));

        QString error;
        QVERIFY2(store.save(withServer(store.document().root, u"extra"_s, u"/bin/extra"_s), &error), qPrintable(error));
        QCOMPARE(changed.size(), 2);
        QVERIFY(!store.isEmbedded());
        QCOMPARE(store.path(), userPath);
        QVERIFY(store.document().server(u"demo"_s));
        QCOMPARE(store.document().server(u"extra"_s)->command.program, u"/bin/extra"_s);
        QCOMPARE(QFile::permissions(userPath), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser
                                                   | QFileDevice::WriteUser);
        // The demo's ${tether:bindir} is kept as written, not expanded into the file.
        QVERIFY(readFile(userPath).contains("${tether:bindir}"));

        // From now on the user's file is followed: an outside edit is picked up.
        const QJsonObject edited = withServer(store.document().root, u"outside"_s, u"/bin/outside"_s);
        QVERIFY(writeFile(userPath, QJsonDocument(edited).toJson()));
        QTRY_VERIFY_WITH_TIMEOUT(store.document().server(u"outside"_s), 5000);
        QCOMPARE(changed.size(), 3);
    }

    void ownSaveIsAppliedAtOnceAndOutsideEditsFollow()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, R"({"mcpServers": {"one": {"command": "/bin/one"}}})"));
        ConfigStore store({path, false}, Context, dir.filePath(u"unused.json"_s));
        store.load();
        QSignalSpy changed(&store, &ConfigStore::documentChanged);
        QString error;
        QVERIFY2(store.save(withServer(store.document().root, u"two"_s, u"/bin/two"_s), &error), qPrintable(error));
        // Applied before save() returns, not when the watcher notices the file.
        QCOMPARE(changed.size(), 1);
        QVERIFY(store.document().server(u"two"_s));
        QVERIFY(writeFile(path, QJsonDocument(withServer(store.document().root, u"three"_s, u"/bin/three"_s)).toJson()));
        QTRY_VERIFY_WITH_TIMEOUT(store.document().server(u"three"_s), 5000);
        QVERIFY(store.document().server(u"two"_s));
    }

    void anEditNeverUndoesAChangeMadeOnDisk()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, R"({"mcpServers": {"one": {"command": "/bin/one"}}})"));
        ConfigStore store({path, false}, Context, dir.filePath(u"unused.json"_s));
        store.load();
        const QJsonObject staleCopy = store.document().root;

        // Edited by hand; Tether has not read it yet.
        const QByteArray byHand = R"({"mcpServers": {"one": {"command": "/bin/one"}, "hand": {"command": "/bin/hand"}}})";
        QVERIFY(writeFile(path, byHand));
        QString error;
        QVERIFY(!store.save(withServer(staleCopy, u"window"_s, u"/bin/window"_s), &error));
        QVERIFY2(error.contains(path) && error.contains(u"changed on disk"_s), qPrintable(error));
        QCOMPARE(readFile(path), byHand);

        // Once read, the edit goes on top of it.
        QTRY_VERIFY_WITH_TIMEOUT(store.document().server(u"hand"_s), 5000);
        QVERIFY2(store.save(withServer(store.document().root, u"window"_s, u"/bin/window"_s), &error), qPrintable(error));
        QVERIFY(store.document().server(u"hand"_s) && store.document().server(u"window"_s));

        // Valid JSON that cannot be used: the reload fails and no edit is saved over it.
        const QByteArray unusable = R"({"mcpServers": []})";
        QVERIFY(writeFile(path, unusable));
        QSignalSpy problems(&store, &ConfigStore::problemChanged);
        QTRY_VERIFY_WITH_TIMEOUT(!problems.isEmpty() && !problems.last().at(0).toString().isEmpty(), 5000);
        QVERIFY(!store.save(withServer(store.document().root, u"late"_s, u"/bin/late"_s), &error));
        QVERIFY2(error.contains(u"fix the file first"_s), qPrintable(error));
        QCOMPARE(readFile(path), unusable);
    }

    void problemClearsWhenABrokenEditIsUndone()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        const QByteArray good = R"({"mcpServers": {"one": {"command": "/bin/one"}}})";
        QVERIFY(writeFile(path, good));
        ConfigStore store({path, false}, Context, dir.filePath(u"unused.json"_s));
        store.load();
        QSignalSpy problems(&store, &ConfigStore::problemChanged);
        QSignalSpy changed(&store, &ConfigStore::documentChanged);
        QVERIFY(writeFile(path, "{ typo"));
        QTRY_VERIFY_WITH_TIMEOUT(!problems.isEmpty() && problems.last().at(0).toString().contains(u"keep running"_s), 5000);
        QVERIFY(writeFile(path, good));
        QTRY_VERIFY_WITH_TIMEOUT(problems.last().at(0).toString().isEmpty(), 5000);
        QCOMPARE(changed.size(), 0); // the same settings: nothing to restart
        QString error;
        QVERIFY2(store.save(withServer(store.document().root, u"two"_s, u"/bin/two"_s), &error), qPrintable(error));
    }

    void theUserFileCreatedMeanwhileIsNotOverwritten()
    {
        QTemporaryDir dir;
        const QString userPath = dir.filePath(u"servers.json"_s);
        ConfigStore store({QString::fromUtf16(EmbeddedConfigPath), true}, Context, userPath);
        store.load();
        const QByteArray imported = R"({"mcpServers": {"imported": {"command": "/bin/imported"}}})";
        QVERIFY(writeFile(userPath, imported));
        QString error;
        QVERIFY(!store.save(withServer(store.document().root, u"extra"_s, u"/bin/extra"_s), &error));
        QVERIFY2(error.contains(userPath) && error.contains(u"was written after"_s)
                     && error.contains(u"Tether is loading it now: make the change again"_s),
                 qPrintable(error));
        QCOMPARE(readFile(userPath), imported);
        // As the message says, it is run from then on.
        QTRY_VERIFY_WITH_TIMEOUT(!store.isEmbedded(), 5000);
        QVERIFY(store.document().server(u"imported"_s));
        QVERIFY(!store.document().server(u"demo"_s));
    }

    // Started on the demo before the user's config exists (its folder neither): the file, once
    // written, is what runs.
    void theUserFileWrittenLaterIsRun()
    {
        QTemporaryDir dir;
        const QString userPath = dir.filePath(u"config/tether/servers.json"_s);
        ConfigStore store({QString::fromUtf16(EmbeddedConfigPath), true}, Context, userPath);
        QSignalSpy changed(&store, &ConfigStore::documentChanged);
        store.load();
        QVERIFY(store.isEmbedded());
        QVERIFY(QDir().mkpath(dir.filePath(u"config/tether"_s)));
        QVERIFY(writeFile(userPath, R"({"mcpServers": {"mine": {"command": "/bin/mine"}}})"));
        QTRY_VERIFY_WITH_TIMEOUT(!store.isEmbedded(), 5000);
        QCOMPARE(changed.size(), 2);
        QCOMPARE(store.path(), userPath);
        QCOMPARE(store.document().serverNames(), QStringList{u"mine"_s});
        // And followed from then on.
        QVERIFY(writeFile(userPath, R"({"mcpServers": {"mine": {"command": "/bin/mine"}, "more": {"command": "/bin/more"}}})"));
        QTRY_VERIFY_WITH_TIMEOUT(store.document().server(u"more"_s), 5000);
    }

    void savesKeepTheFileOrder()
    {
        // The window lists servers in file order: a save keeps it, in the file and in the document.
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, R"({"mcpServers": {"zeta": {"command": "/bin/z"}, "alpha": {"command": "/bin/a", "args": []}}})"));
        ConfigStore store({path, false}, Context, dir.filePath(u"unused.json"_s));
        store.load();
        QString error;
        QVERIFY2(store.save(withServer(store.document().root, u"mid"_s, u"/bin/mid"_s), &error), qPrintable(error));
        const QStringList order{u"zeta"_s, u"alpha"_s, u"mid"_s};
        QCOMPARE(store.document().serverNames(), order);
        QCOMPARE(loadConfig(path, Context).serverNames(), order);
        QVERIFY(readFile(path).indexOf("\"/bin/a\"") < readFile(path).indexOf("\"args\""));

        // The embedded demo has no file to follow: the first save keeps the demo's own order.
        const QString userPath = dir.filePath(u"tether/servers.json"_s);
        ConfigStore demo({QString::fromUtf16(EmbeddedConfigPath), true}, Context, userPath);
        demo.load();
        const QStringList demoOrder = demo.document().serverNames();
        QCOMPARE(demoOrder, (QStringList{u"demo"_s, u"flaky"_s, u"broken"_s}));
        QVERIFY2(demo.save(withServer(demo.document().root, u"added"_s, u"/bin/added"_s), &error), qPrintable(error));
        QCOMPARE(demo.document().serverNames(), demoOrder + QStringList{u"added"_s});
        QCOMPARE(loadConfig(userPath, Context).serverNames(), demoOrder + QStringList{u"added"_s});
    }

    void savesKeepTheFileIndentation_data()
    {
        QTest::addColumn<QByteArray>("indentUnit"); // of the file as the user wrote it
        QTest::addColumn<QByteArray>("newline");
        QTest::addColumn<QByteArray>("savedUnit");
        QTest::newRow("two spaces") << QByteArray("  ") << QByteArray("\n") << QByteArray("  ");
        QTest::newRow("tabs") << QByteArray("\t") << QByteArray("\n") << QByteArray("\t");
        QTest::newRow("four spaces") << QByteArray("    ") << QByteArray("\n") << QByteArray("    ");
        QTest::newRow("two spaces, CRLF") << QByteArray("  ") << QByteArray("\r\n") << QByteArray("  ");
        // A file on one line shows no indentation: QJsonDocument's four spaces.
        QTest::newRow("one line") << QByteArray() << QByteArray() << QByteArray("    ");
    }

    // A save from the window writes the file in its own indentation and line ends, keys in place.
    void savesKeepTheFileIndentation()
    {
        QFETCH(QByteArray, indentUnit);
        QFETCH(QByteArray, newline);
        QFETCH(QByteArray, savedUnit);
        // Lines as (depth, text), laid out with a unit and line end.
        using Lines = QList<std::pair<int, QByteArray>>;
        const auto layout = [](const Lines &lines, const QByteArray &unit, const QByteArray &lineEnd) {
            QByteArray text;
            for (const auto &[depth, line] : lines)
                text += unit.repeated(depth) + line + lineEnd;
            return text;
        };
        const Lines before{{0, "{"},
                           {1, "\"mcpServers\": {"},
                           {2, "\"zeta\": {"},
                           {3, "\"command\": \"/bin/z\","},
                           {3, "\"args\": ["},
                           {4, "\"--port\","},
                           {4, "\"1\""},
                           {3, "]"},
                           {2, "}"},
                           {1, "},"},
                           {1, "\"defaults\": {"},
                           {2, "\"reconnect\": {"},
                           {3, "\"maxAttempts\": 3"},
                           {2, "}"},
                           {1, "}"},
                           {0, "}"}};
        const Lines after{{0, "{"},
                          {1, "\"mcpServers\": {"},
                          {2, "\"zeta\": {"},
                          {3, "\"command\": \"/bin/z\","},
                          {3, "\"args\": ["},
                          {4, "\"--port\","},
                          {4, "\"1\""},
                          {3, "]"},
                          {2, "},"},
                          {2, "\"mid\": {"},
                          {3, "\"command\": \"/bin/mid\""},
                          {2, "}"},
                          {1, "},"},
                          {1, "\"defaults\": {"},
                          {2, "\"reconnect\": {"},
                          {3, "\"maxAttempts\": 3"},
                          {2, "}"},
                          {1, "}"},
                          {0, "}"}};
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, newline.isEmpty() ? layout(before, {}, {}).trimmed() + '\n' : layout(before, indentUnit, newline)));
        ConfigStore store({path, false}, Context, dir.filePath(u"unused.json"_s));
        store.load();
        QVERIFY(store.document().isValid());
        QString error;
        QVERIFY2(store.save(withServer(store.document().root, u"mid"_s, u"/bin/mid"_s), &error), qPrintable(error));
        QCOMPARE(readFile(path), layout(after, savedUnit, newline.isEmpty() ? QByteArray("\n") : newline));
        QCOMPARE(store.document().serverNames(), (QStringList{u"zeta"_s, u"mid"_s}));
    }

    void brokenFileOnDiskIsNeverOverwritten()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, R"({"mcpServers": {"one": {"command": "/bin/one"}}})"));
        ConfigStore store({path, false}, Context, dir.filePath(u"unused.json"_s));
        store.load();
        const QByteArray broken = R"({"mcpServers": {"one": )";
        QVERIFY(writeFile(path, broken));
        QSignalSpy changed(&store, &ConfigStore::documentChanged);
        QString error;
        QVERIFY(!store.save(withServer(store.document().root, u"two"_s, u"/bin/two"_s), &error));
        QVERIFY2(error.contains(path) && error.contains(u"nothing was saved over it"_s), qPrintable(error));
        QCOMPARE(readFile(path), broken);
        QCOMPARE(changed.size(), 0);
        QVERIFY(!store.document().server(u"two"_s));
    }

    // The window's edits go through the same refusal as `tetherctl import`: a server written twice
    // in the file would lose its first definition to a rewrite.
    void aSaveNeverDropsADuplicateDefinition()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        const QByteArray twice = "{\"mcpServers\": {\n  \"one\": {\"command\": \"/bin/first\"},\n"
                                 "  \"one\": {\"command\": \"/bin/second\"}\n}}\n";
        QVERIFY(writeFile(path, twice));
        ConfigStore store({path, false}, Context, dir.filePath(u"unused.json"_s));
        store.load();
        QVERIFY(store.document().server(u"one"_s));
        QString error;
        QVERIFY(!store.save(withServer(store.document().root, u"two"_s, u"/bin/two"_s), &error));
        QVERIFY2(error.contains(path) && error.contains(u"mcpServers.one is defined 2 times (lines 2 and 3)"_s)
                     && error.contains(u"nothing was saved"_s),
                 qPrintable(error));
        QCOMPARE(readFile(path), twice);
        QVERIFY(!store.document().server(u"two"_s));
    }

    void unusableRootIsRefused()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        const QByteArray original = R"({"mcpServers": {"one": {"command": "/bin/one"}}})";
        QVERIFY(writeFile(path, original));
        ConfigStore store({path, false}, Context, dir.filePath(u"unused.json"_s));
        store.load();
        QString error;
        QVERIFY(!store.save(QJsonObject{{u"mcpServers"_s, u"not an object"_s}}, &error));
        QVERIFY2(error.contains(u"nothing was saved"_s) && error.contains(u"mcpServers"_s), qPrintable(error));
        QCOMPARE(readFile(path), original);
    }

    void brokenFileIsReportedThenPickedUpWhenFixed()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, "{ not json"));
        ConfigStore store({path, false}, Context, dir.filePath(u"unused.json"_s));
        QSignalSpy problems(&store, &ConfigStore::problemChanged);
        QSignalSpy changed(&store, &ConfigStore::documentChanged);
        store.load();
        QCOMPARE(changed.size(), 0);
        QCOMPARE(problems.size(), 1);
        const QString problem = problems.takeFirst().at(0).toString();
        QVERIFY2(problem.contains(path) && problem.contains(u"No servers were started"_s), qPrintable(problem));

        QVERIFY(writeFile(path, R"({"mcpServers": {"one": {"command": "/bin/one"}}})"));
        QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 5000);
        QVERIFY(problems.last().at(0).toString().isEmpty());
    }

    void adjustmentShapesEveryDocumentItTakes()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, R"({"mcpServers": {"one": {"command": "/bin/one"}, "two": {"command": "/bin/two"}}})"));
        ConfigStore store({path, false}, Context, dir.filePath(u"unused.json"_s));
        store.setAdjustment(keepOne);
        QSignalSpy changed(&store, &ConfigStore::documentChanged);
        store.load();
        QCOMPARE(changed.size(), 1);
        QCOMPARE(store.document().serverNames(), QStringList{u"one"_s});
        QCOMPARE(store.document().servers.first().requestTimeout, std::chrono::milliseconds(500));
        QVERIFY(store.document().root.value(u"mcpServers"_s).toObject().contains(u"two"_s)); // the file as it is

        // An outside edit is shaped as the load was.
        QVERIFY(writeFile(path, R"({"mcpServers": {"one": {"command": "/bin/one-2"}, "three": {"command": "/bin/three"}}})"));
        QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 2, 5000);
        QCOMPARE(store.document().serverNames(), QStringList{u"one"_s});
        QCOMPARE(store.document().servers.first().command.program, u"/bin/one-2"_s);
        QCOMPARE(store.document().servers.first().requestTimeout, std::chrono::milliseconds(500));

        // So is an edit saved through the store.
        QString error;
        QVERIFY2(store.save(withServer(store.document().root, u"four"_s, u"/bin/four"_s), &error), qPrintable(error));
        QCOMPARE(changed.size(), 3);
        QCOMPARE(store.document().serverNames(), QStringList{u"one"_s});
    }

    void documentTheAdjustmentRefusesIsNeverTaken()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, R"({"mcpServers": {"two": {"command": "/bin/two"}}})"));
        ConfigStore store({path, false}, Context, dir.filePath(u"unused.json"_s));
        store.setAdjustment(keepOne);
        QSignalSpy changed(&store, &ConfigStore::documentChanged);
        QSignalSpy problems(&store, &ConfigStore::problemChanged);
        store.load();
        QCOMPARE(changed.size(), 0);
        QCOMPARE(store.document().errors, QStringList{u"no server named one"_s});
        QVERIFY2(problems.last().at(0).toString().contains(u"No servers were started"_s),
                 qPrintable(problems.last().at(0).toString()));

        const QByteArray withOne = R"({"mcpServers": {"one": {"command": "/bin/one"}}})";
        QVERIFY(writeFile(path, withOne));
        QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 5000);
        QCOMPARE(store.document().serverNames(), QStringList{u"one"_s});

        // Refused on reload: reported as a broken file is, and the document stays as it was.
        QVERIFY(writeFile(path, R"({"mcpServers": {"two": {"command": "/bin/two"}}})"));
        QTRY_VERIFY_WITH_TIMEOUT(problems.last().at(0).toString().contains(u"no server named one"_s), 5000);
        QVERIFY(problems.last().at(0).toString().contains(u"keep running"_s));
        QCOMPARE(changed.size(), 1);
        QCOMPARE(store.document().serverNames(), QStringList{u"one"_s});

        // The same settings written again are judged again, not taken for the running ones.
        const qsizetype problemsSoFar = problems.size();
        QVERIFY(writeFile(path, R"({"mcpServers":   {"two": {"command": "/bin/two"}}})"));
        QTRY_COMPARE_WITH_TIMEOUT(problems.size(), problemsSoFar + 1, 5000);
        QVERIFY(problems.last().at(0).toString().contains(u"no server named one"_s));
        QCOMPARE(changed.size(), 1);

        // An edit it refuses is not saved.
        QVERIFY(writeFile(path, withOne));
        QTRY_COMPARE_WITH_TIMEOUT(problems.last().at(0).toString(), QString(), 5000);
        QString error;
        QJsonObject withoutOne = store.document().root;
        withoutOne.insert(u"mcpServers"_s, QJsonObject{{u"two"_s, QJsonObject{{u"command"_s, u"/bin/two"_s}}}});
        QVERIFY(!store.save(withoutOne, &error));
        QVERIFY2(error.contains(u"nothing was saved"_s) && error.contains(u"no server named one"_s), qPrintable(error));
        QCOMPARE(readFile(path), withOne);
    }

    void everyReaderHoldsToTheSizeLimit()
    {
        // Valid JSON, padded past the limit: no reader takes it, the window's and tetherctl watch's included.
        QTemporaryDir folder;
        QVERIFY(folder.isValid());
        const QString path = folder.filePath(u"servers.json"_s);
        const QByteArray small = R"({"mcpServers": {"demo": {"command": "x"}}})";
        const QByteArray large = small + QByteArray(MaxConfigBytes, ' ');
        QVERIFY(writeFile(path, large));
        const QString tooLarge = path + u": is %1 bytes, too large for a config file (at most %2)"_s.arg(large.size()).arg(MaxConfigBytes);

        QString error;
        QVERIFY(!readConfigFile(path, &error));
        QCOMPARE(error, tooLarge);
        QCOMPARE(loadConfig(path, Context).errors, QStringList{tooLarge});

        ConfigStore store({path, false}, Context, folder.filePath(u"unused.json"_s));
        QSignalSpy changed(&store, &ConfigStore::documentChanged);
        QSignalSpy problems(&store, &ConfigStore::problemChanged);
        store.load();
        QCOMPARE(changed.size(), 0);
        QCOMPARE(problems.size(), 1);
        QVERIFY2(problems.last().at(0).toString().startsWith(tooLarge), qPrintable(problems.last().at(0).toString()));

        // Shrunk, it is taken; grown past the limit again, it is reported and the servers stay.
        QVERIFY(writeFile(path, small));
        QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 5000);
        QVERIFY(writeFile(path, large));
        QTRY_VERIFY_WITH_TIMEOUT(problems.last().at(0).toString().startsWith(tooLarge), 5000);
        QVERIFY(problems.last().at(0).toString().contains(u"keep running"_s));
        QCOMPARE(changed.size(), 1);
        QVERIFY(store.document().server(u"demo"_s));

        // A save never replaces what it could not read.
        QVERIFY(!saveRoot(path, QJsonObject{{u"mcpServers"_s, QJsonObject()}}, &error));
        QCOMPARE(error, tooLarge + u", so it was left untouched"_s);
        QCOMPARE(QFileInfo(path).size(), large.size());
    }

    void readOnceIgnoresLaterChanges()
    {
        // A command that runs once reads the file once: tetherctl status prints the errors of a
        // broken file and exits, and a fix made meanwhile changes nothing.
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, "{ not json"));
        ConfigStore once({path, false}, Context, dir.filePath(u"unused.json"_s));
        QSignalSpy onceChanged(&once, &ConfigStore::documentChanged);
        QSignalSpy onceProblems(&once, &ConfigStore::problemChanged);
        once.load(ConfigStore::FileChanges::Ignore);
        QCOMPARE(onceChanged.size(), 0);
        QCOMPARE(onceProblems.size(), 1);
        QVERIFY(!once.document().isValid());
        const QString errors = once.document().errors.join(u' ');
        QVERIFY2(errors.contains(path) && errors.contains(u"line 1"_s), qPrintable(errors));

        // A store following the same file, loaded after it, sees the fix: by then the first one
        // would have seen it too.
        ConfigStore following({path, false}, Context, dir.filePath(u"unused.json"_s));
        following.load();
        QVERIFY(writeFile(path, R"({"mcpServers": {"one": {"command": "/bin/one"}}})"));
        QTRY_VERIFY_WITH_TIMEOUT(following.document().server(u"one"_s), 5000);
        QCOMPARE(onceChanged.size(), 0);
        QCOMPARE(onceProblems.size(), 1);
        QVERIFY(!once.document().isValid());
    }
};

QTEST_GUILESS_MAIN(TestConfigStore)
#include "tst_configstore.moc"
