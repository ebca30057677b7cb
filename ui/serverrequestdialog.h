#pragma once

#include <QDialog>
#include <QJsonObject>

#include <optional>

class QLabel;

namespace Tether {

// A dialog of the window that answers one request of a server (an elicitation): exactly once,
// with what the person chose, or {"action": "cancel"} when they close it (also when it goes away
// unanswered); never when the request is withdrawn first (the server cancelled it, or its
// connection ended). It never blocks: open it with show(), hear the answer through answered().
class ServerRequestDialog : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ServerRequestDialog)

public:
    ~ServerRequestDialog() override;

    // Closes the dialog without an answer: nobody waits for one any more.
    void withdraw();
    bool isAnswered() const { return m_answered; }

    void done(int result) override;

signals:
    void answered(const QJsonObject &result);

protected:
    // Shows who asks and what (the request's `message`), both as the server wrote them.
    ServerRequestDialog(const QString &serverName, const QString &message, QWidget *parent);

    // The server's name and its message, for the top of the dialog's layout.
    QWidget *header() const { return m_header; }
    // Answers {"action": `action`}, with `content` when given (a form's accept), and closes.
    void answer(const QString &action, const std::optional<QJsonObject> &content = std::nullopt);

private:
    QWidget *m_header;
    bool m_answered = false;
};

} // namespace Tether
