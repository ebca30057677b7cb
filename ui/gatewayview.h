#pragma once

#include "gateway/gatewayservice.h"

#include <QDialog>

class QLabel;
class QLineEdit;
class QPushButton;
class QStackedWidget;
class QTableWidget;

namespace Tether {

// The Gateway window: the address the hosts reach, whether it is served (and why not), the
// bearer token (hidden until asked, copyable, replaceable), the hosts connected now and the
// calls made through the gateway, by server. It shows GatewayService snapshots and acts through
// the service; with the gateway off it says how to turn it on.
class GatewayView final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(GatewayView)

public:
    explicit GatewayView(GatewayService &service, QWidget *parent = nullptr);

    // Replaces the token once the user confirmed it (the Rotate button asks first).
    void rotateToken();

signals:
    // "Open config file", to turn the gateway on.
    void openConfigRequested();

private:
    void refresh();
    void showServing(const GatewayServing &serving);
    void setTokenShown(bool shown);
    void confirmRotation();

    GatewayService &m_service;
    QStackedWidget *m_pages;
    QLabel *m_offHint;
    QLineEdit *m_url;
    QPushButton *m_copyUrl;
    QLabel *m_state;
    QPushButton *m_serveAgain;
    QLineEdit *m_token;
    QPushButton *m_showToken;
    QPushButton *m_copyToken;
    QPushButton *m_rotateToken;
    QLabel *m_tokenFile;
    QLabel *m_rotated;
    QLabel *m_problem;
    QTableWidget *m_hosts;
    QTableWidget *m_calls;
};

} // namespace Tether
