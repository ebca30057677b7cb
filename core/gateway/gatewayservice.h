#pragma once

#include "gatewaystatus.h"

#include "config/gatewayconfig.h"

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QTimer>

#include <chrono>
#include <memory>

namespace Tether {

class Gateway;
class ServerManager;
class StreamableHttpEndpoint;

// A value snapshot of the gateway as a program serves it over HTTP: what the window shows.
struct GatewayServing
{
    enum class State {
        Off,       // the config does not enable gateway.http
        Serving,
        NotServed, // enabled, but the token or the port could not be used: `error` says why
    };
    State state = State::Off;
    QString url;       // while serving
    QString error;     // why not served, and what to do
    quint16 port = 0;  // as configured
    QString configPath;
    QString tokenFile;
    QByteArray token;  // while serving
    GatewayStatus status;
};

// The gateway over Streamable HTTP while a program (the window) runs: made from the first config
// that enables gateway.http, kept while the program runs, and told of every later config. It
// publishes GatewayServing snapshots: changed() at most once per CoalesceDelay however busy the
// hosts are.
class GatewayService final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(GatewayService)

public:
    static constexpr std::chrono::milliseconds CoalesceDelay{100};

    explicit GatewayService(ServerManager &manager, QObject *parent = nullptr);
    ~GatewayService() override;

    // The gateway section of the config at `configPath` (its token is kept beside it).
    void applyConfig(const GatewayConfig &config, const QString &configPath);
    // After a failure to serve (the port was in use): tries again; false when it still fails.
    bool serveAgain();
    // A new bearer token (see StreamableHttpEndpoint::rotateToken); false, with `error`, when
    // it cannot be written or nothing is served.
    bool rotateToken(QString *error);
    // Ends the hosts' sessions and stops serving (the instance record goes too).
    void close();

    GatewayServing serving() const;

signals:
    void changed();

private:
    void serve();
    void publishSoon();

    ServerManager &m_manager;
    GatewayConfig m_config;
    QString m_configPath;
    QString m_error;
    std::unique_ptr<Gateway> m_gateway;
    std::unique_ptr<StreamableHttpEndpoint> m_endpoint;
    QTimer m_publishTimer;
};

} // namespace Tether
