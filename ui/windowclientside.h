#pragma once

#include "protocol/clientside.h"

#include <QObject>
#include <QPointer>

#include <map>

class QWidget;

namespace Tether {

class ServerRequestDialog;

// The window as the MCP client of the calls it makes (ToolCallInput::origin of the Call tool
// dialog): a server's elicitation while such a call runs opens a dialog over the window (a form,
// or a link to open), each request its own, answered when the person chooses and never by
// blocking the event loop; sampling is refused, since the window has no model to ask. (A
// session's roots are its shared side's: the config's, with the gateway's hosts'.)
//
// The window holds it as a std::shared_ptr and hands out weak ones. Going away, it cancels the
// questions still open.
class WindowClientSide final : public QObject, public ClientSide
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WindowClientSide)

public:
    // The dialogs open over `window`.
    explicit WindowClientSide(QWidget *window);
    ~WindowClientSide() override;

    QString clientLabel() const override;
    quint64 serverRequest(const ServerRequest &request, ReplyHandler reply, ProgressHandler onProgress) override;
    void cancelServerRequest(quint64 handle, const QString &reason) override;

    // The questions of `serverName` waiting for the person's answer.
    int questionsWaiting(const QString &serverName) const;

signals:
    // A question of `serverName` opened, or was answered or withdrawn.
    void questionsChanged(const QString &serverName);

private:
    struct Question
    {
        QString serverName;
        QPointer<ServerRequestDialog> dialog;
        ReplyHandler reply;
    };

    // Opens `dialog` for the request and answers `reply` with what the person chooses.
    quint64 ask(const QString &serverName, ServerRequestDialog *dialog, ReplyHandler reply);
    void onAnswered(quint64 handle, const QJsonObject &result);

    QPointer<QWidget> m_window;
    std::map<quint64, Question> m_questions;
    quint64 m_lastHandle = 0;
};

} // namespace Tether
