#pragma once

#include "serverrequestdialog.h"

#include <QUrl>

class QLabel;
class QPushButton;

namespace Tether {

// What a server asks in an elicitation in URL mode: that the person open a page outside Tether
// (to sign in, pay, consent). It shows the server, its message and the whole URL as the server
// sent it, and the desktop's browser opens it only when the person chooses Open, which answers
// accept; Decline declines, closing or Cancel cancels. Only http and https links are opened.
class UrlElicitationDialog final : public ServerRequestDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(UrlElicitationDialog)

public:
    // `params`: the request's, with "message" and "url".
    UrlElicitationDialog(const QString &serverName, const QJsonObject &params, QWidget *parent = nullptr);

    // Open: the link in the desktop's browser, then accept; when the desktop cannot, it says so
    // and stays open.
    void openUrl();

private:
    QUrl m_url;
    QLabel *m_problem;
    QPushButton *m_open;
};

} // namespace Tether
