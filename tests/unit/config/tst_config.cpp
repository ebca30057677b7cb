#include "config/configfile.h"
#include "config/configlocation.h"
#include "config/configparser.h"
#include "config/oauthsettings.h"
#include "config/serverconfig.h"
#include "support/fakeenvironment.h"
#include "support/policyprinters.h"
#include "support/testfiles.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLockFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using Tether::Testing::fakeEnvironment;
using Tether::Testing::readFile;
using Tether::Testing::saveRoot;

namespace Tether {
char *toString(const PoolPolicy &pool)
{
    return qstrdup(QByteArray("{min:" + QByteArray::number(pool.min) + ",max:" + QByteArray::number(pool.max)
                              + ",maxQueue:" + QByteArray::number(pool.maxQueue) + '}')
                       .constData());
}
} // namespace Tether

Q_DECLARE_METATYPE(Tether::ReconnectPolicy)
Q_DECLARE_METATYPE(Tether::HeartbeatPolicy)
Q_DECLARE_METATYPE(Tether::PoolPolicy)
Q_DECLARE_METATYPE(Tether::TransportKind)
Q_DECLARE_METATYPE(Tether::OAuthSettings)

static const QString File = u"servers.json"_s;
static const QString Secret = u"s3cr3t-token-value"_s;

// The only environment these tests see: never the real one.
static const EnvironmentLookup Environment = fakeEnvironment({
    {u"HOME_DIR"_s, u"/home/ada"_s},
    {u"API_TOKEN"_s, Secret},
    {u"HOST"_s, u"mcp.example.com"_s},
    {u"EMPTY"_s, QString()},
    {u"NESTED"_s, u"${env:HOME_DIR}"_s},
    {u"LINE_BREAK_TOKEN"_s, u"abc\r\nInjected: 1"_s},
});

static ConfigContext context()
{
    return {Environment, u"/opt/tether/bin"_s};
}

static ConfigDocument parse(const QByteArray &bytes)
{
    return parseConfig(bytes, File, context());
}

// One server named "demo" in the Claude Desktop form.
static QByteArray withServer(const QByteArray &server)
{
    return "{\"mcpServers\": {\"demo\": " + server + "}}";
}

static ServerConfig parseServer(const QByteArray &server)
{
    const ConfigDocument document = parse(withServer(server));
    if (!document.isValid() || document.servers.size() != 1)
        qFatal("bad test config: %s", qPrintable(document.errors.join(u'\n')));
    return document.servers.first();
}

static QStringList pairs(const QList<std::pair<QString, QString>> &list, const QString &separator)
{
    QStringList text;
    for (const auto &[name, value] : list)
        text.append(name + separator + value);
    return text;
}


static void writeAll(const QString &path, const QByteArray &bytes)
{
    if (!Testing::writeFile(path, bytes))
        qFatal("cannot write %s", qPrintable(path));
}

// What a folder holds, hidden files included: a save leaves no temporary or lock file behind.
static QStringList everyEntry(const QTemporaryDir &folder)
{
    return QDir(folder.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
}

static struct stat fileStatus(const QString &path)
{
    struct stat status = {};
    if (::stat(QFile::encodeName(path).constData(), &status) != 0)
        qFatal("cannot stat %s", qPrintable(path));
    return status;
}

static ReconnectPolicy reconnect(int initialDelayMs, int maxDelayMs, int maxAttempts)
{
    ReconnectPolicy policy;
    policy.initialDelayMs = initialDelayMs;
    policy.maxDelayMs = maxDelayMs;
    policy.maxAttempts = maxAttempts;
    return policy;
}

static HeartbeatPolicy heartbeat(int intervalMs, int timeoutMs, int maxFailures)
{
    HeartbeatPolicy policy;
    policy.intervalMs = intervalMs;
    policy.timeoutMs = timeoutMs;
    policy.maxFailures = maxFailures;
    return policy;
}

class TestConfig final : public QObject
{
    Q_OBJECT

private slots:
    void formats_data();
    void formats();
    void fileWithoutServers_data();
    void fileWithoutServers();
    void serversInFileOrder();
    void namesKeptExactly();
    void duplicateNameIsAnError();
    void duplicateNamesKeepTheirFirstPlace_data();
    void duplicateNamesKeepTheirFirstPlace();
    void keyWrittenTwiceInAServerIsAWarning_data();
    void keyWrittenTwiceInAServerIsAWarning();
    void mistypedSettingIsAWarning_data();
    void mistypedSettingIsAWarning() { keyWrittenTwiceInAServerIsAWarning(); } // the same check, its own rows
    void mistypedServerListIsAnError();
    void aliases_data();
    void aliases();
    void aliasConflict_data();
    void aliasConflict();
    void invalidServer_data();
    void invalidServer();
    void everyErrorOfAServerIsReported();
    void fileErrors_data();
    void fileErrors();
    void parseErrorPosition_data();
    void parseErrorPosition();
    void invalidServerDoesNotAffectOthers();
    void defaults_data();
    void defaults();
    void builtInDefaults();
    void poolConfigured_data();
    void poolConfigured();
    void hiddenTools_data();
    void hiddenTools();
    void clientFeatureSettings_data();
    void clientFeatureSettings();
    void protocolSetting_data();
    void protocolSetting();
    void gatewayNames_data();
    void gatewayNames();
    void gatewaySettings_data();
    void gatewaySettings();
    void gatewayHttpSettings_data();
    void gatewayHttpSettings();
    void loopbackHosts_data();
    void loopbackHosts();
    void gatewayUrls_data();
    void gatewayUrls();
    void expansion_data();
    void expansion();
    void expansionWithoutBinDir();
    void envFile();
    void relativeCwdIsInTheConfigsFolder();
    void sameSettings_data();
    void sameSettings();
    void sameSettingsIgnoresEnvironmentOrder();
    void redaction();
    void errorsNeverShowSecrets();
    void oauthSettings_data();
    void oauthSettings();
    void usesSignIn_data();
    void usesSignIn();
    void clientSecretIsHidden();
    void describe();
    void shellLine_data();
    void shellLine();
    void shownUrl();
    void loadFixtures_data();
    void loadFixtures();
    void loadErrors();
    void loadUnreadable();
    void tetherFixture();
    void saveRoundTripKeepsUnknownKeys();
    void saveFileMode();
    void saveReplacesAtomically();
    void saveRefusesBrokenFile_data();
    void saveRefusesBrokenFile();
    void saveOverEmptyFile();
    void failedSaveLeavesTheFile();
    void saveFailures();
    void saveWaitsForTheLockThenNamesItsHolder();
    void editSeesTheFileAsItIsUnderTheLock();
    void defaultPath();
};

// moc does not understand raw string literals (it reads "//" in one as a comment); it needs only
// the declarations above.
#ifndef Q_MOC_RUN

void TestConfig::formats_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("serversKey");
    QTest::addColumn<QString>("name");
    QTest::addColumn<TransportKind>("transport");
    QTest::addColumn<QString>("program");
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QStringList>("environment");
    QTest::addColumn<QString>("cwd");
    QTest::addColumn<QString>("url");
    QTest::addColumn<QStringList>("headers");

    const auto stdio = TransportKind::Stdio;
    const auto http = TransportKind::StreamableHttp;
    const auto sse = TransportKind::Sse;

    QTest::newRow("Claude Desktop stdio")
        << QByteArray(R"({"mcpServers": {"filesystem": {"command": "npx",
               "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/user/projects"],
               "env": {"MCP_DEBUG": "false"}}}, "globalShortcut": "Ctrl+Space"})")
        << u"mcpServers"_s << u"filesystem"_s << stdio << u"npx"_s
        << QStringList{u"-y"_s, u"@modelcontextprotocol/server-filesystem"_s, u"/home/user/projects"_s}
        << QStringList{u"MCP_DEBUG=false"_s} << QString() << QString() << QStringList();
    QTest::newRow("Claude Desktop, command only")
        << QByteArray(R"({"mcpServers": {"memory": {"command": "mcp-server-memory"}}})")
        << u"mcpServers"_s << u"memory"_s << stdio << u"mcp-server-memory"_s << QStringList() << QStringList()
        << QString() << QString() << QStringList();
    QTest::newRow("Cursor url and headers")
        << QByteArray(R"({"mcpServers": {"remote": {"url": "https://mcp.example.com/mcp",
               "headers": {"Authorization": "Bearer abc", "X-Team": "core"}}}})")
        << u"mcpServers"_s << u"remote"_s << http << QString() << QStringList() << QStringList() << QString()
        << u"https://mcp.example.com/mcp"_s << QStringList{u"Authorization: Bearer abc"_s, u"X-Team: core"_s};
    QTest::newRow("Cursor url only, http")
        << QByteArray(R"({"mcpServers": {"local": {"url": "http://localhost:3000/mcp"}}})")
        << u"mcpServers"_s << u"local"_s << http << QString() << QStringList() << QStringList() << QString()
        << u"http://localhost:3000/mcp"_s << QStringList();
    QTest::newRow("Cursor type sse")
        << QByteArray(R"({"mcpServers": {"events": {"type": "sse", "url": "https://mcp.example.com/sse"}}})")
        << u"mcpServers"_s << u"events"_s << sse << QString() << QStringList() << QStringList() << QString()
        << u"https://mcp.example.com/sse"_s << QStringList();
    QTest::newRow("Cursor type streamable-http")
        << QByteArray(R"({"mcpServers": {"api": {"type": "streamable-http", "url": "https://mcp.example.com/mcp"}}})")
        << u"mcpServers"_s << u"api"_s << http << QString() << QStringList() << QStringList() << QString()
        << u"https://mcp.example.com/mcp"_s << QStringList();
    QTest::newRow("VS Code stdio")
        << QByteArray(R"({"servers": {"fs": {"type": "stdio", "command": "node", "args": ["server.js"],
               "env": {"LEVEL": "debug"}}},
               "inputs": [{"type": "promptString", "id": "token", "description": "Token", "password": true}]})")
        << u"servers"_s << u"fs"_s << stdio << u"node"_s << QStringList{u"server.js"_s}
        << QStringList{u"LEVEL=debug"_s} << QString() << QString() << QStringList();
    QTest::newRow("VS Code http")
        << QByteArray(R"({"servers": {"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/",
               "headers": {"Authorization": "Bearer x"}}}, "inputs": []})")
        << u"servers"_s << u"github"_s << http << QString() << QStringList() << QStringList() << QString()
        << u"https://api.githubcopilot.com/mcp/"_s << QStringList{u"Authorization: Bearer x"_s};
    QTest::newRow("VS Code sse")
        << QByteArray(R"({"servers": {"legacy": {"type": "sse", "url": "http://127.0.0.1:8080/sse"}}})")
        << u"servers"_s << u"legacy"_s << sse << QString() << QStringList() << QStringList() << QString()
        << u"http://127.0.0.1:8080/sse"_s << QStringList();
    QTest::newRow("Tether with defaults and cwd")
        << QByteArray(R"({"defaults": {"timeoutMs": 5000},
               "mcpServers": {"demo": {"command": "${tether:bindir}/tether-demo-server", "args": ["--tools", "4"],
               "cwd": "/tmp", "pool": {"max": 2}}}})")
        << u"mcpServers"_s << u"demo"_s << stdio << u"/opt/tether/bin/tether-demo-server"_s
        << QStringList{u"--tools"_s, u"4"_s} << QStringList() << u"/tmp"_s << QString() << QStringList();
    QTest::newRow("seed article form")
        << QByteArray(R"({"mcpServers": {"filesystem": {"command": "npx",
               "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/user/projects"],
               "env": {"MCP_DEBUG": "false"},
               "connection": {"reconnect": {"maxRetries": 5, "baseDelay": 1000, "maxDelay": 30000},
                              "heartbeat": {"interval": 30000, "maxFailures": 3}}}}})")
        << u"mcpServers"_s << u"filesystem"_s << stdio << u"npx"_s
        << QStringList{u"-y"_s, u"@modelcontextprotocol/server-filesystem"_s, u"/home/user/projects"_s}
        << QStringList{u"MCP_DEBUG=false"_s} << QString() << QString() << QStringList();
}

void TestConfig::formats()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, serversKey);
    QFETCH(QString, name);
    QFETCH(TransportKind, transport);
    QFETCH(QString, program);
    QFETCH(QStringList, arguments);
    QFETCH(QStringList, environment);
    QFETCH(QString, cwd);
    QFETCH(QString, url);
    QFETCH(QStringList, headers);

    const ConfigDocument document = parse(json);
    QVERIFY2(document.isValid(), qPrintable(document.errors.join(u'\n')));
    QCOMPARE(document.path, File);
    QCOMPARE(document.serversKey, serversKey);
    QCOMPARE(document.servers.size(), 1);
    const ServerConfig *server = document.server(name);
    QVERIFY(server);
    QVERIFY2(server->isValid(), qPrintable(server->errors.join(u'\n')));
    QCOMPARE(server->name, name);
    QCOMPARE(server->transport, transport);
    QCOMPARE(server->command.program, program);
    QCOMPARE(server->command.arguments, arguments);
    QCOMPARE(pairs(server->command.environment, u"="_s), environment);
    QCOMPARE(server->command.workingDirectory, cwd);
    QCOMPARE(server->url, url);
    QCOMPARE(pairs(server->headers, u": "_s), headers);
    QCOMPARE(server->enabled, true);
    // The object as written, and the file's other keys kept for saving.
    QCOMPARE(server->source, document.root.value(serversKey).toObject().value(name).toObject());
    QCOMPARE(QJsonDocument(document.root), QJsonDocument::fromJson(json));
}

void TestConfig::fileWithoutServers_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::newRow("empty object") << QByteArray("{}");
    QTest::newRow("only other keys") << QByteArray(R"({"inputs": [], "theme": "dark"})");
    QTest::newRow("empty mcpServers") << QByteArray(R"({"mcpServers": {}})");
    QTest::newRow("empty file") << QByteArray("");
    QTest::newRow("blank file") << QByteArray(" \n\t\n");
}

void TestConfig::fileWithoutServers()
{
    QFETCH(QByteArray, json);
    const ConfigDocument document = parse(json);
    QVERIFY2(document.isValid(), qPrintable(document.errors.join(u'\n')));
    QVERIFY(document.servers.isEmpty());
    QCOMPARE(document.serversKey, u"mcpServers"_s);
    QCOMPARE(document.server(u"demo"_s), nullptr);
}

void TestConfig::serversInFileOrder()
{
    // Values that look like structure must not confuse the order: braces in strings, escapes, nesting.
    const ConfigDocument document = parse(QByteArray(R"({
        "note": "{\"mcpServers\": {\"fake\": {}}}",
        "mcpServers": {
            "zeta": {"command": "z", "args": ["}", "\"{"], "env": {"A": "{[,]}"}},
            "alpha": {"command": "a", "reconnect": {"maxAttempts": 2}, "x-editor": [{"a": [1, 2, {"b": null}]}]},
            "caf\u00e9": {"command": "c"},
            "My Server.v2": {"url": "https://example.com/mcp"},
            "mid": {"command": "m", "enabled": false}
        },
        "tail": [true, false, null, -1.5e3]
    })"));
    QVERIFY2(document.isValid(), qPrintable(document.errors.join(u'\n')));
    QStringList names;
    for (const ServerConfig &server : document.servers) {
        QVERIFY2(server.isValid(), qPrintable(server.errors.join(u'\n')));
        names.append(server.name);
    }
    QCOMPARE(names, (QStringList{u"zeta"_s, u"alpha"_s, u"café"_s, u"My Server.v2"_s, u"mid"_s}));
    QCOMPARE(document.server(u"mid"_s)->enabled, false);
    QCOMPARE(document.server(u"My Server.v2"_s)->transport, TransportKind::StreamableHttp);
}

void TestConfig::namesKeptExactly()
{
    const ConfigDocument document = parse(QByteArray(R"({"mcpServers": {
        " spaced ": {"command": "a"}, "Dotted.Name": {"command": "b"}, "": {"command": "c"}}})"));
    QVERIFY(document.isValid());
    QCOMPARE(document.servers.size(), 3);
    QVERIFY(document.server(u" spaced "_s) && document.server(u" spaced "_s)->isValid());
    QVERIFY(document.server(u"Dotted.Name"_s) && document.server(u"Dotted.Name"_s)->isValid());
    const ServerConfig *unnamed = document.server(QString());
    QVERIFY(unnamed);
    QCOMPARE(unnamed->errors,
             QStringList{File + u": mcpServers[\"\"] has an empty name: give the server a name, it is how Tether "
                                "and its tools refer to it"_s});
}

void TestConfig::duplicateNameIsAnError()
{
    const ConfigDocument document
        = parse(QByteArray(R"({"mcpServers": {"demo": {"command": "a"}, "other": {"command": "o"},
                                               "demo": {"command": "b"}}})"));
    QVERIFY(document.isValid());
    QCOMPARE(document.servers.size(), 2);
    const ServerConfig *demo = document.server(u"demo"_s);
    QCOMPARE(demo->command.program, u"b"_s); // what JSON keeps
    QCOMPARE(demo->errors.size(), 1);
    QCOMPARE(demo->errors.first(), File + u": mcpServers.demo is defined 2 times (lines 1 and 2): JSON keeps only the "
                                          "last one; remove or rename the others"_s);
    QVERIFY(document.server(u"other"_s)->isValid());
}

void TestConfig::duplicateNamesKeepTheirFirstPlace_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QStringList>("order");    // of the servers read
    QTest::addColumn<QStringList>("programs"); // each one's command: the last definition
    QTest::addColumn<QList<int>>("times");     // how often each is defined

    QTest::newRow("twice") << QByteArray(R"({"mcpServers": {"a": {"command": "1"}, "b": {"command": "2"}, "a": {"command": "3"}}})")
                           << QStringList{u"a"_s, u"b"_s} << QStringList{u"3"_s, u"2"_s} << QList<int>{2, 1};
    QTest::newRow("three times") << QByteArray(R"({"mcpServers": {"b": {"command": "1"}, "a": {"command": "2"},
                                                  "b": {"command": "3"}, "b": {"command": "4"}}})")
                                 << QStringList{u"b"_s, u"a"_s} << QStringList{u"4"_s, u"2"_s} << QList<int>{3, 1};
    QTest::newRow("two names, interleaved") << QByteArray(R"({"mcpServers": {"z": {"command": "1"}, "y": {"command": "2"},
                                                             "z": {"command": "3"}, "x": {"command": "4"}, "y": {"command": "5"}}})")
                                            << QStringList{u"z"_s, u"y"_s, u"x"_s} << QStringList{u"3"_s, u"5"_s, u"4"_s}
                                            << QList<int>{2, 2, 1};
    QStringList many;
    QByteArray json = "{\"mcpServers\": {";
    for (int i = 0; i < 300; ++i) {
        many.append(u"s%1"_s.arg(299 - i));
        json += (i ? ", " : "") + QByteArray("\"s") + QByteArray::number(299 - i) + "\": {\"command\": \"c\"}";
    }
    json += "}}";
    QTest::newRow("none twice, in file order") << json << many << QStringList(many.size(), u"c"_s)
                                               << QList<int>(many.size(), 1);
}

void TestConfig::duplicateNamesKeepTheirFirstPlace()
{
    QFETCH(QByteArray, json);
    QFETCH(QStringList, order);
    QFETCH(QStringList, programs);
    QFETCH(QList<int>, times);

    const ConfigDocument document = parse(json);
    QStringList names;
    for (const ServerConfig &server : document.servers)
        names.append(server.name);
    QCOMPARE(names, order);
    for (qsizetype i = 0; i < order.size(); ++i) {
        const ServerConfig *server = document.server(order.at(i));
        QCOMPARE(server->command.program, programs.at(i));
        if (times.at(i) == 1) {
            QVERIFY2(server->errors.isEmpty(), qPrintable(server->errors.join(u"; "_s)));
        } else {
            QCOMPARE(server->errors.size(), 1);
            const QString error = server->errors.first();
            QVERIFY2(error.startsWith(File + u": mcpServers.%1 is defined %2 times ("_s.arg(order.at(i)).arg(times.at(i)))
                         && error.endsWith(u"): JSON keeps only the last one; remove or rename the others"_s),
                     qPrintable(error));
        }
    }
}

void TestConfig::keyWrittenTwiceInAServerIsAWarning_data()
{
    QTest::addColumn<QByteArray>("server");
    QTest::addColumn<QStringList>("warnings");

    const QString at = File + u": mcpServers.demo"_s;
    const QString rest = u": JSON keeps only the last one, and Tether uses it; remove the others"_s;
    QTest::newRow("field") << QByteArray("{\"command\": \"old\",\n \"args\": [],\n \"command\": \"x\"}")
                           << QStringList{at + u".command is defined 2 times (lines 2 and 4)"_s + rest};
    QTest::newRow("three times") << QByteArray("{\"command\": \"a\", \"command\": \"b\",\n\n \"command\": \"x\"}")
                                 << QStringList{at + u".command is defined 3 times (lines 2 and 4)"_s + rest};
    QTest::newRow("env name") << QByteArray("{\"command\": \"x\", \"env\": {\"TOKEN\": \"a\",\n \"TOKEN\": \"b\"}}")
                              << QStringList{at + u".env.TOKEN is defined 2 times (lines 2 and 3)"_s + rest};
    QTest::newRow("policy field") << QByteArray("{\"command\": \"x\", \"reconnect\": {\"maxAttempts\": 1, \"maxAttempts\": 2}}")
                                  << QStringList{at + u".reconnect.maxAttempts is defined 2 times (line 2)"_s + rest};
    QTest::newRow("two keys") << QByteArray("{\"command\": \"x\", \"cwd\": \"/a\", \"command\": \"x\", \"cwd\": \"/b\"}")
                              << QStringList{at + u".command is defined 2 times (line 2)"_s + rest,
                                             at + u".cwd is defined 2 times (line 2)"_s + rest};
    QTest::newRow("none") << QByteArray("{\"command\": \"x\", \"env\": {\"command\": \"y\"}}") << QStringList();
}

void TestConfig::keyWrittenTwiceInAServerIsAWarning()
{
    QFETCH(QByteArray, server);
    QFETCH(QStringList, warnings);
    const ConfigDocument document = parse("{\"mcpServers\": {\n\"demo\": " + server + "}}");
    QVERIFY(document.isValid());
    const ServerConfig *demo = document.server(u"demo"_s);
    QVERIFY(demo);
    // JSON's reading stands, and the server runs: the warning only says what was taken.
    QVERIFY2(demo->isValid(), qPrintable(demo->errors.join(u'\n')));
    QCOMPARE(demo->warnings, warnings);
}

void TestConfig::mistypedSettingIsAWarning_data()
{
    QTest::addColumn<QByteArray>("server");
    QTest::addColumn<QStringList>("warnings");

    const QString at = File + u": mcpServers.demo."_s;
    const QString rest = u" is not a setting Tether reads, so it is left unread; did you mean "_s;
    QTest::newRow("a letter missing") << QByteArray(R"({"command": "x", "arg": ["-y"]})")
                                      << QStringList{at + u"arg"_s + rest + u"\"args\"?"_s};
    QTest::newRow("letters swapped") << QByteArray(R"({"command": "x", "evn": {"A": "1"}})")
                                     << QStringList{at + u"evn"_s + rest + u"\"env\"?"_s};
    QTest::newRow("another program's name for it") << QByteArray(R"({"command": "x", "timeout": 30})")
                                                   << QStringList{at + u"timeout"_s + rest + u"\"timeoutMs\"?"_s};
    // Other programs' own keys are theirs: kept, and not taken for typos.
    QTest::newRow("foreign keys") << QByteArray(R"({"command": "x", "id": "a", "autoApprove": [], "description": "d",
                                                    "disabled": false, "name": "n"})")
                                  << QStringList();
}

// A file whose list of servers is under a mistyped name would run nothing, without a word.
void TestConfig::mistypedServerListIsAnError()
{
    const ConfigDocument document = parse(R"({"mcpServerz": {"demo": {"command": "x"}}})");
    QCOMPARE(document.errors, QStringList{File + u": the file has no \"mcpServers\", so no server would run; "
                                                 "\"mcpServerz\" is not a key Tether reads: did you mean \"mcpServers\"?"_s});
    QCOMPARE(parse(R"({"server": {}})").errors.size(), 1);
    // VS Code's settings hold "mcp", which is no typo.
    QVERIFY(parse(R"({"mcp": {"servers": {}}})").isValid());
}

void TestConfig::aliases_data()
{
    QTest::addColumn<QByteArray>("server");
    QTest::addColumn<ReconnectPolicy>("expectedReconnect");
    QTest::addColumn<HeartbeatPolicy>("expectedHeartbeat");

    const ReconnectPolicy r;
    const HeartbeatPolicy h;
    QTest::newRow("connection.reconnect.maxRetries")
        << QByteArray(R"({"command": "x", "connection": {"reconnect": {"maxRetries": 4}}})")
        << reconnect(500, 30000, 4) << h;
    QTest::newRow("connection.reconnect.baseDelay")
        << QByteArray(R"({"command": "x", "connection": {"reconnect": {"baseDelay": 1500}}})")
        << reconnect(1500, 30000, 10) << h;
    QTest::newRow("connection.reconnect.maxDelay")
        << QByteArray(R"({"command": "x", "connection": {"reconnect": {"maxDelay": 45000}}})")
        << reconnect(500, 45000, 10) << h;
    QTest::newRow("connection.heartbeat.interval")
        << QByteArray(R"({"command": "x", "connection": {"heartbeat": {"interval": 20000}}})")
        << r << heartbeat(20000, 10000, 3);
    QTest::newRow("connection.heartbeat.maxFailures")
        << QByteArray(R"({"command": "x", "connection": {"heartbeat": {"maxFailures": 6}}})")
        << r << heartbeat(30000, 10000, 6);
    QTest::newRow("seed article values")
        << QByteArray(R"({"command": "x", "connection": {
               "reconnect": {"maxRetries": 5, "baseDelay": 1000, "maxDelay": 30000},
               "heartbeat": {"interval": 30000, "maxFailures": 3}}})")
        << reconnect(1000, 30000, 5) << heartbeat(30000, 10000, 3);
    QTest::newRow("aliases in the plain fields")
        << QByteArray(R"({"command": "x", "reconnect": {"maxRetries": 2, "baseDelay": 100, "maxDelay": 800},
               "heartbeat": {"interval": 20000}})")
        << reconnect(100, 800, 2) << heartbeat(20000, 10000, 3);
    QTest::newRow("connection and plain fields merged")
        << QByteArray(R"({"command": "x", "connection": {"reconnect": {"maxRetries": 7}, "heartbeat": {"maxFailures": 2}},
               "reconnect": {"initialDelayMs": 250}, "heartbeat": {"intervalMs": 40000}})")
        << reconnect(250, 30000, 7) << heartbeat(40000, 10000, 2);
    QTest::newRow("same field both ways, same value")
        << QByteArray(R"({"command": "x", "connection": {"reconnect": {"maxRetries": 3}},
               "reconnect": {"maxRetries": 3}})")
        << reconnect(500, 30000, 3) << h;
    QTest::newRow("alias and canonical name agreeing across both")
        << QByteArray(R"({"command": "x", "connection": {"reconnect": {"maxRetries": 3}},
               "reconnect": {"maxAttempts": 3}})")
        << reconnect(500, 30000, 3) << h;
}

void TestConfig::aliases()
{
    QFETCH(QByteArray, server);
    QFETCH(ReconnectPolicy, expectedReconnect);
    QFETCH(HeartbeatPolicy, expectedHeartbeat);

    const ServerConfig config = parseServer(server);
    QVERIFY2(config.isValid(), qPrintable(config.errors.join(u'\n')));
    QCOMPARE(config.reconnect, expectedReconnect);
    QCOMPARE(config.heartbeat, expectedHeartbeat);
}

void TestConfig::aliasConflict_data()
{
    QTest::addColumn<QByteArray>("server");
    QTest::addColumn<QString>("message");

    QTest::newRow("reconnect field given both ways")
        << QByteArray(R"({"command": "x", "connection": {"reconnect": {"maxRetries": 5}}, "reconnect": {"maxRetries": 3}})")
        << u"servers.json: mcpServers.demo.connection.reconnect.maxRetries = 5 and mcpServers.demo.reconnect.maxRetries "
           "= 3 disagree: they are the same setting, give only one"_s;
    QTest::newRow("alias against canonical name")
        << QByteArray(R"({"command": "x", "connection": {"reconnect": {"maxRetries": 5}}, "reconnect": {"maxAttempts": 3}})")
        << u"servers.json: server 'demo': reconnect.maxRetries = 5 and reconnect.maxAttempts = 3 disagree"_s;
    QTest::newRow("heartbeat interval both ways")
        << QByteArray(R"({"command": "x", "connection": {"heartbeat": {"interval": 20000}}, "heartbeat": {"interval": 40000}})")
        << u"servers.json: mcpServers.demo.connection.heartbeat.interval = 20000 and "
           "mcpServers.demo.heartbeat.interval = 40000 disagree"_s;
    QTest::newRow("heartbeat maxFailures both ways")
        << QByteArray(R"({"command": "x", "connection": {"heartbeat": {"maxFailures": 2}}, "heartbeat": {"maxFailures": 4}})")
        << u"servers.json: mcpServers.demo.connection.heartbeat.maxFailures = 2 and "
           "mcpServers.demo.heartbeat.maxFailures = 4 disagree"_s;
}

void TestConfig::aliasConflict()
{
    QFETCH(QByteArray, server);
    QFETCH(QString, message);
    const ConfigDocument document = parse(withServer(server));
    QVERIFY(document.isValid());
    const ServerConfig &config = document.servers.first();
    QCOMPARE(config.errors.size(), 1);
    QVERIFY2(config.errors.first().startsWith(message), qPrintable(config.errors.first()));
    // Neither value wins.
    QCOMPARE(config.reconnect, ReconnectPolicy{});
    QCOMPARE(config.heartbeat, HeartbeatPolicy{});
}

void TestConfig::invalidServer_data()
{
    QTest::addColumn<QByteArray>("server");
    QTest::addColumn<QString>("message"); // the whole message, or its start when it ends with "…"

    const auto row = [](const char *tag, const char *server, const QString &message) {
        QTest::newRow(tag) << QByteArray(server) << message;
    };
    const QString at = u"servers.json: mcpServers.demo"_s;

    // command
    row("command number", R"({"command": 5})",
        at + u".command = 5 is not a string: the command is the program to start, such as \"npx\""_s);
    row("command array", R"({"command": ["npx"]})", at + u".command = [\"npx\"] is not a string…"_s);
    row("command empty", R"({"command": ""})", at + u".command = \"\" is empty…"_s);
    row("command empty after expansion", R"({"command": "${env:EMPTY}"})", at + u".command = \"${env:EMPTY}\" is empty…"_s);
    row("neither command nor url", R"({"args": ["x"]})",
        at + u" has neither \"command\" nor \"url\": give \"command\" for a server Tether starts, such as \"npx\", "
             "or \"url\" for a remote one"_s);
    row("type stdio without command", R"({"type": "stdio"})",
        at + u" has no \"command\": a stdio server needs the program to start, such as \"npx\""_s);
    // A key a typo away from the missing one is named in the error itself (and not warned of again).
    row("command mistyped", R"({"comand": "npx"})",
        at + u" has neither \"command\" nor \"url\": give \"command\" for a server Tether starts, such as \"npx\", "
             "or \"url\" for a remote one; " + at.section(u' ', 1) + u".comand may be \"command\" mistyped"_s);
    row("url mistyped", R"({"type": "http", "ulr": "https://example.com/mcp"})",
        at + u" has no \"url\": an http server needs the address to connect to, such as \"https://example.com/mcp\"; "
             + at.section(u' ', 1) + u".ulr may be \"url\" mistyped"_s);
    // args
    row("args string", R"({"command": "x", "args": "-y"})",
        at + u".args = \"-y\" is not an array: args is a list of strings, such as [\"-y\", \"some-server\"]"_s);
    row("args object", R"({"command": "x", "args": {"a": 1}})", at + u".args = {\"a\":1} is not an array…"_s);
    row("args element number", R"({"command": "x", "args": ["a", "b", 5]})",
        at + u".args[2] = 5 is not a string: every argument must be a string"_s);
    row("args element null", R"({"command": "x", "args": [null]})",
        at + u".args[0] = null is not a string: every argument must be a string"_s);
    row("args element bool", R"({"command": "x", "args": ["a", true]})", at + u".args[1] = true is not a string…"_s);
    row("args element array", R"({"command": "x", "args": [["a"]]})", at + u".args[0] = [\"a\"] is not a string…"_s);
    // env
    row("env array", R"({"command": "x", "env": ["A=1"]})",
        at + u".env is an array, not an object: it maps environment variable names to string values, such as "
             "{\"DEBUG\": \"1\"}"_s);
    row("env string", R"({"command": "x", "env": "A=1"})", at + u".env is a string, not an object…"_s);
    row("env value number", R"({"command": "x", "env": {"PORT": 3000}})",
        at + u".env.PORT is a number, not a string: every environment variable value must be a string; write it in "
             "quotes (the value is not shown, it may be a secret)"_s);
    row("env value bool", R"({"command": "x", "env": {"DEBUG": true}})", at + u".env.DEBUG is a boolean, not a string…"_s);
    row("env value object", R"({"command": "x", "env": {"A": {}}})", at + u".env.A is an object, not a string…"_s);
    row("env name with =", R"({"command": "x", "env": {"A=B": "1"}})",
        at + u".env[\"A=B\"] is not a valid environment variable name…"_s);
    // cwd
    row("cwd number", R"({"command": "x", "cwd": 1})",
        at + u".cwd = 1 is not a string: cwd is the folder to start the server in"_s);
    row("cwd empty", R"({"command": "x", "cwd": ""})", at + u".cwd = \"\" is empty…"_s);
    // type
    row("type unknown", R"({"command": "x", "type": "websocket"})",
        at + u".type = \"websocket\" is not a transport Tether knows: it must be \"stdio\", \"http\" (also written "
             "\"streamable-http\") or \"sse\""_s);
    row("type number", R"({"command": "x", "type": 1})", at + u".type = 1 is not a transport Tether knows…"_s);
    row("type upper case", R"({"url": "https://e.com", "type": "HTTP"})", at + u".type = \"HTTP\" is not a transport…"_s);
    // url
    row("url number", R"({"url": 80})",
        at + u".url = 80 is not a string: a remote server's url starts with http:// or https://…"_s);
    row("url ftp", R"({"url": "ftp://example.com/mcp"})",
        at + u".url = \"ftp://example.com/mcp\" is not an http or https URL (its scheme is \"ftp\"): a remote "
             "server's url starts with http:// or https://, such as \"https://example.com/mcp\""_s);
    row("url ws", R"({"type": "sse", "url": "ws://example.com/mcp"})",
        at + u".url = \"ws://example.com/mcp\" is not an http or https URL (its scheme is \"ws\")…"_s);
    row("url without scheme", R"({"url": "example.com/mcp"})",
        at + u".url = \"example.com/mcp\" is not an http or https URL: …"_s);
    row("url without host", R"({"url": "https://"})", at + u".url = \"https://\" is not an http or https URL: …"_s);
    row("url empty", R"({"url": ""})", at + u".url = \"\" is empty…"_s);
    row("http without url", R"({"type": "http"})",
        at + u" has no \"url\": an http server needs the address to connect to, such as \"https://example.com/mcp\""_s);
    row("sse without url", R"({"type": "sse"})", at + u" has no \"url\": an sse server needs…"_s);
    // headers
    row("headers array", R"({"url": "https://e.com", "headers": ["Authorization: x"]})",
        at + u".headers is an array, not an object: it maps header names to string values…"_s);
    row("header value number", R"({"url": "https://e.com", "headers": {"X-Id": 7}})",
        at + u".headers.X-Id is a number, not a string: every header value must be a string…"_s);
    // A line break in a header would end it and send the rest as headers of their own.
    const QString controlInValue = u" holds a line break or another control character, which a header value cannot hold: "
                                   "remove it (the value is not shown, it may be a secret)"_s;
    row("header value with CRLF", R"({"url": "https://e.com", "headers": {"X-Bad": "v\r\nInjected: 1"}})",
        at + u".headers.X-Bad"_s + controlInValue);
    row("header value with LF", R"({"url": "https://e.com", "headers": {"X-Bad": "v\nInjected: 1"}})",
        at + u".headers.X-Bad"_s + controlInValue);
    row("header value with CR", R"({"url": "https://e.com", "headers": {"X-Bad": "v\r"}})", at + u".headers.X-Bad"_s + controlInValue);
    row("header value with NUL", R"({"url": "https://e.com", "headers": {"X-Bad": "v\u0000w"}})",
        at + u".headers.X-Bad"_s + controlInValue);
    row("header value with ESC", R"({"url": "https://e.com", "headers": {"X-Bad": "\u001b[2J"}})",
        at + u".headers.X-Bad"_s + controlInValue);
    row("header value with DEL", R"({"url": "https://e.com", "headers": {"X-Bad": "v\u007f"}})",
        at + u".headers.X-Bad"_s + controlInValue);
    row("header value with CRLF from the environment",
        R"({"url": "https://e.com", "headers": {"Authorization": "Bearer ${env:LINE_BREAK_TOKEN}"}})",
        at + u".headers.Authorization holds a line break or another control character once ${env:…} is expanded, "
             "which a header value cannot hold: remove it (the value is not shown, it may be a secret)"_s);
    const QString notAToken = u" is not a valid header name: a header name is letters, digits and !#$%&'*+-.^_`|~ only, "
                              "without spaces, colons or control characters, such as \"Authorization\""_s;
    row("header name with CRLF", R"({"url": "https://e.com", "headers": {"X-A\r\nInjected": "1"}})",
        at + u".headers[\"X-A\r\nInjected\"]"_s + notAToken);
    row("header name with a space", R"({"url": "https://e.com", "headers": {"X Bad": "1"}})",
        at + u".headers[\"X Bad\"]"_s + notAToken);
    row("header name with a colon", R"({"url": "https://e.com", "headers": {"X-Bad:": "1"}})",
        at + u".headers[\"X-Bad:\"]"_s + notAToken);
    row("header name empty", R"({"url": "https://e.com", "headers": {"": "1"}})", at + u".headers[\"\"]"_s + notAToken);
    row("header name not ASCII", R"({"url": "https://e.com", "headers": {"X-Clé": "1"}})",
        at + u".headers.X-Clé"_s + notAToken);
    // transports mixed
    row("command and url", R"({"command": "x", "url": "https://e.com"})",
        at + u" gives both \"command\" and \"url\": give \"command\" for a server Tether starts, or \"url\" for a "
             "remote one"_s);
    row("stdio with headers", R"({"command": "x", "headers": {"A": "b"}})",
        at + u" is a stdio server but also gives \"headers\", which only an http or sse server uses: remove them, "
             "or set \"type\" to \"http\" or \"sse\""_s);
    row("stdio type with url", R"({"type": "stdio", "command": "x", "url": "https://e.com"})",
        at + u" is a stdio server but also gives \"url\"…"_s);
    row("http with args and env", R"({"url": "https://e.com", "args": ["a"], "env": {"A": "1"}})",
        at + u" is an http server but also gives \"args\", \"env\", which only a stdio server uses…"_s);
    row("sse with command", R"({"type": "sse", "url": "https://e.com", "command": "x"})",
        at + u" is an sse server but also gives \"command\"…"_s);
    // enabled
    row("enabled string", R"({"command": "x", "enabled": "yes"})",
        at + u".enabled = \"yes\" is not valid: it must be true or false"_s);
    row("enabled number", R"({"command": "x", "enabled": 1})", at + u".enabled = 1 is not valid: it must be true or false"_s);
    // reconnect, heartbeat, connection
    row("reconnect not object", R"({"command": "x", "reconnect": 5})",
        at + u".reconnect = 5 is not an object: write it as {\"maxAttempts\": 5}"_s);
    row("reconnect.maxAttempts 0", R"({"command": "x", "reconnect": {"maxAttempts": 0}})",
        u"servers.json: server 'demo': reconnect.maxAttempts = 0 is out of range: it must be a whole number from 1 to 1000"_s);
    row("reconnect.initialDelayMs string", R"({"command": "x", "reconnect": {"initialDelayMs": "1s"}})",
        u"servers.json: server 'demo': reconnect.initialDelayMs = \"1s\" is not a number…"_s);
    row("reconnect unknown key", R"({"command": "x", "reconnect": {"retries": 3}})",
        u"servers.json: server 'demo': reconnect.retries = 3 is not a reconnect setting…"_s);
    row("heartbeat not object", R"({"command": "x", "heartbeat": true})",
        at + u".heartbeat = true is not an object: write it as {\"intervalMs\": 30000}"_s);
    row("heartbeat.enabled string", R"({"command": "x", "heartbeat": {"enabled": "no"}})",
        u"servers.json: server 'demo': heartbeat.enabled = \"no\" is not valid…"_s);
    row("connection not object", R"({"command": "x", "connection": []})",
        at + u".connection = [] is not an object: it holds \"reconnect\" and \"heartbeat\"…"_s);
    row("connection unknown key", R"({"command": "x", "connection": {"command": "y"}})",
        at + u".connection.command = \"y\" is not a connection setting (known: reconnect, heartbeat)"_s);
    row("connection.reconnect not object", R"({"command": "x", "connection": {"reconnect": 3}})",
        at + u".connection.reconnect = 3 is not an object…"_s);
    row("connection.heartbeat.interval too small", R"({"command": "x", "connection": {"heartbeat": {"interval": 50, "timeoutMs": 10}}})",
        u"servers.json: server 'demo': heartbeat.interval = 50 is out of range: it must be a whole number from 100 to 86400000"_s);
    row("connection.reconnect.maxRetries too large", R"({"command": "x", "connection": {"reconnect": {"maxRetries": 1001}}})",
        u"servers.json: server 'demo': reconnect.maxRetries = 1001 is out of range…"_s);
    // pool
    row("pool not object", R"({"command": "x", "pool": 4})",
        at + u".pool = 4 is not an object: write it as {\"min\": 1, \"max\": 4, \"maxQueue\": 64}"_s);
    row("pool.min negative", R"({"command": "x", "pool": {"min": -1}})",
        at + u".pool.min = -1 is out of range: it must be a whole number from 0 to 64"_s);
    row("pool.min fraction", R"({"command": "x", "pool": {"min": 0.5}})", at + u".pool.min = 0.5 is out of range…"_s);
    row("pool.max 0", R"({"command": "x", "pool": {"max": 0}})",
        at + u".pool.max = 0 is out of range: it must be a whole number from 1 to 64"_s);
    row("pool.max 65", R"({"command": "x", "pool": {"max": 65}})", at + u".pool.max = 65 is out of range…"_s);
    row("pool.max string", R"({"command": "x", "pool": {"max": "4"}})",
        at + u".pool.max = \"4\" is not a number: it must be a whole number from 1 to 64"_s);
    row("pool.max below min", R"({"command": "x", "pool": {"min": 3, "max": 2}})",
        at + u".pool.max = 2 is less than mcpServers.demo.pool.min = 3: the pool cannot keep open more sessions "
             "than it may hold; raise max or lower min"_s);
    row("pool.min above default max", R"({"command": "x", "pool": {"min": 2}})",
        at + u".pool.max = 1 is less than mcpServers.demo.pool.min = 2…"_s);
    row("pool.maxQueue negative", R"({"command": "x", "pool": {"maxQueue": -1}})",
        at + u".pool.maxQueue = -1 is out of range: it must be a whole number from 0 to 10000"_s);
    row("pool.maxQueue too large", R"({"command": "x", "pool": {"maxQueue": 10001}})",
        at + u".pool.maxQueue = 10001 is out of range…"_s);
    row("pool unknown key", R"({"command": "x", "pool": {"size": 2}})",
        at + u".pool.size = 2 is not a pool setting (known: min, max, maxQueue)"_s);
    // timeoutMs
    row("timeoutMs too small", R"({"command": "x", "timeoutMs": 999})",
        at + u".timeoutMs = 999 is out of range: it must be a whole number from 1000 to 3600000"_s);
    row("timeoutMs too large", R"({"command": "x", "timeoutMs": 3600001})", at + u".timeoutMs = 3600001 is out of range…"_s);
    row("timeoutMs fraction", R"({"command": "x", "timeoutMs": 1500.5})", at + u".timeoutMs = 1500.5 is out of range…"_s);
    row("timeoutMs string", R"({"command": "x", "timeoutMs": "60s"})",
        at + u".timeoutMs = \"60s\" is not a number: it must be a whole number from 1000 to 3600000"_s);
    // variables
    const QString unset = u" uses ${env:MISSING}, but MISSING is not set: set MISSING in the environment Tether "
                          "starts from, or write the value in the file"_s;
    row("unset variable in command", R"({"command": "${env:MISSING}/bin/x"})", at + u".command"_s + unset);
    row("unset variable in args", R"({"command": "x", "args": ["a", "--root=${env:MISSING}"]})", at + u".args[1]"_s + unset);
    row("unset variable in env", R"({"command": "x", "env": {"TOKEN": "${env:MISSING}"}})", at + u".env.TOKEN"_s + unset);
    row("unset variable in cwd", R"({"command": "x", "cwd": "${env:MISSING}"})", at + u".cwd"_s + unset);
    row("unset variable in url", R"({"url": "https://${env:MISSING}/mcp"})", at + u".url"_s + unset);
    row("unset variable in header", R"({"url": "https://e.com", "headers": {"Authorization": "Bearer ${env:MISSING}"}})",
        at + u".headers.Authorization"_s + unset);
    row("input variable", R"({"command": "x", "env": {"TOKEN": "${input:token}"}})",
        at + u".env.TOKEN uses ${input:token}, which Tether cannot expand: VS Code prompts for inputs, Tether does "
             "not; write ${env:NAME} and set NAME in Tether's environment, or write the value"_s);
    row("workspaceFolder", R"({"command": "x", "args": ["${workspaceFolder}/src"]})",
        at + u".args[0] uses ${workspaceFolder}, which Tether cannot expand: Tether expands only ${env:NAME} and "
             "${tether:bindir}; write the value itself"_s);
    row("userHome", R"({"command": "${userHome}/bin/x"})", at + u".command uses ${userHome}, which Tether cannot expand…"_s);
    row("unknown tether variable", R"({"command": "${tether:datadir}/x"})",
        at + u".command uses ${tether:datadir}, which Tether cannot expand…"_s);
    row("env without name", R"({"command": "x", "args": ["${env:}"]})",
        at + u".args[0] uses ${env:}, which names no variable: write ${env:NAME}"_s);
    row("unclosed reference", R"({"command": "x", "args": ["${env:HOME_DIR"]})",
        at + u".args[0] has \"${\" without a closing \"}\": write ${env:NAME} to use an environment variable"_s);
    // envFile
    row("envFile missing", R"({"command": "x", "envFile": "no-such.env"})", at + u".envFile = \"no-such.env\": …"_s);
    row("envFile number", R"({"command": "x", "envFile": 1})", at + u".envFile = 1 is not a string…"_s);
    // tools
    row("tools array", R"({"command": "x", "tools": ["a"]})",
        at + u".tools = [\"a\"] is not an object: write it as {\"disabled\": [\"delete_repository\"]}"_s);
    row("tools unknown key", R"({"command": "x", "tools": {"hidden": ["a"]}})",
        at + u".tools.hidden = [\"a\"] is not a tools setting (known: disabled)"_s);
    row("tools.disabled string", R"({"command": "x", "tools": {"disabled": "a"}})",
        at + u".tools.disabled = \"a\" is not an array: it lists the names of the tools to hide, such as "
             "[\"delete_repository\"]"_s);
    row("tools.disabled number", R"({"command": "x", "tools": {"disabled": ["a", 5]}})",
        at + u".tools.disabled[1] = 5 is not a tool name: give the name the server lists the tool under"_s);
    row("tools.disabled empty name", R"({"command": "x", "tools": {"disabled": [""]}})",
        at + u".tools.disabled[0] = \"\" is not a tool name…"_s);
    // what the server may ask of Tether's clients
    row("clientFeatures string", R"({"command": "x", "clientFeatures": "no"})",
        at + u".clientFeatures = \"no\" is not valid: it must be true or false"_s);
    row("perHost number", R"({"command": "x", "perHost": 1})", at + u".perHost = 1 is not valid: it must be true or false"_s);
    row("protocol unknown", R"({"command": "x", "protocol": "2025-06-18"})",
        at + u".protocol = \"2025-06-18\" is not valid: it must be \"auto\" (find the server's era), \"2026-07-28\" or "
             "\"2025-11-25\""_s);
    row("protocol number", R"({"command": "x", "protocol": 2026})", at + u".protocol = 2026 is not valid…"_s);
    row("roots string", R"({"command": "x", "roots": "/home/me"})",
        at + u".roots = \"/home/me\" is not an array: it lists folders, such as [\"/home/me/project\"]"_s);
    row("roots relative", R"({"command": "x", "roots": ["/a", "projects"]})",
        at + u".roots[1] = \"projects\" is not a folder: give an absolute path such as \"/home/me/project\" or a "
             "file:// URI"_s);
    row("roots remote URI", "{\"command\": \"x\", \"roots\": [\"https://example.com/x\"]}",
        at + u".roots[0] = \"https://example.com/x\" is not a folder…"_s);
    row("roots number", R"({"command": "x", "roots": [5]})", at + u".roots[0] = 5 is not a folder…"_s);
    // oauth
    const QByteArray remote = R"("url": "https://e.com/mcp", )";
    const auto oauthRow = [&](const char *tag, const char *oauth, const QString &message) {
        QTest::newRow(tag) << QByteArray("{" + remote + "\"oauth\": " + oauth + "}") << message;
    };
    row("oauth on stdio", R"({"command": "x", "oauth": {"clientId": "a"}})",
        at + u" is a stdio server but also gives \"oauth\", which only an http or sse server uses: remove them, or set "
             "\"type\" to \"http\" or \"sse\""_s);
    row("oauth false on stdio", R"({"command": "x", "oauth": false})", at + u" is a stdio server but also gives \"oauth\"…"_s);
    oauthRow("oauth string", R"("yes")",
             at + u".oauth = \"yes\" is not an object or false: write it as {\"clientId\": \"tether-desktop\", "
                  "\"scopes\": [\"files:read\"]}, or false to never sign in"_s);
    oauthRow("oauth unknown key", R"({"clientID": "a"})",
             at + u".oauth.clientID = \"a\" is not a sign-in setting (known: clientId, clientSecret, scopes, redirectPort, "
                  "browserTimeoutMs)"_s);
    oauthRow("oauth tokenStore of a server", R"({"tokenStore": "file"})",
             at + u".oauth.tokenStore = \"file\" is a setting of Tether, not of one server: move it to defaults.oauth"_s);
    oauthRow("oauth clientMetadataUrl of a server", R"({"clientMetadataUrl": "https://e.com/c.json"})",
             at + u".oauth.clientMetadataUrl = \"https://e.com/c.json\" is a setting of Tether…"_s);
    oauthRow("clientId number", R"({"clientId": 5})",
             at + u".oauth.clientId = 5 is not a string: it is the client id the authorization server gave Tether, such "
                  "as \"tether-desktop\""_s);
    oauthRow("clientId empty after expansion", R"({"clientId": "${env:EMPTY}"})",
             at + u".oauth.clientId = \"${env:EMPTY}\" is empty…"_s);
    oauthRow("clientSecret number", R"({"clientId": "a", "clientSecret": 12345})",
             at + u".oauth.clientSecret is a number, not a string: write the secret in quotes, or as \"${env:NAME}\" (the "
                  "value is not shown, it may be a secret)"_s);
    oauthRow("clientSecret empty after expansion", R"({"clientId": "a", "clientSecret": "${env:EMPTY}"})",
             at + u".oauth.clientSecret is empty once ${env:…} is expanded: give the secret the authorization server "
                  "issued with clientId, or remove clientSecret for a public client"_s);
    oauthRow("clientSecret without clientId", R"({"clientSecret": "s"})",
             at + u".oauth gives clientSecret without clientId: a secret belongs to a pre-registered client; add its "
                  "clientId, or remove clientSecret"_s);
    oauthRow("scopes string", R"({"scopes": "files:read"})",
             at + u".oauth.scopes = \"files:read\" is not a list: write the scopes to ask for as [\"files:read\", "
                  "\"files:write\"]"_s);
    oauthRow("scope with a space", R"({"scopes": ["a", "files read"]})",
             at + u".oauth.scopes[1] = \"files read\" is not a scope: a scope is one word of letters, digits and "
                  "punctuation, without spaces or quotes, such as \"files:read\""_s);
    oauthRow("scope with a quote", R"({"scopes": ["a\"b"]})", at + u".oauth.scopes[0] = \"a\"b\" is not a scope…"_s);
    oauthRow("scope number", R"({"scopes": [7]})", at + u".oauth.scopes[0] = 7 is not a scope…"_s);
    oauthRow("scope empty", R"({"scopes": [""]})", at + u".oauth.scopes[0] = \"\" is not a scope…"_s);
    oauthRow("redirectPort below 1024", R"({"redirectPort": 80})",
             at + u".oauth.redirectPort = 80 is out of range: it must be a whole number from 1024 to 65535"_s);
    oauthRow("redirectPort above 65535", R"({"redirectPort": 65536})", at + u".oauth.redirectPort = 65536 is out of range…"_s);
    oauthRow("redirectPort string", R"({"redirectPort": "8080"})",
             at + u".oauth.redirectPort = \"8080\" is not a number: it must be a whole number from 1024 to 65535"_s);
    oauthRow("browserTimeoutMs too short", R"({"browserTimeoutMs": 9999})",
             at + u".oauth.browserTimeoutMs = 9999 is out of range: it must be a whole number from 10000 to 3600000"_s);
    oauthRow("browserTimeoutMs too long", R"({"browserTimeoutMs": 3600001})",
             at + u".oauth.browserTimeoutMs = 3600001 is out of range…"_s);
}

void TestConfig::invalidServer()
{
    QFETCH(QByteArray, server);
    QFETCH(QString, message);

    const ConfigDocument document = parse(withServer(server));
    // A server's mistakes are its own: the file is still used.
    QVERIFY2(document.isValid(), qPrintable(document.errors.join(u'\n')));
    QCOMPARE(document.servers.size(), 1);
    const ServerConfig &config = document.servers.first();
    QCOMPARE(config.name, u"demo"_s);
    QVERIFY(!config.isValid());
    QVERIFY2(config.errors.size() == 1, qPrintable(config.errors.join(u'\n')));
    const QString error = config.errors.first();
    if (message.endsWith(u"…"_s))
        QVERIFY2(error.startsWith(message.chopped(1)), qPrintable(error));
    else
        QCOMPARE(error, message);
    QVERIFY2(config.warnings.isEmpty(), qPrintable(config.warnings.join(u'\n')));
}

void TestConfig::everyErrorOfAServerIsReported()
{
    const ServerConfig config = parse(withServer(R"({"command": 5, "args": [1, 2], "env": {"A": 1},
        "cwd": false, "enabled": "no", "pool": {"max": 0}, "timeoutMs": 1, "reconnect": {"maxAttempts": 0},
        "heartbeat": {"maxFailures": 0}})")).servers.first();
    QCOMPARE(config.errors.size(), 10);
    for (const QString &error : config.errors)
        QVERIFY2(error.startsWith(File + u": "_s), qPrintable(error));
}

void TestConfig::fileErrors_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message"); // whole, or its start when it ends with "…"

    QTest::newRow("root array") << QByteArray(R"([{"mcpServers": {}}])")
                                << u"servers.json: the file holds a JSON array, not an object: a config file is "
                                   "an object such as {\"mcpServers\": {}}"_s;
    QTest::newRow("mcpServers array")
        << QByteArray(R"({"mcpServers": [{"command": "x"}]})")
        << u"servers.json: mcpServers = [{\"command\":\"x\"}] is not an object: it maps each server's name to its "
           "settings, such as {\"demo\": {\"command\": \"npx\", \"args\": [\"-y\", \"some-server\"]}}"_s;
    QTest::newRow("servers null") << QByteArray(R"({"servers": null})") << u"servers.json: servers = null is not an object…"_s;
    QTest::newRow("both mcpServers and servers")
        << QByteArray(R"({"mcpServers": {}, "servers": {}})")
        << u"servers.json: the file has both \"mcpServers\" and \"servers\": Tether reads one list of servers; move "
           "them all into \"mcpServers\""_s;
    QTest::newRow("server entry string")
        << QByteArray(R"({"mcpServers": {"demo": "npx server"}})")
        << u"servers.json: mcpServers.demo = \"npx server\" is not an object: each server is an object such as "
           "{\"command\": \"npx\", \"args\": [\"-y\", \"some-server\"]}"_s;
    QTest::newRow("server entry null") << QByteArray(R"({"servers": {"demo": null}})")
                                       << u"servers.json: servers.demo = null is not an object…"_s;
    QTest::newRow("defaults not object") << QByteArray(R"({"defaults": [], "mcpServers": {}})")
                                         << u"servers.json: defaults = [] is not an object: it holds what every "
                                            "server starts from, such as {\"reconnect\": {\"maxAttempts\": 5}}"_s;
    QTest::newRow("defaults unknown key") << QByteArray(R"({"defaults": {"enabled": false}})")
                                          << u"servers.json: defaults.enabled = false is not a default Tether "
                                             "knows (known: reconnect, heartbeat, pool, timeoutMs, oauth)"_s;
    QTest::newRow("defaults.reconnect out of range")
        << QByteArray(R"({"defaults": {"reconnect": {"maxAttempts": 0}}})")
        << u"servers.json: defaults.reconnect.maxAttempts = 0 is out of range: it must be a whole number from 1 to 1000"_s;
    QTest::newRow("defaults.reconnect not object") << QByteArray(R"({"defaults": {"reconnect": "fast"}})")
                                                   << u"servers.json: defaults.reconnect = \"fast\" is not an object…"_s;
    QTest::newRow("defaults.heartbeat cross field")
        << QByteArray(R"({"defaults": {"heartbeat": {"intervalMs": 1000}}})")
        << u"servers.json: defaults.heartbeat.timeoutMs = 10000 is more than heartbeat.intervalMs = 1000…"_s;
    QTest::newRow("defaults.pool.max 0") << QByteArray(R"({"defaults": {"pool": {"max": 0}}})")
                                         << u"servers.json: defaults.pool.max = 0 is out of range: it must be a "
                                            "whole number from 1 to 64"_s;
    QTest::newRow("defaults.timeoutMs") << QByteArray(R"({"defaults": {"timeoutMs": 10}})")
                                        << u"servers.json: defaults.timeoutMs = 10 is out of range…"_s;
    QTest::newRow("gateway not object") << QByteArray(R"({"gateway": true})")
                                        << u"servers.json: gateway = true is not an object: it holds how Tether serves "
                                           "its tools to MCP hosts, such as {\"outageWaitMs\": 10000}"_s;
    QTest::newRow("gateway unknown key") << QByteArray(R"({"gateway": {"waitMs": 5}})")
                                         << u"servers.json: gateway.waitMs = 5 is not a gateway setting (known: "
                                            "outageWaitMs, toolsPageSize, names, http)"_s;
    QTest::newRow("gateway.outageWaitMs negative") << QByteArray(R"({"gateway": {"outageWaitMs": -1}})")
                                                   << u"servers.json: gateway.outageWaitMs = -1 is out of range: it must "
                                                      "be a whole number from 0 to 600000"_s;
    QTest::newRow("gateway.toolsPageSize 0") << QByteArray(R"({"gateway": {"toolsPageSize": 0}})")
                                             << u"servers.json: gateway.toolsPageSize = 0 is out of range…"_s;
    QTest::newRow("gateway.outageWaitMs text") << QByteArray(R"({"gateway": {"outageWaitMs": "10s"}})")
                                               << u"servers.json: gateway.outageWaitMs = \"10s\" is not a number…"_s;
    QTest::newRow("gateway.http not object") << QByteArray(R"({"gateway": {"http": 27413}})")
                                             << u"servers.json: gateway.http = 27413 is not an object: it holds Tether's "
                                                "HTTP endpoint for MCP hosts, such as {\"enabled\": true, \"port\": 27413}"_s;
    QTest::newRow("gateway.http unknown key") << QByteArray(R"({"gateway": {"http": {"bind": "0.0.0.0"}}})")
                                              << u"servers.json: gateway.http.bind = \"0.0.0.0\" is not an HTTP endpoint "
                                                 "setting (known: enabled, host, port, maxBodyBytes, allowedOrigins, "
                                                 "allowedHosts, tls)"_s;
    QTest::newRow("gateway.http.enabled text") << QByteArray(R"({"gateway": {"http": {"enabled": "yes"}}})")
                                               << u"servers.json: gateway.http.enabled = \"yes\" is not true or false"_s;
    QTest::newRow("gateway.http.port 0") << QByteArray(R"({"gateway": {"http": {"port": 0}}})")
                                         << u"servers.json: gateway.http.port = 0 is out of range: it must be a whole "
                                            "number from 1 to 65535"_s;
    QTest::newRow("gateway.http.port 70000") << QByteArray(R"({"gateway": {"http": {"port": 70000}}})")
                                             << u"servers.json: gateway.http.port = 70000 is out of range…"_s;
    QTest::newRow("gateway.http.maxBodyBytes small") << QByteArray(R"({"gateway": {"http": {"maxBodyBytes": 10}}})")
                                                     << u"servers.json: gateway.http.maxBodyBytes = 10 is out of range…"_s;
    QTest::newRow("gateway.http.host empty") << QByteArray(R"({"gateway": {"http": {"host": ""}}})")
                                             << u"servers.json: gateway.http.host = \"\" is not an address…"_s;
    QTest::newRow("gateway.http.allowedOrigins string") << QByteArray(R"({"gateway": {"http": {"allowedOrigins": "x"}}})")
                                                        << u"servers.json: gateway.http.allowedOrigins = \"x\" is not a "
                                                           "list: write it as [\"https://app.example\"]"_s;
    QTest::newRow("gateway.http.allowedHosts number") << QByteArray(R"({"gateway": {"http": {"allowedHosts": [1]}}})")
                                                      << u"servers.json: gateway.http.allowedHosts[0] = 1 is not a name…"_s;
    QTest::newRow("gateway.http beyond loopback without TLS")
        << QByteArray(R"({"gateway": {"http": {"host": "0.0.0.0"}}})")
        << u"servers.json: gateway.http.host = \"0.0.0.0\" is beyond this machine's loopback, and the gateway serves it "
           "only over TLS: set gateway.http.tls {\"certificate\": …, \"key\": …}, or use \"127.0.0.1\""_s;
    QTest::newRow("gateway.http.tls without key")
        << QByteArray(R"({"gateway": {"http": {"tls": {"certificate": "cert.pem"}}}})")
        << u"servers.json: gateway.http.tls has no \"key\": it needs both PEM files, as {\"certificate\": "
           "\"/etc/tether/cert.pem\", \"key\": \"/etc/tether/key.pem\"}"_s;
    QTest::newRow("gateway.http.tls unknown key")
        << QByteArray(R"({"gateway": {"http": {"tls": {"certificate": "c.pem", "key": "k.pem", "ca": "x"}}}})")
        << u"servers.json: gateway.http.tls.ca = \"x\" is not a TLS setting (known: certificate, key)"_s;
    const auto oauthDefaults = [](const char *tag, const char *oauth, const QString &message) {
        QTest::newRow(tag) << QByteArray(R"({"defaults": {"oauth": )" + QByteArray(oauth) + "}}") << message;
    };
    oauthDefaults("defaults.oauth false", "false",
                  u"servers.json: defaults.oauth = false is not an object: it holds how servers sign in, such as "
                  "{\"tokenStore\": \"file\", \"browserTimeoutMs\": 300000}"_s);
    oauthDefaults("defaults.oauth tokenStore unknown", R"({"tokenStore": "keyring"})",
                  u"servers.json: defaults.oauth.tokenStore = \"keyring\" is not a token store Tether knows: it must be "
                  "\"auto\" (the system keyring, else a file readable by you alone) or \"file\" (that file always)"_s);
    oauthDefaults("defaults.oauth clientMetadataUrl http", R"({"clientMetadataUrl": "http://e.com/tether.json"})",
                  u"servers.json: defaults.oauth.clientMetadataUrl = \"http://e.com/tether.json\" is not an https URL "
                  "with a path: it is where Tether's client metadata document is served, such as "
                  "\"https://example.com/tether/client.json\", or null"_s);
    oauthDefaults("defaults.oauth clientMetadataUrl without path", R"({"clientMetadataUrl": "https://e.com/"})",
                  u"servers.json: defaults.oauth.clientMetadataUrl = \"https://e.com/\" is not an https URL with a path…"_s);
    oauthDefaults("defaults.oauth clientMetadataUrl number", R"({"clientMetadataUrl": 1})",
                  u"servers.json: defaults.oauth.clientMetadataUrl = 1 is not an https URL with a path…"_s);
    oauthDefaults("defaults.oauth browserTimeoutMs", R"({"browserTimeoutMs": 0})",
                  u"servers.json: defaults.oauth.browserTimeoutMs = 0 is out of range: it must be a whole number from "
                  "10000 to 3600000"_s);
    oauthDefaults("defaults.oauth clientId", R"({"clientId": "tether-desktop"})",
                  u"servers.json: defaults.oauth.clientId = \"tether-desktop\" is a setting of one server: move it to "
                  "that server's \"oauth\""_s);
    oauthDefaults("defaults.oauth clientSecret is not shown", R"({"clientSecret": "s3cr3t-token-value"})",
                  u"servers.json: defaults.oauth.clientSecret is a setting of one server: move it to that server's "
                  "\"oauth\""_s);
    oauthDefaults("defaults.oauth unknown key", R"({"store": "file"})",
                  u"servers.json: defaults.oauth.store = \"file\" is not a sign-in default (known: browserTimeoutMs, "
                  "tokenStore, clientMetadataUrl)"_s);
}

void TestConfig::fileErrors()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    const ConfigDocument document = parse(json);
    QVERIFY(!document.isValid());
    QVERIFY2(document.errors.size() == 1, qPrintable(document.errors.join(u'\n')));
    const QString error = document.errors.first();
    if (message.endsWith(u"…"_s))
        QVERIFY2(error.startsWith(message.chopped(1)), qPrintable(error));
    else
        QCOMPARE(error, message);
}

void TestConfig::parseErrorPosition_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");

    // The position is the character the parser stopped at: here the quote of "env", where a comma belongs.
    const QString fix = u": the file is not valid JSON; fix it"_s;
    QTest::newRow("missing comma between members")
        << QByteArray("{\n"
                      "  \"mcpServers\": {\n"
                      "    \"demo\": {\n"
                      "      \"command\": \"node\",\n"
                      "      \"args\": [\"server.js\"]\n"
                      "      \"env\": {}\n"
                      "    }\n"
                      "  }\n"
                      "}\n")
        << u"servers.json: line 6, column 7 (unterminated object)"_s + fix;
    // Columns count characters: é and ö are two bytes each (the quote of "args" is byte 35 of its line).
    QTest::newRow("non-ASCII before the error")
        << QByteArray("{\n  \"mcpServers\": {\n    \"d\xC3\xA9mo\": {\"command\": \"n\xC3\xB6" "de\" \"args\": []}\n  }\n}\n")
        << u"servers.json: line 3, column 32 (unterminated object)"_s + fix;
    // Characters beyond the BMP count once, not as two UTF-16 units.
    QTest::newRow("emoji before the error")
        << QByteArray("{\n  \"a\": \"\xF0\x9F\x98\x80\xF0\x9F\x98\x80\" x\n}")
        << u"servers.json: line 2, column 13 (unterminated object)"_s + fix;
    // The closing brace after the comma.
    QTest::newRow("trailing comma")
        << QByteArray("{\n  \"mcpServers\": {\n    \"demo\": {\"command\": \"node\",}\n  }\n}\n")
        << u"servers.json: line 3, column 32 (object is missing after a comma)"_s + fix;
    // The end of the file: just past the last character of line 2.
    QTest::newRow("cut off")
        << QByteArray("{\n  \"mcpServers\": {\n") << u"servers.json: line 2, column 18 (unterminated object)"_s + fix;
    QTest::newRow("comment")
        << QByteArray("{\n  \"mcpServers\": {}, // here\n}\n")
        << u"servers.json: line 2, column 21 (unterminated object; comments are not allowed in JSON, remove them)"_s + fix;
    // The "t" of tru.
    QTest::newRow("first line") << QByteArray("{\"mcpServers\": tru}")
                                << u"servers.json: line 1, column 16 (illegal value)"_s + fix;
}

void TestConfig::parseErrorPosition()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    const ConfigDocument document = parse(json);
    QCOMPARE(document.errors, QStringList{message});
    QVERIFY(document.servers.isEmpty());
}

void TestConfig::invalidServerDoesNotAffectOthers()
{
    const ConfigDocument document = parse(QByteArray(R"({"mcpServers": {
        "good": {"command": "node", "args": ["good.js"], "reconnect": {"maxAttempts": 3}, "pool": {"max": 2}},
        "bad": {"command": "node", "args": ["bad.js", 7], "reconnect": {"maxAttempts": 0}},
        "remote": {"url": "https://e.com/mcp", "headers": {"A": "b"}}
    }})"));
    QVERIFY(document.isValid());
    QCOMPARE(document.servers.size(), 3);
    const ServerConfig *good = document.server(u"good"_s);
    QVERIFY2(good->isValid(), qPrintable(good->errors.join(u'\n')));
    QCOMPARE(good->command.arguments, QStringList{u"good.js"_s});
    QCOMPARE(good->reconnect.maxAttempts, 3);
    QCOMPARE(good->pool.max, 2);
    const ServerConfig *bad = document.server(u"bad"_s);
    QCOMPARE(bad->errors.size(), 2);
    for (const QString &error : bad->errors)
        QVERIFY2(error.contains(u"bad"_s), qPrintable(error));
    QVERIFY(document.server(u"remote"_s)->isValid());
}

void TestConfig::defaults_data()
{
    QTest::addColumn<QByteArray>("server");
    QTest::addColumn<ReconnectPolicy>("expectedReconnect");
    QTest::addColumn<HeartbeatPolicy>("expectedHeartbeat");
    QTest::addColumn<PoolPolicy>("expectedPool");
    QTest::addColumn<int>("expectedTimeoutMs");

    // The defaults in every row: {"reconnect": {"maxAttempts": 3, "initialDelayMs": 200},
    // "heartbeat": {"intervalMs": 15000, "timeoutMs": 5000}, "pool": {"max": 4}, "timeoutMs": 20000}
    QTest::newRow("defaults applied") << QByteArray(R"({"command": "x"})") << reconnect(200, 30000, 3)
                                      << heartbeat(15000, 5000, 3) << PoolPolicy{1, 4, 64} << 20000;
    QTest::newRow("field overrides, others from defaults")
        << QByteArray(R"({"command": "x", "reconnect": {"maxDelayMs": 8000}, "heartbeat": {"maxFailures": 5},
                         "pool": {"min": 2}, "timeoutMs": 90000})")
        << reconnect(200, 8000, 3) << heartbeat(15000, 5000, 5) << PoolPolicy{2, 4, 64} << 90000;
    QTest::newRow("every default overridden")
        << QByteArray(R"({"command": "x", "reconnect": {"maxAttempts": 9, "initialDelayMs": 1000},
                         "heartbeat": {"intervalMs": 60000, "timeoutMs": 20000},
                         "pool": {"max": 1, "maxQueue": 5}, "timeoutMs": 1000})")
        << reconnect(1000, 30000, 9) << heartbeat(60000, 20000, 3) << PoolPolicy{1, 1, 5} << 1000;
    QTest::newRow("aliases override defaults")
        << QByteArray(R"({"command": "x", "connection": {"reconnect": {"maxRetries": 6}, "heartbeat": {"interval": 7000}}})")
        << reconnect(200, 30000, 6) << heartbeat(7000, 5000, 3) << PoolPolicy{1, 4, 64} << 20000;
}

void TestConfig::defaults()
{
    QFETCH(QByteArray, server);
    QFETCH(ReconnectPolicy, expectedReconnect);
    QFETCH(HeartbeatPolicy, expectedHeartbeat);
    QFETCH(PoolPolicy, expectedPool);
    QFETCH(int, expectedTimeoutMs);

    const ConfigDocument document = parse(
        R"({"defaults": {"reconnect": {"maxAttempts": 3, "initialDelayMs": 200},
                         "heartbeat": {"intervalMs": 15000, "timeoutMs": 5000}, "pool": {"max": 4},
                         "timeoutMs": 20000},
            "mcpServers": {"demo": )" + server + "}}");
    QVERIFY2(document.isValid(), qPrintable(document.errors.join(u'\n')));
    const ServerConfig &config = document.servers.first();
    QVERIFY2(config.isValid(), qPrintable(config.errors.join(u'\n')));
    QCOMPARE(config.reconnect, expectedReconnect);
    QCOMPARE(config.heartbeat, expectedHeartbeat);
    QCOMPARE(config.pool, expectedPool);
    QCOMPARE(config.requestTimeout, std::chrono::milliseconds(expectedTimeoutMs));
}

void TestConfig::builtInDefaults()
{
    const ServerConfig config = parseServer(R"({"command": "x"})");
    QVERIFY(config.isValid());
    QCOMPARE(config.reconnect, ReconnectPolicy{});
    QCOMPARE(config.heartbeat, HeartbeatPolicy{});
    QCOMPARE(config.pool, PoolPolicy{});
    QCOMPARE(config.requestTimeout, std::chrono::milliseconds(60000));
    QCOMPARE(config.enabled, true);

    const ServerConfig bounds = parseServer(R"({"command": "x", "timeoutMs": 3600000,
        "pool": {"min": 0, "max": 64, "maxQueue": 10000}, "enabled": false})");
    QVERIFY2(bounds.isValid(), qPrintable(bounds.errors.join(u'\n')));
    QCOMPARE(bounds.pool, (PoolPolicy{0, 64, 10000}));
    QCOMPARE(bounds.requestTimeout, std::chrono::milliseconds(3600000));
    QCOMPARE(bounds.enabled, false);
}

void TestConfig::hiddenTools_data()
{
    QTest::addColumn<QByteArray>("server");
    QTest::addColumn<QStringList>("hidden");

    QTest::newRow("none") << QByteArray(R"({"command": "x"})") << QStringList();
    QTest::newRow("empty tools") << QByteArray(R"({"command": "x", "tools": {}})") << QStringList();
    QTest::newRow("empty list") << QByteArray(R"({"command": "x", "tools": {"disabled": []}})") << QStringList();
    QTest::newRow("names as written, in order")
        << QByteArray(R"({"command": "x", "tools": {"disabled": ["delete_repository", "merge pull.request"]}})")
        << QStringList{u"delete_repository"_s, u"merge pull.request"_s};
    QTest::newRow("a name twice counts once")
        << QByteArray(R"({"command": "x", "tools": {"disabled": ["a", "b", "a"]}})") << QStringList{u"a"_s, u"b"_s};
    QTest::newRow("remote server") << QByteArray(R"({"url": "https://e.com/mcp", "tools": {"disabled": ["a"]}})")
                                   << QStringList{u"a"_s};
}

void TestConfig::hiddenTools()
{
    QFETCH(QByteArray, server);
    QFETCH(QStringList, hidden);
    const ConfigDocument document = parse(withServer(server));
    QVERIFY2(document.isValid(), qPrintable(document.errors.join(u'\n')));
    const ServerConfig &config = document.servers.first();
    QVERIFY2(config.isValid(), qPrintable(config.errors.join(u'\n')));
    QCOMPARE(config.hiddenTools, hidden);
}

void TestConfig::clientFeatureSettings_data()
{
    QTest::addColumn<QByteArray>("server");
    QTest::addColumn<bool>("clientFeatures");
    QTest::addColumn<bool>("perHost");
    QTest::addColumn<QJsonArray>("roots");

    const auto root = [](const QString &uri, const QString &name) {
        return QJsonObject{{u"uri"_s, uri}, {u"name"_s, name}};
    };
    QTest::newRow("defaults") << QByteArray(R"({"command": "x"})") << true << false << QJsonArray();
    QTest::newRow("none declared, a session per host")
        << QByteArray(R"({"command": "x", "clientFeatures": false, "perHost": true})") << false << true << QJsonArray();
    QTest::newRow("folders and a URI, cleaned")
        << QByteArray("{\"command\": \"x\", \"roots\": [\"/home/me/project/\", \"file:///srv/shared%20data\", "
                      "\"/home/me/../me/notes\"]}")
        << true << false
        << QJsonArray{root(u"file:///home/me/project"_s, u"project"_s), root(u"file:///srv/shared%20data"_s, u"shared data"_s),
                      root(u"file:///home/me/notes"_s, u"notes"_s)};
    QTest::newRow("the file system's root") << QByteArray(R"({"command": "x", "roots": ["/"]})") << true << false
                                             << QJsonArray{root(u"file:///"_s, u"/"_s)};
    QTest::newRow("remote server") << QByteArray(R"({"url": "https://e.com/mcp", "perHost": true})") << true << true
                                   << QJsonArray();
}

void TestConfig::protocolSetting_data()
{
    QTest::addColumn<QByteArray>("server");
    QTest::addColumn<QString>("protocol");

    QTest::newRow("default") << QByteArray(R"({"command": "x"})") << u"auto"_s;
    QTest::newRow("auto") << QByteArray(R"({"command": "x", "protocol": "auto"})") << u"auto"_s;
    QTest::newRow("stateless") << QByteArray(R"({"url": "https://e.com/mcp", "protocol": "2026-07-28"})") << u"2026-07-28"_s;
    QTest::newRow("handshake") << QByteArray(R"({"command": "x", "protocol": "2025-11-25"})") << u"2025-11-25"_s;
}

void TestConfig::protocolSetting()
{
    QFETCH(QByteArray, server);
    QFETCH(QString, protocol);
    const ConfigDocument document = parse(withServer(server));
    QVERIFY2(document.isValid(), qPrintable(document.errors.join(u'\n')));
    const ServerConfig &config = document.servers.first();
    QVERIFY2(config.isValid(), qPrintable(config.errors.join(u'\n')));
    QCOMPARE(config.protocol, protocol);
    // A pinned era is a setting of its own: changing it restarts the server.
    ServerConfig other = config;
    other.protocol = protocol == u"auto" ? u"2026-07-28"_s : u"auto"_s;
    QVERIFY(!config.sameSettings(other));
}

void TestConfig::clientFeatureSettings()
{
    QFETCH(QByteArray, server);
    QFETCH(bool, clientFeatures);
    QFETCH(bool, perHost);
    QFETCH(QJsonArray, roots);
    const ConfigDocument document = parse(withServer(server));
    QVERIFY2(document.isValid(), qPrintable(document.errors.join(u'\n')));
    const ServerConfig &config = document.servers.first();
    QVERIFY2(config.isValid(), qPrintable(config.errors.join(u'\n')));
    QCOMPARE(config.clientFeatures, clientFeatures);
    QCOMPARE(config.perHost, perHost);
    QCOMPARE(config.roots, roots);
}

void TestConfig::gatewayNames_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<bool>("plain");
    QTest::addColumn<QString>("error");

    QTest::newRow("default") << QByteArray(R"({"gateway": {}})") << false << QString();
    QTest::newRow("prefixed") << QByteArray(R"({"gateway": {"names": "prefixed"}})") << false << QString();
    QTest::newRow("plain") << QByteArray(R"({"gateway": {"names": "plain"}})") << true << QString();
    QTest::newRow("unknown") << QByteArray(R"({"gateway": {"names": "short"}})") << false
                             << u"servers.json: gateway.names = \"short\" is not valid: it must be \"prefixed\" (every tool "
                                "as <server>__<tool>) or \"plain\" (each server's own names, prefixed only where two servers "
                                "offer the same one)"_s;
}

void TestConfig::gatewayNames()
{
    QFETCH(QByteArray, json);
    QFETCH(bool, plain);
    QFETCH(QString, error);
    const ConfigDocument document = parse(json);
    QCOMPARE(document.gateway.names == GatewayNames::Plain, plain);
    QCOMPARE(document.errors.join(u'\n'), error);
}

void TestConfig::gatewaySettings_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<qint64>("outageWaitMs");
    QTest::addColumn<int>("toolsPageSize");

    QTest::newRow("defaults") << QByteArray(R"({"mcpServers": {}})") << qint64(10000) << 1000;
    QTest::newRow("empty section") << QByteArray(R"({"gateway": {}})") << qint64(10000) << 1000;
    QTest::newRow("both") << QByteArray(R"({"gateway": {"outageWaitMs": 2500, "toolsPageSize": 50}})") << qint64(2500) << 50;
    QTest::newRow("no wait") << QByteArray(R"({"gateway": {"outageWaitMs": 0}})") << qint64(0) << 1000;
}

void TestConfig::gatewaySettings()
{
    QFETCH(QByteArray, json);
    QFETCH(qint64, outageWaitMs);
    QFETCH(int, toolsPageSize);
    const ConfigDocument document = parse(json);
    QVERIFY2(document.isValid(), qPrintable(document.errors.join(u'\n')));
    QCOMPARE(document.gateway.outageWait.count(), outageWaitMs);
    QCOMPARE(document.gateway.toolsPageSize, toolsPageSize);
}

void TestConfig::gatewayHttpSettings_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QByteArray>("expected"); // the section in full, as JSON

    const QString here = QDir::current().absolutePath();
    const auto section = [](bool enabled, const QString &host, int port, qint64 maxBodyBytes, const QStringList &origins,
                            const QStringList &hosts, const QString &certificate, const QString &key) {
        return QJsonDocument(QJsonObject{{u"enabled"_s, enabled}, {u"host"_s, host}, {u"port"_s, port},
                                         {u"maxBodyBytes"_s, maxBodyBytes},
                                         {u"allowedOrigins"_s, QJsonArray::fromStringList(origins)},
                                         {u"allowedHosts"_s, QJsonArray::fromStringList(hosts)},
                                         {u"certificate"_s, certificate}, {u"key"_s, key}})
            .toJson(QJsonDocument::Compact);
    };
    QTest::newRow("defaults") << QByteArray(R"({"mcpServers": {}})")
                              << section(false, u"127.0.0.1"_s, 27413, 4194304, {}, {}, {}, {});
    QTest::newRow("enabled on another port") << QByteArray(R"({"gateway": {"http": {"enabled": true, "port": 8123}}})")
                                             << section(true, u"127.0.0.1"_s, 8123, 4194304, {}, {}, {}, {});
    QTest::newRow("localhost, allowed names")
        << QByteArray(R"({"gateway": {"http": {"host": "localhost", "maxBodyBytes": 1024,
                         "allowedOrigins": [" https://app.example "], "allowedHosts": ["gw.example"]}}})")
        << section(false, u"localhost"_s, 27413, 1024, {u"https://app.example"_s}, {u"gw.example"_s}, {}, {});
    QTest::newRow("all interfaces with TLS, files beside the config")
        << QByteArray(R"({"gateway": {"http": {"host": "0.0.0.0", "tls": {"certificate": "tls/cert.pem",
                         "key": "/etc/tether/key.pem"}}}})")
        << section(false, u"0.0.0.0"_s, 27413, 4194304, {}, {}, here + u"/tls/cert.pem"_s, u"/etc/tether/key.pem"_s);
}

void TestConfig::gatewayHttpSettings()
{
    QFETCH(QByteArray, json);
    QFETCH(QByteArray, expected);
    const ConfigDocument document = parse(json);
    QVERIFY2(document.isValid(), qPrintable(document.errors.join(u'\n')));
    const GatewayHttpConfig &http = document.gateway.http;
    const QByteArray actual = QJsonDocument(QJsonObject{{u"enabled"_s, http.enabled}, {u"host"_s, http.host},
                                                        {u"port"_s, http.port}, {u"maxBodyBytes"_s, http.maxBodyBytes},
                                                        {u"allowedOrigins"_s, QJsonArray::fromStringList(http.allowedOrigins)},
                                                        {u"allowedHosts"_s, QJsonArray::fromStringList(http.allowedHosts)},
                                                        {u"certificate"_s, http.tlsCertificate}, {u"key"_s, http.tlsKey}})
                                  .toJson(QJsonDocument::Compact);
    QCOMPARE(actual, expected);
}

void TestConfig::loopbackHosts_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<bool>("loopback");
    QTest::newRow("127.0.0.1") << u"127.0.0.1"_s << true;
    QTest::newRow("127.1.2.3") << u"127.1.2.3"_s << true;
    QTest::newRow("localhost") << u"LocalHost"_s << true;
    QTest::newRow("::1") << u"::1"_s << true;
    QTest::newRow("[::1]") << u"[::1]"_s << true;
    QTest::newRow("all interfaces") << u"0.0.0.0"_s << false;
    QTest::newRow("LAN") << u"192.168.1.10"_s << false;
    QTest::newRow("127 as a name") << u"127.example.com"_s << false;
    QTest::newRow("out of range") << u"127.0.0.256"_s << false;
    QTest::newRow("IPv6 any") << u"::"_s << false;
}

void TestConfig::loopbackHosts()
{
    QFETCH(QString, host);
    QFETCH(bool, loopback);
    QCOMPARE(isLoopbackHost(host), loopback);
}

void TestConfig::gatewayUrls_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<quint16>("port");
    QTest::addColumn<bool>("tls");
    QTest::addColumn<QString>("url");
    QTest::newRow("default") << u"127.0.0.1"_s << quint16(27413) << false << u"http://127.0.0.1:27413/mcp"_s;
    QTest::newRow("port of the file") << u"127.0.0.1"_s << quint16(8080) << false << u"http://127.0.0.1:8080/mcp"_s;
    QTest::newRow("localhost") << u"localhost"_s << quint16(27413) << false << u"http://127.0.0.1:27413/mcp"_s;
    QTest::newRow("every interface") << u"0.0.0.0"_s << quint16(443) << true << u"https://127.0.0.1:443/mcp"_s;
    QTest::newRow("IPv6 loopback") << u"::1"_s << quint16(27413) << false << u"http://[::1]:27413/mcp"_s;
    QTest::newRow("IPv6 bracketed") << u"[::1]"_s << quint16(27413) << false << u"http://[::1]:27413/mcp"_s;
    QTest::newRow("IPv6 every interface") << u"::"_s << quint16(27413) << true << u"https://[::1]:27413/mcp"_s;
    QTest::newRow("LAN address") << u"192.168.1.10"_s << quint16(27413) << true << u"https://192.168.1.10:27413/mcp"_s;
}

void TestConfig::gatewayUrls()
{
    QFETCH(QString, host);
    QFETCH(quint16, port);
    QFETCH(bool, tls);
    GatewayHttpConfig http;
    http.host = host;
    http.port = port;
    if (tls) {
        http.tlsCertificate = u"/etc/tether/cert.pem"_s;
        http.tlsKey = u"/etc/tether/key.pem"_s;
    }
    QTEST(gatewayHttpUrl(http), "url");
}

void TestConfig::poolConfigured_data()
{
    QTest::addColumn<QByteArray>("config");
    QTest::addColumn<bool>("configured");

    QTest::newRow("no pool") << QByteArray(R"({"mcpServers": {"demo": {"command": "x"}}})") << false;
    QTest::newRow("own pool") << QByteArray(R"({"mcpServers": {"demo": {"command": "x", "pool": {"max": 2}}}})") << true;
    QTest::newRow("own pool of defaults") << QByteArray(R"({"mcpServers": {"demo": {"command": "x", "pool": {}}}})")
                                          << true;
    QTest::newRow("defaults' pool only")
        << QByteArray(R"({"defaults": {"pool": {"max": 4}}, "mcpServers": {"demo": {"command": "x"}}})") << false;
}

void TestConfig::poolConfigured()
{
    QFETCH(QByteArray, config);
    QFETCH(bool, configured);
    const ConfigDocument document = parse(config);
    QVERIFY2(document.isValid(), qPrintable(document.errors.join(u'\n')));
    const ServerConfig &server = document.servers.first();
    QVERIFY2(server.isValid(), qPrintable(server.errors.join(u'\n')));
    QCOMPARE(server.poolConfigured, configured);
}

void TestConfig::expansion_data()
{
    QTest::addColumn<QByteArray>("server");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("expected");

    QTest::newRow("command") << QByteArray(R"({"command": "${env:HOME_DIR}/bin/tool"})") << u"command"_s
                             << u"/home/ada/bin/tool"_s;
    QTest::newRow("bindir") << QByteArray(R"({"command": "${tether:bindir}/tether-demo-server"})") << u"command"_s
                            << u"/opt/tether/bin/tether-demo-server"_s;
    QTest::newRow("two references in one value")
        << QByteArray(R"({"command": "x", "args": ["${env:HOST}:${env:HOME_DIR}"]})") << u"args"_s
        << u"mcp.example.com:/home/ada"_s;
    QTest::newRow("empty variable") << QByteArray(R"({"command": "x", "args": ["a${env:EMPTY}b"]})") << u"args"_s
                                    << u"ab"_s;
    QTest::newRow("argument") << QByteArray(R"({"command": "x", "args": ["--token=${env:API_TOKEN}"]})")
                              << u"args"_s << u"--token="_s + Secret;
    QTest::newRow("env value") << QByteArray(R"({"command": "x", "env": {"TOKEN": "${env:API_TOKEN}"}})")
                               << u"env"_s << u"TOKEN="_s + Secret;
    QTest::newRow("cwd") << QByteArray(R"({"command": "x", "cwd": "${env:HOME_DIR}/work"})") << u"cwd"_s
                         << u"/home/ada/work"_s;
    QTest::newRow("url") << QByteArray(R"({"url": "https://${env:HOST}/mcp"})") << u"url"_s
                         << u"https://mcp.example.com/mcp"_s;
    QTest::newRow("header value") << QByteArray(R"({"url": "https://e.com", "headers": {"Authorization": "Bearer ${env:API_TOKEN}"}})")
                                  << u"headers"_s << u"Authorization=Bearer "_s + Secret;
    // A variable's value is used as is, not expanded again.
    QTest::newRow("no second expansion") << QByteArray(R"({"command": "x", "args": ["${env:NESTED}"]})")
                                         << u"args"_s << u"${env:HOME_DIR}"_s;
    QTest::newRow("dollar without braces") << QByteArray(R"({"command": "x", "args": ["$HOME", "a$b", "$"]})")
                                           << u"args"_s << u"$HOME a$b $"_s;
    QTest::newRow("not in env names") << QByteArray(R"({"command": "x", "env": {"${env:HOST}": "1"}})")
                                      << u"env"_s << u"${env:HOST}=1"_s;
}

void TestConfig::expansion()
{
    QFETCH(QByteArray, server);
    QFETCH(QString, field);
    QFETCH(QString, expected);

    const ServerConfig config = parseServer(server);
    QVERIFY2(config.isValid(), qPrintable(config.errors.join(u'\n')));
    QString actual;
    if (field == u"command")
        actual = config.command.program;
    else if (field == u"args")
        actual = config.command.arguments.join(u' ');
    else if (field == u"env")
        actual = pairs(config.command.environment, u"="_s).join(u' ');
    else if (field == u"cwd")
        actual = config.command.workingDirectory;
    else if (field == u"url")
        actual = config.url;
    else if (field == u"headers")
        actual = pairs(config.headers, u"="_s).join(u' ');
    QCOMPARE(actual, expected);
}

void TestConfig::expansionWithoutBinDir()
{
    const ConfigDocument document = parseConfig(withServer(R"({"command": "${tether:bindir}/x"})"), File,
                                                 {Environment, QString()});
    QCOMPARE(document.servers.first().errors,
             QStringList{File + u": mcpServers.demo.command uses ${tether:bindir}, but the folder of Tether's "
                                "programs is not known here: write the path itself"_s});
}

// As envFile: a relative cwd is read from the config's folder, not from wherever Tether started.
void TestConfig::relativeCwdIsInTheConfigsFolder()
{
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    const QString config = folder.filePath(u"servers.json"_s);
    writeAll(config, R"({"mcpServers": {"near": {"command": "x", "cwd": "work/../data"},
                                        "far": {"command": "x", "cwd": "/srv/mcp"}}})");
    const ConfigDocument document = loadConfig(config, context());
    QVERIFY2(document.isValid(), qPrintable(document.errors.join(u'\n')));
    QHash<QString, QString> folders;
    for (const ServerConfig &server : document.servers)
        folders.insert(server.name, server.command.workingDirectory);
    QCOMPARE(folders.value(u"near"_s), folder.filePath(u"data"_s));
    QCOMPARE(folders.value(u"far"_s), u"/srv/mcp"_s);
}

void TestConfig::envFile()
{
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    writeAll(folder.filePath(u".env"_s), "# comment\n"
                                         "PLAIN=one\n"
                                         "export EXPORTED=two\n"
                                         "QUOTED=\"three four\"\n"
                                         "SINGLE='five # six'\n"
                                         "COMMENTED=seven # note\n"
                                         "OVERRIDDEN=from-file\n"
                                         "\n");
    const QString config = folder.filePath(u"mcp.json"_s);
    writeAll(config, R"({"servers": {"demo": {"type": "stdio", "command": "x", "envFile": ".env",
                                              "env": {"OVERRIDDEN": "from-env"}}}})");
    const ConfigDocument document = loadConfig(config, context());
    QVERIFY2(document.isValid(), qPrintable(document.errors.join(u'\n')));
    const ServerConfig &server = document.servers.first();
    QVERIFY2(server.isValid(), qPrintable(server.errors.join(u'\n')));
    QCOMPARE(pairs(server.command.environment, u"="_s),
             (QStringList{u"COMMENTED=seven"_s, u"EXPORTED=two"_s, u"OVERRIDDEN=from-env"_s, u"PLAIN=one"_s,
                          u"QUOTED=three four"_s, u"SINGLE=five # six"_s}));

    // A malformed line is reported by number, never shown (it may hold a secret).
    writeAll(folder.filePath(u".env"_s), "GOOD=1\nthis line has the secret " + Secret.toUtf8() + "\n");
    const ServerConfig broken = loadConfig(config, context()).servers.first();
    QCOMPARE(broken.errors.size(), 1);
    QCOMPARE(broken.errors.first(), config + u": servers.demo.envFile: line 2 of "_s + folder.filePath(u".env"_s)
                                        + u" is not NAME=value: write one variable per line, such as DEBUG=1"_s);
    QVERIFY(!broken.errors.first().contains(Secret));
}

void TestConfig::sameSettings_data()
{
    QTest::addColumn<QByteArray>("first");
    QTest::addColumn<QByteArray>("second");
    QTest::addColumn<bool>("same");

    const auto row = [](const char *tag, const char *first, const char *second, bool same) {
        QTest::newRow(tag) << QByteArray(first) << QByteArray(second) << same;
    };
    row("identical", R"({"command": "x", "args": ["a"]})", R"({"command": "x", "args": ["a"]})", true);
    row("keys reordered and reformatted", R"({"command": "x", "env": {"A": "1", "B": "2"}, "args": ["a"]})",
        R"({ "args" : [ "a" ],
             "env" : { "B" : "2", "A" : "1" }, "command" : "x" })", true);
    row("unknown key added", R"({"command": "x"})", R"({"command": "x", "x-editor-color": "red"})", true);
    row("alias for the same value", R"({"command": "x", "reconnect": {"maxAttempts": 4}})",
        R"({"command": "x", "connection": {"reconnect": {"maxRetries": 4}}})", true);
    row("default written out", R"({"command": "x"})", R"({"command": "x", "enabled": true, "timeoutMs": 60000})", true);
    row("type written out", R"({"url": "https://e.com"})", R"({"type": "streamable-http", "url": "https://e.com"})", true);
    row("same value through a variable", R"({"command": "/home/ada/x"})", R"({"command": "${env:HOME_DIR}/x"})", true);
    row("command", R"({"command": "x"})", R"({"command": "y"})", false);
    row("args", R"({"command": "x", "args": ["a"]})", R"({"command": "x", "args": ["b"]})", false);
    row("args order", R"({"command": "x", "args": ["a", "b"]})", R"({"command": "x", "args": ["b", "a"]})", false);
    row("env value", R"({"command": "x", "env": {"A": "1"}})", R"({"command": "x", "env": {"A": "2"}})", false);
    row("env added", R"({"command": "x"})", R"({"command": "x", "env": {"A": "1"}})", false);
    row("cwd", R"({"command": "x", "cwd": "/a"})", R"({"command": "x", "cwd": "/b"})", false);
    row("url", R"({"url": "https://a.com"})", R"({"url": "https://b.com"})", false);
    row("header value", R"({"url": "https://a.com", "headers": {"A": "1"}})",
        R"({"url": "https://a.com", "headers": {"A": "2"}})", false);
    row("transport", R"({"url": "https://a.com"})", R"({"type": "sse", "url": "https://a.com"})", false);
    row("reconnect", R"({"command": "x"})", R"({"command": "x", "reconnect": {"jitter": 0.5}})", false);
    row("heartbeat", R"({"command": "x"})", R"({"command": "x", "heartbeat": {"enabled": false}})", false);
    row("oauth client", R"({"url": "https://a.com", "oauth": {"clientId": "a"}})",
        R"({"url": "https://a.com", "oauth": {"clientId": "b"}})", false);
    row("oauth turned off", R"({"url": "https://a.com"})", R"({"url": "https://a.com", "oauth": false})", false);
    row("oauth written as true", R"({"url": "https://a.com"})", R"({"url": "https://a.com", "oauth": true})", true);
    row("pool", R"({"command": "x"})", R"({"command": "x", "pool": {"maxQueue": 3}})", false);
    // A pool of the default size still makes each session take one call at a time.
    row("pool of defaults", R"({"command": "x"})", R"({"command": "x", "pool": {}})", false);
    row("timeout", R"({"command": "x"})", R"({"command": "x", "timeoutMs": 30000})", false);
    row("enabled", R"({"command": "x"})", R"({"command": "x", "enabled": false})", false);
    row("valid and invalid", R"({"command": "x"})", R"({"command": "x", "pool": {"max": 0}})", false);
    // Hiding a tool is a gateway filter: the server keeps running.
    row("tools hidden", R"({"command": "x"})", R"({"command": "x", "tools": {"disabled": ["a"]}})", true);
}

void TestConfig::sameSettings()
{
    QFETCH(QByteArray, first);
    QFETCH(QByteArray, second);
    QFETCH(bool, same);
    const ServerConfig a = parse(withServer(first)).servers.first();
    const ServerConfig b = parse(withServer(second)).servers.first();
    QCOMPARE(a.sameSettings(b), same);
    QCOMPARE(b.sameSettings(a), same);
    QVERIFY(a.sameSettings(a));
}

void TestConfig::sameSettingsIgnoresEnvironmentOrder()
{
    ServerConfig a;
    a.command.program = u"x"_s;
    a.command.environment = {{u"A"_s, u"1"_s}, {u"B"_s, u"2"_s}};
    a.headers = {{u"X-A"_s, u"1"_s}, {u"X-B"_s, u"2"_s}};
    ServerConfig b = a;
    std::reverse(b.command.environment.begin(), b.command.environment.end());
    std::reverse(b.headers.begin(), b.headers.end());
    b.source = QJsonObject{{u"command"_s, u"x"_s}};
    QVERIFY(a.sameSettings(b));
    b.name = u"other"_s;
    QVERIFY(!a.sameSettings(b));
}

void TestConfig::redaction()
{
    const ConfigDocument document = parse(QByteArray(R"({"mcpServers": {
        "local": {"command": "node", "args": ["server.js", "--token=${env:API_TOKEN}"],
                  "env": {"LITERAL_SECRET": "s3cr3t-token-value", "FROM_ENV": "${env:API_TOKEN}", "MIXED": "x-${env:API_TOKEN}"}},
        "remote": {"url": "https://mcp.example.com/mcp?key=${env:API_TOKEN}",
                   "headers": {"Authorization": "Bearer s3cr3t-token-value", "X-Key": "${env:API_TOKEN}"}},
        "written": {"url": "https://ada:s3cr3t-token-value@mcp.example.com/mcp?key=s3cr3t-token-value"}
    }})"));
    QVERIFY(document.isValid());
    const ServerConfig *local = document.server(u"local"_s);
    const ServerConfig *remote = document.server(u"remote"_s);
    const ServerConfig *written = document.server(u"written"_s);
    QVERIFY(local->isValid() && remote->isValid() && written->isValid());
    // Secrets written into the url itself are hidden too.
    QVERIFY(written->url.contains(Secret));
    QVERIFY2(!written->describe().contains(Secret) && written->describe().startsWith(u"http: https://"_s),
             qPrintable(written->describe()));
    QVERIFY(!QJsonDocument(written->redacted()).toJson().contains(Secret.toUtf8()));
    // The secret is really there, resolved, for the process to use.
    QVERIFY(local->command.arguments.last().contains(Secret));
    QVERIFY(remote->url.contains(Secret));

    for (const ServerConfig *server : {local, remote}) {
        const QJsonObject redacted = server->redacted();
        const QByteArray serialized = QJsonDocument(redacted).toJson();
        QVERIFY2(!serialized.contains(Secret.toUtf8()), serialized.constData());
        QVERIFY2(!server->describe().contains(Secret), qPrintable(server->describe()));
        QCOMPARE(redacted.value(u"name"_s).toString(), server->name);
        QCOMPARE(redacted.value(u"reconnect"_s).toObject(), toJson(server->reconnect));
        QCOMPARE(redacted.value(u"heartbeat"_s).toObject(), toJson(server->heartbeat));
        QCOMPARE(redacted.value(u"timeoutMs"_s).toInt(), 60000);
    }

    const QJsonObject localJson = local->redacted();
    QCOMPARE(localJson.value(u"type"_s).toString(), u"stdio"_s);
    QCOMPARE(localJson.value(u"command"_s).toString(), u"node"_s);
    // References as written, never their values.
    QCOMPARE(localJson.value(u"args"_s).toArray(),
             (QJsonArray{u"server.js"_s, u"--token=${env:API_TOKEN}"_s}));
    QCOMPARE(localJson.value(u"env"_s).toObject(),
             (QJsonObject{{u"LITERAL_SECRET"_s, u"••••••"_s}, {u"FROM_ENV"_s, u"••••••"_s}, {u"MIXED"_s, u"••••••"_s}}));
    QCOMPARE(local->describe(), u"stdio: node server.js '--token=${env:API_TOKEN}'"_s);

    const QJsonObject remoteJson = remote->redacted();
    QCOMPARE(remoteJson.value(u"type"_s).toString(), u"http"_s);
    QCOMPARE(remoteJson.value(u"url"_s).toString(), u"https://mcp.example.com/mcp?key=${env:API_TOKEN}"_s);
    QCOMPARE(remoteJson.value(u"headers"_s).toObject(),
             (QJsonObject{{u"Authorization"_s, u"••••••"_s}, {u"X-Key"_s, u"••••••"_s}}));
    QCOMPARE(remote->describe(), u"http: https://mcp.example.com/mcp?key=${env:API_TOKEN}"_s);

    // The entry as written: nothing filled in, the same secrets hidden.
    QCOMPARE(local->redactedSource(), QJsonObject({{u"command"_s, u"node"_s},
                                                   {u"args"_s, QJsonArray{u"server.js"_s, u"--token=${env:API_TOKEN}"_s}},
                                                   {u"env"_s, localJson.value(u"env"_s)}}));
    QCOMPARE(remote->redactedSource(), QJsonObject({{u"url"_s, remoteJson.value(u"url"_s)},
                                                    {u"headers"_s, remoteJson.value(u"headers"_s)}}));
    QCOMPARE(written->redactedSource().value(u"url"_s), written->redacted().value(u"url"_s));
    QVERIFY(!QJsonDocument(written->redactedSource()).toJson().contains(Secret.toUtf8()));
}

void TestConfig::errorsNeverShowSecrets()
{
    // Wrong types and unexpandable references in env and headers: the message names the place only.
    const ConfigDocument document = parse(QByteArray(R"({"mcpServers": {
        "a": {"command": "x", "env": {"TOKEN": ["s3cr3t-token-value"], "B": "s3cr3t-token-value${input:x}"}},
        "b": {"url": "https://e.com", "headers": {"Authorization": {"v": "s3cr3t-token-value"},
                                                  "X": "s3cr3t-token-value${env:MISSING}"}},
        "c": {"url": "https://e.com", "env": {"TOKEN": "s3cr3t-token-value"}, "headers": 5},
        "d": {"url": "https://e.com", "oauth": {"clientId": "a", "clientSecret": ["s3cr3t-token-value"]}},
        "e": {"url": "https://e.com", "oauth": {"clientId": "a", "clientSecret": "s3cr3t-token-value${env:MISSING}"}}
    }})"));
    QStringList errors;
    for (const ServerConfig &server : document.servers) {
        QVERIFY(!server.isValid());
        errors += server.errors;
        const QByteArray redacted = QJsonDocument(server.redacted()).toJson();
        QVERIFY2(!redacted.contains(Secret.toUtf8()), redacted.constData());
    }
    QCOMPARE(errors.size(), 8);
    for (const QString &error : errors)
        QVERIFY2(!error.contains(Secret), qPrintable(error));
}

void TestConfig::oauthSettings_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<OAuthSettings>("expected");

    const auto settings = [](const std::function<void(OAuthSettings &)> &change) {
        OAuthSettings oauth;
        change(oauth);
        return oauth;
    };
    const auto server = [](const char *entry, const char *defaults = "{}") -> QByteArray {
        return "{\"defaults\": {\"oauth\": " + QByteArray(defaults) + "}, \"mcpServers\": {\"demo\": " + entry + "}}";
    };
    QTest::newRow("nothing said") << server(R"({"url": "https://e.com/mcp"})") << OAuthSettings();
    QTest::newRow("written as true") << server(R"({"url": "https://e.com/mcp", "oauth": true})") << OAuthSettings();
    QTest::newRow("false") << server(R"({"url": "https://e.com/mcp", "oauth": false})")
                           << settings([](OAuthSettings &oauth) { oauth.enabled = false; });
    QTest::newRow("every server key")
        << server(R"({"url": "https://e.com/mcp", "oauth": {"clientId": "tether-${env:HOST}",
                     "clientSecret": "${env:API_TOKEN}", "scopes": ["files:read", "files:write", "files:read"],
                     "redirectPort": 33418, "browserTimeoutMs": 120000}})")
        << settings([](OAuthSettings &oauth) {
               oauth.clientId = u"tether-mcp.example.com"_s;
               oauth.clientSecret = Secret;
               oauth.scopes = QStringList{u"files:read"_s, u"files:write"_s};
               oauth.redirectPort = 33418;
               oauth.browserTimeout = std::chrono::milliseconds(120000);
           });
    QTest::newRow("defaults")
        << server(R"({"type": "sse", "url": "https://e.com/sse"})",
                  R"({"browserTimeoutMs": 60000, "tokenStore": "file",
                      "clientMetadataUrl": "https://tether.example/client.json"})")
        << settings([](OAuthSettings &oauth) {
               oauth.browserTimeout = std::chrono::milliseconds(60000);
               oauth.tokenStore = TokenStoreChoice::File;
               oauth.clientMetadataUrl = u"https://tether.example/client.json"_s;
           });
    QTest::newRow("the server's own timeout wins")
        << server(R"({"url": "https://e.com/mcp", "oauth": {"browserTimeoutMs": 20000}})", R"({"browserTimeoutMs": 60000})")
        << settings([](OAuthSettings &oauth) { oauth.browserTimeout = std::chrono::milliseconds(20000); });
    QTest::newRow("no client metadata document") << server(R"({"url": "https://e.com/mcp"})", R"({"clientMetadataUrl": null})")
                                                 << OAuthSettings();
    QTest::newRow("tokenStore auto") << server(R"({"url": "https://e.com/mcp"})", R"({"tokenStore": "auto"})")
                                     << OAuthSettings();
}

void TestConfig::oauthSettings()
{
    QFETCH(QByteArray, json);
    QFETCH(OAuthSettings, expected);
    const ConfigDocument document = parse(json);
    QVERIFY2(document.isValid(), qPrintable(document.errors.join(u'\n')));
    const ServerConfig &server = document.servers.constFirst();
    QVERIFY2(server.isValid(), qPrintable(server.errors.join(u'\n')));
    QCOMPARE(server.oauth.enabled, expected.enabled);
    QCOMPARE(server.oauth.clientId, expected.clientId);
    QCOMPARE(server.oauth.clientSecret, expected.clientSecret);
    QCOMPARE(server.oauth.scopes, expected.scopes);
    QCOMPARE(server.oauth.redirectPort, expected.redirectPort);
    QCOMPARE(server.oauth.browserTimeout.count(), expected.browserTimeout.count());
    QCOMPARE(server.oauth.tokenStore, expected.tokenStore);
    QCOMPARE(server.oauth.clientMetadataUrl, expected.clientMetadataUrl);
    QVERIFY(server.oauth == expected);
    QCOMPARE(document.oauthDefaults.tokenStore, expected.tokenStore);
}

void TestConfig::usesSignIn_data()
{
    QTest::addColumn<QByteArray>("entry");
    QTest::addColumn<bool>("usesSignIn");

    QTest::newRow("remote") << QByteArray(R"({"url": "https://e.com/mcp"})") << true;
    QTest::newRow("sse") << QByteArray(R"({"type": "sse", "url": "https://e.com/sse"})") << true;
    QTest::newRow("stdio") << QByteArray(R"({"command": "x"})") << false;
    QTest::newRow("oauth false") << QByteArray(R"({"url": "https://e.com/mcp", "oauth": false})") << false;
    QTest::newRow("its own Authorization header")
        << QByteArray(R"({"url": "https://e.com/mcp", "headers": {"authorization": "Bearer ${env:API_TOKEN}"}})") << false;
    QTest::newRow("another header") << QByteArray(R"({"url": "https://e.com/mcp", "headers": {"X-Key": "k"}})") << true;
}

void TestConfig::usesSignIn()
{
    QFETCH(QByteArray, entry);
    QFETCH(bool, usesSignIn);
    QCOMPARE(parseServer(entry).usesSignIn(), usesSignIn);
}

void TestConfig::clientSecretIsHidden()
{
    const ConfigDocument document = parse(QByteArray(R"({"mcpServers": {
        "fromEnv": {"url": "https://e.com/mcp", "oauth": {"clientId": "c", "clientSecret": "${env:API_TOKEN}"}},
        "literal": {"url": "https://e.com/mcp", "oauth": {"clientId": "c", "clientSecret": "s3cr3t-token-value"}}
    }})"));
    QVERIFY(document.isValid());
    for (const ServerConfig &server : document.servers) {
        QVERIFY2(server.isValid(), qPrintable(server.errors.join(u'\n')));
        // Resolved for the sign-in to use, hidden wherever the server is shown.
        QCOMPARE(server.oauth.clientSecret, Secret);
        for (const QJsonObject &shown : {server.redacted(), server.redactedSource()}) {
            const QByteArray text = QJsonDocument(shown).toJson();
            QVERIFY2(!text.contains(Secret.toUtf8()), text.constData());
            QCOMPARE(shown.value(u"oauth"_s).toObject().value(u"clientSecret"_s).toString(), u"••••••"_s);
            QCOMPARE(shown.value(u"oauth"_s).toObject().value(u"clientId"_s).toString(), u"c"_s);
        }
        QVERIFY(!server.describe().contains(Secret));
    }
    QCOMPARE(document.server(u"fromEnv"_s)->redacted().value(u"oauth"_s).toObject(),
             (QJsonObject{{u"enabled"_s, true}, {u"browserTimeoutMs"_s, 300000}, {u"tokenStore"_s, u"auto"_s},
                          {u"clientId"_s, u"c"_s}, {u"clientSecret"_s, u"••••••"_s}}));
}

void TestConfig::shellLine_data()
{
    QTest::addColumn<QByteArray>("entry");
    QTest::addColumn<QString>("line");
    QTest::newRow("plain") << QByteArray(R"({"command": "npx", "args": ["-y", "@scope/server"]})")
                           << u"npx -y @scope/server"_s;
    QTest::newRow("program with a blank") << QByteArray(R"({"command": "/opt/my tools/server"})")
                                          << u"'/opt/my tools/server'"_s;
    QTest::newRow("quotes and dollars") << QByteArray(R"({"command": "node", "args": ["it's", "$HOME", ""]})")
                                        << uR"(node 'it'\''s' '$HOME' '')"_s;
    QTest::newRow("environment") << QByteArray(R"({"command": "node", "env": {"A": "1", "B": "x y"}})")
                                 << u"A=1 B='x y' node"_s;
    QTest::newRow("folder") << QByteArray(R"({"command": "./run", "cwd": "/srv/my server"})")
                            << u"cd '/srv/my server' && ./run"_s;
}

void TestConfig::shellLine()
{
    QFETCH(QByteArray, entry);
    QFETCH(QString, line);
    QCOMPARE(parseServer(entry).command.shellLine(), line);
}

void TestConfig::describe()
{
    const ServerConfig stdio = parseServer(R"({"command": "npx", "args": ["-y", "@scope/server", "a b"]})");
    QCOMPARE(stdio.describe(), u"stdio: npx -y @scope/server 'a b'"_s);
    const ServerConfig http = parseServer(R"({"url": "https://e.com/mcp"})");
    QCOMPARE(http.describe(), u"http: https://e.com/mcp"_s);
    const ServerConfig sse = parseServer(R"({"type": "sse", "url": "https://e.com/sse"})");
    QCOMPARE(sse.describe(), u"sse: https://e.com/sse"_s);
    QCOMPARE(transportName(TransportKind::Stdio), u"stdio"_s);
    QCOMPARE(transportName(TransportKind::StreamableHttp), u"http"_s);
    QCOMPARE(transportName(TransportKind::Sse), u"sse"_s);
    // Built in code, without a source object.
    ServerConfig built;
    built.command.program = u"node"_s;
    built.command.arguments = {u"server.js"_s};
    QCOMPARE(built.describe(), u"stdio: node server.js"_s);
    QCOMPARE(built.redacted().value(u"args"_s).toArray(), QJsonArray{u"server.js"_s});
}

void TestConfig::shownUrl()
{
    // As written: a variable shows as its reference, never as its value.
    const ServerConfig remote = parseServer(R"({"url": "https://${env:HOST}/mcp?key=${env:API_TOKEN}&plain=v"})");
    QCOMPARE(remote.url, u"https://mcp.example.com/mcp?key="_s + Secret + u"&plain=v"_s);
    QCOMPARE(remote.urlAsWritten, u"https://${env:HOST}/mcp?key=${env:API_TOKEN}&plain=v"_s);
    QCOMPARE(remote.shownUrl(), u"https://${env:HOST}/mcp?key=${env:API_TOKEN}&plain=…"_s);
    QCOMPARE(parseServer(R"({"command": "x"})").urlAsWritten, QString());
    // The colon of a ${env:} reference in the user info is not the one before the password.
    QCOMPARE(parseServer(R"({"url": "https://${env:API_TOKEN}:@e.com/mcp"})").shownUrl(), u"https://${env:API_TOKEN}:@e.com/mcp"_s);
    QCOMPARE(parseServer(R"({"url": "https://me:${env:API_TOKEN}@e.com/mcp"})").shownUrl(), u"https://…:${env:API_TOKEN}@e.com/mcp"_s);
    QCOMPARE(parseServer(R"({"url": "https://me:pw:more@e.com/mcp"})").shownUrl(), u"https://…:…@e.com/mcp"_s);
    // Built in code, without a url as written.
    ServerConfig built;
    built.transport = TransportKind::Sse;
    built.url = u"https://me:pw@e.com/sse"_s;
    QCOMPARE(built.shownUrl(), u"https://…:…@e.com/sse"_s);
    QCOMPARE(built.describe(), u"sse: https://…:…@e.com/sse"_s);
}

void TestConfig::loadFixtures_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QString>("serversKey");
    QTest::addColumn<QStringList>("names");

    QTest::newRow("Claude Desktop") << u"claude_desktop_config.json"_s << u"mcpServers"_s
                                    << QStringList{u"filesystem"_s, u"github"_s, u"memory"_s};
    QTest::newRow("Cursor") << u"cursor_mcp.json"_s << u"mcpServers"_s
                            << QStringList{u"remote-api"_s, u"legacy-events"_s, u"local"_s};
    QTest::newRow("VS Code") << u"vscode_mcp.json"_s << u"servers"_s
                             << QStringList{u"github"_s, u"playwright"_s, u"events"_s};
    QTest::newRow("Tether") << u"tether_servers.json"_s << u"mcpServers"_s
                            << QStringList{u"demo"_s, u"flaky"_s, u"remote"_s};
}

void TestConfig::loadFixtures()
{
    QFETCH(QString, fixture);
    QFETCH(QString, serversKey);
    QFETCH(QStringList, names);

    const QString path = QFINDTESTDATA(u"data/config/"_s + fixture);
    QVERIFY(!path.isEmpty());
    const ConfigDocument document = loadConfig(path, context());
    QVERIFY2(document.isValid(), qPrintable(document.errors.join(u'\n')));
    QCOMPARE(document.path, path);
    QCOMPARE(document.serversKey, serversKey);
    QStringList actual;
    for (const ServerConfig &server : document.servers) {
        QVERIFY2(server.isValid(), qPrintable(server.errors.join(u'\n')));
        actual.append(server.name);
    }
    QCOMPARE(actual, names);
}

void TestConfig::tetherFixture()
{
    const ConfigDocument document = loadConfig(QFINDTESTDATA(u"data/config/tether_servers.json"_s), context());
    QVERIFY2(document.isValid(), qPrintable(document.errors.join(u'\n')));

    const ServerConfig *demo = document.server(u"demo"_s);
    QCOMPARE(demo->command.program, u"/opt/tether/bin/tether-demo-server"_s);
    QCOMPARE(demo->reconnect, reconnect(250, 20000, 8));
    QCOMPARE(demo->heartbeat, heartbeat(20000, 5000, 3));
    QCOMPARE(demo->pool, (PoolPolicy{1, 4, 16}));
    QCOMPARE(demo->requestTimeout, std::chrono::milliseconds(30000));

    const ServerConfig *flaky = document.server(u"flaky"_s);
    QCOMPARE(flaky->enabled, false);
    QCOMPARE(flaky->reconnect, reconnect(1000, 30000, 5));
    QCOMPARE(flaky->heartbeat, heartbeat(30000, 5000, 3));
    QCOMPARE(flaky->pool, (PoolPolicy{1, 2, 64}));

    const ServerConfig *remote = document.server(u"remote"_s);
    QCOMPARE(remote->transport, TransportKind::StreamableHttp);
    QCOMPARE(remote->url, u"https://mcp.example.com/mcp"_s);
    QCOMPARE(pairs(remote->headers, u": "_s), QStringList{u"Authorization: Bearer "_s + Secret});
    QCOMPARE(remote->requestTimeout, std::chrono::milliseconds(120000));
}

void TestConfig::loadErrors()
{
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    const QString missing = folder.filePath(u"servers.json"_s);
    QCOMPARE(loadConfig(missing, context()).errors, QStringList{missing + u": no such file"_s});
    QCOMPARE(loadConfig(folder.path(), context()).errors, QStringList{folder.path() + u": is a folder, not a file"_s});

    writeAll(missing, R"({"mcpServers": {"demo": {"command": "x", "args": [1]}}})");
    const ConfigDocument document = loadConfig(missing, context());
    QVERIFY(document.isValid());
    // Messages name the file by the path it was loaded from.
    QCOMPARE(document.servers.first().errors.first(),
             missing + u": mcpServers.demo.args[0] = 1 is not a string: every argument must be a string"_s);
}

void TestConfig::loadUnreadable()
{
    if (::geteuid() == 0)
        QSKIP("running as root: a file without read permission is still readable");
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    const QString missing = folder.filePath(u"servers.json"_s);
    writeAll(missing, "{}");
    QFile::setPermissions(missing, QFileDevice::WriteOwner);
    const ConfigDocument unreadable = loadConfig(missing, context());
    QCOMPARE(unreadable.errors.size(), 1);
    QVERIFY2(unreadable.errors.first().startsWith(missing + u": cannot be read: "_s), qPrintable(unreadable.errors.first()));
}

void TestConfig::saveRoundTripKeepsUnknownKeys()
{
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    const QString path = folder.filePath(u"servers.json"_s);
    writeAll(path, R"({"globalShortcut": "Ctrl+Space", "inputs": [{"id": "token"}],
                       "mcpServers": {"demo": {"command": "x", "x-editor": {"color": "red"}}}})");
    ConfigDocument document = loadConfig(path, context());
    QVERIFY(document.isValid());

    // What a front end does: edit the root it was given, save it back.
    QJsonObject servers = document.root.value(document.serversKey).toObject();
    servers.insert(u"added"_s, QJsonObject{{u"url"_s, u"https://e.com/mcp"_s}});
    document.root.insert(document.serversKey, servers);
    QString error;
    QVERIFY2(saveRoot(path, document.root, &error), qPrintable(error));
    QVERIFY(error.isEmpty());

    const QJsonObject saved = QJsonDocument::fromJson(readFile(path)).object();
    QCOMPARE(saved, document.root);
    QCOMPARE(saved.value(u"globalShortcut"_s).toString(), u"Ctrl+Space"_s);
    QCOMPARE(saved.value(u"inputs"_s).toArray().size(), 1);
    QCOMPARE(saved.value(u"mcpServers"_s)[u"demo"_s][u"x-editor"_s][u"color"_s].toString(), u"red"_s);
    QVERIFY(readFile(path).contains("\n    ")); // indented for people to read

    const ConfigDocument reloaded = loadConfig(path, context());
    QVERIFY(reloaded.isValid());
    QCOMPARE(reloaded.servers.size(), 2);
    QVERIFY(reloaded.server(u"demo"_s)->sameSettings(*document.server(u"demo"_s)));
}

void TestConfig::saveFileMode()
{
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    // A folder that does not exist yet is created.
    const QString fresh = folder.filePath(u"config/tether/servers.json"_s);
    QString error;
    QVERIFY2(saveRoot(fresh, QJsonObject{{u"mcpServers"_s, QJsonObject()}}, &error), qPrintable(error));
    QCOMPARE(fileStatus(fresh).st_mode & 07777, mode_t(0600));

    // An existing file readable by others is tightened: it may hold tokens.
    const QString existing = folder.filePath(u"servers.json"_s);
    writeAll(existing, "{}");
    QVERIFY(QFile::setPermissions(existing, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup
                                                | QFileDevice::ReadOther));
    QCOMPARE(fileStatus(existing).st_mode & 07777, mode_t(0644));
    QVERIFY2(saveRoot(existing, QJsonObject{{u"mcpServers"_s, QJsonObject()}}, &error), qPrintable(error));
    QCOMPARE(fileStatus(existing).st_mode & 07777, mode_t(0600));
}

void TestConfig::saveReplacesAtomically()
{
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    const QString path = folder.filePath(u"servers.json"_s);
    // A long file replaced by a short one: nothing of the old content may remain.
    QByteArray original = R"({"mcpServers": {)";
    for (int i = 0; i < 200; ++i)
        original += (i ? "," : "") + QByteArray(R"("server)" + QByteArray::number(i) + R"(": {"command": "x"})");
    original += "}}";
    writeAll(path, original);
    const ino_t before = fileStatus(path).st_ino;

    const QJsonObject root{{u"mcpServers"_s, QJsonObject{{u"only"_s, QJsonObject{{u"command"_s, u"y"_s}}}}}};
    QString error;
    QVERIFY2(saveRoot(path, root, &error), qPrintable(error));
    QCOMPARE(readFile(path), QJsonDocument(root).toJson(QJsonDocument::Indented));
    // Replaced by a rename, not rewritten in place: a reader sees the old file or the new one, whole.
    QVERIFY(fileStatus(path).st_ino != before);
    // No temporary file left next to it.
    QCOMPARE(everyEntry(folder), QStringList{u"servers.json"_s});
}

void TestConfig::saveRefusesBrokenFile_data()
{
    QTest::addColumn<QByteArray>("broken");
    QTest::addColumn<QString>("location");

    QTest::newRow("missing comma") << QByteArray("{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n    \"b\": {}\n  }\n}\n")
                                   << u"line 4, column 5 (unterminated object)"_s;
    QTest::newRow("half written") << QByteArray("{\"mcpServers\": {\"a\": {\"comm") << u"line 1, column 28 (unterminated string)"_s;
    QTest::newRow("not JSON at all") << QByteArray("mcpServers:\n  demo: npx\n") << u"line 1, column 1 (illegal value)"_s;
}

void TestConfig::saveRefusesBrokenFile()
{
    QFETCH(QByteArray, broken);
    QFETCH(QString, location);
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    const QString path = folder.filePath(u"servers.json"_s);
    writeAll(path, broken);

    QString error;
    QVERIFY(!saveRoot(path, QJsonObject{{u"mcpServers"_s, QJsonObject()}}, &error));
    QVERIFY2(error.startsWith(path + u": "_s + location), qPrintable(error));
    QVERIFY2(error.contains(u"the file on disk is broken (not valid JSON), so it was left untouched: fix it or move "
                            "it away, then save again"_s),
             qPrintable(error));
    QCOMPARE(readFile(path), broken);
    QCOMPARE(everyEntry(folder), QStringList{u"servers.json"_s});
}

void TestConfig::saveOverEmptyFile()
{
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    const QString path = folder.filePath(u"servers.json"_s);
    writeAll(path, ""); // as `touch` leaves it: nothing to lose
    const QJsonObject root{{u"mcpServers"_s, QJsonObject()}};
    QString error;
    QVERIFY2(saveRoot(path, root, &error), qPrintable(error));
    QCOMPARE(QJsonDocument::fromJson(readFile(path)).object(), root);
}

void TestConfig::failedSaveLeavesTheFile()
{
    if (::geteuid() == 0)
        QSKIP("running as root: a read-only folder is still writable");
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    const QString path = folder.filePath(u"servers.json"_s);
    const QByteArray original = R"({"mcpServers": {"demo": {"command": "x"}}})";
    writeAll(path, original);
    // Neither the lock nor a temporary file can be created next to the target: the save fails
    // before touching it.
    QVERIFY(QFile::setPermissions(folder.path(), QFileDevice::ReadOwner | QFileDevice::ExeOwner));
    QString error;
    const bool saved = saveRoot(path, QJsonObject{{u"mcpServers"_s, QJsonObject()}}, &error);
    QFile::setPermissions(folder.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    QVERIFY(!saved);
    QVERIFY2(error.startsWith(path + u": cannot create the lock file "_s + path + u".lock (permission denied)"_s),
             qPrintable(error));
    QCOMPARE(readFile(path), original);
    QCOMPARE(everyEntry(folder), QStringList{u"servers.json"_s});
}

void TestConfig::saveFailures()
{
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    QString error;
    QVERIFY(!saveRoot(folder.path(), {}, &error));
    QCOMPARE(error, folder.path() + u": is a folder, not a file: nothing was saved"_s);

    // The folder cannot be created where a file is in the way.
    const QString blocker = folder.filePath(u"blocker"_s);
    writeAll(blocker, "x");
    const QString path = blocker + u"/servers.json"_s;
    QVERIFY(!saveRoot(path, {}, &error));
    QCOMPARE(error, path + u": cannot create the folder "_s + blocker);
    QCOMPARE(readFile(blocker), QByteArray("x"));
    QVERIFY(!saveRoot(path, {}, nullptr)); // the message is optional
}

void TestConfig::saveWaitsForTheLockThenNamesItsHolder()
{
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    const QString path = folder.filePath(u"servers.json"_s);
    const QByteArray original = R"({"mcpServers": {}})";
    writeAll(path, original);
    // Another writer in the middle of its save (tetherctl import, another window): this process.
    QLockFile held(path + u".lock"_s);
    QVERIFY(held.tryLock());

    QString error;
    QVERIFY(!editConfig(
        path, [](const ConfigOnDisk &, QString *) { return std::optional<QJsonObject>(QJsonObject()); }, &error, {},
        nullptr, std::chrono::milliseconds(200)));
    const QString holder = u"%1 (pid %2)"_s.arg(QFileInfo(QCoreApplication::applicationFilePath()).fileName())
                               .arg(QCoreApplication::applicationPid());
    QVERIFY2(error.startsWith(path + u": "_s + holder + u" on "_s), qPrintable(error));
    QVERIFY2(error.contains(u"holds its lock %1.lock and did not let go within 200 ms, so nothing was saved"_s.arg(path)),
             qPrintable(error));
    QCOMPARE(readFile(path), original);

    // Once it lets go, the next save goes through, and leaves no lock behind.
    held.unlock();
    QVERIFY2(saveRoot(path, QJsonObject{{u"mcpServers"_s, QJsonObject{{u"a"_s, QJsonObject{{u"command"_s, u"x"_s}}}}}}, &error),
             qPrintable(error));
    QCOMPARE(everyEntry(folder), QStringList{u"servers.json"_s});
}

void TestConfig::editSeesTheFileAsItIsUnderTheLock()
{
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    const QString path = folder.filePath(u"servers.json"_s);
    QString error;

    // No file yet: the edit is told so, and what it returns is written.
    ConfigOnDisk seen{true, "not called"};
    const auto addServer = [&](const ConfigOnDisk &current, QString *) {
        seen = current;
        QJsonObject root = QJsonDocument::fromJson(current.content).object();
        QJsonObject servers = root.value(u"mcpServers"_s).toObject();
        servers.insert(u"s%1"_s.arg(servers.size()), QJsonObject{{u"command"_s, u"x"_s}});
        root.insert(u"mcpServers"_s, servers);
        return std::optional<QJsonObject>(root);
    };
    QVERIFY2(editConfig(path, addServer, &error), qPrintable(error));
    QVERIFY(!seen.exists);
    QVERIFY(seen.content.isEmpty());

    // The file as it is on disk now, not as the writer last read it.
    QVERIFY2(editConfig(path, addServer, &error), qPrintable(error));
    QVERIFY(seen.exists);
    QCOMPARE(QJsonDocument::fromJson(seen.content).object().value(u"mcpServers"_s).toObject().keys(), QStringList{u"s0"_s});
    QCOMPARE(QJsonDocument::fromJson(readFile(path)).object().value(u"mcpServers"_s).toObject().keys(),
             (QStringList{u"s0"_s, u"s1"_s}));

    // Nothing returned writes nothing: a refusal with its message, or nothing to change.
    const QByteArray before = readFile(path);
    const auto refuse = [](const ConfigOnDisk &, QString *why) {
        *why = u"refused"_s;
        return std::optional<QJsonObject>();
    };
    QVERIFY(!editConfig(path, refuse, &error));
    QCOMPARE(error, u"refused"_s);
    error.clear();
    QVERIFY(editConfig(path, [](const ConfigOnDisk &, QString *) { return std::optional<QJsonObject>(); }, &error));
    QCOMPARE(error, QString());
    QCOMPARE(readFile(path), before);
}

void TestConfig::defaultPath()
{
    QVERIFY2(defaultConfigPath().endsWith(u"/tether/servers.json"_s), qPrintable(defaultConfigPath()));
    QVERIFY(QDir::isAbsolutePath(defaultConfigPath()));
}

#endif // Q_MOC_RUN

QTEST_GUILESS_MAIN(TestConfig)
#include "tst_config.moc"
