#include "serverrequestdialog.h"

#include <QLabel>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Tether {

ServerRequestDialog::ServerRequestDialog(const QString &serverName, const QString &message, QWidget *parent)
    : QDialog(parent)
    , m_header(new QWidget(this))
{
    // A window of its own beside the Call tool dialog, which stays usable (to cancel the call).
    setWindowModality(Qt::NonModal);
    setAttribute(Qt::WA_DeleteOnClose);
    auto *server = new QLabel(m_header);
    server->setObjectName(u"server"_s);
    server->setTextFormat(Qt::PlainText);
    server->setText(tr("The server '%1' asks:").arg(serverName));
    QFont bold = server->font();
    bold.setBold(true);
    server->setFont(bold);
    // The server's words: never markup, and they can be copied.
    auto *said = new QLabel(m_header);
    said->setObjectName(u"message"_s);
    said->setTextFormat(Qt::PlainText);
    said->setText(message);
    said->setWordWrap(true);
    said->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *layout = new QVBoxLayout(m_header);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(server);
    layout->addWidget(said);
}

ServerRequestDialog::~ServerRequestDialog()
{
    // Gone unanswered (its window closed): the server is not left waiting.
    if (!m_answered) {
        m_answered = true;
        emit answered(QJsonObject{{u"action"_s, u"cancel"_s}});
    }
}

void ServerRequestDialog::withdraw()
{
    m_answered = true;
    close();
}

void ServerRequestDialog::answer(const QString &action, const std::optional<QJsonObject> &content)
{
    if (m_answered)
        return;
    m_answered = true;
    QJsonObject result{{u"action"_s, action}};
    if (content)
        result.insert(u"content"_s, *content);
    emit answered(result);
    QDialog::done(action == u"accept" ? Accepted : Rejected);
}

void ServerRequestDialog::done(int result)
{
    // Closed, Escape or Cancel: the person dismissed it without choosing.
    if (!m_answered)
        answer(u"cancel"_s);
    else
        QDialog::done(result);
}

} // namespace Tether
