// Edits of a config's JSON: each edited root parses back to exactly the intended servers, and
// keeps every key it was not asked to change. A server's entry built from the server dialog's
// fields does the same.
#include "common/commandline.h"
#include "config/configedit.h"
#include "config/configparser.h"
#include "config/serverconfig.h"
#include "support/fakeenvironment.h"
#include "support/policyprinters.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;

namespace {

QJsonObject json(const QByteArray &text)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(text, &error);
    if (error.error != QJsonParseError::NoError)
        qFatal("bad test JSON: %s", qPrintable(error.errorString()));
    return document.object();
}

ConfigDocument parse(const QJsonObject &root)
{
    const ConfigContext context{Testing::fakeEnvironment({}), u"/opt/tether/bin"_s};
    return parseConfig(QJsonDocument(root).toJson(), u"servers.json"_s, context);
}

// A copy: callers pass a temporary document, and a reference into it would dangle.
ServerConfig server(const ConfigDocument &document, const QString &name)
{
    const ServerConfig *found = document.server(name);
    if (!found)
        qFatal("no server %s", qPrintable(name));
    return *found;
}

ReconnectPolicy reconnect(const QJsonObject &fields)
{
    const auto resolution = resolveReconnectPolicy(u"test"_s, fields);
    if (!resolution.isValid())
        qFatal("bad test policy: %s", qPrintable(resolution.errors.join(u'\n')));
    return resolution.policy;
}

HeartbeatPolicy heartbeat(const QJsonObject &fields)
{
    const auto resolution = resolveHeartbeatPolicy(u"test"_s, fields);
    if (!resolution.isValid())
        qFatal("bad test policy: %s", qPrintable(resolution.errors.join(u'\n')));
    return resolution.policy;
}

// Two servers, a default pool, and keys Tether does not know at every level.
const QByteArray Sample = R"({
    "globalShortcut": "Ctrl+Space",
    "defaults": {"pool": {"max": 2}, "reconnect": {"maxAttempts": 4}},
    "mcpServers": {
        "alpha": {"command": "alpha-server", "args": ["--fast"], "x-editor": {"color": "red"}},
        "beta": {"command": "beta-server", "enabled": false,
                 "connection": {"reconnect": {"maxRetries": 2, "baseDelay": 100}, "heartbeat": {"interval": 15000}}}
    }
})";

// The one server of a root holding `entry` alone, as parseConfig judges it.
ServerConfig parseEntry(const QJsonObject &entry)
{
    const ConfigDocument document = parse(QJsonObject{{u"mcpServers"_s, QJsonObject{{u"demo"_s, entry}}}});
    if (!document.isValid() || document.servers.size() != 1)
        qFatal("bad test entry: %s", qPrintable(document.errors.join(u'\n')));
    return document.servers.constFirst();
}

ServerEntryFields stdioFields(const QString &command)
{
    ServerEntryFields fields;
    fields.command = command;
    return fields;
}

ServerEntryFields remoteFields(TransportKind transport, const QString &url)
{
    ServerEntryFields fields;
    fields.transport = transport;
    fields.url = url;
    return fields;
}

} // namespace

class TestConfigEdit final : public QObject
{
    Q_OBJECT

private slots:
    void setsTheDefaults()
    {
        const ReconnectPolicy newReconnect = reconnect({{u"initialDelayMs"_s, 250}, {u"maxAttempts"_s, 7}, {u"jitter"_s, 0}});
        const HeartbeatPolicy newHeartbeat = heartbeat({{u"enabled"_s, false}, {u"intervalMs"_s, 20000}});
        QJsonObject root = setDefaultReconnectPolicy(json(Sample), newReconnect);
        root = setDefaultHeartbeatPolicy(root, newHeartbeat);

        const ConfigDocument document = parse(root);
        QVERIFY2(document.isValid(), qPrintable(document.errors.join(u'\n')));
        for (const ServerConfig &config : document.servers)
            QVERIFY2(config.isValid(), qPrintable(config.errors.join(u'\n')));
        QCOMPARE(server(document, u"alpha"_s).reconnect, newReconnect);
        QCOMPARE(server(document, u"alpha"_s).heartbeat, newHeartbeat);
        QCOMPARE(server(document, u"alpha"_s).pool.max, 2);
        // beta's own settings still win over the defaults, field by field.
        ReconnectPolicy betaReconnect = newReconnect;
        betaReconnect.maxAttempts = 2;
        betaReconnect.initialDelayMs = 100;
        QCOMPARE(server(document, u"beta"_s).reconnect, betaReconnect);
        QCOMPARE(server(document, u"beta"_s).heartbeat.intervalMs, 15000);
        QCOMPARE(root.value(u"globalShortcut"_s).toString(), u"Ctrl+Space"_s);
        QCOMPARE(root.value(u"defaults"_s)[u"pool"_s], json(Sample).value(u"defaults"_s)[u"pool"_s]);
        QCOMPARE(root.value(u"mcpServers"_s), json(Sample).value(u"mcpServers"_s));
    }

    void defaultsAreAddedToAFileWithoutThem()
    {
        const QJsonObject root = setDefaultHeartbeatPolicy(json(R"({"mcpServers": {"a": {"command": "a"}}})"),
                                                           heartbeat({{u"maxFailures"_s, 9}}));
        QCOMPARE(server(parse(root), u"a"_s).heartbeat.maxFailures, 9);
        QCOMPARE(server(parse(root), u"a"_s).reconnect, ReconnectPolicy{});
    }

    void setsAServersOwnPolicy()
    {
        const ReconnectPolicy own = reconnect({{u"initialDelayMs"_s, 1000}, {u"maxDelayMs"_s, 5000}, {u"maxAttempts"_s, 3}});
        const QJsonObject root = setServerReconnectPolicy(json(Sample), u"mcpServers"_s, u"beta"_s, own);

        const ConfigDocument document = parse(root);
        QVERIFY2(document.isValid(), qPrintable(document.errors.join(u'\n')));
        const ServerConfig &beta = server(document, u"beta"_s);
        QVERIFY2(beta.isValid(), qPrintable(beta.errors.join(u'\n')));
        QCOMPARE(beta.reconnect, own);
        // The aliased form of the same section is gone; the other section and the rest stay.
        const QJsonObject entry = root.value(u"mcpServers"_s)[u"beta"_s].toObject();
        QCOMPARE(entry.value(u"connection"_s).toObject(),
                 QJsonObject({{u"heartbeat"_s, QJsonObject{{u"interval"_s, 15000}}}}));
        QCOMPARE(beta.heartbeat.intervalMs, 15000);
        QCOMPARE(beta.enabled, false);
        QCOMPARE(beta.command.program, u"beta-server"_s);
        // The other server still follows the defaults.
        QCOMPARE(server(document, u"alpha"_s).reconnect.maxAttempts, 4);
        QCOMPARE(root.value(u"mcpServers"_s)[u"alpha"_s], json(Sample).value(u"mcpServers"_s)[u"alpha"_s]);
    }

    void setsAServersOwnHeartbeat()
    {
        const HeartbeatPolicy own = heartbeat({{u"intervalMs"_s, 1000}, {u"timeoutMs"_s, 500}, {u"maxFailures"_s, 2}});
        const QJsonObject root = setServerHeartbeatPolicy(json(Sample), u"mcpServers"_s, u"alpha"_s, own);
        const ConfigDocument document = parse(root);
        QCOMPARE(server(document, u"alpha"_s).heartbeat, own);
        QCOMPARE(root.value(u"mcpServers"_s)[u"alpha"_s][u"x-editor"_s][u"color"_s].toString(), u"red"_s);
    }

    void clearsAServersOwnPolicy()
    {
        QJsonObject root = clearServerReconnectPolicy(json(Sample), u"mcpServers"_s, u"beta"_s);
        root = clearServerHeartbeatPolicy(root, u"mcpServers"_s, u"beta"_s);

        const ServerConfig &beta = server(parse(root), u"beta"_s);
        QCOMPARE(beta.reconnect, reconnect({{u"maxAttempts"_s, 4}})); // the defaults of the file
        QCOMPARE(beta.heartbeat, HeartbeatPolicy{});
        const QJsonObject entry = root.value(u"mcpServers"_s)[u"beta"_s].toObject();
        QVERIFY(!entry.contains(u"connection"_s)); // nothing left in it
        QVERIFY(!entry.contains(u"reconnect"_s));
        QCOMPARE(entry.value(u"enabled"_s), QJsonValue(false));

        // Both forms at once go too.
        const QJsonObject both = json(R"({"mcpServers": {"a": {"command": "a", "reconnect": {"jitter": 0},
                                          "connection": {"reconnect": {"maxRetries": 2}}}}})");
        const QJsonObject cleared = clearServerReconnectPolicy(both, u"mcpServers"_s, u"a"_s);
        QCOMPARE(cleared.value(u"mcpServers"_s)[u"a"_s].toObject(), QJsonObject({{u"command"_s, u"a"_s}}));
    }

    void readsAServersOwnPolicy()
    {
        const QJsonObject servers = json(Sample).value(u"mcpServers"_s).toObject();
        QVERIFY(!serverPolicyOverride(servers.value(u"alpha"_s).toObject(), u"reconnect"_s).has_value());
        QCOMPARE(serverPolicyOverride(servers.value(u"beta"_s).toObject(), u"heartbeat"_s),
                 std::optional(QJsonObject{{u"interval"_s, 15000}}));
        // The plain form over the aliased one, as the config reads them.
        const QJsonObject entry = json(R"({"reconnect": {"jitter": 0, "maxAttempts": 5},
                                            "connection": {"reconnect": {"maxRetries": 5, "baseDelay": 10}}})");
        const auto merged = serverPolicyOverride(entry, u"reconnect"_s);
        QCOMPARE(merged, std::optional(QJsonObject{{u"jitter"_s, 0}, {u"maxAttempts"_s, 5}, {u"maxRetries"_s, 5},
                                                   {u"baseDelay"_s, 10}}));
        QCOMPARE(resolveReconnectPolicy(u"a"_s, *merged).policy,
                 reconnect({{u"jitter"_s, 0}, {u"maxAttempts"_s, 5}, {u"initialDelayMs"_s, 10}}));
    }

    void putsServers()
    {
        const QJsonObject gamma{{u"command"_s, u"gamma-server"_s}, {u"x-note"_s, u"kept"_s}};
        QJsonObject root = putServer(json(Sample), u"mcpServers"_s, {}, u"gamma"_s, gamma);
        ConfigDocument document = parse(root);
        QCOMPARE(document.servers.size(), 3);
        QCOMPARE(server(document, u"gamma"_s).command.program, u"gamma-server"_s);
        QCOMPARE(root.value(u"mcpServers"_s)[u"gamma"_s].toObject(), gamma);

        // Replaced in place.
        root = putServer(root, u"mcpServers"_s, u"alpha"_s, u"alpha"_s, QJsonObject{{u"command"_s, u"other"_s}});
        QCOMPARE(server(parse(root), u"alpha"_s).command.program, u"other"_s);
        QCOMPARE(server(parse(root), u"alpha"_s).command.arguments, QStringList());

        // Renamed: the old name is gone, the others stay.
        root = putServer(root, u"mcpServers"_s, u"beta"_s, u"delta"_s, root.value(u"mcpServers"_s)[u"beta"_s].toObject());
        document = parse(root);
        QVERIFY2(document.isValid(), qPrintable(document.errors.join(u'\n')));
        QStringList names = document.serverNames();
        names.sort();
        QCOMPARE(names, (QStringList{u"alpha"_s, u"delta"_s, u"gamma"_s}));
        QCOMPARE(server(document, u"delta"_s).reconnect.maxAttempts, 2);
        QCOMPARE(root.value(u"globalShortcut"_s).toString(), u"Ctrl+Space"_s);
        QCOMPARE(root.value(u"defaults"_s), json(Sample).value(u"defaults"_s));
    }

    void putsTheFirstServer()
    {
        const QJsonObject root = putServer(json(R"({"theme": "dark"})"), u"mcpServers"_s, {}, u"a"_s,
                                           QJsonObject{{u"command"_s, u"a"_s}});
        const ConfigDocument document = parse(root);
        QCOMPARE(document.servers.size(), 1);
        QCOMPARE(root.value(u"theme"_s).toString(), u"dark"_s);
    }

    void removesServers()
    {
        const QJsonObject root = removeServer(json(Sample), u"mcpServers"_s, u"alpha"_s);
        const ConfigDocument document = parse(root);
        QCOMPARE(document.servers.size(), 1);
        QCOMPARE(document.servers.first().name, u"beta"_s);
        QCOMPARE(root.value(u"mcpServers"_s)[u"beta"_s], json(Sample).value(u"mcpServers"_s)[u"beta"_s]);
        QCOMPARE(root.value(u"globalShortcut"_s).toString(), u"Ctrl+Space"_s);
    }

    void setsEnabled()
    {
        QJsonObject root = setServerEnabled(json(Sample), u"mcpServers"_s, u"alpha"_s, false);
        QCOMPARE(server(parse(root), u"alpha"_s).enabled, false);
        QCOMPARE(root.value(u"mcpServers"_s)[u"alpha"_s][u"x-editor"_s][u"color"_s].toString(), u"red"_s);
        root = setServerEnabled(root, u"mcpServers"_s, u"alpha"_s, true);
        QCOMPARE(server(parse(root), u"alpha"_s).enabled, true);
        root = setServerEnabled(root, u"mcpServers"_s, u"beta"_s, true);
        QCOMPARE(server(parse(root), u"beta"_s).enabled, true);

        // Enabled is the default: a server that never said otherwise gets no key.
        const QJsonObject quiet = setServerEnabled(json(Sample), u"mcpServers"_s, u"alpha"_s, true);
        QCOMPARE(quiet, json(Sample));
    }

    void hidesAndShowsTools()
    {
        QJsonObject root = setToolHidden(json(Sample), u"mcpServers"_s, u"alpha"_s, u"delete_repository"_s, true);
        root = setToolHidden(root, u"mcpServers"_s, u"alpha"_s, u"merge"_s, true);
        root = setToolHidden(root, u"mcpServers"_s, u"alpha"_s, u"merge"_s, true); // once is enough
        QCOMPARE(server(parse(root), u"alpha"_s).hiddenTools, (QStringList{u"delete_repository"_s, u"merge"_s}));
        QCOMPARE(root.value(u"mcpServers"_s)[u"alpha"_s][u"x-editor"_s][u"color"_s].toString(), u"red"_s);
        QVERIFY(server(parse(root), u"beta"_s).hiddenTools.isEmpty());

        root = setToolHidden(root, u"mcpServers"_s, u"alpha"_s, u"delete_repository"_s, false);
        QCOMPARE(server(parse(root), u"alpha"_s).hiddenTools, QStringList{u"merge"_s});
        // The last one shown again leaves no empty "tools" behind.
        root = setToolHidden(root, u"mcpServers"_s, u"alpha"_s, u"merge"_s, false);
        QCOMPARE(root, json(Sample));
    }

    void aServerTheFileDoesNotHoldIsLeftAlone()
    {
        const QJsonObject sample = json(Sample);
        QCOMPARE(setServerReconnectPolicy(sample, u"mcpServers"_s, u"zeta"_s, ReconnectPolicy{}), sample);
        QCOMPARE(clearServerHeartbeatPolicy(sample, u"mcpServers"_s, u"zeta"_s), sample);
        QCOMPARE(setServerEnabled(sample, u"mcpServers"_s, u"zeta"_s, false), sample);
        QCOMPARE(removeServer(sample, u"mcpServers"_s, u"zeta"_s), sample);
        QCOMPARE(setToolHidden(sample, u"mcpServers"_s, u"zeta"_s, u"a"_s, true), sample);
    }

    void editsVsCodesServersForm()
    {
        const QJsonObject vsCode = json(R"({"inputs": [{"id": "token"}], "servers": {"a": {"type": "stdio", "command": "a"}}})");
        QJsonObject root = setServerReconnectPolicy(vsCode, u"servers"_s, u"a"_s, reconnect({{u"maxAttempts"_s, 1}}));
        root = putServer(root, u"servers"_s, {}, u"b"_s, QJsonObject{{u"command"_s, u"b"_s}});
        root = setServerEnabled(root, u"servers"_s, u"b"_s, false);
        const ConfigDocument document = parse(root);
        QVERIFY2(document.isValid(), qPrintable(document.errors.join(u'\n')));
        QCOMPARE(document.serversKey, u"servers"_s);
        QVERIFY(!root.contains(u"mcpServers"_s));
        QCOMPARE(server(document, u"a"_s).reconnect.maxAttempts, 1);
        QCOMPARE(server(document, u"b"_s).enabled, false);
        QCOMPARE(root.value(u"inputs"_s).toArray().size(), 1);
    }

    void buildsANewStdioEntry()
    {
        ServerEntryFields fields = stdioFields(u"  npx "_s);
        fields.arguments = u" -y @scope/server 'a b' "_s;
        fields.environment = {{u"DEBUG"_s, u"1"_s}, {u"DATA"_s, u"${tether:bindir}/data"_s}};
        fields.workingDirectory = u" /srv/mcp "_s;
        fields.timeoutMs = u" 90000 "_s;
        const BuiltServerEntry built = buildServerEntry(fields, {}, TransportKind::Stdio);

        // Blanks around a field are not part of it; a form the entry implies adds no "type".
        QCOMPARE(built.entry, (QJsonObject{{u"command"_s, u"npx"_s},
                                           {u"args"_s, QJsonArray{u"-y"_s, u"@scope/server"_s, u"a b"_s}},
                                           {u"env"_s, QJsonObject{{u"DEBUG"_s, u"1"_s}, {u"DATA"_s, u"${tether:bindir}/data"_s}}},
                                           {u"cwd"_s, u"/srv/mcp"_s},
                                           {u"timeoutMs"_s, 90000}}));
        QCOMPARE(built.argumentsError, QString());
        QCOMPARE(built.repeatedEnvironment, QStringList());
        const ServerConfig server = parseEntry(built.entry);
        QVERIFY2(server.isValid(), qPrintable(server.errors.join(u'\n')));
        QCOMPARE(server.requestTimeout, std::chrono::milliseconds(90000));
    }

    void buildsANewRemoteEntry_data()
    {
        QTest::addColumn<int>("transport");
        QTest::addColumn<QJsonObject>("expected");

        const QString url = u"https://e.com/mcp"_s;
        const QJsonObject headers{{u"Authorization"_s, u"Bearer ${env:TOKEN}"_s}};
        QTest::newRow("http") << int(TransportKind::StreamableHttp)
                              << QJsonObject{{u"type"_s, u"http"_s}, {u"url"_s, url}, {u"headers"_s, headers}};
        QTest::newRow("sse") << int(TransportKind::Sse)
                             << QJsonObject{{u"type"_s, u"sse"_s}, {u"url"_s, url}, {u"headers"_s, headers}};
    }

    void buildsANewRemoteEntry()
    {
        QFETCH(int, transport);
        QFETCH(QJsonObject, expected);
        ServerEntryFields fields = remoteFields(TransportKind(transport), u" https://e.com/mcp "_s);
        fields.headers = {{u"Authorization"_s, u"Bearer ${env:TOKEN}"_s}};
        // A new server is read as stdio: any other transport says its type.
        const BuiltServerEntry built = buildServerEntry(fields, {}, TransportKind::Stdio);
        QCOMPARE(built.entry, expected);
        QCOMPARE(built.repeatedHeaders, QStringList());
        QCOMPARE(parseEntry(built.entry).transport, TransportKind(transport));
    }

    void keepsWhatTheFieldsDoNotCover()
    {
        const QJsonObject existing{{u"command"_s, u"old"_s},
                                   {u"envFile"_s, u".env"_s},
                                   {u"reconnect"_s, QJsonObject{{u"maxAttempts"_s, 3}}},
                                   {u"pool"_s, QJsonObject{{u"max"_s, 2}}},
                                   {u"x-editor"_s, QJsonObject{{u"color"_s, u"red"_s}}}};
        const BuiltServerEntry built = buildServerEntry(stdioFields(u"new"_s), existing, TransportKind::Stdio);
        QJsonObject expected = existing;
        expected.insert(u"command"_s, u"new"_s);
        QCOMPARE(built.entry, expected);
    }

    void switchingTransportRemovesTheOthersKeys()
    {
        const QJsonObject stdio{{u"command"_s, u"x"_s}, {u"args"_s, QJsonArray{u"a"_s}},
                                {u"env"_s, QJsonObject{{u"A"_s, u"1"_s}}}, {u"envFile"_s, u".env"_s},
                                {u"cwd"_s, u"/tmp"_s}, {u"timeoutMs"_s, 5000}, {u"x-note"_s, u"kept"_s}};
        ServerEntryFields remote = remoteFields(TransportKind::StreamableHttp, u"https://e.com/mcp"_s);
        remote.timeoutMs = u"5000"_s;
        QJsonObject asRemote = buildServerEntry(remote, stdio, TransportKind::Stdio).entry;
        QCOMPARE(asRemote, (QJsonObject{{u"type"_s, u"http"_s}, {u"url"_s, u"https://e.com/mcp"_s},
                                        {u"timeoutMs"_s, 5000}, {u"x-note"_s, u"kept"_s}}));

        // Sign-in is for remote servers alone: a stdio server with "oauth" would be invalid.
        asRemote.insert(u"oauth"_s, QJsonObject{{u"clientId"_s, u"tether-desktop"_s}});
        const QJsonObject back = buildServerEntry(stdioFields(u"x"_s), asRemote, TransportKind::StreamableHttp).entry;
        QCOMPARE(back, (QJsonObject{{u"type"_s, u"stdio"_s}, {u"command"_s, u"x"_s}, {u"x-note"_s, u"kept"_s}}));
    }

    void writesTheTypeOnlyWhenNeeded_data()
    {
        QTest::addColumn<QJsonObject>("existing");
        QTest::addColumn<int>("existingTransport");
        QTest::addColumn<int>("transport");
        QTest::addColumn<QJsonValue>("type"); // undefined: no "type" key

        const QJsonObject url{{u"url"_s, u"https://e.com/mcp"_s}};
        QJsonObject streamable = url;
        streamable.insert(u"type"_s, u"streamable-http"_s);
        QJsonObject stdio{{u"type"_s, u"stdio"_s}, {u"command"_s, u"x"_s}};
        const int http = int(TransportKind::StreamableHttp);
        const int sse = int(TransportKind::Sse);
        const int local = int(TransportKind::Stdio);
        QTest::newRow("url implies http") << url << http << http << QJsonValue(QJsonValue::Undefined);
        QTest::newRow("url now sse") << url << http << sse << QJsonValue(u"sse"_s);
        QTest::newRow("streamable-http kept") << streamable << http << http << QJsonValue(u"streamable-http"_s);
        QTest::newRow("streamable-http now sse") << streamable << http << sse << QJsonValue(u"sse"_s);
        QTest::newRow("explicit stdio kept") << stdio << local << local << QJsonValue(u"stdio"_s);
        QTest::newRow("explicit stdio now http") << stdio << local << http << QJsonValue(u"http"_s);
    }

    void writesTheTypeOnlyWhenNeeded()
    {
        QFETCH(QJsonObject, existing);
        QFETCH(int, existingTransport);
        QFETCH(int, transport);
        QFETCH(QJsonValue, type);
        const ServerEntryFields fields = TransportKind(transport) == TransportKind::Stdio
                                             ? stdioFields(u"x"_s)
                                             : remoteFields(TransportKind(transport), u"https://e.com/mcp"_s);
        const QJsonObject entry = buildServerEntry(fields, existing, TransportKind(existingTransport)).entry;
        QCOMPARE(entry.value(u"type"_s), type);
        QCOMPARE(parseEntry(entry).transport, TransportKind(transport));
    }

    void writesEnabledOnlyWhenNeeded()
    {
        ServerEntryFields fields = stdioFields(u"x"_s);
        QVERIFY(!buildServerEntry(fields, {}, TransportKind::Stdio).entry.contains(u"enabled"_s));
        const QJsonObject disabled{{u"command"_s, u"x"_s}, {u"enabled"_s, false}};
        QCOMPARE(buildServerEntry(fields, disabled, TransportKind::Stdio).entry.value(u"enabled"_s), QJsonValue(true));
        fields.enabled = false;
        const QJsonObject entry = buildServerEntry(fields, {}, TransportKind::Stdio).entry;
        QCOMPARE(entry.value(u"enabled"_s), QJsonValue(false));
        QCOMPARE(parseEntry(entry).enabled, false);
    }

    void emptyFieldsRemoveTheirKeys()
    {
        const QJsonObject existing{{u"command"_s, u"x"_s}, {u"args"_s, QJsonArray{u"a"_s}},
                                   {u"env"_s, QJsonObject{{u"A"_s, u"1"_s}}}, {u"cwd"_s, u"/tmp"_s},
                                   {u"timeoutMs"_s, 5000}};
        ServerEntryFields fields = stdioFields(u"x"_s);
        fields.arguments = u"  "_s;
        fields.workingDirectory = u" "_s;
        QCOMPARE(buildServerEntry(fields, existing, TransportKind::Stdio).entry,
                 (QJsonObject{{u"command"_s, u"x"_s}}));
        // The command is written even when empty, so that the config's message names it.
        const QJsonObject empty = buildServerEntry(stdioFields(QString()), {}, TransportKind::Stdio).entry;
        QCOMPARE(empty, (QJsonObject{{u"command"_s, u""_s}}));

        const QJsonObject remote{{u"url"_s, u"https://e.com/mcp"_s}, {u"headers"_s, QJsonObject{{u"A"_s, u"1"_s}}}};
        QCOMPARE(buildServerEntry(remoteFields(TransportKind::StreamableHttp, u"https://e.com/mcp"_s), remote,
                                  TransportKind::StreamableHttp).entry,
                 (QJsonObject{{u"url"_s, u"https://e.com/mcp"_s}}));
    }

    void argumentsThatDoNotSplit()
    {
        ServerEntryFields fields = stdioFields(u"x"_s);
        fields.arguments = u"--name 'open"_s;
        const QJsonObject existing{{u"command"_s, u"x"_s}, {u"args"_s, QJsonArray{u"old"_s}}};
        const BuiltServerEntry built = buildServerEntry(fields, existing, TransportKind::Stdio);
        QCOMPARE(built.argumentsError, splitCommandLine(fields.arguments).error);
        QVERIFY(!built.argumentsError.isEmpty());
        QCOMPARE(built.entry, (QJsonObject{{u"command"_s, u"x"_s}}));
    }

    void repeatedNames()
    {
        ServerEntryFields fields = stdioFields(u"x"_s);
        fields.environment = {{u"A"_s, u"1"_s}, {u"B"_s, u"2"_s}, {u"A"_s, u"3"_s}, {u"A"_s, u"4"_s}, {u"B"_s, u"5"_s}};
        const BuiltServerEntry stdio = buildServerEntry(fields, {}, TransportKind::Stdio);
        // Each name once, in the order it was first repeated; JSON keeps the last row.
        QCOMPARE(stdio.repeatedEnvironment, (QStringList{u"A"_s, u"B"_s}));
        QCOMPARE(stdio.entry.value(u"env"_s).toObject(), (QJsonObject{{u"A"_s, u"4"_s}, {u"B"_s, u"5"_s}}));
        QCOMPARE(stdio.repeatedHeaders, QStringList());

        ServerEntryFields remote = remoteFields(TransportKind::Sse, u"https://e.com/sse"_s);
        remote.headers = {{u"X-Key"_s, u"1"_s}, {u"X-Key"_s, u"2"_s}};
        const BuiltServerEntry built = buildServerEntry(remote, {}, TransportKind::Stdio);
        QCOMPARE(built.repeatedHeaders, QStringList{u"X-Key"_s});
        QCOMPARE(built.entry.value(u"headers"_s).toObject(), (QJsonObject{{u"X-Key"_s, u"2"_s}}));
        QCOMPARE(built.repeatedEnvironment, QStringList());
    }

    void timeout_data()
    {
        QTest::addColumn<QString>("typed");
        QTest::addColumn<QJsonValue>("written"); // undefined: no "timeoutMs" key

        QTest::newRow("empty") << u"  "_s << QJsonValue(QJsonValue::Undefined);
        QTest::newRow("whole number") << u"90000"_s << QJsonValue(90000);
        QTest::newRow("fraction") << u"1500.5"_s << QJsonValue(1500.5);
        QTest::newRow("huge") << u"1e20"_s << QJsonValue(1e20);
        QTest::newRow("negative") << u"-5"_s << QJsonValue(-5);
        // What is not a number goes in as text, for the config's rule to answer.
        QTest::newRow("text") << u"soon"_s << QJsonValue(u"soon"_s);
        QTest::newRow("not finite") << u"inf"_s << QJsonValue(u"inf"_s);
    }

    void timeout()
    {
        QFETCH(QString, typed);
        QFETCH(QJsonValue, written);
        ServerEntryFields fields = stdioFields(u"x"_s);
        fields.timeoutMs = typed;
        const QJsonObject existing{{u"command"_s, u"x"_s}, {u"timeoutMs"_s, 1000}};
        const QJsonValue value = buildServerEntry(fields, existing, TransportKind::Stdio).entry.value(u"timeoutMs"_s);
        QCOMPARE(value, written);
    }

    // A server's fields show its entry as written, and give it back unchanged when nothing is edited.
    void fieldsRoundTrip_data()
    {
        QTest::addColumn<QJsonObject>("entry");

        QTest::newRow("stdio") << QJsonObject{{u"command"_s, u"${env:HOME_DIR}/bin/server"_s},
                                              {u"args"_s, QJsonArray{u"-y"_s, u"a b"_s, u"it's"_s}},
                                              {u"env"_s, QJsonObject{{u"TOKEN"_s, u"${env:API_TOKEN}"_s}}},
                                              {u"cwd"_s, u"/srv"_s},
                                              {u"timeoutMs"_s, 20000},
                                              {u"enabled"_s, false},
                                              {u"pool"_s, QJsonObject{{u"max"_s, 2}}}};
        QTest::newRow("http") << QJsonObject{{u"type"_s, u"streamable-http"_s},
                                             {u"url"_s, u"https://e.com/mcp?key=${env:KEY}"_s},
                                             {u"headers"_s, QJsonObject{{u"Authorization"_s, u"Bearer x"_s}}}};
        QTest::newRow("sse") << QJsonObject{{u"type"_s, u"sse"_s}, {u"url"_s, u"https://e.com/sse"_s}};
        QTest::newRow("http signing in") << QJsonObject{
            {u"url"_s, u"https://e.com/mcp"_s},
            {u"oauth"_s, QJsonObject{{u"clientId"_s, u"tether-desktop"_s}, {u"clientSecret"_s, u"${env:API_TOKEN}"_s},
                                     {u"scopes"_s, QJsonArray{u"files:read"_s}}, {u"redirectPort"_s, 33418}}}};
        QTest::newRow("http never signing in") << QJsonObject{{u"url"_s, u"https://e.com/mcp"_s}, {u"oauth"_s, false}};
    }

    void fieldsRoundTrip()
    {
        QFETCH(QJsonObject, entry);
        const ServerConfig server = parseEntry(entry);
        const ServerEntryFields fields = serverEntryFields(server);
        QCOMPARE(fields.transport, server.transport);
        QCOMPARE(fields.enabled, server.enabled);
        QCOMPARE(fields.url, entry.value(u"url"_s).toString());
        QCOMPARE(fields.command, entry.value(u"command"_s).toString());
        const BuiltServerEntry built = buildServerEntry(fields, server.source, server.transport);
        QCOMPARE(built.entry, entry);
    }

    void fieldsShowValuesOfTheWrongKind()
    {
        // As JSON, so that they are seen for what they are and the config's message explains them.
        const QJsonObject entry{{u"command"_s, u"x"_s}, {u"args"_s, u"-y server"_s}, {u"timeoutMs"_s, u"soon"_s},
                                {u"env"_s, QJsonObject{{u"PORT"_s, 8080}}}};
        const ConfigDocument document = parse(QJsonObject{{u"mcpServers"_s, QJsonObject{{u"demo"_s, entry}}}});
        const ServerEntryFields fields = serverEntryFields(document.servers.constFirst());
        QCOMPARE(fields.arguments, u"-y server"_s);
        QCOMPARE(fields.timeoutMs, u"soon"_s);
        QCOMPARE(fields.environment, (QList<std::pair<QString, QString>>{{u"PORT"_s, u"8080"_s}}));
    }
};

QTEST_GUILESS_MAIN(TestConfigEdit)
#include "tst_configedit.moc"
