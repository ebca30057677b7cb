// The Resources and Prompts tabs of the window, on server-everything (its documents, templates
// and prompts) and on a scripted HTTP server whose resource is a PNG image.
#include "catalogtabs.h"
#include "manager/servermanager.h"
#include "promptsview.h"
#include "protocol/jsonrpc.h"
#include "resourcesview.h"
#include "support/demoserverconfig.h"
#include "support/httpfixture.h"
#include "support/namedchild.h"
#include "support/stopallandwait.h"
#include "support/testprocess.h"

#include <QBuffer>
#include <QImage>
#include <QItemSelectionModel>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTest>
#include <QTreeWidget>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

QTreeWidgetItem *itemWithText(QTreeWidget *list, int column, const QString &text)
{
    for (int row = 0; row < list->topLevelItemCount(); ++row) {
        if (list->topLevelItem(row)->text(column) == text)
            return list->topLevelItem(row);
    }
    return nullptr;
}

FixtureReply jsonReply(const QJsonObject &message)
{
    return {200, {{"Content-Type", "application/json"}}, QJsonDocument(message).toJson(QJsonDocument::Compact),
            FixtureReply::Delivery::Whole};
}

// A 3×2 red PNG.
QByteArray redPng()
{
    QImage image(3, 2, QImage::Format_RGB32);
    image.fill(Qt::red);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return bytes;
}

} // namespace

class TestCatalogViews final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(serverEverythingScript()),
                 "server-everything is not installed: run scripts/test.sh (or npm ci in the source folder)");
    }

    void resourcesTabListsAndPreviewsText()
    {
        ServerManager manager;
        manager.applyConfig(configDocument({serverEverythingConfig(u"everything"_s)}));
        ResourcesView view(manager);
        view.setServer(u"everything"_s);
        view.show();
        auto *list = namedChild<QTreeWidget>(view, u"resourceList"_s);
        auto *status = namedChild<QLabel>(view, u"resourcesStatus"_s);
        auto *uri = namedChild<QLineEdit>(view, u"resourceUri"_s);
        auto *read = namedChild<QPushButton>(view, u"readResource"_s);
        auto *text = namedChild<QPlainTextEdit>(view, u"resourceText"_s);
        auto *message = namedChild<QLabel>(view, u"resourceMessage"_s);
        // Listed once the server has connected.
        QTRY_VERIFY_WITH_TIMEOUT(status->text().endsWith(u" resources, 2 templates"_s), 30000);
        QVERIFY(!read->isEnabled());

        QTreeWidgetItem *features = itemWithText(list, 1, u"demo://resource/static/document/features.md"_s);
        QVERIFY(features);
        QCOMPARE(features->text(2), u"text/markdown"_s);
        // Activating a fixed resource reads it.
        list->setCurrentItem(features);
        QCOMPARE(uri->text(), u"demo://resource/static/document/features.md"_s);
        emit list->itemActivated(features, 0);
        QTRY_VERIFY_WITH_TIMEOUT(text->toPlainText().contains(u"## Resources"_s), 30000);
        QVERIFY(text->isVisible());

        // A template is filled in by hand before it is read.
        QTreeWidgetItem *blobs = itemWithText(list, 1, u"demo://resource/dynamic/blob/{resourceId}"_s);
        QVERIFY(blobs);
        list->setCurrentItem(blobs);
        QTest::mouseClick(read, Qt::LeftButton);
        QVERIFY(message->isVisible());
        QVERIFY2(message->text().contains(u"placeholders"_s), qPrintable(message->text()));
        uri->setText(u"demo://resource/dynamic/blob/5"_s);
        QTest::mouseClick(read, Qt::LeftButton);
        // Bytes of a text type show as text.
        QTRY_VERIFY_WITH_TIMEOUT(text->toPlainText().startsWith(u"Resource 5: This is a base64 blob"_s), 30000);
        QVERIFY(!message->isVisible());

        // The server's refusal shows as a message.
        uri->setText(u"demo://resource/nothing"_s);
        QTest::keyClick(uri, Qt::Key_Return);
        QTRY_VERIFY_WITH_TIMEOUT(message->isVisible(), 30000);
        QVERIFY2(message->text().contains(u"demo://resource/nothing"_s), qPrintable(message->text()));
        QVERIFY(!text->isVisible());

        // The list follows list_changed: a resource the server adds appears.
        const std::optional<ToolCallReply> added = [&] {
            std::optional<ToolCallReply> reply;
            manager.callTool(u"everything"_s, u"gzip-file-as-resource"_s,
                             {{u"name"_s, u"notes.txt"_s}, {u"data"_s, u"data:text/plain;base64,aGk="_s}},
                             [&](const ToolCallReply &r) { reply = r; });
            (void)QTest::qWaitFor([&] { return reply.has_value(); }, 30000);
            return reply;
        }();
        QVERIFY(added && !added->error);
        QTRY_VERIFY_WITH_TIMEOUT(itemWithText(list, 1, u"demo://resource/session/notes.txt"_s), 10000);

        QVERIFY(stopAllAndWait(manager));
        QTRY_COMPARE(list->topLevelItemCount(), 0);
        QCOMPARE(status->text(), u"Resources are listed once the server has connected."_s);
    }

    void resourcesTabShowsAnImage()
    {
        const QByteArray png = redPng();
        HttpFixture fixture;
        fixture.setHandler([&](const FixtureRequest &request) -> FixtureReply {
            if (request.method != "POST")
                return {405, {}, {}, FixtureReply::Delivery::Whole};
            const QJsonObject message = request.json();
            const QJsonValue id = message.value(u"id");
            const QString method = message.value(u"method").toString();
            if (id.isUndefined())
                return {202, {}, {}, FixtureReply::Delivery::Whole};
            if (method == u"initialize") {
                return jsonReply(JsonRpc::makeResult(
                    id, QJsonObject{{u"protocolVersion"_s, u"2025-11-25"_s},
                                    {u"capabilities"_s, QJsonObject{{u"tools"_s, QJsonObject{}}, {u"resources"_s, QJsonObject{}}}},
                                    {u"serverInfo"_s, QJsonObject{{u"name"_s, u"pictures"_s}, {u"version"_s, u"1"_s}}}}));
            }
            if (method == u"resources/list") {
                const QJsonObject logo{{u"uri"_s, u"pictures://logo"_s}, {u"name"_s, u"logo"_s}, {u"mimeType"_s, u"image/png"_s}};
                return jsonReply(JsonRpc::makeResult(id, QJsonObject{{u"resources"_s, QJsonArray{logo}}}));
            }
            if (method == u"resources/templates/list")
                return jsonReply(JsonRpc::makeResult(id, QJsonObject{{u"resourceTemplates"_s, QJsonArray{}}}));
            if (method == u"resources/read") {
                const QJsonObject part{{u"uri"_s, u"pictures://logo"_s}, {u"mimeType"_s, u"image/png"_s},
                                       {u"blob"_s, QString::fromLatin1(png.toBase64())}};
                return jsonReply(JsonRpc::makeResult(id, QJsonObject{{u"contents"_s, QJsonArray{part}}}));
            }
            return jsonReply(JsonRpc::makeResult(id, QJsonObject{{u"tools"_s, QJsonArray{}}}));
        });
        ServerConfig config;
        config.name = u"pictures"_s;
        config.transport = TransportKind::StreamableHttp;
        config.url = fixture.url().toString();
        config.heartbeat.enabled = false;
        config.requestTimeout = std::chrono::seconds(10);
        ServerManager manager;
        manager.applyConfig(configDocument({config}));
        ResourcesView view(manager);
        view.setServer(u"pictures"_s);
        view.show();
        auto *list = namedChild<QTreeWidget>(view, u"resourceList"_s);
        auto *image = namedChild<QLabel>(view, u"resourceImage"_s);
        QTRY_COMPARE_WITH_TIMEOUT(list->topLevelItemCount(), 1, 10000);
        QVERIFY(!image->isVisible());
        list->setCurrentItem(list->topLevelItem(0));
        emit list->itemActivated(list->topLevelItem(0), 0);
        QTRY_VERIFY_WITH_TIMEOUT(!image->pixmap().isNull(), 10000);
        QCOMPARE(image->pixmap().size(), QSize(3, 2));
        QCOMPARE(image->pixmap().toImage().pixelColor(1, 1), QColor(Qt::red));
        QVERIFY(image->isVisible());
        QVERIFY(!namedChild<QPlainTextEdit>(view, u"resourceText"_s)->isVisible());
        QVERIFY(stopAllAndWait(manager));
    }

    void promptsTabFillsArgumentsAndShowsMessages()
    {
        ServerManager manager;
        manager.applyConfig(configDocument({serverEverythingConfig(u"everything"_s)}));
        PromptsView view(manager);
        view.setServer(u"everything"_s);
        view.show();
        auto *list = namedChild<QTreeWidget>(view, u"promptList"_s);
        auto *get = namedChild<QPushButton>(view, u"getPrompt"_s);
        auto *messages = namedChild<QPlainTextEdit>(view, u"promptMessages"_s);
        auto *message = namedChild<QLabel>(view, u"promptMessage"_s);
        QTRY_COMPARE_WITH_TIMEOUT(list->topLevelItemCount(), 4, 30000);
        QVERIFY(!get->isEnabled());

        QTreeWidgetItem *args = itemWithText(list, 0, u"args-prompt"_s);
        QVERIFY(args);
        QCOMPARE(args->text(1), u"city*, state"_s);
        list->setCurrentItem(args);
        QVERIFY(get->isEnabled());
        QCOMPARE(namedChild<QLabel>(view, u"promptDescription"_s)->text(),
                 u"A prompt with two arguments, one required and one optional"_s);
        auto *city = namedChild<QLineEdit>(view, u"promptArgument_city"_s);
        auto *state = namedChild<QLineEdit>(view, u"promptArgument_state"_s);
        QCOMPARE(city->placeholderText(), u"required"_s);
        QCOMPARE(state->placeholderText(), u"optional"_s);

        // A required argument left empty is not sent.
        QTest::mouseClick(get, Qt::LeftButton);
        QVERIFY(message->isVisible());
        QVERIFY2(message->text().contains(u"'city' is required"_s), qPrintable(message->text()));
        QVERIFY(messages->toPlainText().isEmpty());

        QTest::keyClicks(city, u"Lyon"_s);
        QTest::mouseClick(get, Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(messages->toPlainText(), u"user: What's weather in Lyon?"_s, 30000);
        QVERIFY(!message->isVisible());
        QTest::keyClicks(state, u"Rhone"_s);
        QTest::keyClick(state, Qt::Key_Return);
        QTRY_COMPARE_WITH_TIMEOUT(messages->toPlainText(), u"user: What's weather in Lyon, Rhone?"_s, 30000);

        // Another prompt gets fields of its own.
        list->setCurrentItem(itemWithText(list, 0, u"simple-prompt"_s));
        QVERIFY(!view.findChild<QLineEdit *>(u"promptArgument_city"_s));
        QVERIFY(messages->toPlainText().isEmpty());
        QTest::mouseClick(get, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(messages->toPlainText().startsWith(u"user: "_s), 30000);
        QVERIFY(stopAllAndWait(manager));
    }

    // The window's hook: both tabs follow the server selected in the table.
    void tabsFollowTheSelection()
    {
        ServerManager manager;
        QTabWidget tabs;
        QStandardItemModel servers;
        servers.appendRow(new QStandardItem(u"everything"_s));
        servers.appendRow(new QStandardItem(u"other"_s));
        QItemSelectionModel selection(&servers);
        addCatalogTabs(&tabs, manager, &selection, Qt::DisplayRole);
        QCOMPARE(tabs.count(), 2);
        QCOMPARE(tabs.tabText(0), u"Resources"_s);
        QCOMPARE(tabs.tabText(1), u"Prompts"_s);
        manager.applyConfig(configDocument({serverEverythingConfig(u"everything"_s)}));
        selection.select(servers.index(0, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        auto *prompts = namedChild<QTreeWidget>(tabs, u"promptList"_s);
        auto *resources = namedChild<QTreeWidget>(tabs, u"resourceList"_s);
        QTRY_COMPARE_WITH_TIMEOUT(prompts->topLevelItemCount(), 4, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(resources->topLevelItemCount() > 2, 30000);
        selection.select(servers.index(1, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QCOMPARE(prompts->topLevelItemCount(), 0);
        QCOMPARE(resources->topLevelItemCount(), 0);
        QVERIFY(stopAllAndWait(manager));
    }
};

QTEST_MAIN(TestCatalogViews)
#include "tst_catalogviews.moc"
