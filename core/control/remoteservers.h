#pragma once

#include "controlclient.h"

#include "config/configstore.h"
#include "manager/serversource.h"

#include <QHash>

#include <map>
#include <memory>

namespace Tether {

// The servers of the Tether that runs the config, as a window attached to it shows them: a mirror
// of its statuses, tools, resources and prompts and event log, kept by its notifications, and its
// commands and calls sent over the control protocol. The settings of each server are read from the
// window's own store of the same file (its edits are saved there, and the instance follows the file).
class RemoteServers final : public ServerSource
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RemoteServers)

public:
    RemoteServers(std::unique_ptr<ControlClient> instance, const ConfigStore &config, QObject *parent = nullptr);
    ~RemoteServers() override;

    // Subscribes and takes the instance's snapshots; ready() follows once the first are in.
    void start();
    const Control::InstanceInfo &instance() const { return m_client->instance(); }

    QStringList serverNames() const override { return m_order; }
    const ServerConfig *serverConfig(const QString &name) const override;
    std::optional<ServerStatus> status(const QString &name) const override;
    QList<ServerStatus> statuses() const override;
    ToolRegistry &registry() override { return m_registry; }
    EventLog &eventLog() override { return m_eventLog; }
    ServerCatalog catalog(const QString &name) const override { return m_catalogs.value(name); }

    // Sign-in is the instance's (or tetherctl login's): an attached window shows none.
    SignInInfo signInInfo(const QString &name) const override;
    bool canSignIn(const QString &) const override { return false; }
    void signIn(const QString &name, const QStringList &scopes, std::function<void(const QUrl &)> opener,
                std::function<void(bool signedIn, const QString &message)> done) override;
    void signOut(const QString &name, std::function<void(bool signedOut, const QString &message)> done) override;

    void start(const QString &name) override;
    void stop(const QString &name) override;
    void reconnect(const QString &name) override;
    void setEnabled(const QString &name, bool enabled) override;
    void reconnectAll() override;
    void retryFailed() override;

    // Progress is not relayed: the call's answer alone comes back.
    ToolCallTicket callTool(const QString &serverName, const QString &toolName, const ToolCallInput &input,
                            ToolCallHandler handler, ProgressHandler onProgress = {}, CallOptions options = {}) override;
    bool cancelToolCall(ToolCallTicket ticket, const QString &reason = {}) override;
    void readResource(const QString &serverName, const QString &uri, ResourceReadHandler handler) override;
    void getPrompt(const QString &serverName, const QString &promptName, const QJsonObject &arguments,
                   PromptHandler handler) override;

signals:
    void ready();
    // The instance went away (killed, quit): what is shown is its last word.
    void lost(const QString &why);

private:
    void onNotified(const QString &method, const QJsonObject &params);
    void takeStatus(const ServerStatus &status, bool stateChange);
    void takeServers(const QList<Control::ServerView> &servers);
    void fetchTools(const QString &server);
    void fetchCatalogs(const QString &server);
    void fetchLog();
    // A command of the toolbar: sent, and a refusal logged.
    void command(QStringView method, const QStringList &servers);
    // What a server asks while a call of the window runs (tether/ask): asked of the part of the
    // window that made the call.
    void onAsked(const QJsonValue &id, const QJsonObject &question);
    // The distinct parts of the window whose calls are running.
    QList<std::shared_ptr<ClientSide>> callers() const;

    std::unique_ptr<ControlClient> m_client;
    const ConfigStore &m_config;
    QStringList m_order;
    QHash<QString, ServerStatus> m_statuses;
    QHash<QString, ServerCatalog> m_catalogs;
    ToolRegistry m_registry;
    EventLog m_eventLog;
    // Events that came while the log was being read: appended after it, those it held left out.
    std::optional<QList<ServerEvent>> m_earlyEvents = QList<ServerEvent>();
    struct Call
    {
        qint64 requestId = 0;
        ToolCallHandler handler;
        std::weak_ptr<ClientSide> origin;
    };
    std::map<quint64, Call> m_calls; // by ticket
    quint64 m_nextTicket = 1;
    struct Asked
    {
        std::weak_ptr<ClientSide> caller;
        quint64 handle = 0;
    };
    std::map<qint64, Asked> m_asked; // what the window is being asked, by the instance's id

};

} // namespace Tether
