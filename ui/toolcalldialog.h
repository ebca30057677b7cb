#pragma once

#include "manager/toolcallticket.h"
#include "protocol/replies.h"

#include <QDialog>
#include <QElapsedTimer>

#include <memory>

class QCheckBox;
class QGroupBox;
class QHBoxLayout;
class QLabel;
class QPixmap;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QStackedWidget;
class QTabWidget;
class QToolButton;

namespace Tether {

class SchemaForm;
class ServerSource;
class WindowClientSide;

// Calls one tool of one server through the manager: a form generated from the tool's input
// schema (or the arguments as raw JSON, in a fixed-width font), Call (Ctrl+Enter from anywhere in
// it), a progress bar fed by the server's progress notifications, Cancel, and the result: text,
// JSON (structured content, resources), images (small ones scaled up to be seen, each opening
// larger in a zoomable viewer), the whole result as raw JSON, and Copy for either; a tool error
// (isError) or a failed call is shown as an error banner. Arguments that cannot be sent are said
// beside their field and above the result, which then says it is the previous call's. A tool
// without arguments says so in one line, and the dialog opens as small as its content. What the
// server asks while the call runs goes to `client` (the window's), whose dialogs the status line
// points to; without one, the server's questions are refused.
//
// Open it from the window with the definition as the registry holds it:
//     auto *dialog = new ToolCallDialog(manager, tool.serverName, tool.definition, clientSide, this);
//     dialog->setAttribute(Qt::WA_DeleteOnClose);
//     dialog->show();
// Closing the dialog while a call runs cancels the call. The manager must outlive the dialog.
class ToolCallDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ToolCallDialog)

public:
    ToolCallDialog(ServerSource &manager, const QString &serverName, const ToolDefinition &tool,
                   std::weak_ptr<WindowClientSide> client = {}, QWidget *parent = nullptr);
    ~ToolCallDialog() override;

    // Calls the tool with the arguments of the form (or of the JSON view); refused with a
    // message when one is missing or invalid, each wrong field saying so under it.
    void call();
    // Cancels the running call: the server is told, and the dialog shows "cancelled".
    void cancel();
    bool isCalling() const { return m_ticket.isValid(); }

    void done(int result) override;

private:
    void onRawJsonToggled(bool raw);
    void onProgress(const ProgressUpdate &update);
    // The server asks the person something (or no longer does) while the call waits.
    void onQuestionsChanged(const QString &serverName);
    void onReply(const ToolCallReply &reply);
    void showResult(const ToolCallResult &result);
    void showError(const QString &message);
    void clearResult();
    // The arguments now shown are not the ones the result shown was called with.
    void markResultAsPrevious();
    void addImage(const QPixmap &picture, const QString &mimeType);
    void openImage(const QPixmap &picture, const QString &name);
    // The result as shown in the open tab (text or raw JSON), to the clipboard.
    void copyResult();
    void sizeToContent();
    void setStatus(const QString &text);
    void setCalling(bool calling);
    std::optional<QJsonObject> currentArguments(QString *error);
    std::optional<QJsonObject> rawArguments(QString *error) const;

    ServerSource &m_manager;
    QString m_serverName;
    ToolDefinition m_tool;
    std::weak_ptr<WindowClientSide> m_client;
    ToolCallTicket m_ticket;
    quint64 m_callNumber = 0; // answers to an earlier call are not this one's
    QElapsedTimer m_elapsed;

    SchemaForm *m_form;
    QCheckBox *m_rawToggle;
    QPlainTextEdit *m_rawJson;
    QStackedWidget *m_argumentsStack;
    QPushButton *m_callButton;
    QPushButton *m_cancelButton;
    QProgressBar *m_progress;
    QLabel *m_status;
    QGroupBox *m_resultBox;
    QLabel *m_errorBanner;
    QTabWidget *m_resultTabs;
    QPlainTextEdit *m_resultText;
    QPlainTextEdit *m_rawResult;
    QPushButton *m_copyButton;
    QScrollArea *m_imageArea;
    QWidget *m_imageBox;
    QHBoxLayout *m_imageLayout;
    QList<QToolButton *> m_images;
};

} // namespace Tether
