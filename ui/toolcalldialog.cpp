#include "toolcalldialog.h"

#include "messagelabel.h"
#include "mnemonics.h"
#include "schemaform.h"
#include "windowclientside.h"

#include "common/duration.h"
#include "common/jsontext.h"
#include "manager/serversource.h"

#include <QCheckBox>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QGroupBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QPixmap>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QShortcut>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Tether {

// Progress is shown in thousandths of the total the server gave.
static constexpr int ProgressSteps = 1000;

namespace {

// A picture in a result is shown at least this big on its longer side (scaled up by a whole
// factor, so that pixel art stays sharp), and at most this big (scaled down, smoothly).
constexpr int ReadableSide = 96;
constexpr int LargestShownSide = 240;

QPixmap shownInResult(const QPixmap &picture)
{
    const int side = std::max(picture.width(), picture.height());
    if (side <= 0)
        return picture;
    if (side < ReadableSide) {
        const int factor = (ReadableSide + side - 1) / side;
        return picture.scaled(picture.size() * factor, Qt::KeepAspectRatio, Qt::FastTransformation);
    }
    if (side > LargestShownSide)
        return picture.scaled(LargestShownSide, LargestShownSide, Qt::KeepAspectRatio, Qt::SmoothTransformation);
    return picture;
}

// A picture of a result in a window of its own, zoomed in whole steps, its aspect kept. Esc or
// Ctrl+W closes it.
class ImageViewer final : public QDialog
{
public:
    ImageViewer(const QPixmap &picture, const QString &name, QWidget *parent)
        : QDialog(parent)
        , m_picture(picture)
        , m_shown(new QLabel(this))
        , m_zoomLabel(new QLabel(this))
    {
        setObjectName(u"imageViewer"_s);
        setWindowTitle(name);
        m_shown->setObjectName(u"imageViewerPicture"_s);
        m_shown->setAlignment(Qt::AlignCenter);
        m_shown->setAccessibleName(name);
        m_zoomLabel->setObjectName(u"imageViewerZoom"_s);
        auto *scroll = new QScrollArea(this);
        scroll->setWidget(m_shown);
        scroll->setWidgetResizable(true);
        scroll->setAlignment(Qt::AlignCenter);
        scroll->setAccessibleName(tr("Picture"));

        auto *zoomIn = new QPushButton(tr("Zoom &In"), this);
        auto *zoomOut = new QPushButton(tr("Zoom O&ut"), this);
        auto *actualSize = new QPushButton(tr("Actual &Size"), this);
        auto *close = new QPushButton(tr("Close"), this);
        zoomIn->setObjectName(u"zoomIn"_s);
        zoomOut->setObjectName(u"zoomOut"_s);
        actualSize->setObjectName(u"actualSize"_s);
        zoomIn->setToolTip(tr("Zoom in (%1)").arg(QKeySequence(QKeySequence::ZoomIn).toString(QKeySequence::NativeText)));
        zoomOut->setToolTip(tr("Zoom out (%1)").arg(QKeySequence(QKeySequence::ZoomOut).toString(QKeySequence::NativeText)));
        actualSize->setToolTip(tr("Show the picture at its own size (Ctrl+0)"));
        for (QPushButton *button : {zoomIn, zoomOut, actualSize, close})
            button->setAutoDefault(false);
        connect(zoomIn, &QPushButton::clicked, this, [this] { setZoom(m_zoom + 1); });
        connect(zoomOut, &QPushButton::clicked, this, [this] { setZoom(m_zoom - 1); });
        connect(actualSize, &QPushButton::clicked, this, [this] { setZoom(1); });
        connect(close, &QPushButton::clicked, this, &QDialog::close);
        connect(new QShortcut(QKeySequence::ZoomIn, this), &QShortcut::activated, this, [this] { setZoom(m_zoom + 1); });
        connect(new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Equal), this), &QShortcut::activated, this,
                [this] { setZoom(m_zoom + 1); });
        connect(new QShortcut(QKeySequence::ZoomOut, this), &QShortcut::activated, this, [this] { setZoom(m_zoom - 1); });
        connect(new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_0), this), &QShortcut::activated, this, [this] { setZoom(1); });
        connect(new QShortcut(QKeySequence::Close, this), &QShortcut::activated, this, &QDialog::close);

        auto *buttons = new QHBoxLayout;
        buttons->addWidget(zoomIn);
        buttons->addWidget(zoomOut);
        buttons->addWidget(actualSize);
        buttons->addWidget(m_zoomLabel);
        buttons->addStretch(1);
        buttons->addWidget(close);
        auto *layout = new QVBoxLayout(this);
        layout->addWidget(scroll, 1);
        layout->addLayout(buttons);

        // Opens at the largest whole zoom that fits, and never smaller than readable.
        const int side = std::max(1, std::max(picture.width(), picture.height()));
        setZoom(std::clamp(480 / side, 1, MaxZoom));
        resize(std::clamp(picture.width() * m_zoom + 60, 360, 1000), std::clamp(picture.height() * m_zoom + 100, 240, 800));
    }

    int zoom() const { return m_zoom; }

private:
    static constexpr int MaxZoom = 32;

    void setZoom(int zoom)
    {
        m_zoom = std::clamp(zoom, 1, MaxZoom);
        m_shown->setPixmap(m_picture.scaled(m_picture.size() * m_zoom, Qt::KeepAspectRatio, Qt::FastTransformation));
        m_zoomLabel->setText(tr("%1×").arg(m_zoom));
    }

    QPixmap m_picture;
    QLabel *m_shown;
    QLabel *m_zoomLabel;
    int m_zoom = 1;
};

// What a JSON text is read in: columns line up and braces are told apart.
QFont jsonFont()
{
    return QFontDatabase::systemFont(QFontDatabase::FixedFont);
}

} // namespace

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
    , m_resultBox(new QGroupBox(tr("Result"), this))
    , m_errorBanner(new QLabel(this))
    , m_resultTabs(new QTabWidget(this))
    , m_resultText(new QPlainTextEdit(this))
    , m_rawResult(new QPlainTextEdit(this))
    , m_copyButton(new QPushButton(tr("C&opy"), this))
    , m_imageArea(new QScrollArea(this))
    , m_imageBox(new QWidget(this))
    , m_imageLayout(new QHBoxLayout(m_imageBox))
{
    setWindowTitle(tr("Call %1 on %2").arg(tool.name, serverName));
    m_form->setObjectName(u"form"_s);
    m_rawToggle->setObjectName(u"rawJsonToggle"_s);
    m_rawJson->setObjectName(u"rawJsonEditor"_s);
    m_callButton->setObjectName(u"call"_s);
    m_cancelButton->setObjectName(u"cancelCall"_s);
    m_progress->setObjectName(u"progress"_s);
    m_status->setObjectName(u"status"_s);
    m_resultBox->setObjectName(u"resultBox"_s);
    m_errorBanner->setObjectName(u"errorBanner"_s);
    m_resultTabs->setObjectName(u"resultTabs"_s);
    m_resultText->setObjectName(u"result"_s);
    m_rawResult->setObjectName(u"rawResult"_s);
    m_copyButton->setObjectName(u"copyResult"_s);
    m_imageBox->setObjectName(u"resultImages"_s); // one button per image, showing the picture

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

    const bool takesArguments = !m_form->fieldNames().isEmpty();
    auto *formScroll = new QScrollArea(this);
    formScroll->setWidgetResizable(true);
    formScroll->setFrameShape(QFrame::NoFrame);
    formScroll->setFocusPolicy(Qt::NoFocus); // the fields in it take the focus
    formScroll->setWidget(m_form);
    m_rawJson->setPlaceholderText(tr("A JSON object, e.g. {\"message\": \"hello\"}"));
    m_rawJson->setFont(jsonFont());
    m_rawJson->setTabChangesFocus(true);
    m_rawJson->setAccessibleName(tr("Arguments as JSON"));
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
    m_callButton->setToolTip(tr("Call the tool (Ctrl+Enter)"));
    connect(m_callButton, &QPushButton::clicked, this, &ToolCallDialog::call);
    connect(m_cancelButton, &QPushButton::clicked, this, &ToolCallDialog::cancel);
    // From anywhere in the dialog, a multi-line JSON field's included.
    for (const QKeySequence &keys : {QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)})
        connect(new QShortcut(keys, this), &QShortcut::activated, this, &ToolCallDialog::call);
    // It stays open beside the window: Ctrl+W closes it, as Esc does.
    connect(new QShortcut(QKeySequence::Close, this), &QShortcut::activated, this, &QDialog::reject);
    m_progress->setRange(0, ProgressSteps);
    m_progress->setValue(0);
    m_progress->setTextVisible(false);
    m_progress->setAccessibleName(tr("Progress of the call"));
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
    m_resultText->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_resultText->setTabChangesFocus(true);
    m_resultText->setPlaceholderText(tr("The result appears here."));
    m_resultText->setAccessibleName(tr("Result"));
    m_rawResult->setReadOnly(true);
    m_rawResult->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_rawResult->setTabChangesFocus(true);
    m_rawResult->setFont(jsonFont());
    m_rawResult->setPlaceholderText(tr("The result as the server sent it appears here."));
    m_rawResult->setAccessibleName(tr("Result as raw JSON"));
    // A few lines are enough to see a result; the dialog gives it more room when it has some.
    m_resultText->setMinimumHeight(m_resultText->fontMetrics().lineSpacing() * 5);
    m_imageLayout->setContentsMargins(0, 0, 0, 0);
    m_imageLayout->addStretch(1);
    m_imageArea->setWidget(m_imageBox);
    m_imageArea->setWidgetResizable(true);
    m_imageArea->setFrameShape(QFrame::NoFrame);
    m_imageArea->setFocusPolicy(Qt::NoFocus); // its pictures take the focus
    m_imageArea->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_imageArea->hide();
    auto *textPage = new QWidget(this);
    auto *textLayout = new QVBoxLayout(textPage);
    textLayout->setContentsMargins(0, 0, 0, 0);
    textLayout->addWidget(m_imageArea);
    textLayout->addWidget(m_resultText, 1);
    m_resultTabs->addTab(textPage, tr("&Text"));
    m_resultTabs->addTab(m_rawResult, tr("&Raw JSON"));
    m_resultTabs->tabBar()->setAccessibleName(tr("How the result is shown"));
    m_resultTabs->setFocusPolicy(Qt::NoFocus); // its tab bar takes the focus
    m_copyButton->setToolTip(tr("Copy the result as shown in the open tab"));
    m_copyButton->setAutoDefault(false);
    m_copyButton->setEnabled(false);
    connect(m_copyButton, &QPushButton::clicked, this, &ToolCallDialog::copyResult);
    m_resultTabs->setCornerWidget(m_copyButton, Qt::TopRightCorner); // beside what it copies, in no row of its own
    auto *resultLayout = new QVBoxLayout(m_resultBox);
    resultLayout->addWidget(m_errorBanner);
    resultLayout->addWidget(m_resultTabs, 1);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->button(QDialogButtonBox::Close)->setText(tr("Close")); // the platform's may take Alt+C from Call
    buttons->button(QDialogButtonBox::Close)->setAutoDefault(false);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    // The form's fields get the letters the dialog leaves free, the result tabs' included.
    QString taken;
    for (const Mnemonic &mnemonic : mnemonicsIn(this))
        taken.append(mnemonic.letter);
    for (int tab = 0; tab < m_resultTabs->count(); ++tab)
        taken.append(mnemonicOf(m_resultTabs->tabText(tab)));
    m_form->assignMnemonics(taken);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(title);
    layout->addWidget(server);
    if (!tool.description.isEmpty())
        layout->addWidget(description);
    else
        description->hide();
    auto *callAndResult = new QWidget(this);
    auto *callAndResultLayout = new QVBoxLayout(callAndResult);
    callAndResultLayout->setContentsMargins(0, 0, 0, 0);
    callAndResultLayout->addLayout(callRow);
    callAndResultLayout->addWidget(m_status);
    callAndResultLayout->addWidget(m_resultBox, 1);
    if (takesArguments) {
        // The arguments above, the call and its result below: a splitter keeps the Call button
        // where it is as banners and results come and go, and lets the person give either part more room.
        auto *splitter = new QSplitter(Qt::Vertical, this);
        splitter->setChildrenCollapsible(false);
        splitter->addWidget(arguments);
        splitter->addWidget(callAndResult);
        splitter->setStretchFactor(0, 3);
        splitter->setStretchFactor(1, 2);
        layout->addWidget(splitter, 1);
    } else {
        // Nothing to fill in: one line says so, and nothing else takes room.
        auto *noArguments = new QLabel(tr("This tool takes no arguments."), this);
        noArguments->setObjectName(u"noArguments"_s);
        layout->addWidget(noArguments);
        layout->addWidget(callAndResult, 1);
        arguments->hide();
        m_rawToggle->hide();
    }
    layout->addWidget(buttons);
    setCalling(false);
    sizeToContent();
    // Typing goes into the first argument; with none, Return calls.
    const QStringList fields = m_form->fieldNames();
    if (QWidget *first = fields.isEmpty() ? nullptr : m_form->editor(fields.first()))
        first->setFocus();
    else
        m_callButton->setFocus();
}

void ToolCallDialog::sizeToContent()
{
    // The form's whole height where the screen allows, and a result area of a few lines below it.
    const QScreen *screen = parentWidget() ? parentWidget()->screen() : QGuiApplication::primaryScreen();
    const int available = screen ? screen->availableGeometry().height() * 9 / 10 : 900;
    const QSize hint = sizeHint();
    // A scroll area asks for less than its content when that is tall; the screen is the limit here.
    const int formHeight = m_form->fieldNames().isEmpty() ? 0 : m_form->sizeHint().height();
    const int formShown = m_argumentsStack->widget(0)->sizeHint().height();
    // A result starts with room for a few lines; the person makes it taller when one needs it.
    const int resultShown = m_resultText->fontMetrics().lineSpacing() * 8;
    const int wanted = hint.height() + std::max(0, formHeight - formShown)
                       - std::max(0, m_resultText->sizeHint().height() - resultShown);
    resize(std::max(600, hint.width()), std::min(wanted, available));
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
        markResultAsPrevious();
        // The field that says what is wrong, with the focus on it.
        for (const QString &name : m_form->fieldNames()) {
            if (!m_rawToggle->isChecked() && !m_form->problemLabel(name)->isHidden()) {
                m_form->editor(name)->setFocus();
                break;
            }
        }
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
    m_copyButton->setEnabled(true);
    const QString took = formatDuration(std::chrono::milliseconds(m_elapsed.elapsed()));
    if (reply.error) {
        QJsonObject error{{u"code"_s, reply.error->code}, {u"message"_s, reply.error->message}};
        if (!reply.error->data.isUndefined())
            error.insert(u"data"_s, reply.error->data);
        m_rawResult->setPlainText(jsonText(QJsonObject{{u"error"_s, error}}, QJsonDocument::Indented));
    }
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
    m_resultBox->setTitle(tr("Result"));
    m_resultText->setEnabled(true);
    m_errorBanner->hide();
    m_errorBanner->clear();
    m_resultText->clear();
    m_rawResult->clear();
    m_copyButton->setEnabled(false);
    qDeleteAll(m_images);
    m_images.clear();
    m_imageArea->hide();
}

void ToolCallDialog::markResultAsPrevious()
{
    if (m_resultText->toPlainText().isEmpty() && m_images.isEmpty() && m_errorBanner->isHidden())
        return; // nothing shown that could pass for this call's
    m_resultBox->setTitle(tr("Result of the previous call (the arguments now shown were not sent)"));
}

void ToolCallDialog::showError(const QString &message)
{
    m_errorBanner->setText(message);
    m_errorBanner->show();
}

void ToolCallDialog::addImage(const QPixmap &picture, const QString &mimeType)
{
    const int number = int(m_images.size()) + 1;
    const QString name = tr("Image %1 (%2, %3×%4)").arg(number).arg(mimeType).arg(picture.width()).arg(picture.height());
    const QPixmap shown = shownInResult(picture);
    auto *button = new QToolButton(m_imageBox);
    button->setObjectName(u"resultImage%1"_s.arg(number));
    button->setIcon(QIcon(shown));
    button->setIconSize(shown.size());
    button->setAutoRaise(true);
    button->setToolTip(plainToolTip(tr("%1: click to see it larger").arg(name)));
    button->setAccessibleName(name);
    button->setAccessibleDescription(tr("Opens the picture in a window of its own, where it can be zoomed"));
    connect(button, &QToolButton::clicked, this, [this, picture, name] { openImage(picture, name); });
    m_imageLayout->insertWidget(m_imageLayout->count() - 1, button); // before the stretch
    m_images.append(button);
    int tallest = 0;
    for (const QToolButton *image : std::as_const(m_images))
        tallest = std::max(tallest, image->sizeHint().height());
    m_imageArea->setFixedHeight(tallest + m_imageArea->horizontalScrollBar()->sizeHint().height());
    m_imageArea->show();
}

void ToolCallDialog::openImage(const QPixmap &picture, const QString &name)
{
    auto *viewer = new ImageViewer(picture, name, this);
    viewer->setAttribute(Qt::WA_DeleteOnClose);
    viewer->show();
}

void ToolCallDialog::copyResult()
{
    const bool raw = m_resultTabs->currentWidget() == m_rawResult;
    QString text = raw ? m_rawResult->toPlainText() : m_resultText->toPlainText();
    if (text.isEmpty() && !raw)
        text = m_errorBanner->text(); // a failed call has its message alone
    QGuiApplication::clipboard()->setText(text);
    setStatus(raw ? tr("The raw JSON of the result is on the clipboard.") : tr("The result is on the clipboard."));
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
            addImage(picture, mimeType);
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

    // The whole result, as the server sent it where that is known.
    QJsonObject raw = result.raw;
    if (raw.isEmpty()) {
        raw.insert(u"content"_s, result.content);
        if (result.isError)
            raw.insert(u"isError"_s, true);
        if (!result.structuredContent.isUndefined())
            raw.insert(u"structuredContent"_s, result.structuredContent);
    }
    m_rawResult->setPlainText(jsonText(raw, QJsonDocument::Indented));
}

} // namespace Tether
