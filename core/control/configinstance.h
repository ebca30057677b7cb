#pragma once

#include "config/configstore.h"
#include "config/gatewayconfig.h"
#include "config/oauthsettings.h"
#include "gateway/gatewayservice.h"
#include "manager/servermanager.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>

namespace Tether {

class InstanceClaim;
class InstanceControl;
class SignInService;

// A program that runs a config's servers, wired once: the config store following the file, the
// sign-in, the manager, the gateway (its local socket, HTTP when enabled) and the control protocol
// on that socket, behind the claim of the config. The window, tetherctl daemon and tetherctl serve
// --http each hold one; they differ in what they show and in these options.
class ConfigInstance final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConfigInstance)

public:
    struct Options
    {
        QString kind; // as tether/hello names the program: "window", "daemon", "serve --http"
        // The sign-in of remote servers, made once the first document says where tokens are kept.
        std::function<std::unique_ptr<SignInService>(TokenStoreChoice)> signIn;
        // How the program shapes each document of the file (tetherctl's server names and flags).
        ConfigStore::Adjustment adjustment{};
        // How the program serves the gateway section of each document (serve --http: HTTP, on its port).
        std::function<GatewayConfig(GatewayConfig)> gateway{};
    };

    ConfigInstance(const ConfigSource &source, Options options, QObject *parent = nullptr);
    ~ConfigInstance() override;

    // Claims the config before any server of it starts. False when another process runs it
    // (`holder` its pid) or the claim cannot be made (`error`, holder 0): the program may still run
    // the servers, but it is then not the instance tetherctl attaches to.
    bool claim(qint64 *holder, QString *error);
    // Lets the claim go (after stop()): another process may run the config from now on.
    void releaseClaim();
    // Reads the config and runs it, and each later version of the file.
    void start();
    // Ends the gateway's sessions and stops every server; stopped() follows once their processes
    // have exited.
    void stop();

    ConfigStore &config() { return m_config; }
    ServerManager &manager() { return m_manager; }
    GatewayService &gateway() { return m_gateway; }
    // The file an edit is written to; it names the instance.
    QString configPath() const { return m_config.savePath(); }

signals:
    void stopped();

private:
    void apply(const ConfigDocument &document);
    void finishStopping();

    Options m_options;
    ConfigStore m_config;
    std::unique_ptr<SignInService> m_signIn; // before the manager: its servers' credentials use it
    ServerManager m_manager;
    std::unique_ptr<InstanceControl> m_control; // before the gateway, whose socket it serves
    GatewayService m_gateway;
    std::unique_ptr<InstanceClaim> m_claim;
    bool m_stopping = false;
    bool m_stoppedSaid = false;
};

} // namespace Tether
