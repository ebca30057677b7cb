#include "supervisor/toolregistry.h"

#include <QRegularExpression>
#include <QSet>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;

Q_DECLARE_METATYPE(Tether::ToolDefinition)

static ToolDefinition tool(const QString &name, const QString &description = {},
                           const QJsonObject &inputSchema = {{u"type"_s, u"object"_s}})
{
    const QJsonObject raw{{u"name"_s, name}, {u"description"_s, description}, {u"inputSchema"_s, inputSchema}};
    QString error;
    const std::optional<ToolDefinition> definition = parseToolDefinition(raw, &error);
    if (!definition)
        qFatal("bad test tool: %s", qPrintable(error));
    return *definition;
}

static QStringList publicNames(const QList<RegisteredTool> &tools)
{
    QStringList names;
    for (const RegisteredTool &t : tools)
        names.append(t.publicName);
    return names;
}

static QStringList sorted(QStringList list)
{
    list.sort();
    return list;
}

static const QRegularExpression PublicNamePattern(u"^[A-Za-z0-9_-]{1,64}$"_s);
static const QRegularExpression HashSuffixPattern(u"_[0-9a-f]{8}$"_s);

class TestToolRegistry final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { qRegisterMetaType<Tether::ToolChange>(); }

    void publicName_data()
    {
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("expected");

        QTest::newRow("plain") << u"fs"_s << u"read"_s << u"fs__read"_s;
        QTest::newRow("allowed punctuation kept") << u"my-server_1"_s << u"Read-File_2"_s << u"my-server_1__Read-File_2"_s;
        QTest::newRow("dot in tool") << u"fs"_s << u"read.file"_s << u"fs__read_file"_s;
        QTest::newRow("blank in server") << u"my server"_s << u"x"_s << u"my_server__x"_s;
        QTest::newRow("slashes and colons") << u"git"_s << u"repo/log:all"_s << u"git__repo_log_all"_s;
        QTest::newRow("non-ASCII letters") << u"srv"_s << u"héllo wörld"_s << u"srv__h_llo_w_rld"_s;
        QTest::newRow("CJK") << u"srv"_s << u"検索"_s << u"srv____"_s;
        QTest::newRow("exactly 64 characters kept") << u"s"_s << QString(61, u'x') << (u"s__"_s + QString(61, u'x'));
    }

    void publicName()
    {
        QFETCH(QString, server);
        QFETCH(QString, tool);
        QFETCH(QString, expected);
        QCOMPARE(publicToolName(server, tool), expected);
        QVERIFY(PublicNamePattern.match(publicToolName(server, tool)).hasMatch());
    }

    void longNamesAreCutWithAStableHash_data()
    {
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("tool");

        QTest::newRow("65 characters") << u"s"_s << QString(62, u'x');
        QTest::newRow("long tool") << u"search"_s << (u"a_really_long_tool_name_that_keeps_going_and_going_"_s + QString(40, u'z'));
        QTest::newRow("long server") << QString(70, u'S') << u"t"_s;
        QTest::newRow("long with characters to sanitise") << u"my server"_s << (QString(60, u'y') + u".tool/name"_s);
        QTest::newRow("very long") << QString(500, u'a') << QString(500, u'b');
    }

    void longNamesAreCutWithAStableHash()
    {
        QFETCH(QString, server);
        QFETCH(QString, tool);

        const QString name = publicToolName(server, tool);
        QCOMPARE(name.size(), 64);
        QVERIFY2(PublicNamePattern.match(name).hasMatch(), qPrintable(name));
        QVERIFY2(HashSuffixPattern.match(name).hasMatch(), qPrintable(name));
        // The start of the sanitised name, then the suffix.
        QString plain = server + u"__"_s + tool;
        for (QChar &c : plain) {
            if (!(c.isLetterOrNumber() && c.unicode() < 128) && c != u'_' && c != u'-')
                c = u'_';
        }
        QCOMPARE(name.left(55), plain.left(55));
        // Deterministic across calls.
        for (int i = 0; i < 3; ++i)
            QCOMPARE(publicToolName(server, tool), name);
        // A different tool with the same first 55 characters gets a different name.
        QVERIFY(publicToolName(server, tool + u"2"_s) != name);
        QVERIFY(publicToolName(server + u"2"_s, tool) != name);
    }

    void longNamesDifferingOnlyInSanitisedCharactersStayDistinct()
    {
        const QString a = publicToolName(u"srv"_s, QString(60, u'x') + u".a"_s);
        const QString b = publicToolName(u"srv"_s, QString(60, u'x') + u"_a"_s);
        QCOMPARE(a.size(), 64);
        QCOMPARE(b.size(), 64);
        QVERIFY(a != b);
    }

    void addsTools()
    {
        ToolRegistry registry;
        QSignalSpy changed(&registry, &ToolRegistry::toolsChanged);
        const ToolChange change = registry.replaceServerTools(u"fs"_s, {tool(u"read"_s), tool(u"write"_s)});
        QCOMPARE(change.serverName, u"fs"_s);
        QCOMPARE(change.added, (QStringList{u"fs__read"_s, u"fs__write"_s}));
        QVERIFY(change.removed.isEmpty());
        QVERIFY(change.changed.isEmpty());
        QVERIFY(!change.isEmpty());
        QCOMPARE(changed.size(), 1);
        const ToolChange signalled = changed.at(0).at(0).value<ToolChange>();
        QCOMPARE(signalled.serverName, u"fs"_s);
        QCOMPARE(signalled.added, change.added);
        QCOMPARE(registry.count(), 2);
        const auto found = registry.find(u"fs__read"_s);
        QVERIFY(found);
        QCOMPARE(found->serverName, u"fs"_s);
        QCOMPARE(found->definition.name, u"read"_s);
        QCOMPARE(found->definition, tool(u"read"_s));
        QVERIFY(found->available);
    }

    void identicalSetChangesNothing()
    {
        ToolRegistry registry;
        const QList<ToolDefinition> set{tool(u"read"_s, u"Reads"_s), tool(u"write"_s, u"Writes"_s)};
        registry.replaceServerTools(u"fs"_s, set);
        const QList<RegisteredTool> before = registry.serverTools(u"fs"_s);

        QSignalSpy changed(&registry, &ToolRegistry::toolsChanged);
        // Identical, and rebuilt from scratch (new objects, same content).
        const ToolChange change = registry.replaceServerTools(u"fs"_s, {tool(u"read"_s, u"Reads"_s), tool(u"write"_s, u"Writes"_s)});
        QVERIFY(change.isEmpty());
        QCOMPARE(change.serverName, u"fs"_s);
        QCOMPARE(changed.size(), 0);
        QCOMPARE(registry.serverTools(u"fs"_s), before);

        // The same set in another order is no change either.
        const ToolChange reordered = registry.replaceServerTools(u"fs"_s, {set.at(1), set.at(0)});
        QVERIFY(reordered.isEmpty());
        QCOMPARE(changed.size(), 0);
        QCOMPARE(registry.count(), 2);
        QCOMPARE(registry.tools(), before);
    }

    void emptySetForUnknownServerChangesNothing()
    {
        ToolRegistry registry;
        QSignalSpy changed(&registry, &ToolRegistry::toolsChanged);
        QVERIFY(registry.replaceServerTools(u"none"_s, {}).isEmpty());
        QVERIFY(registry.unregisterServer(u"none"_s).isEmpty());
        QCOMPARE(changed.size(), 0);
        QCOMPARE(registry.count(), 0);
    }

    void detectsChangedDefinitions_data()
    {
        QTest::addColumn<ToolDefinition>("before");
        QTest::addColumn<ToolDefinition>("after");

        const QJsonObject schema{{u"type"_s, u"object"_s}};
        const QJsonObject otherSchema{{u"type"_s, u"object"_s},
                                      {u"properties"_s, QJsonObject{{u"path"_s, QJsonObject{{u"type"_s, u"string"_s}}}}}};
        QTest::newRow("description") << tool(u"read"_s, u"Reads a file"_s, schema) << tool(u"read"_s, u"Reads any file"_s, schema);
        QTest::newRow("input schema") << tool(u"read"_s, u"Reads"_s, schema) << tool(u"read"_s, u"Reads"_s, otherSchema);
        QTest::newRow("description added") << tool(u"read"_s, {}, schema) << tool(u"read"_s, u"Reads"_s, schema);
    }

    void detectsChangedDefinitions()
    {
        QFETCH(ToolDefinition, before);
        QFETCH(ToolDefinition, after);

        ToolRegistry registry;
        registry.replaceServerTools(u"fs"_s, {before, tool(u"stat"_s)});
        QSignalSpy changed(&registry, &ToolRegistry::toolsChanged);
        const ToolChange change = registry.replaceServerTools(u"fs"_s, {after, tool(u"stat"_s)});
        QCOMPARE(change.changed, QStringList{u"fs__read"_s});
        QVERIFY(change.added.isEmpty());
        QVERIFY(change.removed.isEmpty());
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.at(0).at(0).value<ToolChange>().changed, QStringList{u"fs__read"_s});
        QCOMPARE(registry.find(u"fs__read"_s)->definition, after);
        QCOMPARE(registry.find(u"fs__read"_s)->definition.description, after.description);
    }

    void reportsAddedRemovedAndChangedTogether()
    {
        ToolRegistry registry;
        registry.replaceServerTools(u"fs"_s, {tool(u"read"_s), tool(u"write"_s, u"v1"_s), tool(u"delete"_s)});
        QSignalSpy changed(&registry, &ToolRegistry::toolsChanged);
        const ToolChange change
            = registry.replaceServerTools(u"fs"_s, {tool(u"read"_s), tool(u"write"_s, u"v2"_s), tool(u"move"_s), tool(u"copy"_s)});
        QCOMPARE(sorted(change.added), (QStringList{u"fs__copy"_s, u"fs__move"_s}));
        QCOMPARE(change.removed, QStringList{u"fs__delete"_s});
        QCOMPARE(change.changed, QStringList{u"fs__write"_s});
        QCOMPARE(changed.size(), 1);
        const ToolChange signalled = changed.at(0).at(0).value<ToolChange>();
        QCOMPARE(signalled.added, change.added);
        QCOMPARE(signalled.removed, change.removed);
        QCOMPARE(signalled.changed, change.changed);
        QCOMPARE(registry.count(), 4);
        QVERIFY(!registry.find(u"fs__delete"_s));
        QCOMPARE(publicNames(registry.serverTools(u"fs"_s)),
                 (QStringList{u"fs__read"_s, u"fs__write"_s, u"fs__move"_s, u"fs__copy"_s}));
    }

    void collisionWithinOneServer_data()
    {
        QTest::addColumn<QStringList>("names");
        QTest::newRow("a_b first") << QStringList{u"a_b"_s, u"a.b"_s};
        QTest::newRow("a.b first") << QStringList{u"a.b"_s, u"a_b"_s};
    }

    void collisionWithinOneServer()
    {
        QFETCH(QStringList, names);
        ToolRegistry registry;
        QList<ToolDefinition> tools;
        for (const QString &name : std::as_const(names))
            tools.append(tool(name));
        registry.replaceServerTools(u"srv"_s, tools);
        QCOMPARE(registry.count(), 2);

        // The tool whose name needed no sanitising keeps the plain name.
        const auto plain = registry.find(u"srv__a_b"_s);
        QVERIFY(plain);
        QCOMPARE(plain->definition.name, u"a_b"_s);

        // The other gets a suffix from a hash of its own names, the same in either order.
        const QString expectedSuffixed = [] {
            ToolRegistry reference;
            reference.replaceServerTools(u"srv"_s, {tool(u"a_b"_s), tool(u"a.b"_s)});
            return reference.serverTools(u"srv"_s).at(1).publicName;
        }();
        QString suffixed;
        for (const RegisteredTool &t : registry.serverTools(u"srv"_s)) {
            if (t.definition.name == u"a.b")
                suffixed = t.publicName;
        }
        QVERIFY2(suffixed.startsWith(u"srv__a_b_"_s), qPrintable(suffixed));
        QVERIFY2(HashSuffixPattern.match(suffixed).hasMatch(), qPrintable(suffixed));
        QVERIFY(PublicNamePattern.match(suffixed).hasMatch());
        QCOMPARE(suffixed, expectedSuffixed);
        QCOMPARE(registry.find(suffixed)->definition.name, u"a.b"_s);
        // In server order.
        QCOMPARE(registry.serverTools(u"srv"_s).at(0).definition.name, names.at(0));
    }

    void collisionOfSanitisedNamesOnly()
    {
        // Neither "a.b" nor "a b" is the plain name: both get distinct suffixed names, in either order.
        ToolRegistry forward;
        forward.replaceServerTools(u"srv"_s, {tool(u"a.b"_s), tool(u"a b"_s)});
        ToolRegistry backward;
        backward.replaceServerTools(u"srv"_s, {tool(u"a b"_s), tool(u"a.b"_s)});
        QCOMPARE(forward.count(), 2);
        QVERIFY(!forward.find(u"srv__a_b"_s));
        const QStringList names = sorted(publicNames(forward.tools()));
        QVERIFY(names.at(0) != names.at(1));
        QCOMPARE(publicNames(backward.tools()), names);
        for (const QString &name : names)
            QVERIFY2(HashSuffixPattern.match(name).hasMatch(), qPrintable(name));
    }

    void duplicateToolNamesKeepTheFirst()
    {
        // A server listing the same tool name three times (not valid MCP, but it happens).
        ToolRegistry registry;
        registry.replaceServerTools(u"srv"_s, {tool(u"x"_s, u"1"_s), tool(u"x"_s, u"2"_s), tool(u"x"_s, u"3"_s)});
        const QList<RegisteredTool> tools = registry.serverTools(u"srv"_s);
        QCOMPARE(publicNames(tools), QStringList{u"srv__x"_s});
        QCOMPARE(tools.first().definition.description, u"1"_s);
        QCOMPARE(registry.count(), 1);
    }

    void collisionWithAnotherServer()
    {
        ToolRegistry registry;
        // "x" + "y__z" and "x__y" + "z" both make "x__y__z".
        registry.replaceServerTools(u"x"_s, {tool(u"y__z"_s)});
        QSignalSpy changed(&registry, &ToolRegistry::toolsChanged);
        const ToolChange change = registry.replaceServerTools(u"x__y"_s, {tool(u"z"_s)});
        QCOMPARE(changed.size(), 1);
        QCOMPARE(change.added.size(), 1);
        const QString other = change.added.first();
        QVERIFY(other != u"x__y__z"_s);
        QVERIFY2(other.startsWith(u"x__y__z_"_s), qPrintable(other));
        QVERIFY2(HashSuffixPattern.match(other).hasMatch(), qPrintable(other));
        QCOMPARE(registry.count(), 2);
        QCOMPARE(registry.find(u"x__y__z"_s)->serverName, u"x"_s);
        QCOMPARE(registry.find(other)->serverName, u"x__y"_s);
        QCOMPARE(registry.find(other)->definition.name, u"z"_s);

        // Re-syncing either server with the same set keeps every name.
        QVERIFY(registry.replaceServerTools(u"x"_s, {tool(u"y__z"_s)}).isEmpty());
        QVERIFY(registry.replaceServerTools(u"x__y"_s, {tool(u"z"_s)}).isEmpty());
        QCOMPARE(changed.size(), 1);
        QCOMPARE(registry.find(u"x__y__z"_s)->serverName, u"x"_s);
    }

    void collisionOfSanitisedServerNames()
    {
        ToolRegistry registry;
        registry.replaceServerTools(u"a.b"_s, {tool(u"c"_s)});
        registry.replaceServerTools(u"a_b"_s, {tool(u"c"_s)});
        QCOMPARE(registry.count(), 2);
        QCOMPARE(registry.find(u"a_b__c"_s)->serverName, u"a.b"_s);
        const QList<RegisteredTool> second = registry.serverTools(u"a_b"_s);
        QCOMPARE(second.size(), 1);
        QVERIFY(second.first().publicName != u"a_b__c"_s);
        QVERIFY(second.first().publicName.startsWith(u"a_b__c_"_s));
    }

    void crossServerCollisionGoesToTheFirstRegistered()
    {
        // Documents current behaviour: across servers the name goes to whichever registered first,
        // so the same tool can be renamed when the other server leaves and it re-syncs.
        ToolRegistry registry;
        registry.replaceServerTools(u"x__y"_s, {tool(u"z"_s)});
        registry.replaceServerTools(u"x"_s, {tool(u"y__z"_s)});
        QCOMPARE(registry.find(u"x__y__z"_s)->serverName, u"x__y"_s);
        const QString suffixed = registry.serverTools(u"x"_s).first().publicName;
        QVERIFY(suffixed != u"x__y__z"_s);

        registry.unregisterServer(u"x__y"_s);
        const ToolChange renamed = registry.replaceServerTools(u"x"_s, {tool(u"y__z"_s)});
        QCOMPARE(renamed.added, QStringList{u"x__y__z"_s});
        QCOMPARE(renamed.removed, QStringList{suffixed});
        QCOMPARE(registry.find(u"x__y__z"_s)->serverName, u"x"_s);
    }

    void unregisterServer()
    {
        ToolRegistry registry;
        registry.replaceServerTools(u"fs"_s, {tool(u"read"_s), tool(u"write"_s), tool(u"a.b"_s), tool(u"a_b"_s)});
        registry.replaceServerTools(u"git"_s, {tool(u"log"_s)});
        const QStringList fsNames = publicNames(registry.serverTools(u"fs"_s));
        QCOMPARE(fsNames.size(), 4);

        QSignalSpy changed(&registry, &ToolRegistry::toolsChanged);
        const ToolChange change = registry.unregisterServer(u"fs"_s);
        QCOMPARE(change.serverName, u"fs"_s);
        QCOMPARE(change.removed, fsNames);
        QVERIFY(change.added.isEmpty());
        QVERIFY(change.changed.isEmpty());
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.at(0).at(0).value<ToolChange>().removed, fsNames);
        QCOMPARE(registry.count(), 1);
        QVERIFY(registry.serverTools(u"fs"_s).isEmpty());
        for (const QString &name : fsNames)
            QVERIFY(!registry.find(name));
        QCOMPARE(publicNames(registry.tools()), QStringList{u"git__log"_s});

        // A second unregister is a no-op.
        QVERIFY(registry.unregisterServer(u"fs"_s).isEmpty());
        QCOMPARE(changed.size(), 1);

        // And the server can register again from scratch.
        const ToolChange again = registry.replaceServerTools(u"fs"_s, {tool(u"read"_s)});
        QCOMPARE(again.added, QStringList{u"fs__read"_s});
        QVERIFY(registry.find(u"fs__read"_s)->available);
    }

    void setServerAvailable()
    {
        ToolRegistry registry;
        registry.replaceServerTools(u"fs"_s, {tool(u"read"_s), tool(u"write"_s)});
        registry.replaceServerTools(u"git"_s, {tool(u"log"_s)});
        QSignalSpy availability(&registry, &ToolRegistry::availabilityChanged);
        QSignalSpy changed(&registry, &ToolRegistry::toolsChanged);

        registry.setServerAvailable(u"fs"_s, false);
        QCOMPARE(availability.size(), 1);
        QCOMPARE(availability.at(0).at(0).toString(), u"fs"_s);
        QCOMPARE(availability.at(0).at(1).toBool(), false);
        for (const RegisteredTool &t : registry.serverTools(u"fs"_s))
            QVERIFY(!t.available);
        QVERIFY(!registry.find(u"fs__read"_s)->available);
        QVERIFY(registry.find(u"git__log"_s)->available); // other servers untouched
        QCOMPARE(registry.count(), 3);                     // the tools stay registered

        registry.setServerAvailable(u"fs"_s, false); // no flip, no signal
        QCOMPARE(availability.size(), 1);

        // A re-sync during the outage keeps the tools unavailable.
        registry.replaceServerTools(u"fs"_s, {tool(u"read"_s), tool(u"write"_s), tool(u"stat"_s)});
        QVERIFY(!registry.find(u"fs__stat"_s)->available);
        QVERIFY(!registry.find(u"fs__read"_s)->available);

        registry.setServerAvailable(u"fs"_s, true);
        QCOMPARE(availability.size(), 2);
        QCOMPARE(availability.at(1).at(0).toString(), u"fs"_s);
        QCOMPARE(availability.at(1).at(1).toBool(), true);
        for (const RegisteredTool &t : registry.serverTools(u"fs"_s))
            QVERIFY(t.available);

        registry.setServerAvailable(u"unknown"_s, false);
        QCOMPARE(availability.size(), 2);
        QCOMPARE(changed.size(), 1); // only the re-sync's addition; availability is not a tools change
    }

    void queries()
    {
        ToolRegistry registry;
        QCOMPARE(registry.count(), 0);
        QVERIFY(registry.tools().isEmpty());
        registry.replaceServerTools(u"zeta"_s, {tool(u"b"_s), tool(u"a"_s), tool(u"c"_s)});
        registry.replaceServerTools(u"alpha"_s, {tool(u"z"_s), tool(u"m"_s)});
        registry.replaceServerTools(u"mid"_s, {tool(u"k"_s)});

        QCOMPARE(registry.count(), 6);
        QCOMPARE(publicNames(registry.tools()), (QStringList{u"alpha__m"_s, u"alpha__z"_s, u"mid__k"_s, u"zeta__a"_s,
                                                              u"zeta__b"_s, u"zeta__c"_s}));
        QCOMPARE(publicNames(registry.serverTools(u"zeta"_s)), (QStringList{u"zeta__b"_s, u"zeta__a"_s, u"zeta__c"_s}));
        QCOMPARE(publicNames(registry.serverTools(u"alpha"_s)), (QStringList{u"alpha__z"_s, u"alpha__m"_s}));
        QVERIFY(registry.serverTools(u"nobody"_s).isEmpty());

        const auto found = registry.find(u"zeta__a"_s);
        QVERIFY(found);
        QCOMPARE(found->publicName, u"zeta__a"_s);
        QCOMPARE(found->serverName, u"zeta"_s);
        QCOMPARE(found->definition.name, u"a"_s);
        QVERIFY(found->available);
        QVERIFY(!registry.find(u"zeta__d"_s));
        QVERIFY(!registry.find(u"a"_s));
        QVERIFY(!registry.find(QString()));
    }

    void nameStarts_data()
    {
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("start");

        QTest::newRow("plain") << u"fs"_s << u"read"_s << u"fs__"_s;
        QTest::newRow("sanitised") << u"my server"_s << u"a.b"_s << u"my_server__"_s;
        QTest::newRow("tool with underscores") << u"x"_s << u"y__z"_s << u"x__"_s;
        QTest::newRow("long tool") << u"fs"_s << QString(80, u't') << u"fs__"_s;
        QTest::newRow("long server, cut") << QString(60, u's') << u"t"_s << QString(55, u's');
        QTest::newRow("server of 53, cut after its underscores") << QString(53, u's') << u"x__t"_s << (QString(53, u's') + u"__"_s);
    }

    void nameStarts()
    {
        QFETCH(QString, server);
        QFETCH(QString, tool);
        QFETCH(QString, start);
        QCOMPARE(publicNameStart(server), start);
        const QString name = publicToolName(server, tool);
        QVERIFY2(name.startsWith(start), qPrintable(name));
        QVERIFY2(possibleNameStarts(name).contains(start), qPrintable(possibleNameStarts(name).join(u' ')));
        QVERIFY(!possibleNameStarts(name).contains(name.left(start.size() - 1)));
    }

    void namedInTurnsExactlyAsAtOnce_data()
    {
        QTest::addColumn<QStringList>("before");
        QTest::addColumn<QStringList>("names");

        QTest::newRow("plain") << QStringList{} << QStringList{u"read"_s, u"write"_s, u"stat"_s};
        QTest::newRow("a_b first") << QStringList{} << QStringList{u"a_b"_s, u"a.b"_s, u"c"_s};
        QTest::newRow("a.b first") << QStringList{} << QStringList{u"a.b"_s, u"c"_s, u"a_b"_s};
        QTest::newRow("sanitised only") << QStringList{} << QStringList{u"a.b"_s, u"a b"_s, u"a/b"_s};
        QTest::newRow("listed three times") << QStringList{} << QStringList{u"x"_s, u"y"_s, u"x"_s, u"x"_s};
        QTest::newRow("listed twice, and a sanitised twin") << QStringList{} << QStringList{u"a.b"_s, u"a.b"_s, u"a_b"_s};
        QTest::newRow("long names") << QStringList{} << QStringList{QString(70, u'l'), QString(70, u'l') + u"."_s, QString(61, u'l')};
        QTest::newRow("re-sync, reordered") << QStringList{u"a"_s, u"b"_s, u"c"_s} << QStringList{u"c"_s, u"a"_s, u"b"_s};
        QTest::newRow("re-sync, added and removed") << QStringList{u"a"_s, u"b"_s, u"c"_s} << QStringList{u"a"_s, u"d"_s, u"c"_s, u"e"_s};
        QTest::newRow("re-sync to nothing") << QStringList{u"a"_s, u"b"_s} << QStringList{};
    }

    void namedInTurnsExactlyAsAtOnce()
    {
        QFETCH(QStringList, before);
        QFETCH(QStringList, names);
        const auto definitions = [](const QStringList &list) {
            QList<ToolDefinition> tools;
            for (const QString &name : list)
                tools.append(tool(name));
            return tools;
        };
        // One step a turn crosses every boundary between steps; three, some of them within a turn.
        for (const qsizetype steps : {1, 3}) {
            ToolRegistry atOnce;
            ToolRegistry inTurns(steps);
            atOnce.replaceServerTools(u"srv"_s, definitions(before));
            inTurns.replaceServerTools(u"srv"_s, definitions(before));
            const ToolChange expected = atOnce.replaceServerTools(u"srv"_s, definitions(names));

            QObject context;
            std::optional<ToolChange> change;
            inTurns.replaceServerToolsInTurns(u"srv"_s, definitions(names), &context,
                                              [&](const ToolChange &done) { change = done; });
            QTRY_VERIFY(change.has_value());
            QCOMPARE(inTurns.serverTools(u"srv"_s), atOnce.serverTools(u"srv"_s));
            QCOMPARE(inTurns.count(), atOnce.count());
            QCOMPARE(change->added, expected.added);
            QCOMPARE(change->removed, expected.removed);
            QCOMPARE(change->changed, expected.changed);
            for (const RegisteredTool &t : atOnce.serverTools(u"srv"_s))
                QVERIFY(inTurns.find(t.publicName) == t);
        }
    }

    void aSmallSetIsReplacedAtOnce()
    {
        ToolRegistry registry(4);
        QObject context;
        std::optional<ToolChange> change;
        registry.replaceServerToolsInTurns(u"fs"_s, {tool(u"read"_s), tool(u"write"_s)}, &context,
                                           [&](const ToolChange &done) { change = done; });
        QVERIFY(change.has_value());
        QCOMPARE(change->added, (QStringList{u"fs__read"_s, u"fs__write"_s}));
        QCOMPARE(registry.count(), 2);
    }

    void aLargeSetIsSwappedInAtOnceAfterItsTurns()
    {
        ToolRegistry registry(2);
        registry.replaceServerTools(u"fs"_s, {tool(u"old"_s)});
        QSignalSpy changed(&registry, &ToolRegistry::toolsChanged);
        QObject context;
        bool done = false;
        registry.replaceServerToolsInTurns(u"fs"_s, {tool(u"a"_s), tool(u"b"_s), tool(u"c"_s)}, &context,
                                           [&](const ToolChange &) { done = true; });
        // Until the swap the old set stands, whole.
        QVERIFY(!done);
        QCOMPARE(publicNames(registry.serverTools(u"fs"_s)), QStringList{u"fs__old"_s});
        QVERIFY(registry.find(u"fs__old"_s));
        QTRY_VERIFY(done);
        QCOMPARE(changed.size(), 1);
        const ToolChange change = changed.at(0).at(0).value<ToolChange>();
        QCOMPARE(change.added, (QStringList{u"fs__a"_s, u"fs__b"_s, u"fs__c"_s}));
        QCOMPARE(change.removed, QStringList{u"fs__old"_s});
        QCOMPARE(registry.count(), 3);
        QVERIFY(!registry.find(u"fs__old"_s));
    }

    void replacementsOfAServerFinishInOrder()
    {
        ToolRegistry registry(2);
        QObject context;
        QStringList finished;
        registry.replaceServerToolsInTurns(u"fs"_s, {tool(u"a"_s), tool(u"b"_s), tool(u"c"_s)}, &context,
                                           [&](const ToolChange &) { finished.append(u"first"_s); });
        // Small enough for one turn, yet after the one before it.
        registry.replaceServerToolsInTurns(u"fs"_s, {tool(u"d"_s)}, &context,
                                           [&](const ToolChange &) { finished.append(u"second"_s); });
        QVERIFY(finished.isEmpty());
        QTRY_COMPARE(finished, (QStringList{u"first"_s, u"second"_s}));
        QCOMPARE(publicNames(registry.serverTools(u"fs"_s)), QStringList{u"fs__d"_s});
    }

    void droppedReplacementsNeverFinish_data()
    {
        QTest::addColumn<QString>("how");
        QTest::addColumn<QStringList>("left");
        QTest::newRow("unregistered") << u"unregister"_s << QStringList{};
        QTest::newRow("replaced at once") << u"replace"_s << QStringList{u"fs__x"_s};
        QTest::newRow("dropped") << u"drop"_s << QStringList{};
        QTest::newRow("its context gone: registered, unanswered") << u"context"_s
                                                                  << QStringList{u"fs__a"_s, u"fs__b"_s, u"fs__c"_s};
    }

    void droppedReplacementsNeverFinish()
    {
        QFETCH(QString, how);
        QFETCH(QStringList, left);
        ToolRegistry registry(2);
        auto context = std::make_unique<QObject>();
        bool answered = false;
        registry.replaceServerToolsInTurns(u"fs"_s, {tool(u"a"_s), tool(u"b"_s), tool(u"c"_s)}, context.get(),
                                           [&](const ToolChange &) { answered = true; });
        if (how == u"unregister")
            registry.unregisterServer(u"fs"_s);
        else if (how == u"replace")
            registry.replaceServerTools(u"fs"_s, {tool(u"x"_s)});
        else if (how == u"drop")
            registry.dropReplacements(u"fs"_s);
        else
            context.reset();
        // Replacements run one after the other: once a later one is done, the first is settled.
        QObject otherContext;
        bool otherDone = false;
        registry.replaceServerToolsInTurns(u"git"_s, {tool(u"log"_s), tool(u"diff"_s), tool(u"show"_s)}, &otherContext,
                                           [&](const ToolChange &) { otherDone = true; });
        QTRY_VERIFY(otherDone);
        QVERIFY(!answered);
        QCOMPARE(publicNames(registry.serverTools(u"fs"_s)), left);
    }

    void namedInTurnsAgainstTheOtherServersAtTheSwap_data()
    {
        QTest::addColumn<bool>("otherComesMeanwhile");
        QTest::newRow("the other server registers meanwhile") << true;
        QTest::newRow("the other server leaves meanwhile") << false;
    }

    void namedInTurnsAgainstTheOtherServersAtTheSwap()
    {
        // "x" + "y__z" and "x__y" + "z" both make "x__y__z": it goes to whichever has it first, as
        // the registry stands when the set is swapped in.
        QFETCH(bool, otherComesMeanwhile);
        const QList<ToolDefinition> set{tool(u"y__z"_s), tool(u"a"_s), tool(u"b"_s)};
        ToolRegistry registry(2);
        if (!otherComesMeanwhile)
            registry.replaceServerTools(u"x__y"_s, {tool(u"z"_s)});
        QObject context;
        bool done = false;
        registry.replaceServerToolsInTurns(u"x"_s, set, &context, [&](const ToolChange &) { done = true; });
        if (otherComesMeanwhile)
            registry.replaceServerTools(u"x__y"_s, {tool(u"z"_s)});
        else
            registry.unregisterServer(u"x__y"_s);
        QTRY_VERIFY(done);

        ToolRegistry atOnce;
        if (otherComesMeanwhile)
            atOnce.replaceServerTools(u"x__y"_s, {tool(u"z"_s)});
        atOnce.replaceServerTools(u"x"_s, set);
        QCOMPARE(registry.serverTools(u"x"_s), atOnce.serverTools(u"x"_s));
        const QString name = registry.serverTools(u"x"_s).first().publicName;
        if (otherComesMeanwhile) {
            QVERIFY2(name.startsWith(u"x__y__z_"_s) && HashSuffixPattern.match(name).hasMatch(), qPrintable(name));
            QCOMPARE(registry.find(u"x__y__z"_s)->serverName, u"x__y"_s);
        } else {
            QCOMPARE(name, u"x__y__z"_s);
            QCOMPARE(registry.find(u"x__y__z"_s)->serverName, u"x"_s);
        }
    }

    void collisionThroughACutServerName()
    {
        // 53 's' + "__x__t": the server "s…s" with a tool "x__t" and the server "s…s__x" with a tool
        // "t" meet, though the second server's part of its names is cut at 55 characters.
        const QString shortServer = QString(53, u's');
        const QString longServer = shortServer + u"__x"_s;
        const QString name = shortServer + u"__x__t"_s;
        ToolRegistry registry;
        registry.replaceServerTools(longServer, {tool(u"t"_s)});
        QCOMPARE(registry.serverTools(longServer).first().publicName, name);
        registry.replaceServerTools(shortServer, {tool(u"x__t"_s)});
        const QString suffixed = registry.serverTools(shortServer).first().publicName;
        QVERIFY2(suffixed != name && HashSuffixPattern.match(suffixed).hasMatch(), qPrintable(suffixed));
        QCOMPARE(registry.find(name)->serverName, longServer);
        QCOMPARE(registry.find(suffixed)->serverName, shortServer);
        QCOMPARE(registry.count(), 2);
    }

    void publicNamesAreAlwaysValid_data()
    {
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("tool");
        QTest::newRow("empty tool") << u"srv"_s << QString();
        QTest::newRow("empty server") << QString() << u"t"_s;
        QTest::newRow("all punctuation") << u"!!!"_s << u"@#$%^&*()"_s;
        QTest::newRow("emoji") << u"srv"_s << u"tool🙂"_s;
        QTest::newRow("newline") << u"srv"_s << u"a\nb"_s;
        QTest::newRow("long emoji") << u"srv"_s << QString(40, u'x') + u"🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂"_s;
    }

    void publicNamesAreAlwaysValid()
    {
        QFETCH(QString, server);
        QFETCH(QString, tool);
        const QString name = publicToolName(server, tool);
        QVERIFY2(name.size() <= 64, qPrintable(name));
        QVERIFY2(PublicNamePattern.match(name).hasMatch(), qPrintable(name));
        QCOMPARE(publicToolName(server, tool), name);
    }
};

QTEST_GUILESS_MAIN(TestToolRegistry)
#include "tst_toolregistry.moc"
