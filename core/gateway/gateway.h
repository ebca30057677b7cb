#pragma once

#include "gatewayprotocol.h"
#include "gatewaystatus.h"
#include "toolcatalog.h"

#include "config/gatewayconfig.h"
#include "manager/servermanager.h"

#include <QHash>
#include <QObject>
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

// Tether as an MCP server: the tools of every server of a ServerManager, less the hidden ones,
// served to each connected host through a GatewaySession. Calls go to the manager with a bounded
// wait through outages; tools/list_changed reaches every host once per burst of changes.
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

    // The tools exposed now.
    const ToolCatalog &catalog();
    // While the servers that were starting when the gateway began have not come up or failed (for
    // at most the outage wait), a first tools/list would miss their tools: it waits.
    bool isSettling() const { return !m_settling.isEmpty(); }

    // Calls the tool exposed as `publicName` for `host` (a name for the Log). Answers `onReply`
    // exactly once, maybe before this returns (an unknown tool); progress only before that.
    ToolCallTicket callTool(const QString &host, const QString &publicName, const ToolCallInput &input,
                            HostToolReplyHandler onReply, ProgressHandler onProgress);
    bool cancelToolCall(ToolCallTicket ticket, const QString &reason);

    GatewayStatus status();

signals:
    void statusChanged();
    // The servers starting with the gateway are up (or failed, or the wait ran out).
    void settled();

private:
    void exposedSetMayHaveChanged();
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
