// Edits of a config's JSON: each edited root parses back to exactly the intended servers, and
// keeps every key it was not asked to change.
#include "config/configedit.h"
#include "config/configparser.h"
#include "config/serverconfig.h"
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
    const ConfigContext context{[](const QString &) { return std::optional<QString>(); }, u"/opt/tether/bin"_s};
    return parseConfig(QJsonDocument(root).toJson(), u"servers.json"_s, context);
}

const ServerConfig &server(const ConfigDocument &document, const QString &name)
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

    void aServerTheFileDoesNotHoldIsLeftAlone()
    {
        const QJsonObject sample = json(Sample);
        QCOMPARE(setServerReconnectPolicy(sample, u"mcpServers"_s, u"zeta"_s, ReconnectPolicy{}), sample);
        QCOMPARE(clearServerHeartbeatPolicy(sample, u"mcpServers"_s, u"zeta"_s), sample);
        QCOMPARE(setServerEnabled(sample, u"mcpServers"_s, u"zeta"_s, false), sample);
        QCOMPARE(removeServer(sample, u"mcpServers"_s, u"zeta"_s), sample);
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
};

QTEST_GUILESS_MAIN(TestConfigEdit)
#include "tst_configedit.moc"
