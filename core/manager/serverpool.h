#pragma once

#include "config/serverconfig.h"
#include "supervisor/connectionsupervisor.h"

#include <QObject>
#include <QPointer>
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
// `max`, else waits in a bounded queue; sessions above `min` that stay idle are closed. With
// `perHost`, each host of the gateway that calls it gets a session of its own, opened at its first
// request (which waits for it to connect) and closed when the host leaves. Every session is
// supervised; the first one's tools are the server's tools.
class ServerPool final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ServerPool)

public:
    // Every session of a remote server sends `credentials`, when given. `clientSide` answers what
    // the server asks on its shared sessions when no client's request explains it.
    ServerPool(const ServerConfig &config, ToolRegistry *registry,
               std::chrono::milliseconds idleTimeout = std::chrono::seconds(60),
               std::shared_ptr<ServerCredentials> credentials = {}, std::weak_ptr<ClientSide> clientSide = {},
               QObject *parent = nullptr);
    ~ServerPool() override;

    void start();
    void stop();
    void reconnect();
    // Every session takes these at once (ConnectionSupervisor::setReconnectPolicy).
    void setPolicies(const ReconnectPolicy &reconnect, const HeartbeatPolicy &heartbeat);
    // For the sessions started from now on (SupervisorSettings::outcomesLoggedAsErrors).
    void setOutcomesLoggedAsErrors(bool asErrors) { m_outcomesLoggedAsErrors = asErrors; }
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
    // Any request, answered with the server's result as it is: on the session of `origin` when it
    // has one (perHost), else on the first session. Returns an id for cancelCall().
    quint64 request(const QString &method, const QJsonObject &params, ReplyHandler handler,
                    ProgressHandler onProgress = {}, std::weak_ptr<ClientSide> origin = {});
    // What the clients want of the server, kept across reconnections (ConnectionSupervisor): on
    // the session of `origin` when given (perHost: a subscription opens it, a log level waits for
    // it), else on the first session.
    void setResourceSubscribed(const QString &uri, bool subscribed, ReplyHandler done,
                               std::weak_ptr<ClientSide> origin = {});
    void setLogLevel(const QString &level, std::weak_ptr<ClientSide> origin = {});
    // notifications/roots/list_changed on every session the shared side answers for; with
    // `origin`, on that client's own sessions (perHost) alone.
    void notifyRootsChanged(std::weak_ptr<ClientSide> origin = {});
    // Who answers on the shared sessions from their next connection on (the current ones too).
    void setClientSide(std::weak_ptr<ClientSide> clientSide);
    // `client` has left: its sessions (perHost) close, and what waits for them fails.
    void releaseClient(const ClientSide *client);

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
        // perHost: the host this session is for, and what waits for it to connect.
        std::weak_ptr<ClientSide> owner;
        const ClientSide *ownerKey = nullptr;
        struct Waiting
        {
            quint64 callId = 0;
            SteadyClock::time_point deadline;
            std::function<SupervisedCall(ConnectionSupervisor &)> send;
            std::function<void(const JsonRpc::Error &)> fail;
        };
        std::deque<Waiting> waiting;
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

    Member *addMember(std::weak_ptr<ClientSide> owner = {});
    // The session of `origin` on a perHost server (opened now if it has none); null when the
    // request belongs on the shared sessions.
    Member *hostMember(const std::weak_ptr<ClientSide> &origin);
    // Sends on `member` once it is connected: at once, or when it connects (failing at the
    // request's timeout, or when it gives up).
    void sendWhenConnected(Member *member, quint64 callId, std::function<SupervisedCall(ConnectionSupervisor &)> send,
                           std::function<void(const JsonRpc::Error &)> fail);
    void flushWaiting(Member *member);
    void failWaiting(Member *member, const JsonRpc::Error &error);
    void expireWaiting();
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
    std::weak_ptr<ClientSide> m_clientSide;
    bool m_outcomesLoggedAsErrors = true;
    std::vector<std::unique_ptr<Member>> m_members; // [0] is the primary session
    std::vector<std::unique_ptr<Member>> m_hostMembers; // perHost: one per host
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
