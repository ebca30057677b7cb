// What the gateway offers hosts besides tools, as pure values: the names hosts see (prefixed, or
// plain where unique), the prompt and resource catalogs of several servers, which server a URI
// goes to (RFC 6570 templates), the pages of the lists, and the capabilities it declares.
#include "gateway/gatewayprotocol.h"
#include "gateway/promptcatalog.h"
#include "gateway/resourcecatalog.h"
#include "gateway/toolcatalog.h"

#include "supervisor/toolnaming.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;

namespace {

RegisteredTool tool(const QString &server, const QString &name)
{
    const QJsonObject raw{{u"name"_s, name},
                          {u"description"_s, QString(u"The tool "_s + name)},
                          {u"inputSchema"_s, QJsonObject{{u"type"_s, u"object"_s}}}};
    QString error;
    const std::optional<ToolDefinition> definition = parseToolDefinition(raw, &error);
    if (!definition)
        qFatal("bad test tool: %s", qPrintable(error));
    return {publicToolName(server, name), server, *definition, true};
}

PromptDefinition prompt(const QString &name, const QString &description = u"A prompt"_s)
{
    const QJsonObject raw{{u"name"_s, name},
                          {u"title"_s, QString(u"The "_s + name + u" prompt"_s)},
                          {u"description"_s, description},
                          {u"arguments"_s, QJsonArray{QJsonObject{{u"name"_s, u"topic"_s}, {u"required"_s, true}}}},
                          {u"icons"_s, QJsonArray{QJsonObject{{u"src"_s, u"https://example.com/p.png"_s}}}}};
    QString error;
    const std::optional<PromptDefinition> parsed = parsePrompt(raw, &error);
    if (!parsed)
        qFatal("bad test prompt: %s", qPrintable(error));
    return *parsed;
}

ResourceDefinition resource(const QString &uri, const QString &description = u"A resource"_s)
{
    const QJsonObject raw{{u"uri"_s, uri}, {u"name"_s, uri.section(u'/', -1)}, {u"description"_s, description},
                          {u"mimeType"_s, u"text/plain"_s}};
    QString error;
    const std::optional<ResourceDefinition> parsed = parseResource(raw, &error);
    if (!parsed)
        qFatal("bad test resource: %s", qPrintable(error));
    return *parsed;
}

ResourceTemplate resourceTemplate(const QString &uriTemplate)
{
    const QJsonObject raw{{u"uriTemplate"_s, uriTemplate}, {u"name"_s, u"family"_s}, {u"mimeType"_s, u"text/plain"_s}};
    QString error;
    const std::optional<ResourceTemplate> parsed = parseResourceTemplate(raw, &error);
    if (!parsed)
        qFatal("bad test template: %s", qPrintable(error));
    return *parsed;
}

ServerCatalog prompts(const QList<PromptDefinition> &list)
{
    ServerCatalog catalog;
    catalog.offersPrompts = true;
    catalog.prompts = list;
    catalog.promptsListed = true;
    return catalog;
}

ServerCatalog resources(const QStringList &uris, const QStringList &templates = {})
{
    ServerCatalog catalog;
    catalog.offersResources = true;
    for (const QString &uri : uris)
        catalog.resources.append(resource(uri));
    for (const QString &uriTemplate : templates)
        catalog.templates.append(resourceTemplate(uriTemplate));
    catalog.resourcesListed = true;
    return catalog;
}

QStringList promptNames(const PromptCatalog &catalog)
{
    QStringList names;
    for (const ExposedPrompt &exposed : catalog.prompts())
        names.append(exposed.publicName);
    return names;
}

QStringList toolNames(const ToolCatalog &catalog)
{
    QStringList names;
    for (const ExposedTool &exposed : catalog.tools())
        names.append(exposed.publicName);
    return names;
}

QStringList uris(const ResourceCatalog &catalog)
{
    QStringList all;
    for (const ExposedResource &exposed : catalog.resources())
        all.append(exposed.uri);
    return all;
}

QStringList templateUris(const ResourceCatalog &catalog)
{
    QStringList all;
    for (const ExposedResourceTemplate &exposed : catalog.templates())
        all.append(exposed.uriTemplate);
    return all;
}

const QString &uriOf(const ExposedResource &entry)
{
    return entry.uri;
}

const QString &uriTemplateOf(const ExposedResourceTemplate &entry)
{
    return entry.uriTemplate;
}

} // namespace

class TestGatewayFeatures final : public QObject
{
    Q_OBJECT

private slots:
    // --- exposedNames ---

    void exposedNames_data()
    {
        QTest::addColumn<bool>("plain");
        QTest::addColumn<QStringList>("entries"); // "own|prefixed", in the order given
        QTest::addColumn<QStringList>("expected");

        const QStringList twoEchoes{u"echo|a__echo"_s, u"echo|b__echo"_s, u"add|a__add"_s};
        QTest::newRow("prefixed") << false << twoEchoes << QStringList{u"a__echo"_s, u"b__echo"_s, u"a__add"_s};
        QTest::newRow("prefixed, unique names too")
            << false << QStringList{u"echo|a__echo"_s, u"add|b__add"_s} << QStringList{u"a__echo"_s, u"b__add"_s};
        QTest::newRow("plain where unique") << true << QStringList{u"echo|a__echo"_s, u"add|b__add"_s}
                                            << QStringList{u"echo"_s, u"add"_s};
        QTest::newRow("two servers' same name both prefixed")
            << true << twoEchoes << QStringList{u"a__echo"_s, u"b__echo"_s, u"add"_s};
        QTest::newRow("the same name three times")
            << true << QStringList{u"x|a__x"_s, u"x|b__x"_s, u"x|c__x"_s} << QStringList{u"a__x"_s, u"b__x"_s, u"c__x"_s};
        QTest::newRow("a plain name that is another entry's prefixed name falls back")
            << true << QStringList{u"b__x|a__b__x"_s, u"x|b__x"_s} << QStringList{u"a__b__x"_s, u"x"_s};
        QTest::newRow("... whichever comes first")
            << true << QStringList{u"x|b__x"_s, u"b__x|a__b__x"_s} << QStringList{u"x"_s, u"a__b__x"_s};
        QTest::newRow("... and when that entry is prefixed itself")
            << true << QStringList{u"a__echo|c__a__echo"_s, u"echo|a__echo"_s, u"echo|b__echo"_s}
            << QStringList{u"c__a__echo"_s, u"a__echo"_s, u"b__echo"_s};
        QTest::newRow("none") << true << QStringList{} << QStringList{};
    }

    void exposedNames()
    {
        QFETCH(bool, plain);
        QFETCH(QStringList, entries);
        QFETCH(QStringList, expected);
        QList<NamedEntry> named;
        for (const QString &entry : std::as_const(entries))
            named.append({entry.section(u'|', 0, 0), entry.section(u'|', 1)});
        const QStringList exposed = Tether::exposedNames(plain ? GatewayNames::Plain : GatewayNames::Prefixed, named);
        QCOMPARE(exposed, expected);
        // Whatever the names, no two entries share one.
        QCOMPARE(QSet<QString>(exposed.cbegin(), exposed.cend()).size(), exposed.size());
    }

    // --- ToolCatalog with plain names ---

    void toolCatalogWithPlainNames()
    {
        const QList<RegisteredTool> tools{tool(u"github"_s, u"search"_s), tool(u"fs"_s, u"search"_s),
                                          tool(u"fs"_s, u"read"_s), tool(u"git"_s, u"status"_s)};
        const ToolCatalog catalog(tools, {}, GatewayNames::Plain);
        QCOMPARE(toolNames(catalog), (QStringList{u"fs__search"_s, u"github__search"_s, u"read"_s, u"status"_s}));
        const ExposedTool *read = catalog.find(u"read"_s);
        QVERIFY(read);
        QCOMPARE(read->serverName, u"fs"_s);
        QCOMPARE(read->toolName, u"read"_s);
        const QJsonObject json = QJsonDocument::fromJson(read->json).object();
        QCOMPARE(json.value(u"name").toString(), u"read"_s);
        QCOMPARE(json.value(u"description").toString(), u"The tool read"_s);
        QVERIFY(!catalog.find(u"fs__read"_s));
        const ExposedTool *search = catalog.find(u"github__search"_s);
        QVERIFY(search);
        QCOMPARE(search->toolName, u"search"_s);
        QCOMPARE(QJsonDocument::fromJson(search->json).object().value(u"name").toString(), u"github__search"_s);
        // The same tools prefixed are another set for hosts.
        QVERIFY(ToolCatalog(tools, {}, GatewayNames::Prefixed).fingerprint() != catalog.fingerprint());
    }

    void aHiddenToolLeavesItsNameToTheOtherServer()
    {
        const QList<RegisteredTool> tools{tool(u"github"_s, u"search"_s), tool(u"fs"_s, u"search"_s)};
        const ToolCatalog catalog(tools, {{u"github"_s, {u"search"_s}}}, GatewayNames::Plain);
        QCOMPARE(toolNames(catalog), (QStringList{u"search"_s}));
        QCOMPARE(catalog.find(u"search"_s)->serverName, u"fs"_s);
    }

    // --- PromptCatalog ---

    void promptCatalogNamesAndSorts_data()
    {
        QTest::addColumn<bool>("plain");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("prefixed") << false
                                  << QStringList{u"fs__summarize"_s, u"github__review"_s, u"github__summarize"_s};
        QTest::newRow("plain") << true << QStringList{u"fs__summarize"_s, u"github__summarize"_s, u"review"_s};
    }

    void promptCatalogNamesAndSorts()
    {
        QFETCH(bool, plain);
        QFETCH(QStringList, expected);
        const PromptCatalog catalog({{u"github"_s, prompts({prompt(u"summarize"_s), prompt(u"review"_s)})},
                                     {u"fs"_s, prompts({prompt(u"summarize"_s)})}},
                                    plain ? GatewayNames::Plain : GatewayNames::Prefixed);
        QCOMPARE(promptNames(catalog), expected);
        const ExposedPrompt *review = catalog.find(plain ? u"review"_s : u"github__review"_s);
        QVERIFY(review);
        QCOMPARE(review->serverName, u"github"_s);
        QCOMPARE(review->promptName, u"review"_s);
        const ExposedPrompt *summarize = catalog.find(u"fs__summarize"_s);
        QVERIFY(summarize);
        QCOMPARE(summarize->serverName, u"fs"_s);
        QCOMPARE(summarize->promptName, u"summarize"_s);
        QVERIFY(!catalog.find(u"summarize"_s));
        QVERIFY(!catalog.find(u"none__such"_s));
    }

    void aPromptsJsonIsTheServersWithTheNameReplaced()
    {
        const PromptDefinition own = prompt(u"review"_s, u"Review a change"_s);
        const PromptCatalog catalog({{u"github"_s, prompts({own})}}, GatewayNames::Prefixed);
        QCOMPARE(catalog.prompts().size(), size_t(1));
        QJsonObject expected = own.raw;
        expected.insert(u"name"_s, u"github__review"_s);
        QCOMPARE(QJsonDocument::fromJson(catalog.prompts().front().json).object(), expected);
        QVERIFY(!catalog.prompts().front().json.contains('\n'));
    }

    void promptFingerprintFollowsWhatHostsSee()
    {
        const QList<std::pair<QString, ServerCatalog>> servers{{u"github"_s, prompts({prompt(u"review"_s)})}};
        const PromptCatalog catalog(servers, GatewayNames::Prefixed);
        QCOMPARE(PromptCatalog(servers, GatewayNames::Prefixed).fingerprint(), catalog.fingerprint());
        QVERIFY(!catalog.fingerprint().isEmpty());
        // Another description, another name, another server: hosts see something else.
        QVERIFY(PromptCatalog({{u"github"_s, prompts({prompt(u"review"_s, u"Other"_s)})}}, GatewayNames::Prefixed).fingerprint()
                != catalog.fingerprint());
        QVERIFY(PromptCatalog(servers, GatewayNames::Plain).fingerprint() != catalog.fingerprint());
        QVERIFY(PromptCatalog({{u"gitlab"_s, prompts({prompt(u"review"_s)})}}, GatewayNames::Prefixed).fingerprint()
                != catalog.fingerprint());
        QVERIFY(PromptCatalog({{u"github"_s, prompts({prompt(u"review"_s), prompt(u"triage"_s)})}}, GatewayNames::Prefixed)
                    .fingerprint()
                != catalog.fingerprint());
        // A server with no prompts adds nothing a host sees.
        QCOMPARE(PromptCatalog({{u"github"_s, prompts({prompt(u"review"_s)})}, {u"fs"_s, ServerCatalog{}}},
                               GatewayNames::Prefixed)
                     .fingerprint(),
                 catalog.fingerprint());
        QVERIFY(PromptCatalog({}, GatewayNames::Prefixed).fingerprint() != catalog.fingerprint());
    }

    // Two servers whose names sanitise alike would give a prompt the same public name: the first
    // in the config keeps it.
    void theFirstServerKeepsAPublicNameTwoWouldShare_data()
    {
        QTest::addColumn<QString>("first");
        QTest::addColumn<QString>("second");
        QTest::newRow("my.srv first") << u"my.srv"_s << u"my_srv"_s;
        QTest::newRow("my_srv first") << u"my_srv"_s << u"my.srv"_s;
    }

    void theFirstServerKeepsAPublicNameTwoWouldShare()
    {
        QFETCH(QString, first);
        QFETCH(QString, second);
        const PromptCatalog catalog({{first, prompts({prompt(u"greet"_s)})}, {second, prompts({prompt(u"greet"_s)})}},
                                    GatewayNames::Prefixed);
        QCOMPARE(promptNames(catalog), (QStringList{u"my_srv__greet"_s}));
        QCOMPARE(catalog.find(u"my_srv__greet"_s)->serverName, first);
    }

    // --- ResourceCatalog ---

    void resourcesAreSortedByUriAndTheFirstServerKeepsAUriTwoList()
    {
        const ResourceCatalog catalog({{u"a"_s, resources({u"file:///b.txt"_s, u"demo://x"_s}, {u"demo://items/{id}"_s})},
                                       {u"b"_s, resources({u"demo://x"_s, u"file:///a.txt"_s},
                                                          {u"notes://{+path}"_s, u"demo://items/{id}"_s})}});
        QCOMPARE(uris(catalog), (QStringList{u"demo://x"_s, u"file:///a.txt"_s, u"file:///b.txt"_s}));
        QCOMPARE(catalog.resources().at(0).serverName, u"a"_s);
        QCOMPARE(catalog.resources().at(1).serverName, u"b"_s);
        QCOMPARE(catalog.resources().at(2).serverName, u"a"_s);
        QCOMPARE(templateUris(catalog), (QStringList{u"demo://items/{id}"_s, u"notes://{+path}"_s}));
        QCOMPARE(catalog.templates().at(0).serverName, u"a"_s);
        QCOMPARE(catalog.templates().at(1).serverName, u"b"_s);
        QCOMPARE(catalog.shadowed().size(), 2);
        QVERIFY2(catalog.shadowed().at(0).contains(u"demo://x"_s) && catalog.shadowed().at(0).contains(u"'a'"_s)
                     && catalog.shadowed().at(0).contains(u"'b'"_s),
                 qPrintable(catalog.shadowed().join(u"; "_s)));
        QCOMPARE(catalog.shadowed().at(0), u"the resource demo://x is listed by 'a' and 'b'; 'a' serves it"_s);
        QVERIFY(catalog.shadowed().at(1).contains(u"demo://items/{id}"_s));
        // Each entry is the server's own, compact.
        QCOMPARE(QJsonDocument::fromJson(catalog.resources().front().json).object(), resource(u"demo://x"_s).raw);
        QCOMPARE(QJsonDocument::fromJson(catalog.templates().front().json).object(),
                 resourceTemplate(u"demo://items/{id}"_s).raw);
    }

    void nothingShadowedWhenEachUriIsListedOnce()
    {
        const ResourceCatalog catalog({{u"a"_s, resources({u"demo://1"_s})}, {u"b"_s, resources({u"demo://2"_s})}});
        QVERIFY(catalog.shadowed().isEmpty());
    }

    void serverFor_data()
    {
        QTest::addColumn<QString>("uri");
        QTest::addColumn<QString>("server");
        QTest::newRow("listed by a") << u"file:///b.txt"_s << u"a"_s;
        QTest::newRow("listed by both: a, first in the config") << u"demo://x"_s << u"a"_s;
        QTest::newRow("listed by b alone") << u"file:///a.txt"_s << u"b"_s;
        QTest::newRow("a's template {var}") << u"demo://items/42"_s << u"a"_s;
        QTest::newRow("b's template {+var}") << u"notes://deep/down/x.md"_s << u"b"_s;
        QTest::newRow("b's template {/var}") << u"tree://root/a/b"_s << u"b"_s;
        QTest::newRow("b's template {?q}") << u"search://find?q=tether&limit=3"_s << u"b"_s;
        QTest::newRow("b's template {?q}, no query") << u"search://find"_s << u"b"_s;
        QTest::newRow("{var} takes no slash") << u"demo://items/4/2"_s << QString();
        QTest::newRow("nobody's, two servers offer resources") << u"other://z"_s << QString();
        QTest::newRow("an empty uri") << QString() << QString();
    }

    void serverFor()
    {
        QFETCH(QString, uri);
        QFETCH(QString, server);
        const ResourceCatalog catalog(
            {{u"a"_s, resources({u"file:///b.txt"_s, u"demo://x"_s}, {u"demo://items/{id}"_s})},
             {u"b"_s, resources({u"demo://x"_s, u"file:///a.txt"_s},
                                {u"notes://{+path}"_s, u"tree://root{/segments}"_s, u"search://find{?q,limit}"_s})},
             {u"c"_s, ServerCatalog{}}});
        QCOMPARE(catalog.serverFor(uri), server);
    }

    // Two servers' templates match a URI: the first in the config serves it, whatever the sorted
    // order of the list.
    void theFirstServersTemplateServesAUriBothMatch()
    {
        const ResourceCatalog catalog({{u"a"_s, resources({}, {u"demo://{+rest}"_s})},
                                       {u"b"_s, resources({}, {u"demo://items/{id}"_s})}});
        QCOMPARE(templateUris(catalog), (QStringList{u"demo://items/{id}"_s, u"demo://{+rest}"_s}));
        QCOMPARE(catalog.serverFor(u"demo://items/1"_s), u"a"_s);
        const ResourceCatalog reversed({{u"b"_s, resources({}, {u"demo://items/{id}"_s})},
                                        {u"a"_s, resources({}, {u"demo://{+rest}"_s})}});
        QCOMPARE(reversed.serverFor(u"demo://items/1"_s), u"b"_s);
        QCOMPARE(reversed.serverFor(u"demo://other/1"_s), u"a"_s);
    }

    void theOnlyResourceServerServesWhatNobodyLists()
    {
        ServerCatalog promptsOnly = prompts({prompt(u"p"_s)});
        const ResourceCatalog catalog({{u"fs"_s, resources({})}, {u"github"_s, promptsOnly}});
        QCOMPARE(catalog.serverFor(u"file:///anything"_s), u"fs"_s);
        QCOMPARE(catalog.serverFor(u"x"_s), u"fs"_s);
        // A server that lists resources without offering them does not count as one.
        ServerCatalog unoffered = resources({u"demo://listed"_s});
        unoffered.offersResources = false;
        const ResourceCatalog two({{u"fs"_s, resources({})}, {u"odd"_s, unoffered}});
        QCOMPARE(two.serverFor(u"file:///anything"_s), u"fs"_s);
        QCOMPARE(two.serverFor(u"demo://listed"_s), u"odd"_s);
        QCOMPARE(ResourceCatalog().serverFor(u"file:///anything"_s), QString());
        QCOMPARE(ResourceCatalog({{u"github"_s, promptsOnly}}).serverFor(u"file:///anything"_s), QString());
    }

    void serverForTemplate()
    {
        const ResourceCatalog catalog({{u"a"_s, resources({u"demo://x"_s}, {u"demo://items/{id}"_s})},
                                       {u"b"_s, resources({}, {u"notes://{+path}"_s, u"demo://items/{id}"_s})}});
        QCOMPARE(catalog.serverForTemplate(u"demo://items/{id}"_s), u"a"_s);
        QCOMPARE(catalog.serverForTemplate(u"notes://{+path}"_s), u"b"_s);
        QCOMPARE(catalog.serverForTemplate(u"notes://{path}"_s), QString());
        QCOMPARE(catalog.serverForTemplate(u"demo://x"_s), QString()); // a resource, not a template
        QCOMPARE(catalog.serverForTemplate(QString()), QString());
    }

    void resourceFingerprintFollowsWhatHostsSee()
    {
        const QList<std::pair<QString, ServerCatalog>> servers{{u"a"_s, resources({u"demo://x"_s}, {u"demo://{id}"_s})}};
        const ResourceCatalog catalog(servers);
        QCOMPARE(ResourceCatalog(servers).fingerprint(), catalog.fingerprint());
        QVERIFY(ResourceCatalog({{u"b"_s, resources({u"demo://x"_s}, {u"demo://{id}"_s})}}).fingerprint()
                != catalog.fingerprint());
        QVERIFY(ResourceCatalog({{u"a"_s, resources({u"demo://y"_s}, {u"demo://{id}"_s})}}).fingerprint()
                != catalog.fingerprint());
        QVERIFY(ResourceCatalog({{u"a"_s, resources({u"demo://x"_s}, {u"demo://{key}"_s})}}).fingerprint()
                != catalog.fingerprint());
        ServerCatalog described = resources({}, {u"demo://{id}"_s});
        described.resources.append(resource(u"demo://x"_s, u"Described otherwise"_s));
        QVERIFY(ResourceCatalog({{u"a"_s, described}}).fingerprint() != catalog.fingerprint());
    }

    void uriTemplateMatches_data()
    {
        QTest::addColumn<QString>("uriTemplate");
        QTest::addColumn<QString>("uri");
        QTest::addColumn<bool>("matches");
        QTest::newRow("{var}") << u"demo://items/{id}"_s << u"demo://items/42"_s << true;
        QTest::newRow("{var}, empty") << u"demo://items/{id}"_s << u"demo://items/"_s << true;
        QTest::newRow("{var} takes no slash") << u"demo://items/{id}"_s << u"demo://items/4/2"_s << false;
        QTest::newRow("{var} takes no query") << u"demo://items/{id}"_s << u"demo://items/42?x=1"_s << false;
        QTest::newRow("{var} takes no fragment") << u"demo://items/{id}"_s << u"demo://items/42#top"_s << false;
        QTest::newRow("{var}, another prefix") << u"demo://items/{id}"_s << u"demo://other/42"_s << false;
        QTest::newRow("two {var}") << u"gh://{owner}/{repo}/issues/{n}"_s << u"gh://me/tether/issues/3"_s << true;
        QTest::newRow("two {var}, one missing") << u"gh://{owner}/{repo}/issues/{n}"_s << u"gh://me/issues/3"_s << false;
        QTest::newRow("{+var} takes slashes") << u"file:///{+path}"_s << u"file:///home/me/x.txt"_s << true;
        // Reserved expansion passes reserved characters, '?' and '#' among them (RFC 6570 3.2.3).
        QTest::newRow("{+var} takes reserved characters") << u"file:///{+path}"_s << u"file:///home/me/x.txt?v=2"_s << true;
        QTest::newRow("{+var} takes a fragment") << u"notes://{+path}"_s << u"notes://a/b#c"_s << true;
        QTest::newRow("{/var}") << u"tree://root{/segments}"_s << u"tree://root/a/b"_s << true;
        QTest::newRow("{/var}, none") << u"tree://root{/segments}"_s << u"tree://root"_s << true;
        QTest::newRow("{/var} needs its slash") << u"tree://root{/segments}"_s << u"tree://rootx"_s << false;
        QTest::newRow("{?q}") << u"search://find{?q}"_s << u"search://find?q=tether"_s << true;
        QTest::newRow("{?q,limit}") << u"search://find{?q,limit}"_s << u"search://find?q=x&limit=3"_s << true;
        QTest::newRow("{?q}, none") << u"search://find{?q}"_s << u"search://find"_s << true;
        QTest::newRow("{?q} is no path") << u"search://find{?q}"_s << u"search://find/x"_s << false;
        QTest::newRow("{#var}") << u"doc://page{#section}"_s << u"doc://page#intro"_s << true;
        QTest::newRow("{.var}") << u"file:///report{.ext}"_s << u"file:///report.pdf"_s << true;
        QTest::newRow("literal") << u"demo://fixed"_s << u"demo://fixed"_s << true;
        QTest::newRow("literal, longer uri") << u"demo://fixed"_s << u"demo://fixedx"_s << false;
        QTest::newRow("literal, shorter uri") << u"demo://fixed"_s << u"demo://fix"_s << false;
        QTest::newRow("a dot is a dot") << u"demo://a.b/{id}"_s << u"demo://aXb/1"_s << false;
        QTest::newRow("regex characters are literal") << u"demo://(x)+/{id}"_s << u"demo://(x)+/1"_s << true;
        QTest::newRow("an unclosed brace is literal") << u"demo://{oops"_s << u"demo://{oops"_s << true;
    }

    void uriTemplateMatches()
    {
        QFETCH(QString, uriTemplate);
        QFETCH(QString, uri);
        QFETCH(bool, matches);
        QCOMPARE(Tether::uriTemplateMatches(uriTemplate, uri), matches);
    }

    // --- Pages of the lists ---

    void resourcePagesCoverEveryUriOnce_data()
    {
        QTest::addColumn<int>("pageSize");
        QTest::addColumn<int>("pages");
        QTest::newRow("1") << 1 << 5;
        QTest::newRow("2") << 2 << 3;
        QTest::newRow("5") << 5 << 1;
        QTest::newRow("6") << 6 << 1;
        QTest::newRow("0 counts as 1") << 0 << 5;
    }

    void resourcePagesCoverEveryUriOnce()
    {
        QFETCH(int, pageSize);
        QFETCH(int, pages);
        const ResourceCatalog catalog({{u"a"_s, resources({u"demo://e"_s, u"demo://a"_s, u"demo://c"_s})},
                                       {u"b"_s, resources({u"demo://b"_s, u"demo://d"_s})}});
        QJsonObject params;
        QStringList seen;
        int read = 0;
        for (;;) {
            const HostListPage page = listPage("resources", u"resources", catalog.resources(), uriOf, params, pageSize);
            QVERIFY(!page.error);
            QJsonParseError parseError;
            const QJsonObject result = QJsonDocument::fromJson(page.result, &parseError).object();
            QCOMPARE(parseError.error, QJsonParseError::NoError);
            QVERIFY(result.value(u"resources").isArray());
            for (const QJsonValue &entry : result.value(u"resources").toArray())
                seen.append(entry.toObject().value(u"uri").toString());
            ++read;
            QVERIFY(read <= 10);
            if (!result.contains(u"nextCursor"))
                break;
            QVERIFY(result.value(u"nextCursor").isString());
            params = {{u"cursor"_s, result.value(u"nextCursor")}};
        }
        QCOMPARE(seen, (QStringList{u"demo://a"_s, u"demo://b"_s, u"demo://c"_s, u"demo://d"_s, u"demo://e"_s}));
        QCOMPARE(read, pages);
    }

    void aResourcePagesCursorStaysPutWhileResourcesChange()
    {
        const ResourceCatalog before({{u"a"_s, resources({u"demo://a"_s, u"demo://b"_s, u"demo://c"_s, u"demo://d"_s})}});
        const HostListPage first = listPage("resources", u"resources", before.resources(), uriOf, {}, 2);
        const QJsonValue cursor = QJsonDocument::fromJson(first.result).object().value(u"nextCursor");
        QVERIFY(cursor.isString());
        // demo://b, the last of the first page, is gone and demo://bb came.
        const ResourceCatalog after({{u"a"_s, resources({u"demo://a"_s, u"demo://bb"_s, u"demo://c"_s, u"demo://d"_s})}});
        const HostListPage next = listPage("resources", u"resources", after.resources(), uriOf, {{u"cursor"_s, cursor}}, 2);
        QVERIFY(!next.error);
        QStringList seen;
        for (const QJsonValue &entry : QJsonDocument::fromJson(next.result).object().value(u"resources").toArray())
            seen.append(entry.toObject().value(u"uri").toString());
        QCOMPARE(seen, (QStringList{u"demo://bb"_s, u"demo://c"_s}));
    }

    void templatePagesUseTheirOwnMember()
    {
        const ResourceCatalog catalog({{u"a"_s, resources({}, {u"demo://{b}"_s, u"demo://{a}"_s, u"demo://{c}"_s})}});
        const HostListPage first
            = listPage("resourceTemplates", u"resource templates", catalog.templates(), uriTemplateOf, {}, 2);
        QVERIFY(!first.error);
        const QJsonObject result = QJsonDocument::fromJson(first.result).object();
        QCOMPARE(result.value(u"resourceTemplates").toArray().size(), 2);
        QCOMPARE(result.value(u"resourceTemplates").toArray().at(0).toObject().value(u"uriTemplate").toString(),
                 u"demo://{a}"_s);
        QVERIFY(!result.contains(u"resources"));
        const HostListPage last = listPage("resourceTemplates", u"resource templates", catalog.templates(), uriTemplateOf,
                                           {{u"cursor"_s, result.value(u"nextCursor")}}, 2);
        const QJsonObject lastResult = QJsonDocument::fromJson(last.result).object();
        QCOMPARE(lastResult.value(u"resourceTemplates").toArray().size(), 1);
        QVERIFY(!lastResult.contains(u"nextCursor"));
    }

    void anEmptyListIsOnePageWithoutCursor()
    {
        const ResourceCatalog catalog;
        const HostListPage page = listPage("resources", u"resources", catalog.resources(), uriOf, {}, 10);
        QVERIFY(!page.error);
        QCOMPARE(QJsonDocument::fromJson(page.result).object(), (QJsonObject{{u"resources"_s, QJsonArray{}}}));
    }

    void invalidCursors_data()
    {
        QTest::addColumn<QJsonValue>("cursor");
        QTest::newRow("not base64") << QJsonValue(u"%%"_s);
        QTest::newRow("empty") << QJsonValue(u""_s);
        QTest::newRow("a number") << QJsonValue(5);
        QTest::newRow("an object") << QJsonValue(QJsonObject{{u"after"_s, u"demo://a"_s}});
        QTest::newRow("padded base64") << QJsonValue(u"ZGVtbzovL2E="_s);
        QTest::newRow("standard base64, not URL-safe") << QJsonValue(u"+/+/"_s);
    }

    void invalidCursors()
    {
        QFETCH(QJsonValue, cursor);
        const ResourceCatalog catalog({{u"a"_s, resources({u"demo://a"_s, u"demo://b"_s})}});
        const HostListPage page
            = listPage("resources", u"resources", catalog.resources(), uriOf, {{u"cursor"_s, cursor}}, 1);
        QVERIFY(page.error);
        QVERIFY(page.result.isEmpty());
        QCOMPARE(page.error->code, int(JsonRpc::InvalidParams));
        QVERIFY2(page.error->message.contains(u"list the resources from the start"_s), qPrintable(page.error->message));
        std::optional<JsonRpc::Error> error;
        QVERIFY(!cursorOf({{u"cursor"_s, cursor}}, u"prompts", &error));
        QVERIFY(error);
        QVERIFY(error->message.contains(u"prompts"_s));
    }

    void noCursorIsTheStart_data()
    {
        QTest::addColumn<QJsonObject>("params");
        QTest::newRow("none") << QJsonObject{};
        QTest::newRow("null") << QJsonObject{{u"cursor"_s, QJsonValue::Null}};
    }

    void noCursorIsTheStart()
    {
        QFETCH(QJsonObject, params);
        std::optional<JsonRpc::Error> error;
        QVERIFY(!cursorOf(params, u"resources", &error));
        QVERIFY(!error);
        QCOMPARE(cursorOf({{u"cursor"_s, cursorAfter(u"demo://a"_s)}}, u"resources", &error).value_or(QString()),
                 u"demo://a"_s);
        QVERIFY(!error);
    }

    // --- What the gateway declares ---

    void gatewayCapabilities_data()
    {
        QTest::addColumn<QList<QJsonObject>>("servers");
        QTest::addColumn<QStringList>("offered");
        const QJsonObject empty;
        const QStringList all{u"completions"_s, u"logging"_s, u"prompts"_s, u"resources"_s, u"tasks"_s, u"tools"_s};
        QTest::newRow("no servers") << QList<QJsonObject>{} << QStringList{u"tools"_s};
        QTest::newRow("a server not known yet") << QList<QJsonObject>{empty} << all;
        QTest::newRow("tools alone") << QList<QJsonObject>{{{u"tools"_s, empty}}} << QStringList{u"tools"_s};
        QTest::newRow("resources") << QList<QJsonObject>{{{u"resources"_s, QJsonObject{{u"subscribe"_s, false}}}}}
                                   << QStringList{u"resources"_s, u"tools"_s};
        QTest::newRow("prompts") << QList<QJsonObject>{{{u"prompts"_s, empty}}} << QStringList{u"prompts"_s, u"tools"_s};
        QTest::newRow("completions") << QList<QJsonObject>{{{u"completions"_s, empty}}}
                                     << QStringList{u"completions"_s, u"tools"_s};
        QTest::newRow("logging") << QList<QJsonObject>{{{u"logging"_s, empty}}} << QStringList{u"logging"_s, u"tools"_s};
        QTest::newRow("tasks") << QList<QJsonObject>{{{u"tasks"_s, empty}}} << QStringList{u"tasks"_s, u"tools"_s};
        QTest::newRow("two servers, each something")
            << QList<QJsonObject>{{{u"resources"_s, empty}}, {{u"prompts"_s, empty}, {u"logging"_s, empty}}}
            << QStringList{u"logging"_s, u"prompts"_s, u"resources"_s, u"tools"_s};
        QTest::newRow("one known, one not") << QList<QJsonObject>{{{u"tools"_s, empty}}, empty} << all;
    }

    void gatewayCapabilities()
    {
        QFETCH(QList<QJsonObject>, servers);
        QFETCH(QStringList, offered);
        const QJsonObject capabilities = Tether::gatewayCapabilities(servers);
        QStringList keys = capabilities.keys();
        keys.sort();
        QCOMPARE(keys, offered);
        QCOMPARE(capabilities.value(u"tools").toObject(), (QJsonObject{{u"listChanged"_s, true}}));
        if (offered.contains(u"resources"_s))
            QCOMPARE(capabilities.value(u"resources").toObject(),
                     (QJsonObject{{u"subscribe"_s, true}, {u"listChanged"_s, true}}));
        if (offered.contains(u"prompts"_s))
            QCOMPARE(capabilities.value(u"prompts").toObject(), (QJsonObject{{u"listChanged"_s, true}}));
        if (offered.contains(u"completions"_s))
            QCOMPARE(capabilities.value(u"completions").toObject(), QJsonObject());
        if (offered.contains(u"logging"_s))
            QCOMPARE(capabilities.value(u"logging").toObject(), QJsonObject());
        if (offered.contains(u"tasks"_s)) {
            const QJsonObject tasks = capabilities.value(u"tasks").toObject();
            QVERIFY(tasks.value(u"list").isObject());
            QVERIFY(tasks.value(u"cancel").isObject());
            QVERIFY(tasks.value(u"requests").toObject().value(u"tools").toObject().value(u"call").isObject());
        }
    }
};

QTEST_GUILESS_MAIN(TestGatewayFeatures)
#include "tst_gatewayfeatures.moc"
