#pragma once

#include "elicitationform.h"
#include "terminalinput.h"

#include "protocol/clientside.h"
#include "protocol/jsonrpc.h"

#include <QJsonObject>

#include <deque>

namespace Tether::Ctl {

// tetherctl call as the client of the servers it calls: what a server asks while the call runs
// is answered on the terminal. An elicitation is asked field by field (a form) or as a URL to
// open, one at a time; without a terminal it is refused, so that a script never hangs. Sampling
// is refused (there is no model here). roots/list is never asked of a call: the session answers
// it with the server's config roots (none for a server named on the command line).
class TerminalClientSide final : public ClientSide
{
public:
    // `browser` opens the URL of a URL-mode elicitation (--browser; empty: $TETHER_BROWSER, else
    // xdg-open on a display).
    explicit TerminalClientSide(QString browser = {});
    ~TerminalClientSide() override;
    Q_DISABLE_COPY_MOVE(TerminalClientSide)

    // The call has ended: the questions still asked or waiting go, answered "cancel".
    void stopAsking();

    QString clientLabel() const override;
    quint64 serverRequest(const ServerRequest &request, ReplyHandler reply, ProgressHandler onProgress) override;
    void cancelServerRequest(quint64 handle, const QString &reason) override;
    void serverNotification(const QString &serverName, const QString &method, const QJsonObject &params) override;

private:
    // An elicitation waiting for the terminal, or being asked there (the first one).
    struct Elicitation
    {
        quint64 handle = 0;
        ServerRequest request;
        ReplyHandler reply;
        bool shown = false; // its first question is on the terminal
        ElicitationForm form;
        qsizetype fieldIndex = 0;
        QJsonObject content; // the answers so far
    };

    // Shows the first elicitation waiting, unless it is shown already.
    void startNext();
    // Answers the elicitation being asked, and goes on to the next one.
    void finish(const RpcReply &reply);
    void finishWithAction(const QString &action, const QJsonObject &content = {});
    // Each question again after an answer that does not do, with `problem` saying why.
    void askField(const QString &problem = {});
    void onFieldAnswer(const std::optional<QString> &line);
    // Accept, decline or cancel, once the fields are answered.
    void askAction(const QString &problem = {});
    void askToOpenUrl(const QString &problem = {});
    void openUrl();

    QString m_browser;
    TerminalInput m_input;
    std::deque<Elicitation> m_elicitations;
    quint64 m_nextHandle = 1;
};

} // namespace Tether::Ctl
