#pragma once

#include "gatewayprotocol.h"
#include "gatewaystatus.h"
#include "gatewaytasks.h"
#include "promptcatalog.h"
#include "resourcecatalog.h"
#include "toolcatalog.h"

#include "config/gatewayconfig.h"
#include "manager/servermanager.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QTimer>

#include <functional>
#include <map>
#include <memory>
#include <vector>

namespace Tether {

class GatewaySession;
class HostChannel;

using HostToolReplyHandler = std::function<void(const HostToolReply &)>;

// Tether as an MCP server: the tools of every server of a ServerManager, less the hidden ones, and
// their resources, prompts, completions, logs and tasks, served to each connected host through a
// GatewaySession. Calls go to the manager with a bounded wait through outages; list_changed reaches
// every host once per burst of changes. The gateway is its servers' client side for what no host's
// request explains: their roots/list (the union of the hosts' roots), a task's requests (to the
// host whose task it is), and notifications (log messages, resource updates, task status), which
// it passes on to the hosts they are for.
class Gateway final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Gateway)

public:
    // The window while the list_changed of a burst of changes is held back.
    static constexpr std::chrono::milliseconds ListChangedDelay{250};

    explicit Gateway(ServerManager &manager, const GatewayConfig &config = {}, QObject *parent = nullptr);
    ~Gateway() override;

    const ServerManager &manager() const { return m_manager; }

    void setConfig(const GatewayConfig &config);
    const GatewayConfig &config() const { return m_config; }

    // A host connected over `channel`, which must outlive the session. The session answers what
    // the channel receives until it is closed.
    GatewaySession *openSession(HostChannel *channel);
    // Cancels the session's calls (the upstream calls too) and ends it.
    void closeSession(GatewaySession *session, const QString &reason);

    // The tools, resources and prompts exposed now.
    const ToolCatalog &catalog();
    const ResourceCatalog &resources();
    const PromptCatalog &prompts();
    // What the initialize result offers: what the servers offer (gatewayCapabilities()).
    QJsonObject capabilities() const;
    // While the servers that were starting when the gateway began have not come up (connected,
    // their resources and prompts listed) or failed, for at most the outage wait, a first list
    // would miss what they offer: it waits.
    bool isSettling() const { return !m_settling.isEmpty(); }

    // Calls the tool exposed as `publicName` for `host` (a name for the Log). Answers `onReply`
    // exactly once, maybe before this returns (an unknown tool); progress only before that.
    ToolCallTicket callTool(const QString &host, const QString &publicName, const ToolCallInput &input,
                            HostToolReplyHandler onReply, ProgressHandler onProgress);
    bool cancelToolCall(ToolCallTicket ticket, const QString &reason);
    // What a call of an unknown name (or of a tool no longer exposed) is answered with.
    HostToolReply unknownToolReply(const QString &publicName) const;
    // Any other request of `host` to the server `serverName`, answered with its result as is;
    // cancelled with cancelToolCall().
    ToolCallTicket forward(const QString &host, const QString &serverName, const QString &method, const QJsonObject &params,
                           ReplyHandler onReply, ProgressHandler onProgress, std::weak_ptr<ClientSide> origin);
    // `session` subscribes to a resource of `serverName` (or no longer does): the server is
    // subscribed while any host is, and `done` gets its answer (or an empty result when another
    // host's subscription stands already).
    void setSubscribed(GatewaySession *session, const QString &serverName, const QString &uri, bool subscribed,
                       ReplyHandler done);
    // The roots the config gives `serverName`.
    QJsonArray configRoots(const QString &serverName) const;
    GatewayTasks &tasks() { return m_tasks; }

    GatewayStatus status();

signals:
    void statusChanged();
    // The servers starting with the gateway are up (or failed, or the wait ran out).
    void settled();

private:
    friend class GatewaySharedSide;

    void exposedSetMayHaveChanged();
    void onSessionLeft(GatewaySession *session);
    // Every host's roots, with the config's roots of `serverName`, each URI once.
    QJsonArray rootsUnion(const QString &serverName) const;
    void onHostRootsChanged(GatewaySession *session);
    // Servers send log messages at the most verbose level any host asked for.
    void applyLogLevels();
    // What a server asks outside any host's request, and notifications for hosts.
    quint64 answerServerRequest(const ServerRequest &request, ReplyHandler reply, ProgressHandler onProgress);
    void cancelServerRequest(quint64 handle, const QString &reason);
    void passOnToHosts(const QString &serverName, const QString &method, const QJsonObject &params);
    QList<std::pair<QString, ServerCatalog>> serverCatalogs() const;
    void notifySessions();
    void onServerStateChanged(const ServerStatus &status);
    void finishSettling();
    // Why a name that is not exposed now cannot be called, when it was exposed before and its
    // server is still configured but down; nothing otherwise.
    std::optional<HostToolReply> formerToolReply(const QString &publicName) const;
    // Once per name: a hidden name its server does not offer is most likely misspelt.
    void warnOfHiddenNamesNotOffered();

    ServerManager &m_manager;
    GatewayConfig m_config;
    ToolCatalog m_catalog;
    bool m_catalogStale = true;
    ResourceCatalog m_resources;
    PromptCatalog m_prompts;
    bool m_featuresStale = true; // resources and prompts
    GatewayTasks m_tasks;
    // A resource subscription of the hosts, by "<server>\0<uri>": those that hold it, and while
    // the server has not answered the first, those that wait to share its answer.
    struct Subscription
    {
        QSet<GatewaySession *> holders;
        bool pending = false;
        std::vector<std::pair<QPointer<GatewaySession>, ReplyHandler>> joining;
    };
    QHash<QString, Subscription> m_subscriptions;
    QString m_appliedLogLevel;
    QByteArray m_rootsFingerprint;
    // Requests of servers passed on to a task's host: where each went.
    struct RoutedRequest
    {
        QPointer<GatewaySession> session;
        quint64 handle = 0;
    };
    QHash<quint64, RoutedRequest> m_routedRequests;
    quint64 m_nextRoutedRequest = 1;
    std::shared_ptr<ClientSide> m_sharedSide;
    struct FormerTool
    {
        QString serverName;
        QString toolName;
    };
    QHash<QString, FormerTool> m_formerTools; // every public name exposed so far
    std::vector<std::unique_ptr<GatewaySession>> m_sessions;
    QTimer m_listChangedTimer;
    QSet<QString> m_settling;
    QTimer m_settleTimer;
    QHash<QString, quint64> m_callsByServer;
    std::map<QString, quint64> m_sessionsOpened; // by transport name
    QSet<QString> m_warnedHiddenNames; // "<server>\0<tool>"
};

} // namespace Tether
