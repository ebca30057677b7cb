// The tools the gateway exposes: the registry's, less those a server's config hides, each as
// the host sees it, with a fingerprint of the whole set.
#include "gateway/toolcatalog.h"

#include <QJsonDocument>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;

namespace {

RegisteredTool tool(const QString &server, const QString &name, const QJsonObject &extra = {})
{
    QJsonObject raw{{u"name"_s, name},
                    {u"description"_s, QString(u"The tool "_s + name)},
                    {u"inputSchema"_s, QJsonObject{{u"type"_s, u"object"_s}}}};
    for (auto it = extra.constBegin(); it != extra.constEnd(); ++it)
        raw.insert(it.key(), it.value());
    QString error;
    const std::optional<ToolDefinition> definition = parseToolDefinition(raw, &error);
    if (!definition)
        qFatal("bad test tool: %s", qPrintable(error));
    return {publicToolName(server, name), server, *definition, true};
}

QStringList names(const ToolCatalog &catalog)
{
    QStringList all;
    for (const ExposedTool &exposed : catalog.tools())
        all.append(exposed.publicName);
    return all;
}

} // namespace

class TestToolCatalog final : public QObject
{
    Q_OBJECT

private slots:
    void exposesEveryToolButTheHiddenOnes()
    {
        const QList<RegisteredTool> tools{tool(u"github"_s, u"search"_s), tool(u"github"_s, u"delete_repository"_s),
                                          tool(u"fs"_s, u"read"_s), tool(u"fs"_s, u"search"_s)};
        const ToolCatalog catalog(tools, {{u"github"_s, {u"delete_repository"_s, u"not_offered"_s}}});
        QCOMPARE(names(catalog), (QStringList{u"fs__read"_s, u"fs__search"_s, u"github__search"_s}));
        QVERIFY(!catalog.find(u"github__delete_repository"_s));
        const ExposedTool *search = catalog.find(u"github__search"_s);
        QVERIFY(search);
        QCOMPARE(search->serverName, u"github"_s);
        QCOMPARE(search->toolName, u"search"_s);
        // A name hidden on one server hides nothing on another.
        QVERIFY(catalog.find(u"fs__search"_s));
    }

    void namesHiddenButNotOffered()
    {
        const QList<RegisteredTool> tools{tool(u"github"_s, u"search"_s), tool(u"github"_s, u"delete_repository"_s),
                                          tool(u"fs"_s, u"read"_s)};
        const ToolCatalog catalog(tools, {{u"github"_s, {u"delete_repository"_s, u"delete_repo"_s, u"merge"_s}},
                                          {u"fs"_s, {u"read"_s}},
                                          {u"starting"_s, {u"anything"_s}}});
        // Only servers that offer tools are judged: one still starting may offer the name yet.
        const QHash<QString, QStringList> expected{{u"github"_s, {u"delete_repo"_s, u"merge"_s}}};
        QCOMPARE(catalog.hiddenButNotOffered(), expected);
    }

    void definitionIsTheServersWithThePublicName()
    {
        const QJsonObject extra{
            {u"title"_s, u"Search"_s},
            {u"outputSchema"_s, QJsonObject{{u"type"_s, u"object"_s}}},
            {u"annotations"_s, QJsonObject{{u"readOnlyHint"_s, true}}},
            {u"_meta"_s, QJsonObject{{u"vendor/x"_s, 1}}},
        };
        const RegisteredTool registered = tool(u"github"_s, u"search"_s, extra);
        const ToolCatalog catalog({registered}, {});
        QJsonObject expected = registered.definition.raw();
        expected.insert(u"name"_s, u"github__search"_s);
        QCOMPARE(QJsonDocument::fromJson(catalog.tools().front().json).object(), expected);
        // Every other byte as the definition reads, compact.
        QCOMPARE(QString::fromUtf8(catalog.tools().front().json).replace(u"github__search"_s, u"search"_s),
                 QString::fromUtf8(QJsonDocument(registered.definition.raw()).toJson(QJsonDocument::Compact)));
    }

    void lookups()
    {
        const ToolCatalog catalog({tool(u"a"_s, u"x"_s), tool(u"b"_s, u"x"_s), tool(u"c"_s, u"x"_s)}, {});
        QCOMPARE(catalog.size(), 3);
        QCOMPARE(catalog.indexAfter(u"a__x"_s), 1);
        QCOMPARE(catalog.indexAfter(u"a__y"_s), 1); // a name no longer there
        QCOMPARE(catalog.indexAfter(u""_s), 0);
        QCOMPARE(catalog.indexAfter(u"c__x"_s), 3);
        QVERIFY(!catalog.find(u"d__x"_s));
    }

    void fingerprintFollowsWhatHostsSee()
    {
        const QList<RegisteredTool> tools{tool(u"s"_s, u"one"_s), tool(u"s"_s, u"two"_s)};
        const QByteArray base = ToolCatalog(tools, {}).fingerprint();
        QVERIFY(!base.isEmpty());
        QCOMPARE(ToolCatalog(tools, {}).fingerprint(), base);
        QCOMPARE(ToolCatalog({tools.at(1), tools.at(0)}, {}).fingerprint(), base);
        QVERIFY(ToolCatalog(tools, {{u"s"_s, {u"two"_s}}}).fingerprint() != base);
        QCOMPARE(ToolCatalog(tools, {{u"s"_s, {u"three"_s}}}).fingerprint(), base); // hides nothing offered
        QVERIFY(ToolCatalog({tools.at(0), tool(u"s"_s, u"two"_s, {{u"title"_s, u"Two"_s}})}, {}).fingerprint() != base);
        QVERIFY(ToolCatalog({}, {}).fingerprint() != base);
    }
};

QTEST_GUILESS_MAIN(TestToolCatalog)
#include "tst_toolcatalog.moc"
