#pragma once

#include "gateway/gatewayservice.h"

#include <QDialog>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace Tether {

class ConfigStore;

// Serves the gateway over HTTP on `port` at once and saves gateway.http.enabled (and the port) to
// `config`, so that the next start serves it too. False, with `error` saying why, when the port
// cannot be listened on or the config cannot be saved: nothing changes then.
bool serveGatewayOverHttp(GatewayService &service, ConfigStore &config, quint16 port, QString *error);
// Saves gateway.http.enabled = false to `config`, whose applyConfig stops serving HTTP. False,
// with `error`, when it cannot be saved: HTTP is still served then.
bool stopServingGatewayOverHttp(ConfigStore &config, QString *error);

// The Gateway window: a switch to serve it over HTTP (and its port), the address the hosts reach,
// whether it is served (and why not), the bearer token (hidden until asked, copyable,
// replaceable), the hosts connected now and the calls made through the gateway, by server. It
// shows GatewayService snapshots and acts through the service and the config.
class GatewayView final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(GatewayView)

public:
    GatewayView(GatewayService &service, ConfigStore &config, QWidget *parent = nullptr);

    // Replaces the token once the user confirmed it (the Rotate button asks first).
    void rotateToken();

private:
    void refresh();
    void showServing(const GatewayServing &serving);
    // The switch: serves HTTP on the port shown, or stops, and saves that to the config.
    void setHttpServed(bool served);
    void setTokenShown(bool shown);
    void confirmRotation();

    GatewayService &m_service;
    ConfigStore &m_config;
    QCheckBox *m_serveHttp;
    QSpinBox *m_port;
    quint16 m_portShown = 0; // the config's, as last shown: an edit of the spin box is kept until it changes
    QLineEdit *m_url;
    QPushButton *m_copyUrl;
    QLabel *m_problem;
    QLabel *m_state;
    QPushButton *m_serveAgain;
    QLineEdit *m_token;
    QPushButton *m_showToken;
    QPushButton *m_copyToken;
    QPushButton *m_rotateToken;
    QLabel *m_tokenFile;
    QLabel *m_rotated;
    QTableWidget *m_hosts;
    QTableWidget *m_calls;
};

} // namespace Tether
