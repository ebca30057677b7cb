#pragma once

#include "config/serverconfig.h"
#include "manager/serverpool.h"
#include "supervisor/connectionsupervisor.h"
#include "supervisor/toolregistry.h"

#include <QObject>

#include <map>
#include <memory>

namespace Tether {

struct ConfigChange
{
    QStringList added;
    QStringList removed;
    QStringList restarted; // settings changed
    QStringList unchanged; // left running as they were
};

// Where a call by tool name alone goes, or why it cannot go anywhere.
struct ToolRoute
{
    std::optional<RegisteredTool> tool;
    QString error;
};

// Many supervised servers from one config: one supervisor per server, the union of their
// tools in one registry, calls routed by server and tool or by tool name alone.
class ServerManager final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ServerManager)

public:
    explicit ServerManager(QObject *parent = nullptr);
    ~ServerManager() override;

    // Brings the running set in line with `config`: new servers are added (and started when
    // enabled), removed ones stopped, changed ones restarted; unchanged ones keep running.
    ConfigChange applyConfig(const ConfigDocument &config);

    QStringList serverNames() const; // in config order
    const ServerConfig *serverConfig(const QString &name) const;
    std::optional<ServerStatus> status(const QString &name) const;
    QList<ServerStatus> statuses() const;
    ToolRegistry &registry() { return m_registry; }

    void start(const QString &name);
    void stop(const QString &name);
    void reconnect(const QString &name);
    // Disabling stops the server and keeps it stopped (a start is refused) until it is enabled.
    void setEnabled(const QString &name, bool enabled);
    void startAll();
    void reconnectAll();
    // Quiescent: allStopped() follows once every server has stopped.
    void stopAll();
    bool isAllStopped() const;

    ToolRoute route(const QString &toolName) const;
    void callTool(const QString &serverName, const QString &toolName, const QJsonObject &arguments,
                  std::function<void(const ToolCallReply &)> handler,
                  McpClientSession::ProgressHandler onProgress = {});
    // By tool name alone (or public name) across every server.
    void callTool(const QString &toolName, const QJsonObject &arguments,
                  std::function<void(const ToolCallReply &)> handler,
                  McpClientSession::ProgressHandler onProgress = {});

signals:
    void statusChanged(const Tether::ServerStatus &status);
    void stateChanged(const Tether::ServerStatus &status);
    void serverAdded(const QString &name);
    void serverRemoved(const QString &name);
    void allStopped();

private:
    struct Server
    {
        ServerConfig config;
        std::unique_ptr<ServerPool> pool; // none while the config is invalid
    };

    // Later: the previous supervisor of this server is still stopping; it starts once that has.
    enum class StartMode { Now, Later };
    void addServer(const ServerConfig &config, StartMode startMode);
    void removeServer(const QString &name);
    ServerStatus statusOf(const Server &server) const;
    void onServerStopped();
    static void failLater(QObject *context, std::function<void(const ToolCallReply &)> handler, const QString &error);

    ToolRegistry m_registry;
    QStringList m_order;
    std::map<QString, Server> m_servers;
    // Removed or restarted servers, kept until they have stopped.
    std::vector<std::unique_ptr<ServerPool>> m_retiring;
    bool m_stoppingAll = false;
};

} // namespace Tether
