// End to end against the official reference server @modelcontextprotocol/server-everything
// (pinned in package-lock.json, installed by scripts/test.sh) over stdio.
#include "manager/servermanager.h"
#include "session/mcpclientsession.h"
#include "support/awaitreply.h"
#include "support/demoserverconfig.h"
#include "support/openready.h"
#include "support/stopallandwait.h"
#include "support/testprocess.h"

#include <QFileInfo>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

class TestServerEverything final : public QObject
{
    Q_OBJECT

private:
    ToolCallReply call(const QString &tool, const QJsonObject &arguments, ProgressHandler onProgress = {})
    {
        return awaitToolCall([&](ToolCallHandler onReply) {
            m_session->callTool(tool, arguments, std::move(onReply), std::move(onProgress));
        }, 30000);
    }

    std::unique_ptr<McpClientSession> m_session;
    qint64 m_pid = 0;

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(serverEverythingScript()),
                 "server-everything is not installed: run scripts/test.sh (or npm ci in the source folder)");
        QVERIFY2(!serverEverything().program.isEmpty(), "node is not on PATH");
    }

    void handshakeDespiteAnEarlyListChanged()
    {
        auto transport = std::make_unique<StdioTransport>(serverEverything());
        StdioTransport *stdio = transport.get();
        m_session = std::make_unique<McpClientSession>(std::move(transport), SessionOptions{u"everything"_s, std::chrono::seconds(30)});
        QSignalSpy changed(m_session.get(), &McpClientSession::toolsListChanged);
        bool changedBeforeReady = false;
        connect(m_session.get(), &McpClientSession::toolsListChanged, this,
                [&] { changedBeforeReady |= !m_session->isReady(); });
        QVERIFY(openReady(*m_session, 30000));
        // server-everything announces list_changed as soon as it is initialized, racing the
        // first tools/list: it is passed on once the session is ready, never before.
        QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 10000);
        QVERIFY(!changedBeforeReady);
        QCOMPARE(m_session->serverIdentity().protocolVersion, u"2025-11-25"_s);
        QVERIFY(m_session->serverIdentity().capabilities.contains(u"tools"));
        m_pid = stdio->processId();
        QVERIFY(processAlive(m_pid));
    }

    void listsEveryTool()
    {
        const ToolListReply reply = awaitToolList([&](ToolListHandler onReply) { m_session->listTools(std::move(onReply)); }, 30000);
        QVERIFY(!reply.error);
        QVERIFY(reply.warnings.isEmpty());
        QStringList names;
        for (const ToolDefinition &tool : reply.tools) {
            names.append(tool.name);
            QVERIFY2(!tool.description.isEmpty(), qPrintable(tool.name));
            QCOMPARE(tool.inputSchema().value(u"type").toString(), u"object"_s);
        }
        // The tools this pinned version offers a client without sampling, roots or elicitation.
        const QStringList expected{u"echo"_s, u"get-annotated-message"_s, u"get-env"_s, u"get-resource-links"_s,
                                   u"get-resource-reference"_s, u"get-structured-content"_s, u"get-sum"_s,
                                   u"get-tiny-image"_s, u"gzip-file-as-resource"_s, u"toggle-simulated-logging"_s,
                                   u"toggle-subscriber-updates"_s, u"trigger-long-running-operation"_s,
                                   u"simulate-research-query"_s};
        QCOMPARE(names, expected);
    }

    void listsResourcesAndTemplates()
    {
        QVERIFY(m_session->offers(u"resources"));
        const std::optional<ResourceListReply> reply = awaitReply<ResourceListReply>(
            [&](ResourceListHandler onReply) { m_session->listResources(std::move(onReply)); }, 30000);
        QVERIFY(reply);
        QVERIFY2(!reply->error, qPrintable(reply->error ? reply->error->message : QString()));
        QVERIFY(reply->warnings.isEmpty());
        // Its documents, each a fixed resource.
        QStringList uris;
        for (const ResourceDefinition &resource : reply->resources)
            uris.append(resource.uri);
        QVERIFY2(uris.contains(u"demo://resource/static/document/features.md"_s), qPrintable(uris.join(u", "_s)));
        const auto features = std::find_if(reply->resources.cbegin(), reply->resources.cend(),
                                           [](const ResourceDefinition &r) { return r.uri.endsWith(u"/features.md"); });
        QCOMPARE(features->mimeType, u"text/markdown"_s);
        QCOMPARE(features->name, u"features.md"_s);
        QStringList templates;
        for (const ResourceTemplate &resourceTemplate : reply->templates)
            templates.append(resourceTemplate.uriTemplate);
        QCOMPARE(templates, (QStringList{u"demo://resource/dynamic/text/{resourceId}"_s,
                                         u"demo://resource/dynamic/blob/{resourceId}"_s}));
    }

    void readsTextAndBlobResources()
    {
        const auto read = [&](const QString &uri) {
            return awaitReply<ResourceReadReply>(
                [&](ResourceReadHandler onReply) { m_session->readResource(uri, std::move(onReply)); }, 30000);
        };
        const std::optional<ResourceReadReply> text = read(u"demo://resource/dynamic/text/3"_s);
        QVERIFY(text && !text->error);
        QCOMPARE(text->contents.size(), 1);
        QCOMPARE(text->contents.first().uri, u"demo://resource/dynamic/text/3"_s);
        QVERIFY2(text->contents.first().text->startsWith(u"Resource 3: This is a plaintext resource"_s),
                 qPrintable(*text->contents.first().text));

        const std::optional<ResourceReadReply> blob = read(u"demo://resource/dynamic/blob/4"_s);
        QVERIFY(blob && !blob->error);
        QCOMPARE(blob->contents.size(), 1);
        QVERIFY(!blob->contents.first().text);
        QVERIFY2(blob->contents.first().blob.startsWith("Resource 4: This is a base64 blob"), blob->contents.first().blob);

        const std::optional<ResourceReadReply> document = read(u"demo://resource/static/document/features.md"_s);
        QVERIFY(document && !document->error);
        QVERIFY(document->contents.first().text->contains(u"## Resources"_s));

        // A URI it does not serve is its own error, and the connection stays.
        const std::optional<ResourceReadReply> unknown = read(u"demo://resource/nothing/here"_s);
        QVERIFY(unknown && unknown->error);
        QVERIFY2(unknown->error->message.contains(u"demo://resource/nothing/here"_s), qPrintable(unknown->error->message));
        QVERIFY(m_session->isReady());
    }

    void listsAndGetsPrompts()
    {
        QVERIFY(m_session->offers(u"prompts"));
        const std::optional<PromptListReply> list = awaitReply<PromptListReply>(
            [&](PromptListHandler onReply) { m_session->listPrompts(std::move(onReply)); }, 30000);
        QVERIFY(list && !list->error);
        QStringList names;
        for (const PromptDefinition &prompt : list->prompts)
            names.append(prompt.name);
        QCOMPARE(names, (QStringList{u"simple-prompt"_s, u"args-prompt"_s, u"completable-prompt"_s, u"resource-prompt"_s}));
        const PromptDefinition &args = list->prompts.at(1);
        QCOMPARE(args.title, u"Arguments Prompt"_s);
        QCOMPARE(args.arguments.size(), 2);
        QCOMPARE(args.arguments.at(0).name, u"city"_s);
        QVERIFY(args.arguments.at(0).required);
        QCOMPARE(args.arguments.at(1).name, u"state"_s);
        QVERIFY(!args.arguments.at(1).required);

        const auto get = [&](const QString &name, const QJsonObject &arguments) {
            return awaitReply<PromptReply>(
                [&](PromptHandler onReply) { m_session->getPrompt(name, arguments, std::move(onReply)); }, 30000);
        };
        const std::optional<PromptReply> weather = get(u"args-prompt"_s, {{u"city"_s, u"Paris"_s}, {u"state"_s, u"IDF"_s}});
        QVERIFY(weather && !weather->error);
        QCOMPARE(renderPromptMessages(weather->result.messages), u"user: What's weather in Paris, IDF?"_s);

        // An embedded resource among the messages.
        const std::optional<PromptReply> embedded = get(u"resource-prompt"_s, {{u"resourceType"_s, u"Text"_s}, {u"resourceId"_s, u"2"_s}});
        QVERIFY(embedded && !embedded->error);
        QVERIFY2(renderPromptMessages(embedded->result.messages).contains(u"Resource 2: This is a plaintext resource"_s),
                 qPrintable(renderPromptMessages(embedded->result.messages)));

        // Without its required argument: the server's error.
        const std::optional<PromptReply> missing = get(u"args-prompt"_s, {});
        QVERIFY(missing && missing->error);
        QVERIFY(m_session->isReady());
    }

    void followsResourcesListChanged()
    {
        QSignalSpy changed(m_session.get(), &McpClientSession::resourcesListChanged);
        // The tool registers a resource of this session, which changes the list.
        const ToolCallReply reply = call(u"gzip-file-as-resource"_s,
                                         {{u"name"_s, u"hello.txt"_s}, {u"data"_s, u"data:text/plain;base64,aGVsbG8="_s}});
        QVERIFY2(!reply.error && !reply.result.isError, qPrintable(renderContent(reply.result.content)));
        QTRY_VERIFY_WITH_TIMEOUT(changed.size() >= 1, 10000);
        const std::optional<ResourceListReply> list = awaitReply<ResourceListReply>(
            [&](ResourceListHandler onReply) { m_session->listResources(std::move(onReply)); }, 30000);
        QVERIFY(list && !list->error);
        QVERIFY(std::any_of(list->resources.cbegin(), list->resources.cend(),
                            [](const ResourceDefinition &r) { return r.uri == u"demo://resource/session/hello.txt"; }));
    }

    void callsEcho()
    {
        const ToolCallReply reply = call(u"echo"_s, {{u"message"_s, u"hello from Tether"_s}});
        QVERIFY(!reply.error);
        QVERIFY(!reply.result.isError);
        QCOMPARE(renderContent(reply.result.content), u"Echo: hello from Tether"_s);
    }

    void callsGetSumAndRendersAnImage()
    {
        const ToolCallReply sum = call(u"get-sum"_s, {{u"a"_s, 2}, {u"b"_s, 40}});
        QVERIFY(!sum.error);
        QVERIFY(renderContent(sum.result.content).contains(u"42"_s));

        const ToolCallReply image = call(u"get-tiny-image"_s, {});
        QVERIFY(!image.error);
        QVERIFY2(renderContent(image.result.content).contains(u"[image: image/png"_s),
                 qPrintable(renderContent(image.result.content)));
    }

    void progressOfALongRunningOperation()
    {
        QList<ProgressUpdate> updates;
        const ToolCallReply reply = call(u"trigger-long-running-operation"_s, {{u"duration"_s, 1}, {u"steps"_s, 3}},
                                         [&](const ProgressUpdate &u) { updates.append(u); });
        QVERIFY(!reply.error);
        QCOMPARE(updates.size(), 3);
        QCOMPARE(updates.last().total, std::optional<double>(3));
    }

    void pingsTheServer()
    {
        QVERIFY(awaitRpc([&](ReplyHandler onReply) { m_session->ping(std::move(onReply)); }, 30000).ok());
    }

    void closesCleanly()
    {
        QSignalSpy closed(m_session.get(), &McpClientSession::closed);
        m_session->close();
        QTRY_VERIFY_WITH_TIMEOUT(closed.size() == 1, 10000);
        QVERIFY(!processAlive(m_pid));
        m_session.reset();
    }

    // The manager keeps a snapshot of the server's resources and prompts, listed once it has
    // connected and listed again when the server says its list changed.
    void managerKeepsTheCatalogAndFollowsListChanged()
    {
        ServerManager manager;
        QSignalSpy changed(&manager, &ServerManager::catalogChanged);
        manager.applyConfig(configDocument({serverEverythingConfig(u"everything"_s)}));
        QTRY_VERIFY_WITH_TIMEOUT(manager.catalog(u"everything"_s).isListed(), 30000);
        ServerCatalog catalog = manager.catalog(u"everything"_s);
        QVERIFY(catalog.offersResources && catalog.offersPrompts);
        QVERIFY(catalog.resourcesError.isEmpty() && catalog.promptsError.isEmpty());
        QCOMPARE(catalog.templates.size(), 2);
        QCOMPARE(catalog.prompts.size(), 4);
        QVERIFY(!changed.isEmpty());
        QCOMPARE(changed.last().first().toString(), u"everything"_s);
        const auto listsSessionResource = [&] {
            const QList<ResourceDefinition> resources = manager.catalog(u"everything"_s).resources;
            return std::any_of(resources.cbegin(), resources.cend(),
                               [](const ResourceDefinition &r) { return r.uri == u"demo://resource/session/hi.txt"; });
        };
        QVERIFY(!listsSessionResource());

        const ToolCallReply reply = awaitToolCall([&](ToolCallHandler onReply) {
            manager.callTool(u"everything"_s, u"gzip-file-as-resource"_s,
                             {{u"name"_s, u"hi.txt"_s}, {u"data"_s, u"data:text/plain;base64,aGk="_s}}, std::move(onReply));
        }, 30000);
        QVERIFY(!reply.error);
        QTRY_VERIFY_WITH_TIMEOUT(listsSessionResource(), 10000);

        const std::optional<ResourceReadReply> read = awaitReply<ResourceReadReply>([&](ResourceReadHandler onReply) {
            manager.readResource(u"everything"_s, u"demo://resource/dynamic/text/1"_s, std::move(onReply));
        }, 30000);
        QVERIFY(read && !read->error);
        const std::optional<PromptReply> prompt = awaitReply<PromptReply>([&](PromptHandler onReply) {
            manager.getPrompt(u"everything"_s, u"simple-prompt"_s, {}, std::move(onReply));
        }, 30000);
        QVERIFY(prompt && !prompt->error);
        QVERIFY(renderPromptMessages(prompt->result.messages).startsWith(u"user: "_s));

        QVERIFY(stopAllAndWait(manager));
        // A stopped server offers nothing until it connects again.
        QCOMPARE(manager.catalog(u"everything"_s), ServerCatalog{});
    }
};

QTEST_GUILESS_MAIN(TestServerEverything)
#include "tst_servereverything.moc"
