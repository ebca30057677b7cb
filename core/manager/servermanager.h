#pragma once

#include "config/gatewayconfig.h"
#include "config/serverconfig.h"
#include "manager/callstatistics.h"
#include "manager/callwait.h"
#include "manager/eventlog.h"
#include "manager/serversource.h"
#include "manager/toolcallticket.h"
#include "protocol/clientside.h"
#include "protocol/replies.h"
#include "supervisor/servercatalog.h"
#include "supervisor/serverstatus.h"
#include "supervisor/toolregistry.h"

#include <QObject>
#include <QPointer>
#include <QTimer>

#include <map>
#include <memory>

namespace Tether {

class ServerPool;
class SignInController;

struct ConfigChange
{
    QStringList added;
    QStringList removed;
    QStringList restarted; // settings changed
    QStringList policyUpdated; // only the reconnect or heartbeat policy changed: applied without a restart
    QStringList unchanged; // left running as they were
    // Of the servers kept running (policyUpdated or unchanged): those whose hidden tools changed.
    QStringList toolsUpdated;
};

// Where a call by tool name alone goes, or why it cannot go anywhere.
struct ToolRoute
{
    std::optional<RegisteredTool> tool;
    QString error;
};

// Many supervised servers from one config: one supervisor per server, the union of their
// tools in one registry, calls routed by server and tool or by tool name alone.
class ServerManager final : public ServerSource
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ServerManager)

public:
    explicit ServerManager(QObject *parent = nullptr);
    ~ServerManager() override;

    // Brings the running set in line with `config`: new servers are added (and started when
    // enabled), removed ones stopped, changed ones restarted; unchanged ones keep running. A
    // server whose only change is its reconnect or heartbeat policy keeps running too: every
    // session of it uses the new policy from its next decision.
    ConfigChange applyConfig(const ConfigDocument &config);

    QStringList serverNames() const override; // in config order
    const ServerConfig *serverConfig(const QString &name) const override;
    std::optional<ServerStatus> status(const QString &name) const override;
    QList<ServerStatus> statuses() const override;
    ToolRegistry &registry() override { return m_registry; }

    // Remote servers sign in through `signIn` when they ask (those added from now on: set it
    // before the first applyConfig); a server in Sign-in needed starts again once its sign-in
    // changes. Null: none signs in, a 401 is an error as any other.
    void setSignIn(SignInController *signIn);
    // The user's Sign in and Sign out of the server `name`; `done` says what happened.
    void signIn(const QString &name, const QStringList &scopes, std::function<void(const QUrl &)> opener,
                std::function<void(bool signedIn, const QString &message)> done) override;
    void signOut(const QString &name, std::function<void(bool signedOut, const QString &message)> done) override;
    // What the window's Details and tetherctl show of the sign-in of `name` (never a token).
    SignInInfo signInInfo(const QString &name) const override;
    // Whether `name` can sign in: a remote server without an Authorization header of its own, in
    // a program that signs in.
    bool canSignIn(const QString &name) const override;
    EventLog &eventLog() override { return m_eventLog; }

    // Who answers what a server asks (sampling, elicitation, roots) when no client's request
    // explains it, and hears the notifications hosts may want: the gateway. Without one, roots/list
    // answers the config's roots and anything else is refused.
    void setClientSide(std::weak_ptr<ClientSide> clientSide);
    // Whether the servers added from now on log giving up and waiting for a manual start as
    // errors (SupervisorSettings::outcomesLoggedAsErrors); a command that reports every server's
    // state itself turns that off.
    void setOutcomesLoggedAsErrors(bool asErrors) { m_outcomesLoggedAsErrors = asErrors; }
    // `client` has left: the sessions of its own (perHost) close.
    void releaseClient(const ClientSide *client);

    void start(const QString &name) override;
    void stop(const QString &name) override;
    void reconnect(const QString &name) override;
    // Disabling stops the server and keeps it stopped (a start is refused) until it is enabled.
    void setEnabled(const QString &name, bool enabled) override;
    void startAll();
    // Every server that is not stopped (or stopping): one the user stopped stays stopped.
    void reconnectAll() override;
    // Every server that needsRetry(), at once with a fresh retry budget; the others are left alone.
    void retryFailed() override;
    // Quiescent: allStopped() follows once every server has stopped.
    void stopAll();
    bool isAllStopped() const;

    // The server's resources and prompts as last listed; empty for an unknown server.
    ServerCatalog catalog(const QString &name) const override;
    // Each handler is answered exactly once, like a call's; fails fast when the server is not
    // connected.
    void readResource(const QString &serverName, const QString &uri, ResourceReadHandler handler) override;
    void getPrompt(const QString &serverName, const QString &promptName, const QJsonObject &arguments,
                   PromptHandler handler) override;
    // Any request to the server `serverName`, answered exactly once with its result as the server
    // wrote it, or why there is none; fails fast when the server is not connected. `origin`: the
    // client it is made for (a host of the gateway), which a perHost server serves on a session
    // of its own. Cancelled with cancelToolCall().
    ToolCallTicket request(const QString &serverName, const QString &method, const QJsonObject &params,
                           ReplyHandler handler, ProgressHandler onProgress = {}, std::weak_ptr<ClientSide> origin = {});
    // What the clients want of a server, kept across its reconnections: a resource subscription
    // (`done` gets the server's answer, or an empty result while it is not connected) and the
    // log level it sends at (empty: its own).
    void setResourceSubscribed(const QString &serverName, const QString &uri, bool subscribed, ReplyHandler done,
                               std::weak_ptr<ClientSide> origin = {});
    void setLogLevel(const QString &serverName, const QString &level, std::weak_ptr<ClientSide> origin = {});
    // The roots the clients declare changed: every shared session tells its server; with
    // `origin`, the sessions of that client's own (perHost) alone.
    void notifyRootsChanged(std::weak_ptr<ClientSide> origin = {});

    ToolRoute route(const QString &toolName) const;
    // The handler is answered exactly once: the result, an error, or the cancellation; also
    // when the server stops or is removed meanwhile. Progress stops once it has been answered.
    // A call that was not sent because its server is not connected fails with ServerUnavailable,
    // saying why (see CallOptions for waiting instead).
    ToolCallTicket callTool(const QString &serverName, const QString &toolName, const ToolCallInput &input,
                            ToolCallHandler handler,
                            ProgressHandler onProgress = {},
                            CallOptions options = {}) override;
    // By tool name alone (or public name) across every server.
    ToolCallTicket callTool(const QString &toolName, const ToolCallInput &input,
                            ToolCallHandler handler,
                            ProgressHandler onProgress = {},
                            CallOptions options = {});
    // How a call a person or a client makes waits out an outage: as long as the config's
    // gateway.outageWaitMs, and sent again after a lost connection when that is safe.
    CallOptions outageCallOptions() const { return {m_outageWait, true}; }
    // Cancels a call (or a request()) not answered yet, wherever it is: a call waiting for a pooled session
    // leaves the queue, a call in flight is cancelled on the server (notifications/cancelled
    // with `reason`). Its handler is answered before this returns, with a RequestCancelled
    // error. Returns false when the call had already been answered.
    bool cancelToolCall(ToolCallTicket ticket, const QString &reason = {}) override;
    int callsInFlight() const { return int(m_activeCalls.size()); }
    // The calls of a server answered so far, from its first entry in the config (a restart with
    // new settings keeps them; a removal forgets them).
    CallStatistics callStatistics(const QString &serverName) const;

signals:
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
    void updatePolicies(Server &server, const ServerConfig &config);
    void retire(const QString &name, std::unique_ptr<ServerPool> pool);
    void startIfClear(const QString &name);
    bool isRetiring(const QString &name) const;
    bool isCurrentPool(const QString &name, const ServerPool *pool) const;
    void checkAllStopped();
    void onSignInChanged(const QString &serverKey);
    void onSignedOut(const QString &serverKey);
    // The names of the servers whose sign-in is `serverKey`.
    QStringList serversSigningInAs(const QString &serverKey) const;
    // The sign-in key of the server `name`; empty when it cannot sign in (with `error` saying why).
    QString signInKey(const QString &name, QString *error) const;
    ServerStatus statusOf(const Server &server) const;
    // Why nothing can be sent to the server `name`: it does not exist or its config is invalid.
    std::optional<JsonRpc::Error> unusableServer(const QString &name) const;
    // Registers a call and returns its handler as the layers below must call it: at most once
    // through to the caller's.
    ToolCallHandler track(ToolCallTicket ticket, const QString &serverName,
                                                     const QString &toolName,
                                                     ToolCallHandler handler);
    void answer(quint64 ticket, const ToolCallReply &reply);
    // Calls with a wait: sent, kept waiting, or answered, as the server's state says.
    void dispatch(quint64 ticket);
    void send(quint64 ticket);
    void onSentCallAnswered(quint64 ticket, const ToolCallReply &reply);
    void releaseWaitingCalls(const QString &serverName);
    void expireWaitingCalls();
    void scheduleWaitExpiry();
    bool isSafeToSendAgain(const QString &serverName, const QString &toolName) const;

    // A call not answered yet, and where it went.
    struct ActiveCall
    {
        QString serverName;
        QString toolName;
        ToolCallHandler handler;
        std::chrono::steady_clock::time_point startedAt;
        QPointer<ServerPool> pool; // none while it fails before reaching one, or waits
        quint64 poolCallId = 0;
        // Calls with options keep what they need to be sent (again) later.
        ToolCallInput input;
        ProgressHandler onProgress;
        CallOptions options;
        std::chrono::steady_clock::time_point waitStartedAt;
        std::chrono::steady_clock::time_point deadline; // of the wait for a connection
        bool waiting = false;
        bool sentAgain = false;
    };

    ToolRegistry m_registry;
    EventLog m_eventLog;
    QPointer<SignInController> m_signIn;
    QStringList m_order;
    std::map<QString, Server> m_servers;
    std::vector<Retiring> m_retiring;
    bool m_stoppingAll = false;
    bool m_allStoppedQueued = false;
    std::map<quint64, ActiveCall> m_activeCalls; // small when idle, unlike a QHash; in call order
    // request()s not answered yet.
    struct ActiveRequest
    {
        QString serverName;
        QString method;
        ReplyHandler handler;
        QPointer<ServerPool> pool;
        quint64 poolCallId = 0;
    };
    std::map<quint64, ActiveRequest> m_requests;
    std::weak_ptr<ClientSide> m_clientSide;
    bool m_outcomesLoggedAsErrors = true;
    std::chrono::milliseconds m_outageWait = GatewayConfig().outageWait;
    std::map<QString, CallStatistics> m_callStatistics; // of servers in the config
    quint64 m_nextTicket = 1;
    QTimer m_waitExpiry; // the earliest deadline of a waiting call
};

} // namespace Tether
