#pragma once

#include "config/serverconfig.h"
#include "supervisor/connectionsupervisor.h"

#include <QObject>
#include <QTimer>

#include <deque>
#include <map>
#include <memory>
#include <vector>

namespace Tether {

class ServerCredentials;

// The sessions of one server. Without a `pool` setting that is one supervised session taking
// any number of calls at once. With one, each session takes one call at a time (for servers
// that answer one request at a time): a call takes an idle session, else opens another up to
// `max`, else waits in a bounded queue; sessions above `min` that stay idle are closed. Every
// session is supervised; the first one's tools are the server's tools.
class ServerPool final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ServerPool)

public:
    // Every session of a remote server sends `credentials`, when given.
    ServerPool(const ServerConfig &config, ToolRegistry *registry,
               std::chrono::milliseconds idleTimeout = std::chrono::seconds(60),
               std::shared_ptr<ServerCredentials> credentials = {}, QObject *parent = nullptr);
    ~ServerPool() override;

    void start();
    void stop();
    void reconnect();
    // Every session, running or not, uses these from its next decision on.
    void setPolicies(const ReconnectPolicy &reconnect, const HeartbeatPolicy &heartbeat);
    ServerState state() const;
    ServerStatus status() const;
    int sessionCount() const { return int(m_members.size()); }

    // Returns an id, unique within this pool, for cancelCall().
    quint64 callTool(const QString &toolName, const ToolCallInput &input,
                     ToolCallHandler handler,
                     ProgressHandler onProgress = {});
    // The first session's resources and prompts. Reads and gets go to that session, beside any
    // call it runs: they change nothing on the server.
    ServerCatalog catalog() const;
    void readResource(const QString &uri, ResourceReadHandler handler);
    void getPrompt(const QString &name, const QJsonObject &arguments, PromptHandler handler);

    // A queued call leaves the queue, a call in flight is cancelled on its session; either way
    // its handler is answered at once with `reason`. Does nothing for a call already answered
    // or one being answered with an error without having been sent.
    void cancelCall(quint64 callId, const QString &reason);

signals:
    void statusChanged(const Tether::ServerStatus &status);
    void stateChanged(const Tether::ServerStatus &status);
    void catalogChanged(const Tether::ServerCatalog &catalog);
    void stopped(bool complete);
    void stderrLine(const QString &line);
    void serverLogMessage(const QString &level, const QString &logger, const QString &text);

private:
    struct Member
    {
        int id = 0;
        std::unique_ptr<ToolRegistry> ownRegistry; // sessions after the first keep their tools to themselves
        std::unique_ptr<ConnectionSupervisor> supervisor;
        int callsInFlight = 0;
        QDateTime idleSince;
    };

    struct QueuedCall
    {
        quint64 id = 0;
        QString toolName;
        ToolCallInput input;
        ToolCallHandler handler;
        ProgressHandler onProgress;
        SteadyClock::time_point deadline;
    };

    Member *addMember();
    // The session that needs a sign-in, if one does.
    const Member *signInNeededMember() const;
    JsonRpc::Error stoppedError() const;
    Member *member(int id) const;
    ConnectionSupervisor *supervisorOf(int memberId) const; // closing sessions included
    void removeMember(int id);
    void dispatch();
    void send(Member *member, QueuedCall call);
    void track(quint64 callId, int memberId, const SupervisedCall &sent);
    void onMemberStateChanged(int id, const ServerStatus &status);
    void onMemberStopped();
    void closeIdleMembers();
    void expireQueuedCalls();
    void failQueue(const QString &reason);
    int minimumSessions() const { return std::max(1, m_config.pool.min); }

    ServerConfig m_config;
    ToolRegistry *m_registry;
    std::shared_ptr<ServerCredentials> m_credentials;
    bool m_exclusive;                    // a pool is configured: one call per session at a time
    std::chrono::milliseconds m_idleTimeout;
    std::vector<std::unique_ptr<Member>> m_members; // [0] is the primary session
    std::vector<std::unique_ptr<Member>> m_stopping; // secondary sessions being closed
    std::deque<QueuedCall> m_queue;
    struct CallInFlight
    {
        int memberId = 0;
        SupervisedCall sent;
    };
    std::map<quint64, CallInFlight> m_inFlight; // small when idle, unlike a QHash
    quint64 m_nextCallId = 1;
    int m_nextMemberId = 1;
    bool m_stoppingAll = false;
    bool m_startWhenStopped = false; // started while stopping
    bool m_stopIncomplete = false;   // a session's process would not exit
    QTimer m_housekeeping;
};

} // namespace Tether
