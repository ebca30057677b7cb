// Connecting an AI client: the "tether" entry is spliced into copies of real-shaped client files
// (tests/data/connect), and the result is compared byte for byte with the file expected, which
// differs from the original only by the entry (and the comma before it). Also: --move, undo after
// a change, broken files refused, the JSONC reader, the line diff, tool names over budget.
#include "config/clientconnect.h"
#include "config/clientconnectfile.h"
#include "config/jsoncscan.h"
#include "support/testfiles.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;

Q_DECLARE_METATYPE(Tether::ConnectClient)

namespace {

const QString Data = QStringLiteral(TETHER_TEST_DATA "/connect/");

QByteArray fixture(const QString &name)
{
    const QByteArray bytes = Testing::readFile(Data + name);
    if (bytes.isEmpty())
        qFatal("missing fixture %s", qPrintable(name));
    return bytes;
}

// What the expected files hold in place of the program's path and the token.
GatewayReach placeholderReach(bool http)
{
    GatewayReach reach;
    reach.http = http;
    reach.tetherctl = u"@TETHERCTL@"_s;
    reach.serveArguments = {u"serve"_s};
    reach.url = u"http://127.0.0.1:27413/mcp"_s;
    reach.token = u"@TOKEN@"_s;
    return reach;
}

QJsonValue parsed(const QByteArray &text)
{
    const JsoncScan scan = scanJsonc(text);
    if (!scan.root)
        qFatal("does not parse: %s", qPrintable(scan.error));
    return scan.root->value;
}

} // namespace

class TestClientConnect final : public QObject
{
    Q_OBJECT

private slots:
    void entryIsSplicedIntoTheFileAsItIs_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<ConnectClient>("client");
        QTest::addColumn<bool>("http");
        QTest::addColumn<QString>("expected");
        QTest::newRow("Claude Desktop, stdio") << u"claude_desktop_config.json"_s << ConnectClient::ClaudeDesktop << false
                                               << u"expected/claude_desktop_config.json"_s;
        QTest::newRow("Cursor, BOM and CRLF, http") << u"cursor_mcp.json"_s << ConnectClient::Cursor << true
                                                    << u"expected/cursor_mcp.json"_s;
        QTest::newRow("VS Code, JSONC with tabs, http") << u"vscode_mcp.json"_s << ConnectClient::VsCode << true
                                                        << u"expected/vscode_mcp.json"_s;
        QTest::newRow("VS Code settings.json, stdio") << u"vscode_settings.json"_s << ConnectClient::VsCode << false
                                                      << u"expected/vscode_settings.json"_s;
        QTest::newRow("Claude Code, http") << u"claude.json"_s << ConnectClient::ClaudeCode << true
                                           << u"expected/claude.json"_s;
    }

    void entryIsSplicedIntoTheFileAsItIs()
    {
        QFETCH(QString, file);
        QFETCH(ConnectClient, client);
        QFETCH(bool, http);
        QFETCH(QString, expected);
        const QByteArray before = fixture(file);
        const ConnectPlan plan = planConnect(before, file, client, placeholderReach(http));
        QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
        QVERIFY(!plan.replacesEntry);
        QCOMPARE(plan.after, fixture(expected));

        // Connecting again over it changes nothing.
        const ConnectPlan again = planConnect(plan.after, file, client, placeholderReach(http));
        QVERIFY(again.replacesEntry);
        QCOMPARE(again.after, plan.after);
        QVERIFY(again.diff.isEmpty());
    }

    void aFileWithoutServersGetsThem_data()
    {
        QTest::addColumn<QByteArray>("before");
        QTest::addColumn<QByteArray>("after");
        const QByteArray entry = "\"tether\": {\n      \"command\": \"@TETHERCTL@\",\n      \"args\": [\"serve\"]\n    }";
        QTest::newRow("no file") << QByteArray() << "{\n  \"mcpServers\": {\n    " + entry + "\n  }\n}\n";
        QTest::newRow("blank") << QByteArray("\n\n") << "{\n  \"mcpServers\": {\n    " + entry + "\n  }\n}\n";
        QTest::newRow("other keys") << QByteArray("{\n  \"theme\": \"dark\"\n}\n")
                                    << "{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    " + entry + "\n  }\n}\n";
        QTest::newRow("empty servers") << QByteArray("{\n  \"mcpServers\": {}\n}\n")
                                       << "{\n  \"mcpServers\": {\n    " + entry + "\n  }\n}\n";
        QTest::newRow("one line") << QByteArray("{\"mcpServers\": {\"a\": {\"command\": \"x\"}}}")
                                  << QByteArray("{\"mcpServers\": {\"a\": {\"command\": \"x\"}, \"tether\": {\n    \"command\": "
                                                "\"@TETHERCTL@\",\n    \"args\": [\"serve\"]\n  }}}");
    }

    void aFileWithoutServersGetsThem()
    {
        QFETCH(QByteArray, before);
        QFETCH(QByteArray, after);
        const ConnectPlan plan = planConnect(before, u"claude.json"_s, ConnectClient::ClaudeDesktop, placeholderReach(false));
        QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
        QCOMPARE(plan.after, after);
    }

    void anExistingEntryIsReplaced()
    {
        const QByteArray stdio = planConnect(fixture(u"cursor_mcp.json"_s), u"mcp.json"_s, ConnectClient::Cursor,
                                             placeholderReach(false)).after;
        const ConnectPlan plan = planConnect(stdio, u"mcp.json"_s, ConnectClient::Cursor, placeholderReach(true));
        QVERIFY(plan.replacesEntry);
        QCOMPARE(plan.after, fixture(u"expected/cursor_mcp.json"_s));
        QStringList removed;
        QStringList added;
        for (const DiffLine &line : plan.diff)
            (line.added ? added : removed).append(line.text.trimmed());
        QCOMPARE(removed, (QStringList{u"\"command\": \"@TETHERCTL@\","_s, u"\"args\": [\"serve\"]"_s}));
        QCOMPARE(added, (QStringList{u"\"url\": \"http://127.0.0.1:27413/mcp\","_s, u"\"headers\": {"_s,
                                     u"\"Authorization\": \"Bearer @TOKEN@\""_s, u"}"_s}));
    }

    void moveTakesOutTheServersTetherRuns_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<ConnectClient>("client");
        QTest::addColumn<QStringList>("moved");
        QTest::addColumn<QString>("expected");
        // memory: the same command and arguments (Tether's own reconnect policy does not count);
        // github: another token, so another server.
        QTest::newRow("Claude Desktop") << u"claude_desktop_config.json"_s << ConnectClient::ClaudeDesktop
                                        << QStringList{u"memory"_s} << u"expected/claude_desktop_config.moved.json"_s;
        QTest::newRow("Cursor: url and headers") << u"cursor_mcp.json"_s << ConnectClient::Cursor
                                                 << QStringList{u"remote-api"_s} << u"expected/cursor_mcp.moved.json"_s;
        QTest::newRow("Claude Code: only its user servers") << u"claude.json"_s << ConnectClient::ClaudeCode
                                                            << QStringList{u"memory"_s} << u"expected/claude.moved.json"_s;
    }

    void moveTakesOutTheServersTetherRuns()
    {
        QFETCH(QString, file);
        QFETCH(ConnectClient, client);
        QFETCH(QStringList, moved);
        QFETCH(QString, expected);
        const QList<ServerConfig> tether = serversAsWritten(fixture(u"tether_servers.json"_s), u"servers.json"_s);
        const QByteArray before = fixture(file);
        const ConnectPlan plan = planConnect(before, file, client, placeholderReach(client != ConnectClient::ClaudeDesktop), tether);
        QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
        QStringList names;
        for (const MovedServer &server : plan.moved)
            names.append(server.name);
        QCOMPARE(names, moved);
        QCOMPARE(plan.after, fixture(expected));

        // Undone after the file changed elsewhere: the entry goes, the moved servers come back,
        // the other change stays.
        QByteArray edited = plan.after;
        edited.insert(edited.lastIndexOf("\"mcpServers\""), "\"extra\": 1, ");
        const UndoSplice undo = planUndoSplice(edited, file, client, plan.moved);
        QVERIFY2(undo.error.isEmpty(), qPrintable(undo.error));
        QVERIFY(undo.removedEntry);
        QCOMPARE(undo.restored, moved);
        QJsonObject expectedRoot = parsed(before).toObject();
        expectedRoot.insert(u"extra"_s, 1);
        QCOMPARE(parsed(undo.after), QJsonValue(expectedRoot));
    }

    void undoOfTheUnchangedSpliceGivesTheFileBack()
    {
        const QList<ServerConfig> tether = serversAsWritten(fixture(u"tether_servers.json"_s), u"servers.json"_s);
        const QByteArray before = fixture(u"claude_desktop_config.json"_s);
        const ConnectPlan plan = planConnect(before, u"c.json"_s, ConnectClient::ClaudeDesktop, placeholderReach(false), tether);
        const UndoSplice undo = planUndoSplice(plan.after, u"c.json"_s, ConnectClient::ClaudeDesktop, plan.moved);
        // The entry's line and the moved server's come out and go in as they were written.
        QCOMPARE(parsed(undo.after), parsed(before));
    }

    void aBrokenFileIsRefused_data()
    {
        QTest::addColumn<QByteArray>("before");
        QTest::addColumn<QString>("error");
        QTest::newRow("unclosed array") << fixture(u"broken.json"_s)
                                        << u"broken.json: line 6, column 5: ',' or ']' expected after an element"_s;
        QTest::newRow("an array") << QByteArray("[1, 2]") << u"broken.json holds an array, not a JSON object"_s;
        QTest::newRow("servers not an object") << QByteArray("{\"mcpServers\": []}")
                                               << u"broken.json: \"mcpServers\" is an array, not an object of servers"_s;
        QTest::newRow("unclosed comment") << QByteArray("{ /* x ") << u"broken.json: line 1, column 3: a /* comment is never closed"_s;
        QTest::newRow("text after") << QByteArray("{} {}") << u"broken.json: line 1, column 4: text after the end"_s;
    }

    void aBrokenFileIsRefused()
    {
        QFETCH(QByteArray, before);
        QFETCH(QString, error);
        const ConnectPlan plan = planConnect(before, u"broken.json"_s, ConnectClient::ClaudeDesktop, placeholderReach(false));
        QVERIFY2(plan.error.startsWith(error), qPrintable(plan.error));
        QVERIFY2(plan.error.contains(u"nothing was written"_s), qPrintable(plan.error));
        QVERIFY(plan.after.isEmpty());
    }

    void connectingAgainKeepsTheFirstBackup()
    {
        QTemporaryDir dir;
        qputenv("XDG_STATE_HOME", dir.filePath(u"state"_s).toUtf8());
        const QString path = dir.filePath(u"mcp.json"_s);
        const QByteArray original = fixture(u"cursor_mcp.json"_s);
        QVERIFY(Testing::writeFile(path, original));
        for (const bool http : {false, true}) {
            const ClientFile before = readClientFile(path);
            const ConnectPlan plan = planConnect(before.content, path, ConnectClient::Cursor, placeholderReach(http));
            QString error;
            QVERIFY2(applyConnect(path, ConnectClient::Cursor, before, plan, &error), qPrintable(error));
        }
        QCOMPARE(Testing::readFile(path), fixture(u"expected/cursor_mcp.json"_s));
        // Undo goes back to the file as it was before Tether touched it, not to the first connect's.
        const UndoOutcome undo = undoConnect(path, ConnectClient::Cursor);
        QVERIFY2(undo.done, qPrintable(undo.error));
        QCOMPARE(Testing::readFile(path), original);
        QVERIFY(!hasConnectRecord(path));
        QVERIFY(undoConnect(path, ConnectClient::Cursor).error.startsWith(u"no connect of "_s));
        qunsetenv("XDG_STATE_HOME");
    }

    void aFileChangedWhileConnectingIsNotWritten()
    {
        QTemporaryDir dir;
        qputenv("XDG_STATE_HOME", dir.filePath(u"state"_s).toUtf8());
        const QString path = dir.filePath(u"mcp.json"_s);
        QVERIFY(Testing::writeFile(path, fixture(u"cursor_mcp.json"_s)));
        const ClientFile before = readClientFile(path);
        const ConnectPlan plan = planConnect(before.content, path, ConnectClient::Cursor, placeholderReach(true));
        // Cursor saves the file meanwhile.
        const QByteArray theirs = fixture(u"cursor_mcp.json"_s).replace("python", "python3");
        QVERIFY(Testing::writeFile(path, theirs));
        QString error;
        QVERIFY(!applyConnect(path, ConnectClient::Cursor, before, plan, &error));
        QCOMPARE(error, path + u" changed while Tether was connecting Cursor to it, so nothing was written: connect again"_s);
        QCOMPARE(Testing::readFile(path), theirs);
        QVERIFY(!hasConnectRecord(path));
        qunsetenv("XDG_STATE_HOME");
    }

    void jsoncReadsCommentsAndTrailingCommas()
    {
        const JsoncScan scan = scanJsonc("\xEF\xBB\xBF{ // c\n \"a\": [1, 2,], /* b */ \"b\": {\"c\": \"\\u00e9\\ud83d\\ude00\",},\n}");
        QVERIFY2(scan.root, qPrintable(scan.error));
        QCOMPARE(scan.root->value, QJsonValue(QJsonObject{{u"a"_s, QJsonArray{1, 2}},
                                                          {u"b"_s, QJsonObject{{u"c"_s, u"é😀"_s}}}}));
        QCOMPARE(scan.root->members.size(), size_t(2));
        QCOMPARE(scan.root->members.at(0).keyStart, 11);
        QVERIFY(scan.root->members.at(1).commaAfter > 0);
    }

    void lineDiffNamesTheLines()
    {
        const QList<DiffLine> diff = lineDiff("a\nb\nc\nd\n", "a\nc\nx\nd\n");
        QCOMPARE(diff.size(), 2);
        QCOMPARE(diff.at(0).added, false);
        QCOMPARE(diff.at(0).line, 2);
        QCOMPARE(diff.at(0).text, u"b"_s);
        QCOMPARE(diff.at(1).added, true);
        QCOMPARE(diff.at(1).line, 3);
        QCOMPARE(diff.at(1).text, u"x"_s);
    }

    void toolNamesOverTheClientsBudget()
    {
        const QString fifty = u"s__"_s + QString(47, u'x');
        const QString sixty = u"s__"_s + QString(57, u'x');
        QCOMPARE(namesOverBudget(ConnectClient::ClaudeCode, {fifty, sixty}), QStringList{sixty});
        QCOMPARE(namesOverBudget(ConnectClient::Cursor, {fifty, sixty}), QStringList{sixty});
        QCOMPARE(namesOverBudget(ConnectClient::ClaudeDesktop, {fifty, sixty}), QStringList());
        QCOMPARE(clientToolNameBudget(ConnectClient::ClaudeCode), 51);
        QCOMPARE(clientToolNameBudget(ConnectClient::Cursor), 54);
    }

    void previewHidesTheToken()
    {
        const ConnectPlan plan = planConnect({}, u"mcp.json"_s, ConnectClient::Cursor, placeholderReach(true));
        const QString preview = connectPreview(u"mcp.json"_s, ConnectClient::Cursor, plan, placeholderReach(true), {u"a__b"_s});
        QVERIFY2(!preview.contains(u"@TOKEN@"_s), qPrintable(preview));
        QVERIFY2(preview.contains(u"+     5 |       \"headers\": {"_s), qPrintable(preview));
        QVERIFY2(preview.contains(u"Bearer ••••••"_s), qPrintable(preview));
        QVERIFY2(preview.contains(u"longer and will be left out or refused: a__b"_s), qPrintable(preview));
        QVERIFY2(preview.endsWith(u"Restart Cursor to load it.\n"_s), qPrintable(preview));
    }

    void previewSaysWhatElseItTakes()
    {
        GatewayReach reach = placeholderReach(true);
        reach.notice = u"Nothing serves the URL yet."_s;
        const ConnectPlan plan = planConnect({}, u"mcp.json"_s, ConnectClient::Cursor, reach);
        const QString preview = connectPreview(u"mcp.json"_s, ConnectClient::Cursor, plan, reach, {});
        QVERIFY2(preview.endsWith(u"Nothing serves the URL yet.\nRestart Cursor to load it.\n"_s), qPrintable(preview));
    }
};

QTEST_GUILESS_MAIN(TestClientConnect)
#include "tst_clientconnect.moc"
