// The window as the MCP client of the tool calls it makes, against the official reference server
// (server-everything): elicitation in form mode (its fields, their defaults, validation, accept,
// decline, cancel) and in URL mode (the whole link, opened only on consent), sampling refused
// with its reason, roots from the config, several questions at once, and questions withdrawn.
#include "elicitationformdialog.h"
#include "schemaform.h"
#include "toolcalldialog.h"
#include "urlelicitationdialog.h"
#include "windowclientside.h"

#include "config/configparser.h"
#include "manager/servermanager.h"

#include "support/mnemonicchecks.h"
#include "support/namedchild.h"
#include "support/stopallandwait.h"
#include "support/testprocess.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDesktopServices>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

// Stands in for the desktop's browser: QDesktopServices hands it the links of its scheme.
class LinkCatcher final : public QObject
{
    Q_OBJECT

public:
    QList<QUrl> opened;

public slots:
    void open(const QUrl &url) { opened.append(url); }
};

// server-everything as a config file gives it, with the folder /tmp/x as its root.
ConfigDocument everythingWithRoots()
{
    const QJsonObject entry{{u"command"_s, serverEverything().program},
                            {u"args"_s, QJsonArray{serverEverythingScript(), u"stdio"_s}},
                            {u"roots"_s, QJsonArray{u"/tmp/x"_s}},
                            {u"timeoutMs"_s, 30000},
                            {u"heartbeat"_s, QJsonObject{{u"enabled"_s, false}}}};
    const QJsonObject root{{u"mcpServers"_s, QJsonObject{{u"everything"_s, entry}}}};
    return parseConfig(QJsonDocument(root).toJson(), u"servers.json"_s, {});
}

// The question of type Dialog that the window shows and nobody has answered yet; null when none
// appears within the bound.
template<typename Dialog>
QPointer<Dialog> openQuestion(const QWidget &window, int timeoutMs = 30000)
{
    Dialog *found = nullptr;
    const bool appeared = QTest::qWaitFor(
        [&] {
            const QList<Dialog *> dialogs = window.findChildren<Dialog *>();
            const auto open = std::find_if(dialogs.cbegin(), dialogs.cend(), [](const Dialog *dialog) {
                return dialog->isVisible() && !dialog->isAnswered();
            });
            found = open == dialogs.cend() ? nullptr : *open;
            return found != nullptr;
        },
        timeoutMs);
    return appeared ? found : nullptr;
}

QString resultText(const ToolCallDialog &dialog)
{
    return namedChild<QPlainTextEdit>(dialog, u"result"_s)->toPlainText();
}

QString statusText(const ToolCallDialog &dialog)
{
    return namedChild<QLabel>(dialog, u"status"_s)->text();
}

template<typename Editor>
Editor *editorOf(const SchemaForm &form, const QString &field)
{
    auto *editor = qobject_cast<Editor *>(form.editor(field));
    if (!editor)
        qFatal("the field '%s' has no editor of the expected kind", qPrintable(field));
    return editor;
}

// A form elicitation as a server sends it: one required string and an integer with a default.
ServerRequest smallFormRequest(const QString &message)
{
    const QJsonObject schema{
        {u"type"_s, u"object"_s},
        {u"properties"_s,
         QJsonObject{{u"city"_s, QJsonObject{{u"type"_s, u"string"_s}, {u"title"_s, u"City"_s}}},
                     {u"nights"_s, QJsonObject{{u"type"_s, u"integer"_s}, {u"default"_s, 2}, {u"minimum"_s, 1}}}}},
        {u"required"_s, QJsonArray{u"city"_s}}};
    return ServerRequest{u"everything"_s, u"elicitation/create"_s,
                         QJsonObject{{u"message"_s, message}, {u"requestedSchema"_s, schema}}, {}};
}

} // namespace

class TestWindowClientSide final : public QObject
{
    Q_OBJECT

private:
    ToolDefinition tool(const QString &name) const
    {
        const std::optional<RegisteredTool> found = m_manager->registry().find(u"everything__"_s + name);
        if (!found)
            qFatal("server-everything offers no tool '%s'", qPrintable(name));
        return found->definition;
    }

    std::unique_ptr<ToolCallDialog> callDialog(const QString &toolName)
    {
        return std::make_unique<ToolCallDialog>(*m_manager, u"everything"_s, tool(toolName), m_client);
    }

    LinkCatcher m_browser;
    QWidget m_window; // the dialogs open over it, as over the main window
    std::unique_ptr<ServerManager> m_manager;
    std::shared_ptr<WindowClientSide> m_client;

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(serverEverythingScript()),
                 "server-everything is not installed: run npm ci (scripts/test.sh does)");
        // No browser opens during the test: the links go to the catcher.
        QDesktopServices::setUrlHandler(u"https"_s, &m_browser, "open");
        const ConfigDocument config = everythingWithRoots();
        QVERIFY2(config.isValid() && config.servers.size() == 1 && config.servers.first().isValid(),
                 qPrintable((config.errors + config.servers.value(0).errors).join(u'\n')));
        QCOMPARE(config.servers.first().roots,
                 (QJsonArray{QJsonObject{{u"uri"_s, u"file:///tmp/x"_s}, {u"name"_s, u"x"_s}}}));
        m_manager = std::make_unique<ServerManager>();
        m_client = std::make_shared<WindowClientSide>(&m_window);
        m_manager->applyConfig(config);
        QTRY_COMPARE_WITH_TIMEOUT(m_manager->status(u"everything"_s)->state, ServerState::Connected, 30000);
        // The tools that need the client's features come once the server has read its capabilities.
        for (const QString &name : {u"trigger-elicitation-request"_s, u"trigger-url-elicitation"_s,
                                    u"trigger-sampling-request"_s, u"get-roots-list"_s})
            QTRY_VERIFY2_WITH_TIMEOUT(m_manager->registry().find(u"everything__"_s + name), qPrintable(name), 30000);
    }

    void cleanupTestCase()
    {
        QVERIFY(stopAllAndWait(*m_manager));
        m_client.reset();
        m_manager.reset();
        QDesktopServices::unsetUrlHandler(u"https"_s);
    }

    void theFormShowsTheServersFieldsWithTheirDefaults()
    {
        const auto call = callDialog(u"trigger-elicitation-request"_s);
        call->call();
        const QPointer<ElicitationFormDialog> question = openQuestion<ElicitationFormDialog>(m_window);
        QVERIFY(question);
        QCOMPARE(m_client->questionsWaiting(u"everything"_s), 1);
        QVERIFY2(namedChild<QLabel>(*question, u"server"_s)->text().contains(u"'everything'"_s),
                 qPrintable(namedChild<QLabel>(*question, u"server"_s)->text()));
        QCOMPARE(namedChild<QLabel>(*question, u"message"_s)->text(), u"Please provide inputs for the following fields:"_s);
        // The Call tool dialog says where its call waits.
        QVERIFY2(statusText(*call).contains(u"asks you something"_s), qPrintable(statusText(*call)));

        const SchemaForm *form = namedChild<SchemaForm>(*question, u"form"_s);
        QCOMPARE(form->fieldKind(u"name"_s), SchemaForm::FieldKind::Text);
        QCOMPARE(form->fieldKind(u"email"_s), SchemaForm::FieldKind::Text);
        QCOMPARE(form->fieldKind(u"check"_s), SchemaForm::FieldKind::Boolean);
        QCOMPARE(form->fieldKind(u"integer"_s), SchemaForm::FieldKind::Integer);
        QCOMPARE(form->fieldKind(u"number"_s), SchemaForm::FieldKind::Number);
        for (const QString &choice : {u"untitledSingleSelectEnum"_s, u"titledSingleSelectEnum"_s, u"legacyTitledEnum"_s})
            QCOMPARE(form->fieldKind(choice), SchemaForm::FieldKind::Enum);
        for (const QString &choices : {u"untitledMultipleSelectEnum"_s, u"titledMultipleSelectEnum"_s})
            QCOMPARE(form->fieldKind(choices), SchemaForm::FieldKind::MultipleChoice);
        QVERIFY(form->isRequired(u"name"_s));

        // Defaults filled in, choices shown by their titles.
        QCOMPARE(editorOf<QLineEdit>(*form, u"firstLine"_s)->text(), u"It was a dark and stormy night."_s);
        QCOMPARE(editorOf<QLineEdit>(*form, u"integer"_s)->text(), u"42"_s);
        QCOMPARE(editorOf<QLineEdit>(*form, u"number"_s)->text(), u"3.14"_s);
        QCOMPARE(editorOf<QComboBox>(*form, u"untitledSingleSelectEnum"_s)->currentText(), u"Monica"_s);
        QCOMPARE(editorOf<QComboBox>(*form, u"titledSingleSelectEnum"_s)->currentText(), u"Superman"_s);
        QCOMPARE(editorOf<QComboBox>(*form, u"legacyTitledEnum"_s)->currentText(), u"Cats"_s);
        const QListWidget *fish = editorOf<QListWidget>(*form, u"titledMultipleSelectEnum"_s);
        QCOMPARE(fish->count(), 3);
        QCOMPARE(fish->item(0)->text(), u"Tuna"_s);
        QCOMPARE(fish->item(0)->checkState(), Qt::Checked);
        QCOMPARE(fish->item(1)->checkState(), Qt::Unchecked);
        // Fields are named by their titles.
        const QList<QLabel *> labels = form->findChildren<QLabel *>();
        QVERIFY(std::any_of(labels.cbegin(), labels.cend(),
                            [](const QLabel *label) { return label->text().remove(u'&') == u"String with email format"_s; }));

        namedChild<QPushButton>(*question, u"cancel"_s)->click();
        QTRY_VERIFY_WITH_TIMEOUT(!call->isCalling(), 30000);
    }

    // Each wrong field says what is wrong under it, and nothing is sent until all are right.
    void acceptSendsWhatWasEnteredAndTheDefaults()
    {
        const auto call = callDialog(u"trigger-elicitation-request"_s);
        call->call();
        const QPointer<ElicitationFormDialog> question = openQuestion<ElicitationFormDialog>(m_window);
        QVERIFY(question);
        SchemaForm *form = namedChild<SchemaForm>(*question, u"form"_s);
        QPushButton *accept = namedChild<QPushButton>(*question, u"accept"_s);

        editorOf<QLineEdit>(*form, u"email"_s)->setText(u"not an address"_s);
        editorOf<QLineEdit>(*form, u"integer"_s)->setText(u"500"_s);
        editorOf<QLineEdit>(*form, u"birthdate"_s)->setText(u"1815-13-10"_s);
        editorOf<QLineEdit>(*form, u"homepage"_s)->setText(u"no scheme"_s);
        QListWidget *instruments = editorOf<QListWidget>(*form, u"untitledMultipleSelectEnum"_s);
        for (int row = 0; row < 4; ++row)
            instruments->item(row)->setCheckState(Qt::Checked);
        accept->click();
        QVERIFY(question && question->isVisible());
        QCOMPARE(m_client->questionsWaiting(u"everything"_s), 1);
        const QList<std::pair<QString, QString>> problems{{u"name"_s, u"'String' is required: fill it in"_s},
                                                          {u"email"_s, u"must be an email address"_s},
                                                          {u"integer"_s, u"must be at most 100"_s},
                                                          {u"birthdate"_s, u"must be a date written YYYY-MM-DD"_s},
                                                          {u"homepage"_s, u"must be a URI with its scheme"_s},
                                                          {u"untitledMultipleSelectEnum"_s,
                                                           u"'Untitled Multiple Select Enum' takes at most 3 choices"_s}};
        for (const auto &[field, problem] : problems) {
            const QLabel *label = form->problemLabel(field);
            QVERIFY2(!label->isHidden() && label->text().contains(problem), qPrintable(field + u": "_s + label->text()));
        }
        QVERIFY(form->problemLabel(u"firstLine"_s)->isHidden());
        QVERIFY2(namedChild<QLabel>(*question, u"problem"_s)->text().startsWith(u"Not sent: 'String' is required"_s),
                 qPrintable(namedChild<QLabel>(*question, u"problem"_s)->text()));
        // Editing a field takes its problem away.
        editorOf<QLineEdit>(*form, u"name"_s)->setText(u"Ada Lovelace"_s);
        QVERIFY(form->problemLabel(u"name"_s)->isHidden());

        editorOf<QLineEdit>(*form, u"email"_s)->setText(u"ada@example.com"_s);
        editorOf<QLineEdit>(*form, u"integer"_s)->setText(u"7"_s);
        editorOf<QLineEdit>(*form, u"birthdate"_s)->setText(u"1815-12-10"_s);
        editorOf<QLineEdit>(*form, u"homepage"_s)->setText(u"https://example.com/ada"_s);
        editorOf<QCheckBox>(*form, u"check"_s)->setCheckState(Qt::Checked);
        for (int row = 1; row < 4; ++row)
            instruments->item(row)->setCheckState(Qt::Unchecked);
        editorOf<QListWidget>(*form, u"titledMultipleSelectEnum"_s)->item(2)->setCheckState(Qt::Checked);
        accept->click();
        QTRY_VERIFY(!question);
        QCOMPARE(m_client->questionsWaiting(u"everything"_s), 0);

        QTRY_VERIFY_WITH_TIMEOUT(!call->isCalling(), 30000);
        const QString result = resultText(*call);
        for (const QString &line : {u"User provided the requested information"_s, u"- Name: Ada Lovelace"_s,
                                    u"- Agreed to terms: true"_s, u"- Email: ada@example.com"_s,
                                    u"- Homepage: https://example.com/ada"_s, u"- Birthdate: 1815-12-10"_s,
                                    u"- Favorite Integer: 7"_s, u"- Favorite Number: 3.14"_s})
            QVERIFY2(result.contains(line), qPrintable(line + u" is not in:\n"_s + result));
        // The fields left untouched send their defaults (as the conformance scenario
        // elicitation-sep1034-client-defaults asks), shown in the server's raw result.
        const QString raw = result.mid(result.indexOf(u"Raw result: "_s) + 12);
        const QJsonObject content = QJsonDocument::fromJson(raw.toUtf8()).object().value(u"content"_s).toObject();
        QCOMPARE(content.value(u"firstLine"_s).toString(), u"It was a dark and stormy night."_s);
        QCOMPARE(content.value(u"number"_s).toDouble(), 3.14);
        QCOMPARE(content.value(u"untitledSingleSelectEnum"_s).toString(), u"Monica"_s);
        QCOMPARE(content.value(u"titledSingleSelectEnum"_s).toString(), u"hero-1"_s);
        QCOMPARE(content.value(u"legacyTitledEnum"_s).toString(), u"pet-1"_s);
        QCOMPARE(content.value(u"untitledMultipleSelectEnum"_s).toArray(), QJsonArray{u"Guitar"_s});
        QCOMPARE(content.value(u"titledMultipleSelectEnum"_s).toArray(), (QJsonArray{u"fish-1"_s, u"fish-3"_s}));
        QVERIFY2(statusText(*call).startsWith(u"Done in"_s), qPrintable(statusText(*call)));
    }

    void declineAndCancelAreTheServersToKnow()
    {
        const auto call = callDialog(u"trigger-elicitation-request"_s);
        call->call();
        QPointer<ElicitationFormDialog> question = openQuestion<ElicitationFormDialog>(m_window);
        QVERIFY(question);
        namedChild<QPushButton>(*question, u"decline"_s)->click();
        QTRY_VERIFY_WITH_TIMEOUT(!call->isCalling(), 30000);
        QVERIFY2(resultText(*call).contains(u"User declined to provide the requested information"_s),
                 qPrintable(resultText(*call)));
        QVERIFY2(resultText(*call).contains(u"\"action\": \"decline\""_s), qPrintable(resultText(*call)));

        // Closed (the window's close button, Escape): cancelled.
        call->call();
        question = openQuestion<ElicitationFormDialog>(m_window);
        QVERIFY(question);
        question->close();
        QTRY_VERIFY_WITH_TIMEOUT(!call->isCalling(), 30000);
        QVERIFY2(resultText(*call).contains(u"User cancelled the elicitation dialog"_s), qPrintable(resultText(*call)));
    }

    void aLinkOpensOnlyWhenThePersonChoosesTo()
    {
        // Long enough to be cut short by anything that elides.
        const QString link = u"https://example.com/tether/consent?client=tether-window&scope=read%20write&state="_s
                             + QString(160, u'x') + u"&redirect=https%3A%2F%2Fexample.com%2Fdone"_s;
        const auto call = callDialog(u"trigger-url-elicitation"_s);
        const SchemaForm *arguments = namedChild<SchemaForm>(*call, u"form"_s);
        editorOf<QLineEdit>(*arguments, u"url"_s)->setText(link);
        call->call();
        QPointer<UrlElicitationDialog> question = openQuestion<UrlElicitationDialog>(m_window);
        QVERIFY(question);
        QCOMPARE(namedChild<QPlainTextEdit>(*question, u"url"_s)->toPlainText(), link);
        QVERIFY(namedChild<QPlainTextEdit>(*question, u"url"_s)->isReadOnly());
        QVERIFY2(namedChild<QLabel>(*question, u"host"_s)->text().contains(u"example.com"_s),
                 qPrintable(namedChild<QLabel>(*question, u"host"_s)->text()));
        QCOMPARE(namedChild<QLabel>(*question, u"message"_s)->text(), u"Please open the link to complete this action."_s);
        QVERIFY(namedChild<QPushButton>(*question, u"open"_s)->isEnabled());
        QCOMPARE(mnemonicProblems(question), QStringList());

        namedChild<QPushButton>(*question, u"decline"_s)->click();
        QTRY_VERIFY_WITH_TIMEOUT(!call->isCalling(), 30000);
        QVERIFY2(resultText(*call).contains(u"User declined to open the URL"_s), qPrintable(resultText(*call)));
        QVERIFY(m_browser.opened.isEmpty());

        call->call();
        question = openQuestion<UrlElicitationDialog>(m_window);
        QVERIFY(question);
        namedChild<QPushButton>(*question, u"open"_s)->click();
        QCOMPARE(m_browser.opened, QList<QUrl>{QUrl(link)});
        QTRY_VERIFY_WITH_TIMEOUT(!call->isCalling(), 30000);
        QVERIFY2(resultText(*call).contains(u"User completed the URL elicitation flow"_s), qPrintable(resultText(*call)));
        m_browser.opened.clear();
    }

    // A link of another scheme than http or https is shown, never opened.
    void onlyWebLinksOpen()
    {
        std::optional<RpcReply> reply;
        const ServerRequest request{u"everything"_s, u"elicitation/create"_s,
                                    QJsonObject{{u"mode"_s, u"url"_s},
                                                {u"message"_s, u"Open this"_s},
                                                {u"url"_s, u"file:///etc/passwd"_s},
                                                {u"elicitationId"_s, u"e1"_s}},
                                    {}};
        m_client->serverRequest(request, [&](const RpcReply &answer) { reply = answer; }, {});
        const QPointer<UrlElicitationDialog> question = openQuestion<UrlElicitationDialog>(m_window);
        QVERIFY(question);
        QVERIFY(!namedChild<QPushButton>(*question, u"open"_s)->isEnabled());
        QVERIFY2(namedChild<QLabel>(*question, u"problem"_s)->text().contains(u"only http and https"_s),
                 qPrintable(namedChild<QLabel>(*question, u"problem"_s)->text()));
        question->openUrl();
        QVERIFY(!reply);
        namedChild<QPushButton>(*question, u"decline"_s)->click();
        QVERIFY(reply && reply->ok());
        QCOMPARE(reply->result.toObject(), (QJsonObject{{u"action"_s, u"decline"_s}}));
    }

    // What MCP's elicitation allows of a string: a format (email, uri, date, date-time) and a length.
    void stringsAreCheckedAgainstTheirSchema_data()
    {
        QTest::addColumn<QJsonObject>("schema");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("problem"); // empty: accepted

        const auto format = [](const QString &name) {
            return QJsonObject{{u"type"_s, u"string"_s}, {u"format"_s, name}};
        };
        QTest::newRow("email") << format(u"email"_s) << u"ada@example.com"_s << QString();
        QTest::newRow("email without @") << format(u"email"_s) << u"ada.example.com"_s << u"must be an email address"_s;
        QTest::newRow("uri") << format(u"uri"_s) << u"urn:isbn:0451450523"_s << QString();
        QTest::newRow("uri without scheme") << format(u"uri"_s) << u"example.com/x"_s << u"must be a URI"_s;
        QTest::newRow("date") << format(u"date"_s) << u"2025-06-18"_s << QString();
        QTest::newRow("date out of the calendar") << format(u"date"_s) << u"2025-02-30"_s << u"must be a date"_s;
        QTest::newRow("date in another order") << format(u"date"_s) << u"18/06/2025"_s << u"must be a date"_s;
        QTest::newRow("date-time") << format(u"date-time"_s) << u"2025-06-18T09:30:00Z"_s << QString();
        QTest::newRow("date-time with offset and fraction")
            << format(u"date-time"_s) << u"2025-06-18 09:30:00.250+02:00"_s << QString();
        QTest::newRow("date-time without zone") << format(u"date-time"_s) << u"2025-06-18T09:30:00"_s
                                                << u"must be a date and time"_s;
        QTest::newRow("date-time at hour 25") << format(u"date-time"_s) << u"2025-06-18T25:30:00Z"_s
                                              << u"must be a date and time"_s;
        const QJsonObject bounded{{u"type"_s, u"string"_s}, {u"minLength"_s, 2}, {u"maxLength"_s, 3}};
        QTest::newRow("long enough") << bounded << u"abc"_s << QString();
        QTest::newRow("too short") << bounded << u"a"_s << u"must be at least 2 characters long"_s;
        QTest::newRow("too long") << bounded << u"abcd"_s << u"must be at most 3 characters long"_s;
        QTest::newRow("characters, not UTF-16 units") << bounded << u"😀😀😀"_s << QString();
        const QJsonObject code{{u"type"_s, u"string"_s}, {u"pattern"_s, u"^[A-Z]{3}$"_s}};
        QTest::newRow("pattern") << code << u"LYS"_s << QString();
        QTest::newRow("pattern not matched") << code << u"lys"_s << u"must match the pattern ^[A-Z]{3}$"_s;
    }

    void stringsAreCheckedAgainstTheirSchema()
    {
        QFETCH(QJsonObject, schema);
        QFETCH(QString, text);
        QFETCH(QString, problem);
        SchemaForm form(QJsonObject{{u"type"_s, u"object"_s}, {u"properties"_s, QJsonObject{{u"value"_s, schema}}}});
        editorOf<QLineEdit>(form, u"value"_s)->setText(text);
        QString error;
        const std::optional<QJsonObject> content = form.checkedArguments(&error);
        if (problem.isEmpty()) {
            QVERIFY2(content, qPrintable(error));
            QCOMPARE(content->value(u"value"_s).toString(), text);
            QVERIFY(form.problemLabel(u"value"_s)->isHidden());
        } else {
            QVERIFY(!content);
            QVERIFY2(error.startsWith(u"'value' "_s + problem), qPrintable(error));
            QCOMPARE(form.problemLabel(u"value"_s)->text(), error);
            QVERIFY(!form.problemLabel(u"value"_s)->isHidden());
        }
    }

    void samplingIsRefusedWithItsReason()
    {
        const auto call = callDialog(u"trigger-sampling-request"_s);
        editorOf<QLineEdit>(*namedChild<SchemaForm>(*call, u"form"_s), u"prompt"_s)->setText(u"Say hello"_s);
        call->call();
        QTRY_VERIFY_WITH_TIMEOUT(!call->isCalling(), 30000);
        const QString shown = namedChild<QLabel>(*call, u"errorBanner"_s)->text() + u'\n' + resultText(*call);
        QVERIFY2(shown.contains(u"has no model to sample from"_s), qPrintable(shown));
        QVERIFY(!openQuestion<ServerRequestDialog>(m_window, 0)); // nothing is asked of the person
    }

    void rootsComeFromTheConfig()
    {
        const auto call = callDialog(u"get-roots-list"_s);
        call->call();
        QTRY_VERIFY_WITH_TIMEOUT(!call->isCalling(), 30000);
        QVERIFY2(resultText(*call).contains(u"URI: file:///tmp/x"_s), qPrintable(resultText(*call)));
    }

    // Several questions at once each have a dialog and an answer of their own; one the server
    // withdraws closes unanswered.
    void eachQuestionHasItsOwnDialog()
    {
        std::optional<RpcReply> first;
        std::optional<RpcReply> second;
        const quint64 firstHandle = m_client->serverRequest(smallFormRequest(u"Where to?"_s),
                                                            [&](const RpcReply &answer) { first = answer; }, {});
        const quint64 secondHandle = m_client->serverRequest(smallFormRequest(u"Where else?"_s),
                                                             [&](const RpcReply &answer) { second = answer; }, {});
        QVERIFY(firstHandle != secondHandle);
        QCOMPARE(m_client->questionsWaiting(u"everything"_s), 2);
        QList<QPointer<ElicitationFormDialog>> questions;
        for (ElicitationFormDialog *dialog : m_window.findChildren<ElicitationFormDialog *>()) {
            if (dialog->isVisible() && !dialog->isAnswered())
                questions.append(dialog);
        }
        QCOMPARE(questions.size(), 2);
        const auto asking = [&](const QString &message) {
            return *std::find_if(questions.cbegin(), questions.cend(), [&](const auto &dialog) {
                return namedChild<QLabel>(*dialog, u"message"_s)->text() == message;
            });
        };
        const QPointer<ElicitationFormDialog> whereTo = asking(u"Where to?"_s);
        const QPointer<ElicitationFormDialog> whereElse = asking(u"Where else?"_s);
        QCOMPARE(mnemonicProblems(whereTo), QStringList());

        m_client->cancelServerRequest(firstHandle, u"cancelled by the server"_s);
        QTRY_VERIFY(!whereTo);
        QVERIFY(!first);
        QCOMPARE(m_client->questionsWaiting(u"everything"_s), 1);

        SchemaForm *form = namedChild<SchemaForm>(*whereElse, u"form"_s);
        editorOf<QLineEdit>(*form, u"city"_s)->setText(u"Lyon"_s);
        namedChild<QPushButton>(*whereElse, u"accept"_s)->click();
        QVERIFY(second && second->ok());
        QCOMPARE(second->result.toObject(),
                 (QJsonObject{{u"action"_s, u"accept"_s},
                              {u"content"_s, QJsonObject{{u"city"_s, u"Lyon"_s}, {u"nights"_s, 2}}}}));
        QVERIFY(!first);
        QCOMPARE(m_client->questionsWaiting(u"everything"_s), 0);
    }

    void samplingAskedDirectlyIsAnErrorOfTheProtocol()
    {
        std::optional<RpcReply> reply;
        m_client->serverRequest(ServerRequest{u"everything"_s, u"sampling/createMessage"_s,
                                              QJsonObject{{u"messages"_s, QJsonArray{}}, {u"maxTokens"_s, 10}}, {}},
                                [&](const RpcReply &answer) { reply = answer; }, {});
        QVERIFY(!reply); // from the event loop, never inside the session's call
        QTRY_VERIFY(reply);
        QVERIFY(!reply->ok());
        QCOMPARE(reply->error->code, int(JsonRpc::InternalError));
        QVERIFY2(reply->error->message.contains(u"no model to sample from"_s), qPrintable(reply->error->message));
        QCOMPARE(m_client->clientLabel(), u"the window"_s);
    }

    // A window that goes away leaves no server waiting: its questions are cancelled.
    void questionsOfAClientSideThatGoesAreCancelled()
    {
        std::optional<RpcReply> reply;
        auto client = std::make_shared<WindowClientSide>(&m_window);
        client->serverRequest(smallFormRequest(u"Going?"_s), [&](const RpcReply &answer) { reply = answer; }, {});
        const QPointer<ElicitationFormDialog> question = openQuestion<ElicitationFormDialog>(m_window);
        QVERIFY(question);
        client.reset();
        QVERIFY(reply && reply->ok());
        QCOMPARE(reply->result.toObject(), (QJsonObject{{u"action"_s, u"cancel"_s}}));
        QTRY_VERIFY(!question);
    }

    // The connection ends while the person is asked: the question closes unanswered and the call
    // says why it failed.
    void aQuestionOfAServerThatStopsCloses()
    {
        const auto call = callDialog(u"trigger-elicitation-request"_s);
        call->call();
        const QPointer<ElicitationFormDialog> question = openQuestion<ElicitationFormDialog>(m_window);
        QVERIFY(question);
        m_manager->stop(u"everything"_s);
        QTRY_VERIFY_WITH_TIMEOUT(!question, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!call->isCalling(), 10000);
        QCOMPARE(m_client->questionsWaiting(u"everything"_s), 0);
    }
};

QTEST_MAIN(TestWindowClientSide)
#include "tst_windowclientside.moc"
