#pragma once

#include "config/serverconfig.h"
#include "manager/eventlog.h"
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
    EventLog &eventLog() { return m_eventLog; }

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
        bool pendingStart = false;        // to start once no old process of it is left
    };

    // A pool of a removed or restarted server, kept until its processes have exited.
    struct Retiring
    {
        QString name;
        std::unique_ptr<ServerPool> pool;
    };

    void addServer(const ServerConfig &config);
    void removeServer(const QString &name);
    void retire(const QString &name, std::unique_ptr<ServerPool> pool);
    void startIfClear(const QString &name);
    bool isRetiring(const QString &name) const;
    bool isCurrentPool(const QString &name, const ServerPool *pool) const;
    void checkAllStopped();
    ServerStatus statusOf(const Server &server) const;
    static void failLater(QObject *context, std::function<void(const ToolCallReply &)> handler, const QString &error);

    ToolRegistry m_registry;
    EventLog m_eventLog;
    QStringList m_order;
    std::map<QString, Server> m_servers;
    std::vector<Retiring> m_retiring;
    bool m_stoppingAll = false;
    bool m_allStoppedQueued = false;
};

} // namespace Tether
