// What Tether's gateway carries besides tools (MCP 2025-11-25), as hosts made of the official
// TypeScript SDK client see it through `tetherctl serve` over stdio and over HTTP:
// - with server-everything behind it: resources (lists, templates, reads, a resource_link read
//   back, subscriptions and their updates), prompts, completion, log levels and log messages,
//   sampling, elicitation in form and URL mode and the -32042 error, roots, and a task that needs
//   an elicitation, each host seeing its own tasks only and cancelling only its own; a resource the
//   server adds while it runs
//   (resources/list_changed, listed and read through the gateway);
// - with the demo server: a server's requests go to the host whose call asked for them, never to
//   another; two hosts with calls in flight on one shared server leave its request refused with
//   both named; a perHost server gives each host a session that asks it alone; a request outside
//   any call; a malformed one; more than 32 waiting; a host that leaves while it is asked; a
//   server that never answers a call once its host answered.
#include "support/gatewayfixtures.h"
#include "support/httpgatewayprocess.h"
#include "support/sdkhost.h"
#include "support/testfiles.h"
#include "support/testprocess.h"

#include <QDeadlineTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

// Everything a host of these tests declares.
const QStringList AllFeatures{u"sampling"_s, u"elicitation"_s, u"elicitation-url"_s, u"roots"_s};

// `tetherctl serve --http -v` on a free port, on a config of its own in a folder of its own (which
// is also its runtime folder: hosts started with relayedHost() relay to it), and what it said on
// stderr (the servers' stderr among it).
class HttpGateway final
{
public:
    explicit HttpGateway(const QByteArray &config)
        : m_configPath(m_dir.isValid() ? writeServersFile(m_dir, config) : QString())
        , m_process(m_configPath, m_dir.path())
    {
    }

    bool isServing() const { return m_dir.isValid() && m_process.isServing(); }
    QString stderrText() const { return QString::fromUtf8(m_process.stderrText()); }
    bool stderrContains(const QString &text) const { return m_process.stderrContains(text); }

    // A host over Streamable HTTP, connected (or not: see its events).
    std::unique_ptr<SdkHost> httpHost(const SdkHostOptions &options) const
    {
        auto host = std::make_unique<SdkHost>(options, u"--http"_s,
                                              QStringList{m_process.url, QString::fromLatin1(m_process.token)});
        (void)host->waitForEvent(u"connected"_s, {}, 60000);
        return host;
    }
    // A host that starts `tetherctl serve` over stdio on the same config, which relays it to this
    // gateway over its socket.
    std::unique_ptr<SdkHost> relayedHost(const SdkHostOptions &options) const
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"XDG_RUNTIME_DIR"_s, m_dir.path());
        auto host = std::make_unique<SdkHost>(options, QStringLiteral(TETHERCTL),
                                              QStringList{u"serve"_s, u"--config"_s, m_configPath}, environment);
        (void)host->waitForEvent(u"connected"_s, {}, 60000);
        return host;
    }

private:
    QTemporaryDir m_dir; // first: the config and the runtime folder are in it
    QString m_configPath;
    HttpGatewayProcess m_process;
};

bool isConnected(const SdkHost &host)
{
    return !host.eventsOf(u"connected"_s).isEmpty();
}

QString fileUri(const QString &path)
{
    return QUrl::fromLocalFile(path).toString(QUrl::FullyEncoded);
}

// Every text of a call's result, one after the other.
QString allText(const QJsonObject &event)
{
    QString text;
    for (const QJsonValue &part : event.value(u"result").toObject().value(u"content").toArray())
        text += part.toObject().value(u"text").toString();
    return text;
}

bool isToolError(const QJsonObject &event)
{
    return event.value(u"result").toObject().value(u"isError").toBool();
}

// The demo server's answers to its asking tools: the outcome of its request `index`.
QJsonObject outcome(const QJsonObject &event, int index = 0)
{
    return event.value(u"result")
        .toObject()
        .value(u"structuredContent")
        .toObject()
        .value(u"outcomes")
        .toArray()
        .at(index)
        .toObject();
}

// A call whose answer (result or rejection) is waited for: a null object when none came.
QJsonObject callAndWait(SdkHost &host, const QString &id, const QString &name, const QJsonObject &arguments = {},
                        int timeoutMs = 30000)
{
    host.send(call(id, name, arguments));
    return host.waitForAnswer(id, timeoutMs).value_or(QJsonObject());
}

QJsonObject answerCommand(const QString &method, const QJsonObject &how)
{
    QJsonObject command = how;
    command.insert(u"op"_s, u"answer"_s);
    command.insert(u"method"_s, method);
    return command;
}

// The server's requests of `method` the host got (Tether's own roots/list to it among them).
QList<QJsonObject> requestsOf(const SdkHost &host, const QString &method)
{
    QList<QJsonObject> requests = host.eventsOf(u"request"_s);
    requests.removeIf([&](const QJsonObject &request) { return request.value(u"method").toString() != method; });
    return requests;
}

// The kind of an event waited for, or nothing.
QString kindOf(const std::optional<QJsonObject> &event)
{
    return event ? event->value(u"event").toString() : QString();
}

// Whether the host gets `tool` listed within the bound: listed again after each list_changed, as
// a slow server's tools may come after the first list (which waits for it only so long).
bool listsTool(SdkHost &host, const QString &tool, int timeoutMs = 60000)
{
    QDeadlineTimer deadline(timeoutMs);
    for (int round = 1; !deadline.hasExpired(); ++round) {
        const qsizetype changes = host.count(u"list_changed"_s);
        if (host.listToolNames(u"tools %1"_s.arg(round), int(std::max<qint64>(deadline.remainingTime(), 1))).contains(tool))
            return true;
        if (!host.waitFor([&](const QJsonObject &) { return host.count(u"list_changed"_s) > changes; },
                          int(std::max<qint64>(deadline.remainingTime(), 1))))
            return false;
    }
    return false;
}

QStringList names(const QJsonArray &entries, const QString &key = u"name"_s)
{
    QStringList found;
    for (const QJsonValue &entry : entries)
        found.append(entry.toObject().value(key).toString());
    return found;
}

} // namespace

class TestGatewayFeatures final : public QObject
{
    Q_OBJECT

private:
    // The demo server three ways: shared by every host (with roots of the config's), a session of
    // its own per host, and one whose calls time out after 1.5 s.
    QByteArray demoConfig() const
    {
        return configText({{u"demo"_s, demoEntry({{u"roots"_s, QJsonArray{m_configRoot}}})},
                           {u"own"_s, demoEntry({{u"perHost"_s, true}})},
                           {u"brief"_s, demoEntry({{u"timeoutMs"_s, 1500}})}});
    }

    QTemporaryDir m_dir;
    QString m_configRoot;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFileInfo::exists(serverEverythingScript()),
                 "server-everything is not installed: run scripts/test.sh (or npm ci in the source folder)");
        QVERIFY2(!serverEverything().program.isEmpty(), "node is not on PATH");
        m_configRoot = m_dir.filePath(u"config-root"_s);
    }

    void everythingThroughTheGateway_data()
    {
        QTest::addColumn<bool>("overHttp");
        QTest::newRow("stdio") << false;
        QTest::newRow("http") << true;
    }

    void everythingThroughTheGateway()
    {
        QFETCH(bool, overHttp);
        QJsonObject everything = everythingEntry();
        everything.insert(u"roots"_s, QJsonArray{m_configRoot});
        everything.insert(u"heartbeat"_s, QJsonObject{{u"enabled"_s, false}});
        const QByteArray config = configText({{u"everything"_s, everything}});
        const QString rootA = fileUri(u"/work/host-a"_s);
        const QString rootB = fileUri(u"/work/host-b"_s);
        const SdkHostOptions optionsA{u"host-a"_s, AllFeatures, {rootA}};

        // Over stdio the host starts `tetherctl serve` itself, in a runtime folder with no instance;
        // over HTTP a second host shows what stays per host.
        std::unique_ptr<HttpGateway> gateway;
        std::unique_ptr<SdkHost> a;
        std::unique_ptr<SdkHost> b;
        QTemporaryDir runtime;
        if (overHttp) {
            gateway = std::make_unique<HttpGateway>(config);
            QVERIFY(gateway->isServing());
            a = gateway->httpHost(optionsA);
            QVERIFY2(isConnected(*a), a->nodeStderr().constData());
            b = gateway->httpHost({u"host-b"_s, AllFeatures, {rootB}});
            QVERIFY2(isConnected(*b), b->nodeStderr().constData());
        } else {
            QVERIFY(runtime.isValid());
            QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
            environment.insert(u"XDG_RUNTIME_DIR"_s, runtime.path());
            a = std::make_unique<SdkHost>(optionsA, QStringLiteral(TETHERCTL),
                                          QStringList{u"serve"_s, u"-v"_s, u"--config"_s,
                                                      writeServersFile(runtime, config)},
                                          environment);
            QVERIFY2(a->waitForEvent(u"connected"_s, {}, 60000), a->nodeStderr().constData());
        }
        const QJsonObject capabilities = a->eventsOf(u"connected"_s).first().value(u"capabilities").toObject();
        QVERIFY(capabilities.value(u"resources").toObject().value(u"subscribe").toBool());
        for (const QString &offered : {u"prompts"_s, u"completions"_s, u"logging"_s, u"tasks"_s})
            QVERIFY2(capabilities.contains(offered), qPrintable(offered));

        // An elicitation of the form tools and of the research task is answered with their fields.
        a->send(answerCommand(u"elicitation/create"_s,
                              {{u"mode"_s, u"form"_s},
                               {u"result"_s, QJsonObject{{u"action"_s, u"accept"_s},
                                                         {u"content"_s, QJsonObject{{u"name"_s, u"Ada"_s},
                                                                                    {u"check"_s, true},
                                                                                    {u"interpretation"_s, u"historical"_s}}}}}}));
        // Listed first, as hosts do: the list waits for the server to start.
        QVERIFY(listsTool(*a, u"everything__simulate-research-query"_s));
        // The task runs for seconds: it starts first, and is looked at last.
        a->send({{u"op"_s, u"task"_s}, {u"id"_s, u"research"_s}, {u"name"_s, u"everything__simulate-research-query"_s},
                 {u"arguments"_s, QJsonObject{{u"topic"_s, u"tethers"_s}, {u"ambiguous"_s, true}}}, {u"ttl"_s, 120000}});
        if (b) {
            b->send({{u"op"_s, u"task"_s}, {u"id"_s, u"plain"_s}, {u"name"_s, u"everything__simulate-research-query"_s},
                     {u"arguments"_s, QJsonObject{{u"topic"_s, u"knots"_s}}}, {u"ttl"_s, 120000}});
        }

        // Roots: the server's roots/list outside any call gets every host's roots and the config's;
        // it asks again when they change, and says how many it got in a log message.
        const auto rootsUpdated = [&](int count) {
            return a->waitFor([&](const QJsonObject &event) {
                const QJsonObject params = event.value(u"params").toObject();
                return event.value(u"event").toString() == u"message"
                       && params.value(u"data").toString() == u"Roots updated: %1 root(s) received from client"_s.arg(count);
            }, 30000);
        };
        const int hostRoots = overHttp ? 2 : 1;
        const auto firstRoots = rootsUpdated(hostRoots + 1);
        const auto messagesOf = [](const SdkHost &host) {
            QStringList data;
            for (const QJsonObject &message : host.eventsOf(u"message"_s))
                data.append(message.value(u"params").toObject().value(u"data").toString());
            return data.join(u" | "_s);
        };
        QVERIFY2(firstRoots, qPrintable(messagesOf(*a)));
        QCOMPARE(firstRoots->value(u"params").toObject().value(u"logger").toString(), u"everything/everything-server"_s);
        const QJsonObject listed = callAndWait(*a, u"roots"_s, u"everything__get-roots-list"_s);
        QVERIFY2(allText(listed).contains(rootA) && allText(listed).contains(fileUri(m_configRoot))
                     && (!overHttp || allText(listed).contains(rootB)),
                 qPrintable(allText(listed)));
        const QString rootA2 = fileUri(u"/work/host-a-too"_s);
        a->send({{u"op"_s, u"roots"_s},
                 {u"roots"_s, QJsonArray{QJsonObject{{u"uri"_s, rootA}, {u"name"_s, u"a"_s}},
                                         QJsonObject{{u"uri"_s, rootA2}, {u"name"_s, u"a too"_s}}}}});
        QVERIFY2(rootsUpdated(hostRoots + 2), qPrintable(messagesOf(*a)));
        QVERIFY2(allText(callAndWait(*a, u"roots again"_s, u"everything__get-roots-list"_s)).contains(rootA2),
                 "the roots the host set since");

        // Resources, templates, and reads: of a listed resource and of the links a tool returns.
        const auto resources = a->ask({{u"op"_s, u"resources"_s}, {u"id"_s, u"resources"_s}}, u"resources"_s);
        QVERIFY(resources && resources->value(u"event").toString() == u"resources");
        const QStringList uris = names(resources->value(u"resources").toArray(), u"uri"_s);
        QVERIFY(!uris.isEmpty());
        for (const QString &uri : uris)
            QVERIFY2(uri.startsWith(u"demo://resource/static/document/"_s), qPrintable(uri));
        const auto templates = a->ask({{u"op"_s, u"templates"_s}, {u"id"_s, u"templates"_s}}, u"templates"_s);
        QVERIFY(templates && templates->value(u"event").toString() == u"templates");
        const QStringList uriTemplates = names(templates->value(u"resourceTemplates").toArray(), u"uriTemplate"_s);
        QVERIFY2(uriTemplates.contains(u"demo://resource/dynamic/text/{resourceId}"_s), qPrintable(uriTemplates.join(u' ')));
        const auto document = a->ask({{u"op"_s, u"read"_s}, {u"id"_s, u"document"_s}, {u"uri"_s, uris.first()}}, u"read"_s);
        QVERIFY(document && document->value(u"event").toString() == u"read");
        const QJsonObject documentContents = document->value(u"result").toObject().value(u"contents").toArray().at(0).toObject();
        QCOMPARE(documentContents.value(u"uri").toString(), uris.first());
        QVERIFY(!documentContents.value(u"text").toString().isEmpty());
        const QJsonObject links = callAndWait(*a, u"links"_s, u"everything__get-resource-links"_s, {{u"count"_s, 2}});
        QStringList linked;
        for (const QJsonValue &part : links.value(u"result").toObject().value(u"content").toArray()) {
            if (part.toObject().value(u"type").toString() == u"resource_link")
                linked.append(part.toObject().value(u"uri").toString());
        }
        QCOMPARE(linked.size(), 2);
        for (const QString &uri : std::as_const(linked)) {
            const auto read = a->ask({{u"op"_s, u"read"_s}, {u"id"_s, uri}, {u"uri"_s, uri}}, u"read"_s);
            QVERIFY2(read && read->value(u"event").toString() == u"read", qPrintable(uri));
            const QJsonObject contents = read->value(u"result").toObject().value(u"contents").toArray().at(0).toObject();
            QCOMPARE(contents.value(u"uri").toString(), uri);
            if (uri.contains(u"/text/"))
                QVERIFY2(contents.value(u"text").toString().startsWith(u"Resource 2: "_s), qPrintable(contents.value(u"text").toString()));
            else
                QVERIFY(!contents.value(u"blob").toString().isEmpty());
        }

        // Prompts and completion, under the gateway's names.
        const auto prompts = a->ask({{u"op"_s, u"prompts"_s}, {u"id"_s, u"prompts"_s}}, u"prompts"_s);
        QVERIFY(prompts && prompts->value(u"event").toString() == u"prompts");
        const QStringList promptNames = names(prompts->value(u"prompts").toArray());
        for (const QString &prompt : {u"everything__simple-prompt"_s, u"everything__args-prompt"_s,
                                      u"everything__completable-prompt"_s, u"everything__resource-prompt"_s})
            QVERIFY2(promptNames.contains(prompt), qPrintable(promptNames.join(u' ')));
        const auto simple = a->ask({{u"op"_s, u"prompt"_s}, {u"id"_s, u"simple"_s}, {u"name"_s, u"everything__simple-prompt"_s}},
                                   u"prompt"_s);
        QVERIFY(simple && simple->value(u"event").toString() == u"prompt");
        QCOMPARE(simple->value(u"result").toObject().value(u"messages").toArray().at(0).toObject().value(u"content")
                     .toObject().value(u"text").toString(),
                 u"This is a simple prompt without arguments."_s);
        const QJsonObject promptRef{{u"type"_s, u"ref/prompt"_s}, {u"name"_s, u"everything__completable-prompt"_s}};
        const auto department = a->ask({{u"op"_s, u"complete"_s}, {u"id"_s, u"department"_s}, {u"ref"_s, promptRef},
                                        {u"argument"_s, QJsonObject{{u"name"_s, u"department"_s}, {u"value"_s, u"E"_s}}}},
                                       u"completion"_s);
        QVERIFY(department && department->value(u"event").toString() == u"completion");
        QCOMPARE(department->value(u"completion").toObject().value(u"values").toArray(), QJsonArray{u"Engineering"_s});
        const auto member = a->ask({{u"op"_s, u"complete"_s}, {u"id"_s, u"member"_s}, {u"ref"_s, promptRef},
                                    {u"argument"_s, QJsonObject{{u"name"_s, u"name"_s}, {u"value"_s, u""_s}}},
                                    {u"context"_s, QJsonObject{{u"arguments"_s, QJsonObject{{u"department"_s, u"Sales"_s}}}}}},
                                   u"completion"_s);
        QVERIFY(member && member->value(u"event").toString() == u"completion");
        QCOMPARE(member->value(u"completion").toObject().value(u"values").toArray(),
                 (QJsonArray{u"David"_s, u"Eve"_s, u"Frank"_s}));

        // Subscriptions: the updated resource reaches the host that subscribed, and no other.
        QCOMPARE(kindOf(a->ask({{u"op"_s, u"subscribe"_s}, {u"id"_s, u"subscribe"_s}, {u"uri"_s, uris.first()}},
                               u"subscribed"_s)),
                 u"subscribed"_s);
        const qsizetype beforeUpdates = a->events().size();
        QVERIFY(!isToolError(callAndWait(*a, u"updates"_s, u"everything__toggle-subscriber-updates"_s)));
        const auto updated = a->waitForEvent(u"resource_updated"_s, {}, 15000, beforeUpdates);
        QVERIFY(updated);
        QCOMPARE(updated->value(u"uri").toString(), uris.first());
        QCOMPARE(kindOf(a->ask({{u"op"_s, u"unsubscribe"_s}, {u"id"_s, u"unsubscribe"_s}, {u"uri"_s, uris.first()}},
                               u"unsubscribed"_s)),
                 u"unsubscribed"_s);
        QVERIFY(!isToolError(callAndWait(*a, u"no updates"_s, u"everything__toggle-subscriber-updates"_s)));

        // Log levels per host: messages reach each host at its own level, under the server's name.
        QCOMPARE(kindOf(a->ask({{u"op"_s, u"setLevel"_s}, {u"id"_s, u"debug"_s}, {u"level"_s, u"debug"_s}}, u"level_set"_s)),
                 u"level_set"_s);
        if (b) {
            QCOMPARE(kindOf(b->ask({{u"op"_s, u"setLevel"_s}, {u"id"_s, u"emergency"_s}, {u"level"_s, u"emergency"_s}},
                                   u"level_set"_s)),
                     u"level_set"_s);
        }
        const qsizetype beforeLogging = a->events().size();
        QVERIFY(!isToolError(callAndWait(*a, u"logging"_s, u"everything__toggle-simulated-logging"_s)));
        // "Debug-level message" … "Alert level-message" …: the simulated ones.
        const auto simulated = [](const QJsonObject &event) {
            static const QRegularExpression levelMessage(u"^\\w+[- ]level[- ]message"_s);
            return event.value(u"event").toString() == u"message"
                   && levelMessage.match(event.value(u"params").toObject().value(u"data").toString()).hasMatch();
        };
        const auto logged = a->waitFor(simulated, 15000, beforeLogging);
        QVERIFY(logged);
        QCOMPARE(logged->value(u"params").toObject().value(u"logger").toString(), u"everything"_s);
        QVERIFY(!isToolError(callAndWait(*a, u"no logging"_s, u"everything__toggle-simulated-logging"_s)));
        for (const QJsonObject &message : a->eventsOf(u"message"_s))
            QVERIFY2(message.value(u"params").toObject().value(u"logger").toString().startsWith(u"everything"_s),
                     qPrintable(message.value(u"params").toObject().value(u"logger").toString()));

        // Sampling, elicitation in form and URL mode, and a URL elicitation required as an error.
        a->send(answerCommand(u"sampling/createMessage"_s,
                              {{u"result"_s, QJsonObject{{u"role"_s, u"assistant"_s},
                                                         {u"content"_s, QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, u"four"_s}}},
                                                         {u"model"_s, u"test-model"_s}}}}));
        qsizetype requestAt = a->events().size();
        const QJsonObject sampled = callAndWait(*a, u"sample"_s, u"everything__trigger-sampling-request"_s,
                                                {{u"prompt"_s, u"What is 2+2?"_s}, {u"maxTokens"_s, 20}});
        QVERIFY2(allText(sampled).contains(u"four"_s), qPrintable(allText(sampled)));
        const auto sampling = a->waitForRequest(u"sampling/createMessage"_s, 0, requestAt);
        QVERIFY(sampling);
        QVERIFY(sampling->value(u"params").toObject().value(u"messages").toArray().at(0).toObject().value(u"content")
                    .toObject().value(u"text").toString().contains(u"What is 2+2?"_s));
        QCOMPARE(sampling->value(u"params").toObject().value(u"maxTokens").toInt(), 20);

        // The research task may ask for its clarification meanwhile: its request names its task.
        const auto elicitation = [&](const QString &mode) {
            return [&, mode](const QJsonObject &event) {
                const QJsonObject params = event.value(u"params").toObject();
                return event.value(u"event").toString() == u"request"
                       && event.value(u"method").toString() == u"elicitation/create"
                       && params.value(u"mode").toString(u"form"_s) == mode
                       && !params.value(u"_meta").toObject().contains(u"io.modelcontextprotocol/related-task"_s);
            };
        };
        requestAt = a->events().size();
        const QJsonObject elicited = callAndWait(*a, u"elicit"_s, u"everything__trigger-elicitation-request"_s);
        QVERIFY2(allText(elicited).contains(u"- Name: Ada"_s), qPrintable(allText(elicited)));
        const auto form = a->waitFor(elicitation(u"form"_s), 0, requestAt);
        QVERIFY(form);
        QVERIFY(form->value(u"params").toObject().value(u"requestedSchema").toObject().value(u"properties").toObject()
                    .contains(u"name"_s));

        requestAt = a->events().size();
        const QJsonObject urlElicited = callAndWait(*a, u"url"_s, u"everything__trigger-url-elicitation"_s,
                                                    {{u"url"_s, u"https://example.com/consent"_s},
                                                     {u"elicitationId"_s, u"consent-1"_s}});
        QVERIFY2(allText(urlElicited).contains(u"User completed the URL elicitation flow"_s), qPrintable(allText(urlElicited)));
        const auto url = a->waitFor(elicitation(u"url"_s), 0, requestAt);
        QVERIFY(url);
        QCOMPARE(url->value(u"params").toObject().value(u"mode").toString(), u"url"_s);
        QCOMPARE(url->value(u"params").toObject().value(u"url").toString(), u"https://example.com/consent"_s);
        QCOMPARE(url->value(u"params").toObject().value(u"elicitationId").toString(), u"consent-1"_s);

        const QJsonObject required = callAndWait(*a, u"required"_s, u"everything__trigger-url-elicitation"_s,
                                                 {{u"url"_s, u"https://example.com/other"_s}, {u"errorPath"_s, true}});
        QCOMPARE(required.value(u"event").toString(), u"rejected"_s);
        QCOMPARE(required.value(u"code").toInt(), -32042);
        const QJsonObject prerequisite = required.value(u"data").toObject().value(u"elicitations").toArray().at(0).toObject();
        QCOMPARE(prerequisite.value(u"mode").toString(), u"url"_s);
        QVERIFY(!prerequisite.value(u"url").toString().isEmpty());

        // The task: its elicitation reached its host, it ended with the answer in its result, and
        // each host lists its own tasks alone.
        const auto research = a->waitForAnswer(u"research"_s, 60000);
        QVERIFY(research);
        QVERIFY2(research->value(u"event").toString() == u"result", qPrintable(research->value(u"message").toString()));
        QVERIFY2(allText(*research).contains(u"historical"_s), qPrintable(allText(*research)));
        const auto created = a->waitForEvent(u"task_created"_s, u"research"_s, 0);
        QVERIFY(created);
        const QString taskId = created->value(u"task").toObject().value(u"taskId").toString();
        QVERIFY2(taskId.startsWith(u"everything__"_s), qPrintable(taskId));
        const auto clarification = a->waitFor([&](const QJsonObject &event) {
            return event.value(u"event").toString() == u"request"
                   && event.value(u"params").toObject().value(u"_meta").toObject().contains(
                       u"io.modelcontextprotocol/related-task"_s);
        }, 0);
        QVERIFY(clarification);
        QCOMPARE(clarification->value(u"params").toObject().value(u"_meta").toObject()
                     .value(u"io.modelcontextprotocol/related-task").toObject().value(u"taskId").toString(),
                 taskId);
        QVERIFY(!a->eventsOf(u"task_status_notification"_s).isEmpty());
        for (const QJsonObject &status : a->eventsOf(u"task_status_notification"_s))
            QCOMPARE(status.value(u"params").toObject().value(u"taskId").toString(), taskId);
        const auto tasksOfA = a->ask({{u"op"_s, u"tasks"_s}, {u"id"_s, u"tasks"_s}}, u"tasks"_s);
        QVERIFY(tasksOfA && tasksOfA->value(u"event").toString() == u"tasks");
        QCOMPARE(names(tasksOfA->value(u"tasks").toArray(), u"taskId"_s), QStringList{taskId});

        if (b) {
            const auto plain = b->waitForAnswer(u"plain"_s, 60000);
            QVERIFY(plain && plain->value(u"event").toString() == u"result");
            const QString taskOfB = b->waitForEvent(u"task_created"_s, u"plain"_s, 0).value_or(QJsonObject())
                                        .value(u"task").toObject().value(u"taskId").toString();
            QVERIFY(!taskOfB.isEmpty());
            QVERIFY(taskOfB != taskId);
            const auto tasksOfB = b->ask({{u"op"_s, u"tasks"_s}, {u"id"_s, u"tasks"_s}}, u"tasks"_s);
            QVERIFY(tasksOfB && tasksOfB->value(u"event").toString() == u"tasks");
            QCOMPARE(names(tasksOfB->value(u"tasks").toArray(), u"taskId"_s), QStringList{taskOfB});
            // What was A's alone stayed A's: its requests, updates, task status, and its log level.
            QCOMPARE(requestsOf(*b, u"sampling/createMessage"_s).size(), 0);
            QCOMPARE(requestsOf(*b, u"elicitation/create"_s).size(), 0);
            QCOMPARE(b->eventsOf(u"resource_updated"_s).size(), 0);
            for (const QJsonObject &status : b->eventsOf(u"task_status_notification"_s))
                QCOMPARE(status.value(u"params").toObject().value(u"taskId").toString(), taskOfB);
            for (const QJsonObject &message : b->eventsOf(u"message"_s)) {
                if (simulated(message))
                    QCOMPARE(message.value(u"params").toObject().value(u"level").toString(), u"emergency"_s);
            }
        }
        QVERIFY2(a->unexpectedClientErrors().isEmpty(), qPrintable(a->unexpectedClientErrors().join(u"; ")));
    }

    // A host that knows the names from before may ask at once, while the servers still start
    // (server-everything's node takes a good part of a second): what it asks of them waits for
    // them, a call as a task, a read, a prompt and a completion as much as a plain call.
    void requestsWhileTheServersStartWaitForThem()
    {
        QTemporaryDir runtime;
        QVERIFY(runtime.isValid());
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"XDG_RUNTIME_DIR"_s, runtime.path());
        SdkHost host(QStringLiteral(TETHERCTL),
                     {u"serve"_s, u"-v"_s, u"--config"_s, writeServersFile(runtime, configText({{u"everything"_s, everythingEntry()}}))},
                     environment);
        QVERIFY2(host.waitForEvent(u"connected"_s, {}, 60000), host.nodeStderr().constData());
        host.send(call(u"plain"_s, u"everything__get-sum"_s, {{u"a"_s, 1}, {u"b"_s, 2}}));
        host.send({{u"op"_s, u"task"_s}, {u"id"_s, u"task"_s}, {u"name"_s, u"everything__simulate-research-query"_s},
                   {u"arguments"_s, QJsonObject{{u"topic"_s, u"early"_s}}}, {u"ttl"_s, 60000}});
        host.send({{u"op"_s, u"read"_s}, {u"id"_s, u"read"_s}, {u"uri"_s, u"demo://resource/dynamic/text/1"_s}});
        host.send({{u"op"_s, u"prompt"_s}, {u"id"_s, u"prompt"_s}, {u"name"_s, u"everything__simple-prompt"_s}});
        host.send({{u"op"_s, u"complete"_s}, {u"id"_s, u"complete"_s},
                   {u"ref"_s, QJsonObject{{u"type"_s, u"ref/prompt"_s}, {u"name"_s, u"everything__completable-prompt"_s}}},
                   {u"argument"_s, QJsonObject{{u"name"_s, u"department"_s}, {u"value"_s, u"E"_s}}}});
        QStringList refused;
        for (const auto &expected : {std::pair{u"plain"_s, u"result"_s}, std::pair{u"task"_s, u"result"_s},
                                     std::pair{u"read"_s, u"read"_s}, std::pair{u"prompt"_s, u"prompt"_s},
                                     std::pair{u"complete"_s, u"completion"_s}}) {
            // Plain names, not structured bindings, which clang 14 cannot capture.
            const QString &id = expected.first;
            const QString &kind = expected.second;
            const auto answer = host.waitFor([&](const QJsonObject &event) {
                const QString got = event.value(u"event").toString();
                return (got == kind || got == u"rejected") && event.value(u"id").toString() == id;
            }, 60000);
            QVERIFY2(answer, qPrintable(id));
            if (answer->value(u"event").toString() == u"rejected")
                refused.append(id + u": "_s + answer->value(u"message").toString());
        }
        QVERIFY2(refused.isEmpty(), qPrintable(refused.join(u"; "_s)));
        QVERIFY(resultText(*host.waitForAnswer(u"plain"_s, 0)).contains(u"3"_s));
        QVERIFY(allText(*host.waitForAnswer(u"task"_s, 0)).contains(u"Research Report: early"_s));
    }

    void eachHostIsAskedForTheCallsItMakes()
    {
        HttpGateway gateway(demoConfig());
        QVERIFY(gateway.isServing());
        auto a = gateway.httpHost({u"host-a"_s, AllFeatures, {fileUri(u"/hosts/a"_s)}});
        QVERIFY2(isConnected(*a), a->nodeStderr().constData());
        auto b = gateway.relayedHost({u"host-b"_s, AllFeatures, {fileUri(u"/hosts/b"_s)}});
        QVERIFY2(isConnected(*b), b->nodeStderr().constData());
        QTRY_VERIFY_WITH_TIMEOUT(gateway.stderrContains(u"host-b 1.0.0 connected over stdio (relayed)"_s), 10000);

        // Each call's request goes to the host that made the call, while the other has none running.
        const QJsonObject sampledByA = callAndWait(*a, u"sample"_s, u"demo__sample"_s, {{u"prompt"_s, u"from A"_s}});
        QCOMPARE(resultText(sampledByA), u"host-a answers: from A"_s);
        const QJsonObject sampledByB = callAndWait(*b, u"sample"_s, u"demo__sample"_s, {{u"prompt"_s, u"from B"_s}});
        QCOMPARE(resultText(sampledByB), u"host-b answers: from B"_s);
        const QJsonObject elicitedByA = callAndWait(*a, u"elicit"_s, u"demo__elicit"_s);
        QVERIFY2(!isToolError(elicitedByA), qPrintable(resultText(elicitedByA)));
        QCOMPARE(outcome(elicitedByA).value(u"result").toObject().value(u"content").toObject().value(u"name").toString(),
                 u"host-a"_s);
        // Roots are the shared session's, whoever's call runs: every host's and the config's.
        const QJsonObject rootsInA = callAndWait(*a, u"roots"_s, u"demo__roots"_s);
        const QStringList shared = names(outcome(rootsInA).value(u"result").toObject().value(u"roots").toArray(), u"uri"_s);
        QCOMPARE(QSet<QString>(shared.cbegin(), shared.cend()),
                 (QSet<QString>{fileUri(u"/hosts/a"_s), fileUri(u"/hosts/b"_s), fileUri(m_configRoot)}));

        // URL mode: the completion comes to the host that was asked, and to no other.
        const QJsonObject urlOfB = callAndWait(*b, u"url"_s, u"demo__elicit-url"_s,
                                               {{u"elicitationId"_s, u"b-consent"_s}, {u"complete"_s, true}});
        QCOMPARE(resultText(urlOfB), u"action: accept"_s);
        const auto urlRequest = b->waitForRequest(u"elicitation/create"_s, 0);
        QVERIFY(urlRequest);
        QCOMPARE(urlRequest->value(u"params").toObject().value(u"mode").toString(), u"url"_s);
        QCOMPARE(urlRequest->value(u"params").toObject().value(u"url").toString(), u"https://example.com/demo-consent"_s);
        const auto completed = b->waitForEvent(u"elicitation_complete"_s, {}, 10000);
        QVERIFY(completed);
        QCOMPARE(completed->value(u"params").toObject().value(u"elicitationId").toString(), u"b-consent"_s);

        const auto prompts = [](const SdkHost &host) {
            QStringList asked;
            for (const QJsonObject &request : host.eventsOf(u"request"_s)) {
                const QJsonArray messages = request.value(u"params").toObject().value(u"messages").toArray();
                if (!messages.isEmpty())
                    asked.append(messages.at(0).toObject().value(u"content").toObject().value(u"text").toString());
            }
            return asked;
        };
        QCOMPARE(prompts(*a), QStringList{u"from A"_s});
        QCOMPARE(prompts(*b), QStringList{u"from B"_s});
        QCOMPARE(requestsOf(*a, u"elicitation/create"_s).size(), 1);
        QCOMPARE(requestsOf(*b, u"elicitation/create"_s).size(), 1);
        QCOMPARE(a->count(u"elicitation_complete"_s), 0);
        QVERIFY2(a->unexpectedClientErrors().isEmpty(), qPrintable(a->unexpectedClientErrors().join(u"; ")));
        QVERIFY2(b->unexpectedClientErrors().isEmpty(), qPrintable(b->unexpectedClientErrors().join(u"; ")));
    }

    void twoHostsInFlightOnASharedServerAreNotGuessedBetween()
    {
        HttpGateway gateway(demoConfig());
        QVERIFY(gateway.isServing());
        auto a = gateway.httpHost({u"host-a"_s, AllFeatures, {}});
        QVERIFY2(isConnected(*a), a->nodeStderr().constData());
        auto b = gateway.relayedHost({u"host-b"_s, AllFeatures, {}});
        QVERIFY2(isConnected(*b), b->nodeStderr().constData());

        a->send(call(u"long"_s, u"demo__sleep"_s, {{u"ms"_s, 60000}}, true));
        QVERIFY(a->waitForEvent(u"progress"_s, u"long"_s));
        const QJsonObject refused = callAndWait(*b, u"sample"_s, u"demo__sample"_s);
        QVERIFY(isToolError(refused));
        const QJsonObject error = outcome(refused).value(u"error").toObject();
        QCOMPARE(error.value(u"code").toInt(), -32603);
        const QString message = error.value(u"message").toString();
        QVERIFY2(message.contains(u"host-a 1.0.0"_s) && message.contains(u"host-b 1.0.0"_s) && message.contains(u"perHost"_s),
                 qPrintable(message));
        QCOMPARE(requestsOf(*a, u"sampling/createMessage"_s).size(), 0);
        QCOMPARE(requestsOf(*b, u"sampling/createMessage"_s).size(), 0);
        a->send({{u"op"_s, u"cancel"_s}, {u"id"_s, u"long"_s}});
        QVERIFY(a->waitForAnswer(u"long"_s));
    }

    void perHostServersGiveEachHostASessionOfItsOwn()
    {
        HttpGateway gateway(demoConfig());
        QVERIFY(gateway.isServing());
        auto a = gateway.httpHost({u"host-a"_s, AllFeatures, {fileUri(u"/hosts/a"_s)}});
        QVERIFY2(isConnected(*a), a->nodeStderr().constData());
        auto b = gateway.relayedHost({u"host-b"_s, AllFeatures, {fileUri(u"/hosts/b"_s)}});
        QVERIFY2(isConnected(*b), b->nodeStderr().constData());

        // Both with calls in flight: each session asks its own host.
        a->send(call(u"long"_s, u"own__sleep"_s, {{u"ms"_s, 60000}}, true));
        b->send(call(u"long"_s, u"own__sleep"_s, {{u"ms"_s, 60000}}, true));
        QVERIFY(a->waitForEvent(u"progress"_s, u"long"_s));
        QVERIFY(b->waitForEvent(u"progress"_s, u"long"_s));
        a->send(call(u"sample"_s, u"own__sample"_s, {{u"prompt"_s, u"own A"_s}}));
        b->send(call(u"sample"_s, u"own__sample"_s, {{u"prompt"_s, u"own B"_s}}));
        const auto sampledByA = a->waitForAnswer(u"sample"_s);
        const auto sampledByB = b->waitForAnswer(u"sample"_s);
        QVERIFY(sampledByA && sampledByB);
        QCOMPARE(resultText(*sampledByA), u"host-a answers: own A"_s);
        QCOMPARE(resultText(*sampledByB), u"host-b answers: own B"_s);
        QTRY_VERIFY_WITH_TIMEOUT(gateway.stderrContains(u"a session of its own for host-a 1.0.0 (perHost)"_s)
                                     && gateway.stderrContains(u"a session of its own for host-b 1.0.0 (perHost)"_s),
                                 10000);

        // Each host's roots reach its own session: in a call, and when the server asks outside any.
        QCOMPARE(resultText(callAndWait(*a, u"roots"_s, u"own__roots"_s)), fileUri(u"/hosts/a"_s) + u" (a)"_s);
        QCOMPARE(resultText(callAndWait(*b, u"roots"_s, u"own__roots"_s)), fileUri(u"/hosts/b"_s) + u" (b)"_s);
        a->send({{u"op"_s, u"cancel"_s}, {u"id"_s, u"long"_s}});
        b->send({{u"op"_s, u"cancel"_s}, {u"id"_s, u"long"_s}});
        QVERIFY(a->waitForAnswer(u"long"_s));
        QVERIFY(b->waitForAnswer(u"long"_s));
        const QString rootB2 = fileUri(u"/hosts/b2"_s);
        b->send({{u"op"_s, u"roots"_s}, {u"roots"_s, QJsonArray{QJsonObject{{u"uri"_s, rootB2}, {u"name"_s, u"b2"_s}}}}});
        QVERIFY(b->waitForEvent(u"roots_set"_s));
        QVERIFY(!isToolError(callAndWait(*b, u"later"_s, u"own__roots"_s, {{u"delayMs"_s, 10}})));
        QTRY_VERIFY_WITH_TIMEOUT(gateway.stderrContains(u"client answered roots/list with result {\"roots\":[{\"name\":\"b2\",\"uri\":\""_s
                                                        + rootB2 + u"\"}]}"_s),
                                 10000);
        QVERIFY2(a->unexpectedClientErrors().isEmpty(), qPrintable(a->unexpectedClientErrors().join(u"; ")));
    }

    void aServerRequestOutsideAnyCall()
    {
        HttpGateway gateway(demoConfig());
        QVERIFY(gateway.isServing());
        auto a = gateway.httpHost({u"host-a"_s, AllFeatures, {fileUri(u"/hosts/a"_s)}});
        QVERIFY2(isConnected(*a), a->nodeStderr().constData());
        auto b = gateway.relayedHost({u"host-b"_s, AllFeatures, {fileUri(u"/hosts/b"_s)}});
        QVERIFY2(isConnected(*b), b->nodeStderr().constData());

        // roots/list: every host's roots and the config's.
        const QJsonObject deferred = callAndWait(*a, u"roots"_s, u"demo__roots"_s, {{u"delayMs"_s, 10}});
        QVERIFY2(resultText(deferred).startsWith(u"will send 1 roots/list request(s)"_s), qPrintable(resultText(deferred)));
        static const QRegularExpression answered(u"client answered roots/list with result (.*)\\n"_s);
        QRegularExpressionMatch match;
        QTRY_VERIFY_WITH_TIMEOUT((match = answered.match(gateway.stderrText())).hasMatch(), 10000);
        const QStringList uris = names(QJsonDocument::fromJson(match.captured(1).toUtf8()).object().value(u"roots").toArray(), u"uri"_s);
        QCOMPARE(QSet<QString>(uris.cbegin(), uris.cend()),
                 (QSet<QString>{fileUri(u"/hosts/a"_s), fileUri(u"/hosts/b"_s), fileUri(m_configRoot)}));

        // Sampling: no host's call explains it, so no host is asked.
        QVERIFY(!isToolError(callAndWait(*a, u"sample"_s, u"demo__sample"_s, {{u"delayMs"_s, 10}})));
        QTRY_VERIFY_WITH_TIMEOUT(gateway.stderrContains(u"client answered sampling/createMessage with error -32603: no host of "
                                                        "Tether's gateway has a request running on server 'demo'"_s),
                                 10000);
        QCOMPARE(requestsOf(*a, u"sampling/createMessage"_s).size(), 0);
        QCOMPARE(requestsOf(*b, u"sampling/createMessage"_s).size(), 0);
    }

    void requestsTetherCannotPassOnAreRefused()
    {
        HttpGateway gateway(demoConfig());
        QVERIFY(gateway.isServing());
        // A host that declares elicitation in form mode, and nothing else.
        auto host = gateway.httpHost({u"host-c"_s, {u"elicitation"_s}, {}});
        QVERIFY2(isConnected(*host), host->nodeStderr().constData());

        // Malformed: -32602, whatever the host declares.
        const QJsonObject malformed = callAndWait(*host, u"malformed"_s, u"demo__sample"_s, {{u"malformed"_s, true}});
        QVERIFY(isToolError(malformed));
        QCOMPARE(outcome(malformed).value(u"error").toObject().value(u"code").toInt(), -32602);
        QVERIFY2(outcome(malformed).value(u"error").toObject().value(u"message").toString().contains(u"\"messages\""_s),
                 qPrintable(resultText(malformed)));
        const QJsonObject noSchema = callAndWait(*host, u"no schema"_s, u"demo__elicit"_s, {{u"malformed"_s, true}});
        QCOMPARE(outcome(noSchema).value(u"error").toObject().value(u"code").toInt(), -32602);
        QVERIFY2(outcome(noSchema).value(u"error").toObject().value(u"message").toString().contains(u"requestedSchema"_s),
                 qPrintable(resultText(noSchema)));
        const QJsonObject noUrl = callAndWait(*host, u"no url"_s, u"demo__elicit-url"_s, {{u"malformed"_s, true}});
        QCOMPARE(outcome(noUrl).value(u"error").toObject().value(u"code").toInt(), -32602);

        // Not declared by the host: -32601, but roots, which are the config's.
        const QJsonObject sampling = callAndWait(*host, u"sample"_s, u"demo__sample"_s);
        QCOMPARE(outcome(sampling).value(u"error").toObject().value(u"code").toInt(), -32601);
        QVERIFY2(outcome(sampling).value(u"error").toObject().value(u"message").toString().contains(
                     u"host-c 1.0.0 does not support sampling/createMessage"_s),
                 qPrintable(resultText(sampling)));
        const QJsonObject urlMode = callAndWait(*host, u"url"_s, u"demo__elicit-url"_s);
        QCOMPARE(outcome(urlMode).value(u"error").toObject().value(u"code").toInt(), -32601);
        const QJsonObject form = callAndWait(*host, u"form"_s, u"demo__elicit"_s);
        QCOMPARE(outcome(form).value(u"result").toObject().value(u"action").toString(), u"accept"_s);
        const QJsonObject roots = callAndWait(*host, u"roots"_s, u"demo__roots"_s);
        QCOMPARE(names(outcome(roots).value(u"result").toObject().value(u"roots").toArray(), u"uri"_s),
                 QStringList{fileUri(m_configRoot)});
        QCOMPARE(host->count(u"request"_s), 1); // the form alone: it declares no roots for Tether to ask
    }

    void atMost32ServerRequestsWaitPerSession()
    {
        HttpGateway gateway(demoConfig());
        QVERIFY(gateway.isServing());
        auto host = gateway.httpHost({u"host-a"_s, AllFeatures, {}});
        QVERIFY2(isConnected(*host), host->nodeStderr().constData());
        // Answered late enough that all 40 wait at once.
        host->send(answerCommand(u"sampling/createMessage"_s, {{u"delayMs"_s, 1000}}));
        const QJsonObject many = callAndWait(*host, u"many"_s, u"demo__sample"_s, {{u"count"_s, 40}});
        const QJsonObject answers = many.value(u"result").toObject().value(u"structuredContent").toObject();
        QCOMPARE(answers.value(u"answered").toInt(), 32);
        int refused = 0;
        for (const QJsonValue &each : answers.value(u"outcomes").toArray()) {
            const QJsonObject error = each.toObject().value(u"error").toObject();
            if (error.isEmpty())
                continue;
            ++refused;
            QVERIFY2(error.value(u"message").toString().contains(u"32 requests waiting"_s),
                     qPrintable(error.value(u"message").toString()));
        }
        QCOMPARE(refused, 8);
        QCOMPARE(requestsOf(*host, u"sampling/createMessage"_s).size(), 32);
    }

    void aHostThatLeavesHasTheServersRequestsAnsweredAtOnce()
    {
        HttpGateway gateway(demoConfig());
        QVERIFY(gateway.isServing());
        // Over stdio, relayed: its process goes.
        {
            auto b = gateway.relayedHost({u"host-b"_s, AllFeatures, {}});
            QVERIFY2(isConnected(*b), b->nodeStderr().constData());
            b->send(answerCommand(u"elicitation/create"_s, {{u"never"_s, true}}));
            b->send(call(u"elicit"_s, u"demo__elicit"_s, {}));
            QVERIFY(b->waitForRequest(u"elicitation/create"_s));
            b->process().kill();
            QVERIFY(b->process().waitForFinished(10000));
        }
        // Its relay sees stdin close first and answers for it.
        QTRY_VERIFY_WITH_TIMEOUT(gateway.stderrContains(u"client answered elicitation/create with error -32603: the host relayed "
                                                        "here stopped sending (the host closed stdin) before it answered"_s),
                                 10000);
        // Over HTTP: it ends its session.
        auto a = gateway.httpHost({u"host-a"_s, AllFeatures, {}});
        QVERIFY2(isConnected(*a), a->nodeStderr().constData());
        a->send(answerCommand(u"sampling/createMessage"_s, {{u"never"_s, true}}));
        a->send(call(u"sample"_s, u"demo__sample"_s, {}));
        QVERIFY(a->waitForRequest(u"sampling/createMessage"_s));
        a->send({{u"op"_s, u"terminate"_s}});
        QVERIFY(a->waitForEvent(u"terminated"_s));
        QTRY_VERIFY_WITH_TIMEOUT(gateway.stderrContains(u"client answered sampling/createMessage with error -32603: host-a "
                                                        "1.0.0 disconnected before it answered"_s),
                                 10000);
    }

    void aServerThatNeverAnswersEndsTheCallByItsTimeout()
    {
        HttpGateway gateway(demoConfig());
        QVERIFY(gateway.isServing());
        auto host = gateway.httpHost({u"host-a"_s, AllFeatures, {}});
        QVERIFY2(isConnected(*host), host->nodeStderr().constData());
        const QJsonObject ended = callAndWait(*host, u"silent"_s, u"brief__elicit"_s, {{u"silent"_s, true}});
        QVERIFY(host->waitForRequest(u"elicitation/create"_s, 0));
        QTRY_VERIFY_WITH_TIMEOUT(gateway.stderrContains(u"elicit: the client answered; not answering request"_s), 10000);
        const QString said = ended.value(u"event").toString() == u"rejected" ? ended.value(u"message").toString()
                                                                              : resultText(ended);
        QVERIFY2(said.contains(u"timed out after 1500 ms"_s), QJsonDocument(ended).toJson().constData());
    }

    // A resource a server adds while it runs: the host hears resources/list_changed from the
    // gateway, finds it listed, and reads it through the gateway.
    void aServersNewResourceReachesTheHosts()
    {
        HttpGateway gateway(configText({{u"everything"_s, everythingEntry()}}));
        QVERIFY(gateway.isServing());
        auto host = gateway.httpHost({u"host-a"_s, AllFeatures, {}});
        QVERIFY2(isConnected(*host), host->nodeStderr().constData());
        const auto before = host->ask({{u"op"_s, u"resources"_s}, {u"id"_s, u"before"_s}}, u"resources"_s);
        QVERIFY(before && before->value(u"event").toString() == u"resources"_s);
        const QString uri = u"demo://resource/session/note.txt.gz"_s;
        const auto listed = [&](const QJsonObject &event) {
            for (const QJsonValue &resource : event.value(u"resources").toArray()) {
                if (resource.toObject().value(u"uri").toString() == uri)
                    return true;
            }
            return false;
        };
        QVERIFY(!listed(*before));
        const qsizetype changes = host->count(u"resources_changed"_s);
        const QJsonObject made = callAndWait(*host, u"gzip"_s, u"everything__gzip-file-as-resource"_s,
                                             {{u"name"_s, u"note.txt.gz"_s}, {u"data"_s, u"data:text/plain,hello%20gateway"_s}});
        QVERIFY2(!isToolError(made), QJsonDocument(made).toJson().constData());
        QTRY_VERIFY_WITH_TIMEOUT(host->count(u"resources_changed"_s) > changes, 10000);
        const auto after = host->ask({{u"op"_s, u"resources"_s}, {u"id"_s, u"after"_s}}, u"resources"_s);
        QVERIFY(after && listed(*after));
        const auto read = host->ask({{u"op"_s, u"read"_s}, {u"id"_s, u"read"_s}, {u"uri"_s, uri}}, u"read"_s);
        QVERIFY2(read && read->value(u"event").toString() == u"read"_s, read ? QJsonDocument(*read).toJson().constData() : "");
        const QJsonObject contents = read->value(u"result").toObject().value(u"contents").toArray().first().toObject();
        QCOMPARE(contents.value(u"uri").toString(), uri);
        QCOMPARE(contents.value(u"mimeType").toString(), u"application/gzip"_s);
    }

    // tasks/cancel reaches the task's server under the server's own id, and the answer comes back
    // under the host's; another host cannot touch the task.
    void aHostCancelsItsTask()
    {
        HttpGateway gateway(configText({{u"everything"_s, everythingEntry()}}));
        QVERIFY(gateway.isServing());
        auto owner = gateway.httpHost({u"host-a"_s, AllFeatures, {}});
        auto other = gateway.httpHost({u"host-b"_s, AllFeatures, {}});
        QVERIFY2(isConnected(*owner) && isConnected(*other), owner->nodeStderr().constData());
        QVERIFY(listsTool(*owner, u"everything__simulate-research-query"_s));
        owner->send({{u"op"_s, u"task"_s}, {u"id"_s, u"long"_s}, {u"name"_s, u"everything__simulate-research-query"_s},
                     {u"arguments"_s, QJsonObject{{u"topic"_s, u"ropes"_s}}}, {u"ttl"_s, 120000}});
        const auto created = owner->waitForEvent(u"task_created"_s, u"long"_s, 30000);
        QVERIFY(created);
        const QString taskId = created->value(u"task"_s).toObject().value(u"taskId"_s).toString();
        QVERIFY2(taskId.startsWith(u"everything__"_s), qPrintable(taskId));

        const auto refused = other->ask({{u"op"_s, u"request"_s}, {u"id"_s, u"steal"_s}, {u"method"_s, u"tasks/cancel"_s},
                                         {u"params"_s, QJsonObject{{u"taskId"_s, taskId}}}},
                                        u"response"_s);
        QVERIFY(refused);
        QCOMPARE(refused->value(u"event"_s).toString(), u"rejected"_s);
        QVERIFY2(refused->value(u"message"_s).toString().contains(u"Unknown task"_s),
                 QJsonDocument(*refused).toJson().constData());

        const auto cancelled = owner->ask({{u"op"_s, u"request"_s}, {u"id"_s, u"stop"_s}, {u"method"_s, u"tasks/cancel"_s},
                                           {u"params"_s, QJsonObject{{u"taskId"_s, taskId}}}},
                                          u"response"_s);
        QVERIFY(cancelled);
        QVERIFY2(cancelled->value(u"event"_s).toString() == u"response"_s, QJsonDocument(*cancelled).toJson().constData());
        QCOMPARE(cancelled->value(u"result"_s).toObject().value(u"taskId"_s).toString(), taskId);
        QCOMPARE(cancelled->value(u"result"_s).toObject().value(u"status"_s).toString(), u"cancelled"_s);
    }
};

QTEST_GUILESS_MAIN(TestGatewayFeatures)
#include "tst_gatewayfeatures.moc"
