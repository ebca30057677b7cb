#pragma once

#include "gatewaystatus.h"

#include "config/gatewayconfig.h"

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QTimer>

#include <chrono>
#include <memory>
#include <optional>

namespace Tether {

class Gateway;
class LocalSocketEndpoint;
class LocalSocketService;
class ServerManager;
class StreamableHttpEndpoint;

// A value snapshot of the gateway as a program serves it: what the window shows.
struct GatewayServing
{
    enum class State {
        Off,       // not served at all: no config yet, or the relay socket could not be made (`error`)
        Relaying,  // to the tetherctl serve of clients only: the config does not enable gateway.http
        Serving,   // over HTTP too
        NotServed, // HTTP enabled, but the token or the port could not be used: `error` says why
    };
    State state = State::Off;
    QString url;       // while serving
    QString error;     // why not served, and what to do
    // Why there is no relay socket (the tetherctl serve of clients then run the servers a second
    // time), and what to do; empty when there is one or no config yet.
    QString relayError;
    quint16 port = 0;  // as configured
    QString configPath;
    QString tokenFile;
    QByteArray token;  // while serving
    GatewayStatus status;
};

// The gateway while a program (the window) runs: made from the first config, kept while the
// program runs, and told of every later config. It always listens at a relay socket, so that the
// tetherctl serve of a client relays to it (LocalSocketEndpoint::announce), and over Streamable
// HTTP while the config enables gateway.http: a change of gateway.http starts, moves or stops it at
// once. It publishes GatewayServing snapshots: changed() at most once per CoalesceDelay however
// busy the hosts are.
class GatewayService final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(GatewayService)

public:
    static constexpr std::chrono::milliseconds CoalesceDelay{100};

    explicit GatewayService(ServerManager &manager, QObject *parent = nullptr);
    ~GatewayService() override;

    // The connections of the relay socket that `service` claims are its own (the instance's
    // control protocol); set before the first config. It must outlive this service.
    void setLocalService(LocalSocketService *service) { m_localService = service; }
    // The gateway section of the config at `configPath` (its token is kept beside it). HTTP is
    // served as its gateway.http says from now on; the same gateway.http as before, served or
    // refused, is left as it is (serveHttp tries again).
    void applyConfig(const GatewayConfig &config, const QString &configPath);
    // Serves HTTP as `http` says at once, in place of what is served now: the window's switch,
    // before it saves the config that says so (whose applyConfig then finds it served). False,
    // with `error` saying why (the port in use), when it cannot be served: nothing changes then.
    bool serveHttp(const GatewayHttpConfig &http, QString *error);
    // A new bearer token (see StreamableHttpEndpoint::rotateToken); false, with `error`, when
    // it cannot be written or nothing is served.
    bool rotateToken(QString *error);
    // Ends the hosts' sessions and stops serving, over HTTP and the relay socket (the instance
    // record goes too).
    void close();

    GatewayServing serving() const;

signals:
    void changed();

private:
    // Listens as `http` says; nothing, with `error`, when it cannot.
    std::unique_ptr<StreamableHttpEndpoint> listen(const GatewayHttpConfig &http, QString *error);
    // Serves `endpoint` in place of the one served now, if any; the instance record names it.
    void useEndpoint(std::unique_ptr<StreamableHttpEndpoint> endpoint);
    // Ends the HTTP endpoint's sessions and stops listening; the instance record no longer names it.
    void stopHttp();
    // The same, but the record is left to the caller.
    void stopListening();
    // Listens at the relay socket and writes the instance record, with the HTTP endpoint if any.
    void announce();
    void publishSoon();

    ServerManager &m_manager;
    GatewayConfig m_config;
    QString m_configPath;
    QString m_error;      // why HTTP is not served as the config enables it
    QString m_relayError; // why the relay socket is not
    std::unique_ptr<Gateway> m_gateway;
    std::unique_ptr<LocalSocketEndpoint> m_relaySocket;
    LocalSocketService *m_localService = nullptr;
    QString m_instanceId;
    // The gateway.http last served or refused: an unchanged one is not tried again at each config.
    std::optional<GatewayHttpConfig> m_triedHttp;
    std::unique_ptr<StreamableHttpEndpoint> m_endpoint;
    QTimer m_publishTimer;
};

} // namespace Tether
