#include "toolcalldialog.h"

#include "messagelabel.h"
#include "mnemonics.h"
#include "schemaform.h"
#include "windowclientside.h"

#include "common/duration.h"
#include "common/jsontext.h"
#include "manager/serversource.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QPixmap>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Tether {

// Progress is shown in thousandths of the total the server gave.
static constexpr int ProgressSteps = 1000;

ToolCallDialog::ToolCallDialog(ServerSource &manager, const QString &serverName, const ToolDefinition &tool,
                               std::weak_ptr<WindowClientSide> client, QWidget *parent)
    : QDialog(parent)
    , m_manager(manager)
    , m_serverName(serverName)
    , m_tool(tool)
    , m_client(std::move(client))
    , m_form(new SchemaForm(tool.inputSchema()))
    , m_rawToggle(new QCheckBox(tr("Edit the arguments as &JSON"), this))
    , m_rawJson(new QPlainTextEdit(this))
    , m_argumentsStack(new QStackedWidget(this))
    , m_callButton(new QPushButton(tr("&Call"), this))
    , m_cancelButton(new QPushButton(tr("C&ancel call"), this))
    , m_progress(new QProgressBar(this))
    , m_status(new QLabel(this))
    , m_errorBanner(new QLabel(this))
    , m_resultText(new QPlainTextEdit(this))
    , m_imageBox(new QWidget(this))
    , m_imageLayout(new QVBoxLayout(m_imageBox))
{
    setWindowTitle(tr("Call %1 on %2").arg(tool.name, serverName));
    m_form->setObjectName(u"form"_s);
    m_rawToggle->setObjectName(u"rawJsonToggle"_s);
    m_rawJson->setObjectName(u"rawJsonEditor"_s);
    m_callButton->setObjectName(u"call"_s);
    m_cancelButton->setObjectName(u"cancelCall"_s);
    m_progress->setObjectName(u"progress"_s);
    m_status->setObjectName(u"status"_s);
    m_errorBanner->setObjectName(u"errorBanner"_s);
    m_resultText->setObjectName(u"result"_s);
    m_imageBox->setObjectName(u"resultImages"_s); // one label per image, showing the picture

    auto *title = new QLabel(this);
    title->setTextFormat(Qt::PlainText);
    title->setText(tool.title.isEmpty() ? tool.name : u"%1 (%2)"_s.arg(tool.title, tool.name));
    QFont titleFont = title->font();
    titleFont.setBold(true);
    title->setFont(titleFont);
    auto *description = new QLabel(tool.description, this);
    description->setTextFormat(Qt::PlainText);
    description->setWordWrap(true);
    auto *server = new QLabel(tr("Server: %1").arg(serverName), this);
    server->setTextFormat(Qt::PlainText);
    server->setForegroundRole(QPalette::PlaceholderText);

    auto *formScroll = new QScrollArea(this);
    formScroll->setWidgetResizable(true);
    formScroll->setFrameShape(QFrame::NoFrame);
    formScroll->setWidget(m_form);
    m_rawJson->setPlaceholderText(tr("A JSON object, e.g. {\"message\": \"hello\"}"));
    m_argumentsStack->addWidget(formScroll);
    m_argumentsStack->addWidget(m_rawJson);
    auto *arguments = new QGroupBox(tr("Arguments"), this);
    auto *argumentsLayout = new QVBoxLayout(arguments);
    argumentsLayout->addWidget(m_argumentsStack);
    argumentsLayout->addWidget(m_rawToggle);
    connect(m_rawToggle, &QCheckBox::toggled, this, &ToolCallDialog::onRawJsonToggled);
    if (const std::shared_ptr<WindowClientSide> clientSide = m_client.lock())
        connect(clientSide.get(), &WindowClientSide::questionsChanged, this, &ToolCallDialog::onQuestionsChanged);

    m_callButton->setDefault(true);
    connect(m_callButton, &QPushButton::clicked, this, &ToolCallDialog::call);
    connect(m_cancelButton, &QPushButton::clicked, this, &ToolCallDialog::cancel);
    m_progress->setRange(0, ProgressSteps);
    m_progress->setValue(0);
    m_progress->setTextVisible(false);
    auto *callRow = new QHBoxLayout;
    callRow->addWidget(m_callButton);
    callRow->addWidget(m_cancelButton);
    callRow->addWidget(m_progress, 1);
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);
    // Two lines, whatever it says, so that nothing above or below it moves as it changes; a
    // longer text is whole in its tooltip.
    m_status->setFixedHeight(2 * m_status->fontMetrics().lineSpacing());
    m_status->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    makeErrorBanner(m_errorBanner);
    m_errorBanner->hide();

    m_resultText->setReadOnly(true);
    m_resultText->setPlaceholderText(tr("The result appears here."));
    m_imageLayout->setContentsMargins(0, 0, 0, 0);
    auto *result = new QGroupBox(tr("Result"), this);
    auto *resultLayout = new QVBoxLayout(result);
    resultLayout->addWidget(m_errorBanner);
    resultLayout->addWidget(m_imageBox);
    resultLayout->addWidget(m_resultText, 1);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->button(QDialogButtonBox::Close)->setText(tr("Close")); // the platform's may take Alt+C from Call
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    // The form's fields get the letters the dialog leaves free.
    QString taken;
    for (const Mnemonic &mnemonic : mnemonicsIn(this))
        taken.append(mnemonic.letter);
    m_form->assignMnemonics(taken);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(title);
    layout->addWidget(server);
    if (!tool.description.isEmpty())
        layout->addWidget(description);
    else
        description->hide();
    // The arguments above, the call and its result below: a splitter keeps the Call button where
    // it is as banners and results come and go, and lets the person give either part more room.
    auto *callAndResult = new QWidget(this);
    auto *callAndResultLayout = new QVBoxLayout(callAndResult);
    callAndResultLayout->setContentsMargins(0, 0, 0, 0);
    callAndResultLayout->addLayout(callRow);
    callAndResultLayout->addWidget(m_status);
    callAndResultLayout->addWidget(result, 1);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(arguments);
    splitter->addWidget(callAndResult);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter, 1);
    layout->addWidget(buttons);
    resize(600, 760);
    setCalling(false);
    // Typing goes into the first argument; with none, Return calls.
    const QStringList fields = m_form->fieldNames();
    if (QWidget *first = fields.isEmpty() ? nullptr : m_form->editor(fields.first()))
        first->setFocus();
    else
        m_callButton->setFocus();
}

ToolCallDialog::~ToolCallDialog()
{
    // The answer would come to a dialog that is going away: nobody needs it.
    ++m_callNumber;
    if (const ToolCallTicket ticket = std::exchange(m_ticket, {}); ticket.isValid())
        m_manager.cancelToolCall(ticket, tr("the tool call dialog was closed"));
}

void ToolCallDialog::done(int result)
{
    if (isCalling())
        m_manager.cancelToolCall(m_ticket, tr("the tool call dialog was closed"));
    QDialog::done(result);
}

std::optional<QJsonObject> ToolCallDialog::currentArguments(QString *error)
{
    return m_rawToggle->isChecked() ? rawArguments(error) : m_form->checkedArguments(error);
}

std::optional<QJsonObject> ToolCallDialog::rawArguments(QString *error) const
{
    const QString text = m_rawJson->toPlainText().trimmed();
    if (text.isEmpty())
        return QJsonObject{};
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(text.toUtf8(), &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        *error = tr("the arguments are not valid JSON: %1 at character %2; correct them")
                     .arg(parseError.errorString())
                     .arg(parseError.offset);
        return std::nullopt;
    }
    if (!document.isObject()) {
        *error = tr("the arguments must be a JSON object ({\"name\": value, …})");
        return std::nullopt;
    }
    return document.object();
}

void ToolCallDialog::onRawJsonToggled(bool raw)
{
    QString error;
    if (raw) {
        // An incomplete form still turns into JSON: what is filled in is kept.
        m_rawJson->setPlainText(jsonText(m_form->filledIn(), QJsonDocument::Indented));
        m_argumentsStack->setCurrentWidget(m_rawJson);
        setStatus({});
        return;
    }
    const std::optional<QJsonObject> arguments = rawArguments(&error);
    if (!arguments || !m_form->setArguments(*arguments, &error)) {
        const QSignalBlocker blocker(m_rawToggle);
        m_rawToggle->setChecked(true);
        setStatus(tr("Cannot show these arguments in the form: %1.").arg(error));
        return;
    }
    m_argumentsStack->setCurrentIndex(0);
    setStatus({});
}

void ToolCallDialog::setStatus(const QString &text)
{
    m_status->setText(text);
    m_status->setToolTip(text.isEmpty() ? QString() : plainToolTip(text));
}

void ToolCallDialog::setCalling(bool calling)
{
    m_callButton->setEnabled(!calling);
    m_cancelButton->setEnabled(calling);
    m_rawToggle->setEnabled(!calling);
    m_argumentsStack->setEnabled(!calling);
}

void ToolCallDialog::call()
{
    if (isCalling())
        return;
    QString error;
    const std::optional<QJsonObject> arguments = currentArguments(&error);
    if (!arguments) {
        setStatus(tr("Not called: %1.").arg(error));
        return;
    }
    clearResult();
    const quint64 number = ++m_callNumber;
    m_progress->setRange(0, 0); // busy until the server says how much there is to do
    setStatus(tr("Calling %1 on server '%2'…").arg(m_tool.name, m_serverName));
    setCalling(true);
    m_elapsed.start();
    const QPointer<ToolCallDialog> guard(this);
    const auto started = std::chrono::steady_clock::now();
    ToolCallInput input(*arguments);
    input.origin = m_client;
    m_ticket = m_manager.callTool(
        m_serverName, m_tool.name, input,
        // The server's log records the call also when the dialog has been closed meanwhile.
        [guard, number, started, manager = &m_manager, server = m_serverName, tool = m_tool.name,
         caller = tr("window")](const ToolCallReply &reply) {
            manager->eventLog().append(toolCallEvent(
                server, caller, tool, reply,
                std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started)));
            if (guard && guard->m_callNumber == number)
                guard->onReply(reply);
        },
        [guard, number](const ProgressUpdate &update) {
            if (guard && guard->m_callNumber == number)
                guard->onProgress(update);
        });
}

void ToolCallDialog::cancel()
{
    if (isCalling())
        m_manager.cancelToolCall(m_ticket, tr("cancelled from Tether's tool call dialog"));
}

void ToolCallDialog::onProgress(const ProgressUpdate &update)
{
    if (update.total && *update.total > 0) {
        m_progress->setRange(0, ProgressSteps);
        m_progress->setValue(int(std::clamp(update.progress / *update.total, 0.0, 1.0) * ProgressSteps));
    }
    // The server's message says how far it is in its own words; the bar shows the amount.
    const QString amount = update.total ? tr("%1 of %2").arg(update.progress).arg(*update.total)
                                        : QString::number(update.progress);
    setStatus(tr("Calling %1: %2").arg(m_tool.name, update.message.isEmpty() ? amount : update.message));
}

void ToolCallDialog::onQuestionsChanged(const QString &serverName)
{
    const std::shared_ptr<WindowClientSide> client = m_client.lock();
    if (serverName != m_serverName || !isCalling() || !client)
        return;
    // Which call a question serves cannot be told; every call waiting on that server points to it.
    setStatus(client->questionsWaiting(serverName) > 0
                  ? tr("Calling %1: the server '%2' asks you something in a window of its own; answer it there.")
                        .arg(m_tool.name, m_serverName)
                  : tr("Calling %1 on server '%2'…").arg(m_tool.name, m_serverName));
}

void ToolCallDialog::onReply(const ToolCallReply &reply)
{
    m_ticket = {};
    setCalling(false);
    m_progress->setRange(0, ProgressSteps);
    m_progress->setValue(0);
    const QString took = formatDuration(std::chrono::milliseconds(m_elapsed.elapsed()));
    if (reply.error && reply.error->code == JsonRpc::RequestCancelled) {
        setStatus(tr("Cancelled after %1.").arg(took));
        m_resultText->setPlainText(reply.error->message);
        return;
    }
    if (reply.error) {
        setStatus(tr("Failed after %1.").arg(took));
        showError(tr("The call failed: %1").arg(reply.error->message));
        return;
    }
    setStatus(reply.result.isError ? tr("The tool reported an error after %1.").arg(took)
                                           : tr("Done in %1.").arg(took));
    if (reply.result.isError)
        showError(tr("The tool reported an error (isError: true):"));
    showResult(reply.result);
}

void ToolCallDialog::clearResult()
{
    m_errorBanner->hide();
    m_errorBanner->clear();
    m_resultText->clear();
    qDeleteAll(m_images);
    m_images.clear();
}

void ToolCallDialog::showError(const QString &message)
{
    m_errorBanner->setText(message);
    m_errorBanner->show();
}

void ToolCallDialog::showResult(const ToolCallResult &result)
{
    QStringList parts;
    for (const QJsonValue &blockValue : result.content) {
        const QJsonObject block = blockValue.toObject();
        const QString type = block.value(u"type").toString();
        if (type == u"text") {
            parts.append(block.value(u"text").toString());
        } else if (type == u"image") {
            const QString mimeType = block.value(u"mimeType").toString();
            QPixmap picture;
            if (!picture.loadFromData(QByteArray::fromBase64(block.value(u"data").toString().toLatin1()))) {
                parts.append(tr("[image: %1 that could not be decoded]").arg(mimeType));
                continue;
            }
            auto *label = new QLabel(m_imageBox);
            label->setPixmap(picture);
            label->setToolTip(plainToolTip(mimeType));
            m_imageLayout->addWidget(label);
            m_images.append(label);
            parts.append(tr("[image %1: %2, %3×%4, shown above]")
                             .arg(m_images.size())
                             .arg(mimeType)
                             .arg(picture.width())
                             .arg(picture.height()));
        } else if (type == u"audio" || type == u"resource_link") {
            parts.append(renderContent(QJsonArray{block}));
        } else {
            parts.append(jsonText(block, QJsonDocument::Indented)); // resources and kinds Tether does not know
        }
    }
    if (!result.structuredContent.isUndefined() && !result.structuredContent.isNull())
        parts.append(tr("Structured content:\n%1").arg(jsonText(result.structuredContent, QJsonDocument::Indented)));
    if (parts.isEmpty())
        parts.append(tr("(the result has no content)"));
    m_resultText->setPlainText(parts.join(u"\n\n"_s));
}

} // namespace Tether
