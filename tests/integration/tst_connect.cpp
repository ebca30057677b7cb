// tetherctl connect on copies of real-shaped client files (tests/data/connect): the file written
// is the expected one byte for byte (every other byte of the original kept), its mode is kept but
// for its owner alone once it holds the gateway's token, --undo gives the original back byte for
// byte and mode for mode, a broken file is left untouched, an HTTP client is
// given the URL at which the config has the gateway listen, and the entry written for Claude Desktop works: the official SDK client starts it and calls a tool through it.
#include "config/clientconnectfile.h"
#include "support/runprogram.h"
#include "support/sdkhost.h"
#include "support/testfiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using Testing::readFile;
using Testing::writeFile;

namespace {

const QString Data = QStringLiteral(TETHER_TEST_DATA "/connect/");
// A file's mode, as chmod sets it (Qt adds the "user" bits of whoever runs the test).
QFileDevice::Permissions modeOf(const QString &path)
{
    const QFileDevice::Permissions userBits = QFileDevice::ReadUser | QFileDevice::WriteUser | QFileDevice::ExeUser;
    return QFile::permissions(path) & ~userBits;
}

constexpr QFileDevice::Permissions GroupReadable =
    QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup;

} // namespace

class TestConnect final : public QObject
{
    Q_OBJECT

private slots:
    void init()
    {
        m_dir.emplace();
        QVERIFY(m_dir->isValid());
        for (const char *folder : {"state", "config", "run", "home"})
            QVERIFY(QDir(m_dir->path()).mkpath(QString::fromLatin1(folder)));
        // Tether's config: the demo server, as "demo".
        m_config = m_dir->filePath(u"servers.json"_s);
        QVERIFY(writeFile(m_config, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{{u"demo"_s, QJsonObject{
            {u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}}}}}}).toJson()));
    }

    void connectKeepsEveryOtherByteAndUndoGivesTheFileBack_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("client");
        QTest::addColumn<QString>("title");
        QTest::newRow("Claude Desktop") << u"claude_desktop_config.json"_s << u"claude"_s << u"Claude Desktop"_s;
        QTest::newRow("Cursor") << u"cursor_mcp.json"_s << u"cursor"_s << u"Cursor"_s;
        QTest::newRow("VS Code") << u"vscode_mcp.json"_s << u"vscode"_s << u"VS Code"_s;
        QTest::newRow("Claude Code") << u"claude.json"_s << u"claude-code"_s << u"Claude Code"_s;
    }

    void connectKeepsEveryOtherByteAndUndoGivesTheFileBack()
    {
        QFETCH(QString, file);
        QFETCH(QString, client);
        QFETCH(QString, title);
        const QByteArray original = readFile(Data + file);
        const QString copy = m_dir->filePath(file);
        QVERIFY(writeFile(copy, original));
        QVERIFY(QFile::setPermissions(copy, GroupReadable));

        const Testing::ProgramRun run = tetherctl({u"connect"_s, client, copy, u"--config"_s, m_config});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(u"Restart %1 to load it."_s.arg(title)), qPrintable(run.out));
        QCOMPARE(readFile(copy), expected(u"expected/"_s + file));
        const bool holdsToken = client != u"claude"; // the others are connected over HTTP, with the token
        const QString narrowed = u"Others can read %1 now; as it will hold the token, Tether makes it readable by you "
                                 "alone (mode 0600). --undo gives its mode back."_s.arg(copy);
        QCOMPARE(run.out.contains(narrowed), holdsToken);
        if (holdsToken) {
            QCOMPARE(modeOf(copy), QFileDevice::ReadOwner | QFileDevice::WriteOwner);
            QCOMPARE(modeOf(tokenFile()), QFileDevice::ReadOwner | QFileDevice::WriteOwner);
            QVERIFY2(!run.out.contains(token()), "the preview shows the token");
        } else {
            QCOMPARE(modeOf(copy), GroupReadable);
        }

        const Testing::ProgramRun undo = tetherctl({u"connect"_s, client, copy, u"--undo"_s});
        QVERIFY2(undo.exitCode == 0, qPrintable(undo.err));
        QVERIFY2(undo.out.startsWith(u"Restored "_s), qPrintable(undo.out));
        QCOMPARE(readFile(copy), original);
        QCOMPARE(modeOf(copy), GroupReadable);
        QVERIFY(!hasConnectRecordIn(copy));
    }

    void moveThenUndoAfterAnEditPutsTheServersBack()
    {
        const QByteArray original = readFile(Data + u"claude_desktop_config.json"_s);
        const QString copy = m_dir->filePath(u"claude_desktop_config.json"_s);
        const QString tetherConfig = m_dir->filePath(u"tether_servers.json"_s);
        QVERIFY(writeFile(copy, original));
        QVERIFY(writeFile(tetherConfig, readFile(Data + u"tether_servers.json"_s)));

        const Testing::ProgramRun run = tetherctl({u"connect"_s, u"claude"_s, copy, u"--move"_s, u"--config"_s, tetherConfig});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(u"Moved to Tether (it runs them already, so Claude Desktop stops running them too): memory"_s),
                 qPrintable(run.out));
        QCOMPARE(readFile(copy), expected(u"expected/claude_desktop_config.moved.json"_s, tetherConfig));

        // The user changes something else; undo keeps that, takes the entry out, puts memory back.
        QVERIFY(writeFile(copy, readFile(copy).replace("Ctrl+Space", "Ctrl+Alt+Space")));
        const Testing::ProgramRun undo = tetherctl({u"connect"_s, u"claude"_s, copy, u"--undo"_s});
        QVERIFY2(undo.exitCode == 0, qPrintable(undo.err));
        QVERIFY2(undo.out.contains(u"changed since the connect"_s) && undo.out.contains(u"put back memory"_s), qPrintable(undo.out));
        QByteArray edited = original;
        edited.replace("Ctrl+Space", "Ctrl+Alt+Space");
        QCOMPARE(QJsonDocument::fromJson(readFile(copy)), QJsonDocument::fromJson(edited));
    }

    void aBrokenFileIsLeftUntouched()
    {
        const QByteArray broken = readFile(Data + u"broken.json"_s);
        const QString copy = m_dir->filePath(u"broken.json"_s);
        QVERIFY(writeFile(copy, broken));
        const Testing::ProgramRun run = tetherctl({u"connect"_s, u"claude"_s, copy, u"--config"_s, m_config});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(copy + u": line 6, column 5: ',' or ']' expected after an element"_s), qPrintable(run.err));
        QVERIFY2(run.err.contains(u"nothing was written: fix it"_s), qPrintable(run.err));
        QCOMPARE(readFile(copy), broken);
        QVERIFY(QDir(m_dir->filePath(u"state/tether/connect"_s)).isEmpty());
    }

    void dryRunWritesNothing()
    {
        const QByteArray original = readFile(Data + u"cursor_mcp.json"_s);
        const QString copy = m_dir->filePath(u"mcp.json"_s);
        QVERIFY(writeFile(copy, original));
        const Testing::ProgramRun run = tetherctl({u"connect"_s, u"cursor"_s, copy, u"--dry-run"_s, u"--config"_s, m_config});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(u"+    16 |         \"tether\": {"_s), qPrintable(run.out));
        // Only added lines: the last server's closing brace gets its comma and keeps its place.
        QVERIFY2(run.out.contains(u"+    15 |         },"_s) && !run.out.contains(u"\n-"_s), qPrintable(run.out));
        QVERIFY2(run.out.contains(u"Nothing was written (--dry-run)."_s), qPrintable(run.out));
        QCOMPARE(readFile(copy), original);
        QVERIFY(!QFile::exists(tokenFile()));
    }

    // Claude Desktop and VS Code keep their files where Electron apps do: under $XDG_CONFIG_HOME.
    void theDefaultFilesAreUnderXdgConfigHome_data()
    {
        QTest::addColumn<QString>("client");
        QTest::addColumn<QString>("file");
        QTest::newRow("Claude Desktop") << u"claude"_s << u"config/Claude/claude_desktop_config.json"_s;
        QTest::newRow("VS Code") << u"vscode"_s << u"config/Code/User/mcp.json"_s;
        QTest::newRow("Cursor") << u"cursor"_s << u"home/.cursor/mcp.json"_s;
    }

    void theDefaultFilesAreUnderXdgConfigHome()
    {
        QFETCH(QString, client);
        QFETCH(QString, file);
        const Testing::ProgramRun run = tetherctl({u"connect"_s, client, u"--config"_s, m_config});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(QFile::exists(m_dir->filePath(file)), qPrintable(run.out));
        // A file the connect made has no previous content: the undo removes it.
        QVERIFY2(run.out.contains(u", which did not exist (tetherctl connect %1 --undo removes it)."_s.arg(client)),
                 qPrintable(run.out));
        const Testing::ProgramRun undo = tetherctl({u"connect"_s, client, u"--undo"_s});
        QVERIFY2(undo.exitCode == 0, qPrintable(undo.err));
        QVERIFY2(undo.out.contains(u", which the connect had made. Restart "_s) && undo.out.contains(u" for it to take effect."_s),
                 qPrintable(undo.out));
        QVERIFY(!QFile::exists(m_dir->filePath(file)));
    }

    // Cursor keeps tool names to 60 characters, less its entry's name: a long server name makes
    // every prefixed name too long, and with gateway.names "plain" the preview counts the plain ones.
    void theNameBudgetCountsTheGatewaysNames_data()
    {
        QTest::addColumn<QString>("names");
        QTest::addColumn<bool>("warned");
        QTest::newRow("prefixed") << u"prefixed"_s << true;
        QTest::newRow("plain") << u"plain"_s << false;
    }

    void theNameBudgetCountsTheGatewaysNames()
    {
        QFETCH(QString, names);
        QFETCH(bool, warned);
        const QString server = u"a-server-whose-name-alone-takes-most-of-the-budget"_s;
        QVERIFY(writeFile(m_config, QJsonDocument(QJsonObject{
            {u"mcpServers"_s, QJsonObject{{server, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}}}}},
            {u"gateway"_s, QJsonObject{{u"names"_s, names}}}}).toJson()));
        const QString copy = m_dir->filePath(u"mcp.json"_s);
        QVERIFY(writeFile(copy, readFile(Data + u"cursor_mcp.json"_s)));
        const Testing::ProgramRun run = tetherctl({u"connect"_s, u"cursor"_s, copy, u"--dry-run"_s, u"--config"_s, m_config});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(run.out.contains(server + u"__echo"_s), warned);
        QCOMPARE(run.out.contains(u"or set \"gateway\": {\"names\": \"plain\"} in its config"_s), warned);
    }

    void theUrlIsWhereTheConfigHasTheGatewayListen()
    {
        QVERIFY(writeFile(m_config, QJsonDocument(QJsonObject{
            {u"mcpServers"_s, QJsonObject{{u"demo"_s, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}}}}},
            {u"gateway"_s, QJsonObject{{u"http"_s, QJsonObject{{u"enabled"_s, true}, {u"port"_s, 28123}}}}}}).toJson()));
        const QString copy = m_dir->filePath(u"mcp.json"_s);
        QVERIFY(writeFile(copy, readFile(Data + u"cursor_mcp.json"_s)));
        const Testing::ProgramRun run = tetherctl({u"connect"_s, u"cursor"_s, copy, u"--config"_s, m_config});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject entry = QJsonDocument::fromJson(readFile(copy))[u"mcpServers"][u"tether"].toObject();
        QCOMPARE(entry.value(u"url").toString(), u"http://127.0.0.1:28123/mcp"_s);
    }

    void theClaudeDesktopEntryServesTheConfigsTools()
    {
        const QString file = m_dir->filePath(u"home/claude_desktop_config.json"_s);
        const Testing::ProgramRun run = tetherctl({u"connect"_s, u"claude"_s, file, u"--config"_s, m_config});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject entry = QJsonDocument::fromJson(readFile(file))[u"mcpServers"][u"tether"].toObject();
        const QString command = entry.value(u"command").toString();
        QVERIFY2(QDir::isAbsolutePath(command), qPrintable(command));
        QStringList arguments;
        for (const QJsonValue &argument : entry.value(u"args").toArray())
            arguments.append(argument.toString());
        QCOMPARE(arguments, (QStringList{u"serve"_s, u"--config"_s, m_config}));

        // What Claude Desktop does with it: start the command, initialize, list, call.
        Testing::SdkHost host(command, arguments, environment());
        QVERIFY2(host.waitForEvent(u"connected"_s), host.nodeStderr().constData());
        QVERIFY(host.listToolNames(u"l1"_s).contains(u"demo__echo"_s));
        host.send({{u"op"_s, u"call"_s}, {u"id"_s, u"c1"_s}, {u"name"_s, u"demo__echo"_s},
                   {u"arguments"_s, QJsonObject{{u"message"_s, u"through the entry"_s}}}});
        const std::optional<QJsonObject> answer = host.waitForAnswer(u"c1"_s);
        QVERIFY(answer);
        QCOMPARE(answer->value(u"event").toString(), u"result"_s);
        QVERIFY2(QJsonDocument(answer->value(u"result").toObject()).toJson().contains("through the entry"),
                 QJsonDocument(*answer).toJson().constData());
        host.send({{u"op"_s, u"close"_s}});
        QVERIFY(host.waitForEvent(u"closed"_s));
    }

private:
    QProcessEnvironment environment() const
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"XDG_STATE_HOME"_s, m_dir->filePath(u"state"_s));
        environment.insert(u"XDG_CONFIG_HOME"_s, m_dir->filePath(u"config"_s));
        environment.insert(u"XDG_RUNTIME_DIR"_s, m_dir->filePath(u"run"_s));
        environment.insert(u"HOME"_s, m_dir->filePath(u"home"_s));
        return environment;
    }

    Testing::ProgramRun tetherctl(const QStringList &arguments) const
    {
        return Testing::runProgram(QStringLiteral(TETHERCTL), arguments, environment(), 60000);
    }

    QString tokenFile() const { return m_dir->filePath(u"gateway-token"_s); }
    QString token() const { return QString::fromLatin1(readFile(tokenFile()).trimmed()); }

    // An expected file of tests/data/connect with this run's program, config and token in it.
    QByteArray expected(const QString &name, const QString &config = {}) const
    {
        QByteArray bytes = readFile(Data + name);
        bytes.replace("@TETHERCTL@", QFileInfo(QStringLiteral(TETHERCTL)).absoluteFilePath().toUtf8());
        bytes.replace("[\"serve\"]", QByteArray("[\"serve\", \"--config\", \"" + (config.isEmpty() ? m_config : config).toUtf8() + "\"]"));
        bytes.replace("@TOKEN@", token().toUtf8());
        return bytes;
    }

    bool hasConnectRecordIn(const QString &file) const
    {
        qputenv("XDG_STATE_HOME", m_dir->filePath(u"state"_s).toUtf8());
        const bool has = hasConnectRecord(file);
        qunsetenv("XDG_STATE_HOME");
        return has;
    }

    std::optional<QTemporaryDir> m_dir;
    QString m_config;
};

QTEST_GUILESS_MAIN(TestConnect)
#include "tst_connect.moc"
