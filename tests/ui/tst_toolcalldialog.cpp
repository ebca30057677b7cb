// The tool call dialog: a form from the tool's schema, calls to a real demo server through the
// manager, progress, cancellation, and how each kind of result is shown.
#include "schemaform.h"
#include "toolcalldialog.h"

#include "manager/servermanager.h"

#include "support/demoserverconfig.h"
#include "support/mnemonicchecks.h"
#include "support/namedchild.h"
#include "support/stopallandwait.h"

#include <QAccessible>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QFontInfo>
#include <QGroupBox>
#include <QTabWidget>
#include <QToolButton>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QApplication>
#include <QTest>
#include <QTextDocument>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

// The dialog's parts, by the names it gives them.
SchemaForm *schemaForm(const ToolCallDialog &dialog)
{
    return namedChild<SchemaForm>(dialog, u"form"_s);
}

QCheckBox *rawJsonToggle(const ToolCallDialog &dialog)
{
    return namedChild<QCheckBox>(dialog, u"rawJsonToggle"_s);
}

QPlainTextEdit *rawJsonEditor(const ToolCallDialog &dialog)
{
    return namedChild<QPlainTextEdit>(dialog, u"rawJsonEditor"_s);
}

QPushButton *callButton(const ToolCallDialog &dialog)
{
    return namedChild<QPushButton>(dialog, u"call"_s);
}

QPushButton *cancelButton(const ToolCallDialog &dialog)
{
    return namedChild<QPushButton>(dialog, u"cancelCall"_s);
}

QProgressBar *progressBar(const ToolCallDialog &dialog)
{
    return namedChild<QProgressBar>(dialog, u"progress"_s);
}

QLabel *statusLabel(const ToolCallDialog &dialog)
{
    return namedChild<QLabel>(dialog, u"status"_s);
}

// Shown for a tool error (isError), a failed call, and arguments that cannot be sent.
QLabel *errorBanner(const ToolCallDialog &dialog)
{
    return namedChild<QLabel>(dialog, u"errorBanner"_s);
}

// Text content, structured content and other blocks as text.
QPlainTextEdit *resultView(const ToolCallDialog &dialog)
{
    return namedChild<QPlainTextEdit>(dialog, u"result"_s);
}

// One button per image of the result, showing the decoded picture and opening it larger.
QList<QToolButton *> resultImages(const ToolCallDialog &dialog)
{
    return namedChild<QWidget>(dialog, u"resultImages"_s)->findChildren<QToolButton *>(Qt::FindDirectChildrenOnly);
}

// The whole result as the server sent it.
QPlainTextEdit *rawResultView(const ToolCallDialog &dialog)
{
    return namedChild<QPlainTextEdit>(dialog, u"rawResult"_s);
}

QGroupBox *resultBox(const ToolCallDialog &dialog)
{
    return namedChild<QGroupBox>(dialog, u"resultBox"_s);
}

// Where a widget is in its dialog.
QRect placeIn(const QWidget &dialog, const QWidget *widget)
{
    return QRect(widget->mapTo(&dialog, QPoint()), widget->size());
}

bool isFixedPitch(const QWidget *widget)
{
    return QFontInfo(widget->font()).fixedPitch();
}

template<typename Editor>
Editor *editorOf(const ToolCallDialog &dialog, const QString &field)
{
    auto *editor = qobject_cast<Editor *>(schemaForm(dialog)->editor(field));
    if (!editor)
        qFatal("the field '%s' has no editor of the expected kind", qPrintable(field));
    return editor;
}

int cancellationsLogged(ServerManager &manager)
{
    const QList<ServerEvent> events = manager.eventLog().events(u"demo"_s);
    return int(std::count_if(events.cbegin(), events.cend(), [](const ServerEvent &event) {
        return event.kind == ServerEvent::Kind::Stderr && event.text.contains(u"demo: cancelled request"_s);
    }));
}

ToolDefinition definition(const QJsonObject &inputSchema)
{
    QString error;
    return *parseToolDefinition(QJsonObject{{u"name"_s, u"synthetic"_s}, {u"inputSchema"_s, inputSchema}}, &error);
}

} // namespace

class TestToolCallDialog final : public QObject
{
    Q_OBJECT

private:
    ToolDefinition tool(const QString &name) const
    {
        const std::optional<RegisteredTool> found = m_manager->registry().find(u"demo__"_s + name);
        if (!found)
            qFatal("the demo server offers no tool '%s'", qPrintable(name));
        return found->definition;
    }

    std::unique_ptr<ServerManager> m_manager;

private slots:
    void initTestCase()
    {
        m_manager = std::make_unique<ServerManager>();
        ServerConfig off = demoServerConfig(u"off"_s);
        off.enabled = false;
        ConfigDocument document;
        document.servers = {demoServerConfig(u"demo"_s), off};
        m_manager->applyConfig(document);
        QTRY_COMPARE_WITH_TIMEOUT(m_manager->status(u"demo"_s)->state, ServerState::Connected, 10000);
    }

    void cleanupTestCase()
    {
        QVERIFY(stopAllAndWait(*m_manager));
        m_manager.reset();
    }

    void buildsFieldsFromTheSchema()
    {
        ToolCallDialog dialog(*m_manager, u"demo"_s, tool(u"format"_s));
        SchemaForm *form = schemaForm(dialog);
        QCOMPARE(form->fieldNames(), (QStringList{u"text"_s, u"repeat"_s, u"style"_s, u"uppercase"_s}));
        QCOMPARE(form->fieldKind(u"text"_s), SchemaForm::FieldKind::Text);
        QCOMPARE(form->fieldKind(u"repeat"_s), SchemaForm::FieldKind::Integer);
        QCOMPARE(form->fieldKind(u"style"_s), SchemaForm::FieldKind::Enum);
        QCOMPARE(form->fieldKind(u"uppercase"_s), SchemaForm::FieldKind::Boolean);
        QVERIFY(form->isRequired(u"text"_s));
        QVERIFY(!form->isRequired(u"style"_s));

        auto *style = editorOf<QComboBox>(dialog, u"style"_s);
        QCOMPARE(style->count(), 4);
        QCOMPARE(style->itemText(0), u"(unset)"_s);
        QCOMPARE(style->itemText(2), u"quoted"_s);
        QCOMPARE(style->currentText(), u"plain"_s); // the default
        QCOMPARE(editorOf<QLineEdit>(dialog, u"repeat"_s)->text(), u"1"_s);
        auto *uppercase = editorOf<QCheckBox>(dialog, u"uppercase"_s);
        QVERIFY(uppercase->isTristate());
        QCOMPARE(uppercase->checkState(), Qt::Unchecked);
        QVERIFY(!editorOf<QLineEdit>(dialog, u"text"_s)->toolTip().isEmpty()); // the description

        editorOf<QLineEdit>(dialog, u"text"_s)->setText(u"hi"_s);
        QString error;
        QCOMPARE(form->arguments(&error).value_or(QJsonObject{}),
                 (QJsonObject{{u"text"_s, u"hi"_s}, {u"repeat"_s, 1}, {u"style"_s, u"plain"_s}, {u"uppercase"_s, false}}));
        // Unset optional fields are left out.
        style->setCurrentIndex(0);
        uppercase->setCheckState(Qt::PartiallyChecked);
        editorOf<QLineEdit>(dialog, u"repeat"_s)->clear();
        QCOMPARE(form->arguments(&error).value_or(QJsonObject{}), (QJsonObject{{u"text"_s, u"hi"_s}}));
    }

    // Typing goes into the first field at once; with no field, Call has the focus.
    void focusStartsInTheFirstField()
    {
        ToolCallDialog dialog(*m_manager, u"demo"_s, tool(u"format"_s));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowActive(&dialog));
        QCOMPARE(QApplication::focusWidget(), editorOf<QLineEdit>(dialog, u"text"_s));
        QTest::keyClicks(QApplication::focusWidget(), u"typed"_s);
        QCOMPARE(editorOf<QLineEdit>(dialog, u"text"_s)->text(), u"typed"_s);

        ToolCallDialog noArguments(*m_manager, u"demo"_s, tool(u"image"_s));
        noArguments.show();
        QVERIFY(QTest::qWaitForWindowActive(&noArguments));
        QCOMPARE(QApplication::focusWidget(), namedChild<QPushButton>(noArguments, u"call"_s));
    }

    // A yes/no argument reads as one, and says when it is left out.
    void aYesNoArgumentReadsAsOne()
    {
        ToolCallDialog dialog(*m_manager, u"demo"_s, tool(u"format"_s));
        auto *uppercase = editorOf<QCheckBox>(dialog, u"uppercase"_s);
        QCOMPARE(uppercase->text(), u"No"_s);
        uppercase->setCheckState(Qt::Checked);
        QCOMPARE(uppercase->text(), u"Yes"_s);
        uppercase->setCheckState(Qt::PartiallyChecked);
        QCOMPARE(uppercase->text(), u"Not set (left out)"_s);
    }

    // Results, errors and status lines come and go below a Call button that stays where it is.
    void theCallButtonStaysInPlace()
    {
        ToolCallDialog dialog(*m_manager, u"demo"_s, tool(u"fail"_s));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QPushButton *callButton = namedChild<QPushButton>(dialog, u"call"_s);
        const QRect before = callButton->geometry();
        editorOf<QLineEdit>(dialog, u"message"_s)->setText(u"the disk is full, and this message is long enough to "
                                                          "wrap over more than one line of the dialog's width"_s);
        dialog.call();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isCalling(), 10000);
        QVERIFY(!errorBanner(dialog)->isHidden());
        QApplication::processEvents(); // the layout settles
        QCOMPARE(callButton->geometry(), before);
        editorOf<QLineEdit>(dialog, u"message"_s)->clear();
        dialog.call(); // not called: a status line of its own
        QApplication::processEvents();
        QCOMPARE(callButton->geometry(), before);
    }

    void everyOtherSchemaGetsAJsonEditor()
    {
        const QJsonObject schema{
            {u"type"_s, u"object"_s},
            {u"properties"_s,
             QJsonObject{{u"ratio"_s, QJsonObject{{u"type"_s, u"number"_s}}},
                         {u"nickname"_s, QJsonObject{{u"type"_s, QJsonArray{u"string"_s, u"null"_s}}}},
                         {u"flag"_s, QJsonObject{{u"type"_s, u"boolean"_s}}},
                         {u"tags"_s, QJsonObject{{u"type"_s, u"array"_s}, {u"default"_s, QJsonArray{u"a"_s}}}},
                         {u"either"_s, QJsonObject{{u"anyOf"_s, QJsonArray{QJsonObject{{u"type"_s, u"string"_s}},
                                                                            QJsonObject{{u"type"_s, u"number"_s}}}}}},
                         {u"options"_s, QJsonObject{{u"type"_s, u"object"_s}}}}},
            {u"required"_s, QJsonArray{u"options"_s}},
        };
        ToolCallDialog dialog(*m_manager, u"demo"_s, definition(schema));
        SchemaForm *form = schemaForm(dialog);
        QCOMPARE(form->fieldNames(), (QStringList{u"options"_s, u"either"_s, u"flag"_s, u"nickname"_s, u"ratio"_s, u"tags"_s}));
        QCOMPARE(form->fieldKind(u"ratio"_s), SchemaForm::FieldKind::Number);
        QCOMPARE(form->fieldKind(u"nickname"_s), SchemaForm::FieldKind::Text);
        QCOMPARE(form->fieldKind(u"tags"_s), SchemaForm::FieldKind::Json);
        QCOMPARE(form->fieldKind(u"either"_s), SchemaForm::FieldKind::Json);
        QCOMPARE(form->fieldKind(u"options"_s), SchemaForm::FieldKind::Json);
        QCOMPARE(editorOf<QCheckBox>(dialog, u"flag"_s)->checkState(), Qt::PartiallyChecked); // optional, no default
        QCOMPARE(QJsonDocument::fromJson(editorOf<QPlainTextEdit>(dialog, u"tags"_s)->toPlainText().toUtf8()).array(),
                 QJsonArray{u"a"_s});

        editorOf<QPlainTextEdit>(dialog, u"options"_s)->setPlainText(u"{\"depth\": 2}"_s);
        editorOf<QPlainTextEdit>(dialog, u"either"_s)->setPlainText(u"42"_s);
        editorOf<QLineEdit>(dialog, u"ratio"_s)->setText(u"-1.5e-3"_s);
        QString error;
        QCOMPARE(form->arguments(&error).value_or(QJsonObject{}),
                 (QJsonObject{{u"options"_s, QJsonObject{{u"depth"_s, 2}}}, {u"either"_s, 42}, {u"ratio"_s, -0.0015},
                              {u"tags"_s, QJsonArray{u"a"_s}}}));

        // Invalid JSON: the field says why at once, and Call refuses.
        editorOf<QPlainTextEdit>(dialog, u"options"_s)->setPlainText(u"{\"depth\": "_s);
        const QList<QLabel *> labels = form->findChildren<QLabel *>();
        QVERIFY(std::any_of(labels.cbegin(), labels.cend(), [](const QLabel *label) {
            return !label->isHidden() && label->text().startsWith(u"Not valid JSON"_s);
        }));
        dialog.call();
        QVERIFY(!dialog.isCalling());
        QVERIFY2(statusLabel(dialog)->text().contains(u"'options' is not valid JSON"_s), qPrintable(statusLabel(dialog)->text()));
        QCOMPARE(m_manager->callsInFlight(), 0);
    }

    // One order for a tool's parameters wherever they are listed: required ones first, as
    // "required" lists them, then the others by name; names that are no property, or repeated, left out.
    void parametersAreListedRequiredFirst()
    {
        const QJsonObject string{{u"type"_s, u"string"_s}};
        const QJsonObject schema{
            {u"type"_s, u"object"_s},
            {u"properties"_s, QJsonObject{{u"b"_s, string}, {u"z"_s, string}, {u"a"_s, string}, {u"m"_s, string}}},
            {u"required"_s, QJsonArray{u"z"_s, u"ghost"_s, u"m"_s, u"z"_s}},
        };
        const QList<ToolParameter> expected{{u"z"_s, true, string}, {u"m"_s, true, string},
                                            {u"a"_s, false, string}, {u"b"_s, false, string}};
        QCOMPARE(toolParameters(schema), expected);
        ToolCallDialog dialog(*m_manager, u"demo"_s, definition(schema));
        QCOMPARE(schemaForm(dialog)->fieldNames(), (QStringList{u"z"_s, u"m"_s, u"a"_s, u"b"_s}));
        QVERIFY(toolParameters(QJsonObject{}).isEmpty());
    }

    // Names, titles and descriptions come from the server: shown as written, never as markup, in
    // labels and tool tips alike.
    void serverTextIsNeverMarkup()
    {
        const QString markup = u"<b>bold</b> <img src=\"file:///etc/hostname\">"_s;
        const QJsonObject schema{{u"type"_s, u"object"_s},
                                 {u"properties"_s, QJsonObject{{u"<i>name</i>"_s, QJsonObject{{u"type"_s, u"string"_s},
                                                                                             {u"description"_s, markup}}}}}};
        QString error;
        const ToolDefinition tool = *parseToolDefinition(QJsonObject{{u"name"_s, u"marked"_s},
                                                                     {u"title"_s, u"<u>Marked</u>"_s},
                                                                     {u"description"_s, markup},
                                                                     {u"inputSchema"_s, schema}},
                                                         &error);
        ToolCallDialog dialog(*m_manager, u"demo"_s, tool);
        QStringList marked;
        for (const QLabel *label : dialog.findChildren<QLabel *>()) {
            if (!label->text().contains(u'<'))
                continue;
            marked.append(label->text());
            QVERIFY2(label->textFormat() == Qt::PlainText, qPrintable(label->text()));
        }
        // The title, the description, the field's name and its help.
        QCOMPARE(marked.size(), 4);
        for (const QWidget *widget : dialog.findChildren<QWidget *>())
            QVERIFY2(!Qt::mightBeRichText(widget->toolTip()) || !widget->toolTip().contains(u"<img"_s),
                     qPrintable(widget->toolTip()));
        QVERIFY2(schemaForm(dialog)->editor(u"<i>name</i>"_s)->toolTip().contains(u"&lt;img"_s),
                 qPrintable(schemaForm(dialog)->editor(u"<i>name</i>"_s)->toolTip()));
    }

    // The dialog's own Alt+letters and the form's fields (named by the server, '&' and all) never clash.
    void everyFieldHasItsOwnMnemonic()
    {
        QJsonObject properties;
        for (const QString &name : {u"call"_s, u"cancel"_s, u"a&b"_s, u"json"_s, u"count"_s, u"123"_s})
            properties.insert(name, QJsonObject{{u"type"_s, u"string"_s}});
        ToolCallDialog dialog(*m_manager, u"demo"_s, definition(QJsonObject{{u"type"_s, u"object"_s}, {u"properties"_s, properties}}));
        QCOMPARE(mnemonicProblems(&dialog), QStringList());
        const QList<QLabel *> labels = schemaForm(dialog)->findChildren<QLabel *>();
        QVERIFY(std::any_of(labels.cbegin(), labels.cend(), [](const QLabel *label) {
            return label->text().startsWith(u"a&&"_s) && mnemonicOf(label->text()) == u'b';
        }));
    }

    void refusesAMissingRequiredFieldOrABadNumber()
    {
        ToolCallDialog echo(*m_manager, u"demo"_s, tool(u"echo"_s));
        echo.call();
        QVERIFY(!echo.isCalling());
        QVERIFY2(statusLabel(echo)->text().contains(u"'message' is required"_s), qPrintable(statusLabel(echo)->text()));
        QCOMPARE(m_manager->callsInFlight(), 0);

        ToolCallDialog add(*m_manager, u"demo"_s, tool(u"add"_s));
        editorOf<QLineEdit>(add, u"a"_s)->setText(u"two"_s);
        editorOf<QLineEdit>(add, u"b"_s)->setText(u"1"_s);
        add.call();
        QVERIFY(!add.isCalling());
        QVERIFY2(statusLabel(add)->text().contains(u"'a' must be a number, not 'two'"_s), qPrintable(statusLabel(add)->text()));

        ToolCallDialog format(*m_manager, u"demo"_s, tool(u"format"_s));
        editorOf<QLineEdit>(format, u"text"_s)->setText(u"x"_s);
        editorOf<QLineEdit>(format, u"repeat"_s)->setText(u"11"_s);
        format.call();
        QVERIFY2(statusLabel(format)->text().contains(u"'repeat' must be at most 10"_s), qPrintable(statusLabel(format)->text()));
    }

    void echoShowsItsText()
    {
        ToolCallDialog dialog(*m_manager, u"demo"_s, tool(u"echo"_s));
        editorOf<QLineEdit>(dialog, u"message"_s)->setText(u"hello from the dialog"_s);
        dialog.call();
        QVERIFY(dialog.isCalling());
        QVERIFY(!callButton(dialog)->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isCalling(), 10000);
        QCOMPARE(resultView(dialog)->toPlainText(), u"hello from the dialog"_s);
        QVERIFY(errorBanner(dialog)->isHidden());
        QVERIFY2(statusLabel(dialog)->text().startsWith(u"Done in"_s), qPrintable(statusLabel(dialog)->text()));
        QVERIFY(callButton(dialog)->isEnabled());
    }

    void addTakesNumbers()
    {
        ToolCallDialog dialog(*m_manager, u"demo"_s, tool(u"add"_s));
        editorOf<QLineEdit>(dialog, u"a"_s)->setText(u"2.5"_s);
        editorOf<QLineEdit>(dialog, u"b"_s)->setText(u"-1e1"_s);
        dialog.call();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isCalling(), 10000);
        QCOMPARE(resultView(dialog)->toPlainText(), u"-7.5"_s);
    }

    void formatShowsTextAndStructuredContent()
    {
        ToolCallDialog dialog(*m_manager, u"demo"_s, tool(u"format"_s));
        editorOf<QLineEdit>(dialog, u"text"_s)->setText(u"hi"_s);
        editorOf<QComboBox>(dialog, u"style"_s)->setCurrentText(u"quoted"_s);
        editorOf<QCheckBox>(dialog, u"uppercase"_s)->setCheckState(Qt::Checked);
        editorOf<QLineEdit>(dialog, u"repeat"_s)->setText(u"2"_s);
        dialog.call();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isCalling(), 10000);
        const QString shown = resultView(dialog)->toPlainText();
        QVERIFY2(shown.startsWith(u"\u201CHI\u201D \u201CHI\u201D\n\nStructured content:\n{"_s), qPrintable(shown));
        QVERIFY2(shown.contains(u"\"length\": 9"_s), qPrintable(shown));
    }

    void failShowsTheToolErrorPlainly()
    {
        ToolCallDialog dialog(*m_manager, u"demo"_s, tool(u"fail"_s));
        editorOf<QLineEdit>(dialog, u"message"_s)->setText(u"the disk is full"_s);
        dialog.call();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isCalling(), 10000);
        QVERIFY(!errorBanner(dialog)->isHidden());
        QVERIFY2(errorBanner(dialog)->text().contains(u"isError"_s), qPrintable(errorBanner(dialog)->text()));
        QCOMPARE(resultView(dialog)->toPlainText(), u"the disk is full"_s);
        QVERIFY2(statusLabel(dialog)->text().contains(u"reported an error"_s), qPrintable(statusLabel(dialog)->text()));

        // The next call starts clean.
        dialog.call();
        QVERIFY(errorBanner(dialog)->isHidden());
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isCalling(), 10000);
    }

    // A small picture is scaled up by a whole factor to be seen, its aspect kept; a click opens it
    // larger in a viewer that zooms.
    void imageShowsAPicture()
    {
        ToolCallDialog dialog(*m_manager, u"demo"_s, tool(u"image"_s));
        dialog.show();
        QVERIFY(schemaForm(dialog)->fieldNames().isEmpty());
        dialog.call();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isCalling(), 10000);
        QCOMPARE(resultImages(dialog).size(), 1);
        QToolButton *image = resultImages(dialog).first();
        QCOMPARE(image->iconSize(), QSize(96, 96)); // 32×32, three times
        QCOMPARE(image->icon().pixmap(image->iconSize()).size(), QSize(96, 96));
        QVERIFY(image->isVisible());
        QVERIFY2(image->accessibleName().contains(u"image/png, 32×32"_s), qPrintable(image->accessibleName()));
        QVERIFY2(resultView(dialog)->toPlainText().contains(u"image/png, 32×32"_s), qPrintable(resultView(dialog)->toPlainText()));

        image->click();
        auto *viewer = dialog.findChild<QDialog *>(u"imageViewer"_s);
        QVERIFY(viewer);
        QTRY_VERIFY(viewer->isVisible());
        const QLabel *picture = namedChild<QLabel>(*viewer, u"imageViewerPicture"_s);
        const QSize opened = picture->pixmap().size();
        QVERIFY2(opened.width() >= 32 * 4 && opened.width() == opened.height(), qPrintable(u"%1×%2"_s.arg(opened.width()).arg(opened.height())));
        namedChild<QPushButton>(*viewer, u"zoomIn"_s)->click();
        QCOMPARE(picture->pixmap().size(), opened + QSize(32, 32));
        namedChild<QPushButton>(*viewer, u"actualSize"_s)->click();
        QCOMPARE(picture->pixmap().size(), QSize(32, 32));
        QTest::keyClick(viewer, Qt::Key_Escape);
        QTRY_VERIFY(!viewer->isVisible());
        QVERIFY(dialog.isVisible()); // Esc in the viewer closes the viewer alone
    }

    // A tool without arguments says so in one line, and the dialog is no taller than its content.
    void aToolWithoutArgumentsOpensCompact()
    {
        ToolCallDialog dialog(*m_manager, u"demo"_s, tool(u"image"_s));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        const QLabel *noArguments = namedChild<QLabel>(dialog, u"noArguments"_s);
        QVERIFY(noArguments->isVisible());
        QCOMPARE(noArguments->text(), u"This tool takes no arguments."_s);
        QVERIFY(!rawJsonToggle(dialog)->isVisible());
        QVERIFY(!schemaForm(dialog)->isVisible());
        QVERIFY2(dialog.height() <= 420, qPrintable(QString::number(dialog.height()))); // it opened 760 px tall

        // One with arguments gets the room its form needs.
        ToolCallDialog format(*m_manager, u"demo"_s, tool(u"format"_s));
        format.show();
        QVERIFY(QTest::qWaitForWindowExposed(&format));
        QVERIFY(format.height() > dialog.height());
        const QWidget *lastField = schemaForm(format)->editor(u"uppercase"_s);
        QVERIFY(lastField->visibleRegion().boundingRect().height() == lastField->height()); // no scrolling needed
    }

    // Arguments that cannot be sent are said beside their field and above the result, which then
    // says it is the previous call's.
    void aRefusedCallIsSaidAboveTheResult()
    {
        ToolCallDialog dialog(*m_manager, u"demo"_s, tool(u"echo"_s));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowActive(&dialog));
        auto *message = editorOf<QLineEdit>(dialog, u"message"_s);
        message->setText(u"first"_s);
        dialog.call();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isCalling(), 10000);
        QCOMPARE(resultView(dialog)->toPlainText(), u"first"_s);
        QCOMPARE(resultBox(dialog)->title(), u"Result"_s);

        message->clear();
        callButton(dialog)->setFocus();
        dialog.call();
        QVERIFY(!dialog.isCalling());
        QVERIFY2(statusLabel(dialog)->text().contains(u"'message' is required"_s), qPrintable(statusLabel(dialog)->text()));
        QVERIFY(placeIn(dialog, statusLabel(dialog)).bottom() < placeIn(dialog, resultBox(dialog)).top());
        QVERIFY(!schemaForm(dialog)->problemLabel(u"message"_s)->isHidden());
        QCOMPARE(QApplication::focusWidget(), message);
        QVERIFY2(resultBox(dialog)->title().startsWith(u"Result of the previous call"_s), qPrintable(resultBox(dialog)->title()));

        message->setText(u"second"_s);
        dialog.call();
        QCOMPARE(resultBox(dialog)->title(), u"Result"_s);
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isCalling(), 10000);
        QCOMPARE(resultView(dialog)->toPlainText(), u"second"_s);
    }

    // Copy puts the result on the clipboard as shown: its text, or the whole result as raw JSON.
    void copiesTheResultAndShowsItsRawJson()
    {
        ToolCallDialog dialog(*m_manager, u"demo"_s, tool(u"format"_s));
        auto *copy = namedChild<QPushButton>(dialog, u"copyResult"_s);
        QVERIFY(!copy->isEnabled()); // nothing to copy yet
        editorOf<QLineEdit>(dialog, u"text"_s)->setText(u"hi"_s);
        dialog.call();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isCalling(), 10000);
        QVERIFY(copy->isEnabled());
        QGuiApplication::clipboard()->clear();
        copy->click();
        QCOMPARE(QGuiApplication::clipboard()->text(), resultView(dialog)->toPlainText());
        QVERIFY(QGuiApplication::clipboard()->text().startsWith(u"hi"_s));

        const QJsonObject raw = QJsonDocument::fromJson(rawResultView(dialog)->toPlainText().toUtf8()).object();
        QCOMPARE(raw.value(u"content"_s)[0][u"type"_s].toString(), u"text"_s);
        QCOMPARE(raw.value(u"structuredContent"_s)[u"length"_s].toInt(), 2);
        namedChild<QTabWidget>(dialog, u"resultTabs"_s)->setCurrentWidget(rawResultView(dialog));
        copy->click();
        QCOMPARE(QJsonDocument::fromJson(QGuiApplication::clipboard()->text().toUtf8()).object(), raw);

        // A failed call: its error, whole.
        ToolCallDialog off(*m_manager, u"off"_s, tool(u"echo"_s));
        editorOf<QLineEdit>(off, u"message"_s)->setText(u"anyone?"_s);
        off.call();
        QTRY_VERIFY_WITH_TIMEOUT(!off.isCalling(), 10000);
        QVERIFY2(QJsonDocument::fromJson(rawResultView(off)->toPlainText().toUtf8())
                     .object()[u"error"_s][u"message"_s].toString().contains(u"server 'off' is stopped"_s),
                 qPrintable(rawResultView(off)->toPlainText()));
        namedChild<QPushButton>(off, u"copyResult"_s)->click();
        QVERIFY2(QGuiApplication::clipboard()->text().contains(u"server 'off' is stopped"_s), qPrintable(QGuiApplication::clipboard()->text()));
    }

    // JSON is edited and read in a fixed-width font: the arguments, a JSON field, the raw result.
    void jsonIsShownInAFixedWidthFont()
    {
        const QJsonObject schema{{u"type"_s, u"object"_s},
                                 {u"properties"_s, QJsonObject{{u"options"_s, QJsonObject{{u"type"_s, u"object"_s}}},
                                                               {u"name"_s, QJsonObject{{u"type"_s, u"string"_s}}}}}};
        ToolCallDialog dialog(*m_manager, u"demo"_s, definition(schema));
        QVERIFY(isFixedPitch(rawJsonEditor(dialog)));
        QVERIFY(isFixedPitch(editorOf<QPlainTextEdit>(dialog, u"options"_s)));
        QVERIFY(isFixedPitch(rawResultView(dialog)));
        QVERIFY(!isFixedPitch(editorOf<QLineEdit>(dialog, u"name"_s))); // text stays in the dialog's font
    }

    // Ctrl+Enter calls from any field, the JSON editor's included; Esc and Ctrl+W close.
    void theKeyboardCallsAndCloses()
    {
        ToolCallDialog dialog(*m_manager, u"demo"_s, tool(u"echo"_s));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowActive(&dialog));
        QTest::keyClicks(QApplication::focusWidget(), u"typed"_s);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return, Qt::ControlModifier);
        QVERIFY(dialog.isCalling());
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isCalling(), 10000);
        QCOMPARE(resultView(dialog)->toPlainText(), u"typed"_s);

        rawJsonToggle(dialog)->setChecked(true);
        rawJsonEditor(dialog)->setFocus();
        rawJsonEditor(dialog)->setPlainText(u"{\"message\": \"from json\"}"_s);
        QTest::keyClick(rawJsonEditor(dialog), Qt::Key_Enter, Qt::ControlModifier);
        QVERIFY(dialog.isCalling());
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isCalling(), 10000);
        QCOMPARE(resultView(dialog)->toPlainText(), u"from json"_s);
        QCOMPARE(rawJsonEditor(dialog)->toPlainText(), u"{\"message\": \"from json\"}"_s); // no line break typed

        QSignalSpy rejected(&dialog, &QDialog::rejected);
        QTest::keyClick(rawJsonEditor(dialog), Qt::Key_Escape);
        QCOMPARE(rejected.size(), 1);

        // Not modal, so Ctrl+W closes it too.
        dialog.show();
        QVERIFY(QTest::qWaitForWindowActive(&dialog));
        QTest::keyClick(&dialog, Qt::Key_W, Qt::ControlModifier);
        QCOMPARE(rejected.size(), 2);
    }

    // Tab alone reaches every control, each named for a screen reader, the result's included.
    void everyControlIsReachedByTabAndNamed()
    {
        ToolCallDialog dialog(*m_manager, u"demo"_s, tool(u"format"_s));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowActive(&dialog));
        editorOf<QLineEdit>(dialog, u"text"_s)->setText(u"hi"_s);
        dialog.call();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isCalling(), 10000);
        editorOf<QLineEdit>(dialog, u"text"_s)->setFocus();
        QList<QWidget *> reached;
        for (QWidget *at = QApplication::focusWidget(); at && !reached.contains(at); at = QApplication::focusWidget()) {
            reached.append(at);
            QTest::keyClick(at, Qt::Key_Tab);
        }
        QStringList unnamed;
        for (QWidget *widget : std::as_const(reached)) {
            const QAccessibleInterface *accessible = QAccessible::queryAccessibleInterface(widget);
            if (!accessible || accessible->text(QAccessible::Name).isEmpty())
                unnamed.append(widget->objectName() + u' ' + QString::fromLatin1(widget->metaObject()->className()));
        }
        QVERIFY2(unnamed.isEmpty(), qPrintable(unnamed.join(u", "_s)));
        QStringList missed;
        for (QWidget *widget : dialog.findChildren<QWidget *>()) {
            if (widget->isVisible() && widget->isEnabled() && (widget->focusPolicy() & Qt::TabFocus) && !reached.contains(widget)
                && !widget->focusProxy())
                missed.append(widget->objectName() + u' ' + QString::fromLatin1(widget->metaObject()->className()));
        }
        QVERIFY2(missed.isEmpty(), qPrintable(missed.join(u", "_s)));
    }

    void sleepShowsProgressAndCancels()
    {
        const int cancelledBefore = cancellationsLogged(*m_manager);
        ToolCallDialog dialog(*m_manager, u"demo"_s, tool(u"sleep"_s));
        editorOf<QLineEdit>(dialog, u"ms"_s)->setText(u"20000"_s);
        dialog.call();
        QCOMPARE(progressBar(dialog)->maximum(), 0); // busy until the first progress
        QVERIFY(cancelButton(dialog)->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(progressBar(dialog)->maximum() > 0 && progressBar(dialog)->value() > 0, 5000);
        // The server's own message, once: the bar already shows how far it is.
        QTRY_VERIFY2_WITH_TIMEOUT(QRegularExpression(u"^Calling sleep: slept \\d+ of 20000 ms$"_s)
                                      .match(statusLabel(dialog)->text()).hasMatch(),
                                  qPrintable(statusLabel(dialog)->text()), 5000);

        cancelButton(dialog)->click();
        QVERIFY(!dialog.isCalling());
        QVERIFY2(statusLabel(dialog)->text().startsWith(u"Cancelled"_s), qPrintable(statusLabel(dialog)->text()));
        QVERIFY(errorBanner(dialog)->isHidden());
        QVERIFY(!cancelButton(dialog)->isEnabled());
        QTRY_COMPARE_WITH_TIMEOUT(cancellationsLogged(*m_manager), cancelledBefore + 1, 5000);
        QCOMPARE(m_manager->status(u"demo"_s)->state, ServerState::Connected);
        QCOMPARE(m_manager->callsInFlight(), 0);
    }

    void closingTheDialogCancelsItsCall()
    {
        const int cancelledBefore = cancellationsLogged(*m_manager);
        auto dialog = std::make_unique<ToolCallDialog>(*m_manager, u"demo"_s, tool(u"sleep"_s));
        editorOf<QLineEdit>(*dialog, u"ms"_s)->setText(u"20000"_s);
        dialog->show();
        dialog->call();
        QCOMPARE(m_manager->callsInFlight(), 1);
        dialog->reject();
        QCOMPARE(m_manager->callsInFlight(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(cancellationsLogged(*m_manager), cancelledBefore + 1, 5000);

        // Destroyed while calling: cancelled too.
        dialog->call();
        QCOMPARE(m_manager->callsInFlight(), 1);
        dialog.reset();
        QCOMPARE(m_manager->callsInFlight(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(cancellationsLogged(*m_manager), cancelledBefore + 2, 5000);
    }

    void aServerThatIsNotUpGivesTheManagersError()
    {
        ToolCallDialog dialog(*m_manager, u"off"_s, tool(u"echo"_s));
        editorOf<QLineEdit>(dialog, u"message"_s)->setText(u"anyone?"_s);
        dialog.call();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isCalling(), 10000);
        QVERIFY(!errorBanner(dialog)->isHidden());
        QVERIFY2(errorBanner(dialog)->text().contains(u"The call failed: server 'off' is stopped"_s),
                 qPrintable(errorBanner(dialog)->text()));
    }

    void rawJsonArgumentsRoundTrip()
    {
        ToolCallDialog dialog(*m_manager, u"demo"_s, tool(u"format"_s));
        rawJsonToggle(dialog)->setChecked(true);
        const QJsonObject shown = QJsonDocument::fromJson(rawJsonEditor(dialog)->toPlainText().toUtf8()).object();
        QCOMPARE(shown.value(u"style"_s).toString(), u"plain"_s);

        rawJsonEditor(dialog)->setPlainText(u"{\"text\": \"raw\", \"repeat\": 3}"_s);
        rawJsonToggle(dialog)->setChecked(false);
        QCOMPARE(editorOf<QLineEdit>(dialog, u"text"_s)->text(), u"raw"_s);
        QCOMPARE(editorOf<QLineEdit>(dialog, u"repeat"_s)->text(), u"3"_s);
        QCOMPARE(editorOf<QComboBox>(dialog, u"style"_s)->currentIndex(), 0); // left out: unset

        // A key the form has no field for stays in the JSON view.
        rawJsonToggle(dialog)->setChecked(true);
        rawJsonEditor(dialog)->setPlainText(u"{\"text\": \"raw\", \"colour\": \"red\"}"_s);
        rawJsonToggle(dialog)->setChecked(false);
        QVERIFY(rawJsonToggle(dialog)->isChecked());
        QVERIFY2(statusLabel(dialog)->text().contains(u"no field 'colour'"_s), qPrintable(statusLabel(dialog)->text()));

        // Called as written, and the server judges it.
        rawJsonEditor(dialog)->setPlainText(u"{\"text\": \"raw\", \"repeat\": 2}"_s);
        dialog.call();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isCalling(), 10000);
        QVERIFY2(resultView(dialog)->toPlainText().startsWith(u"raw raw"_s), qPrintable(resultView(dialog)->toPlainText()));
        rawJsonEditor(dialog)->setPlainText(u"[1, 2]"_s);
        dialog.call();
        QVERIFY(!dialog.isCalling());
        QVERIFY2(statusLabel(dialog)->text().contains(u"must be a JSON object"_s), qPrintable(statusLabel(dialog)->text()));
    }
};

QTEST_MAIN(TestToolCallDialog)
#include "tst_toolcalldialog.moc"
