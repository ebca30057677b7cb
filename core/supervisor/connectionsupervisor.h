#pragma once

#include "config/policy.h"
#include "protocol/protocolera.h"
#include "heartbeat.h"
#include "servercatalog.h"
#include "serverstatus.h"
#include "supervisorcore.h"
#include "toolregistry.h"
#include "toolsyncqueue.h"

#include "protocol/clientside.h"
#include "protocol/replies.h"

#include <QJsonArray>
#include <QObject>
#include <QSet>
#include <QTimer>

#include <functional>
#include <map>
#include <memory>

namespace Tether {

class McpClientSession;
class Transport;
struct SessionClosure;
struct TransportClosure;

using TransportFactory = std::function<std::unique_ptr<Transport>()>;

// Names one tool call sent by a supervisor, for cancelCall(); generation 0: nothing was sent.
struct SupervisedCall
{
    quint64 generation = 0;
    qint64 requestId = 0;
};

struct SupervisorSettings
{
    ReconnectPolicy reconnect;
    HeartbeatPolicy heartbeat;
    std::chrono::milliseconds requestTimeout{60000};
    // How long a closing generation may take to report closed before the supervisor gives up
    // on it (longer than the stdio close escalation of 2 s + 2 s).
    std::chrono::milliseconds closeTimeout{8000};
    RandomSource random; // empty: the global random generator
    // Whether the server's resources and prompts are listed (and followed) for its catalog.
    bool listsCatalog = true;
    // What the messages of a server that needs a sign-in tell a person to do; empty: Sign in,
    // or `tetherctl login NAME`, for a server of the config.
    QString signInAdvice;
    // What each session declares besides pings (clientFeatureCapabilities(), or nothing), who
    // answers what the server asks when no client's request explains it, and the roots answered
    // when nobody is left to ask (SessionOptions).
    QJsonObject clientCapabilities;
    std::weak_ptr<ClientSide> clientSide;
    QJsonArray roots;
    // The era to speak ("protocol"): nothing finds it, and what a connection found is where the
    // next one starts.
    std::optional<ProtocolEra> pinnedEra;
    EraPinnedBy pinnedBy = EraPinnedBy::Setting;
    // Whether giving up and waiting for a manual start are the log's errors. A command that reports
    // every server's state itself makes them details (info).
    bool outcomesLoggedAsErrors = true;
};

// Supervises one MCP server: each connection attempt is a fresh generation (transport and
// session); failures reconnect with bounded, jittered backoff within an outage budget; the
// server's tools stay registered through an outage and are swapped atomically on recovery.
// Decisions come from SupervisorCore; this class turns signals into its events and carries
// the decisions out. Tool lists are read through a ToolSyncQueue, liveness is watched by a
// Heartbeat.
class ConnectionSupervisor final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConnectionSupervisor)

public:
    ConnectionSupervisor(QString name, TransportFactory transportFactory, SupervisorSettings settings,
                         ToolRegistry *registry, QObject *parent = nullptr);
    ~ConnectionSupervisor() override;

    const QString &name() const { return m_name; }
    ServerStatus status() const;
    ServerState state() const { return m_core.state(); }

    // From Stopped, Failed, Disconnected or Sign-in needed.
    void start();
    // Cancels any pending backoff, closes the current generation and starts afresh with a
    // fresh budget once it has closed.
    void reconnect();
    // Quiescent dispose: stopped() follows once every generation has closed (or could not be).
    void stop();

    // At once: a scheduled retry is judged against the new budget and moved to the new curve's
    // time, or ended (SupervisorCore::setPolicy); otherwise used from the next decision on.
    void setReconnectPolicy(const ReconnectPolicy &policy);
    void setHeartbeatPolicy(const HeartbeatPolicy &policy);
    const SupervisorSettings &settings() const { return m_settings; }

    // Calls a tool of the current generation; fails fast (never waits) when not connected, with
    // ServerUnavailable: nothing was sent.
    SupervisedCall callTool(const QString &toolName, const ToolCallInput &input,
                            ToolCallHandler handler,
                            ProgressHandler onProgress = {});
    // The resources and prompts of the current generation, as last listed (kept through an
    // outage, like the tools; cleared by a stop).
    const ServerCatalog &catalog() const { return m_catalog; }
    // Read and get on the current generation; fail fast like callTool when not connected.
    void readResource(const QString &uri, ResourceReadHandler handler);
    void getPrompt(const QString &name, const QJsonObject &arguments, PromptHandler handler);
    // Any request on the current generation, answered with the server's result as it is; fails
    // fast like callTool when not connected. `origin`: the client it is made for.
    SupervisedCall request(const QString &method, const QJsonObject &params, ReplyHandler handler,
                           ProgressHandler onProgress = {}, std::weak_ptr<ClientSide> origin = {});

    // What the client wants of the server, kept across generations: every new connection is
    // subscribed and set again. While connected the change is sent at once and `done` gets the
    // server's answer (an unsubscribe leaves the set whatever it says); otherwise `done` gets
    // an empty result and the change waits for the connection.
    void setResourceSubscribed(const QString &uri, bool subscribed, ReplyHandler done);
    // logging/setLevel on every connection from now on (to a server that offers logging); empty:
    // the server's own level is left alone. Until it is set, a connection gets its client side's
    // level (ClientSide::logLevel).
    void setLogLevel(const QString &level);
    // notifications/roots/list_changed on the current generation.
    void notifyRootsChanged();
    // Who answers the server's requests that no client's request explains, on every generation
    // from now on, the current one too.
    void setClientSide(std::weak_ptr<ClientSide> clientSide);
    // Sends notifications/cancelled for a call still in flight and answers its handler at once
    // with `reason`; does nothing once the call has been answered.
    void cancelCall(const SupervisedCall &call, const QString &reason);

signals:
    void statusChanged(const Tether::ServerStatus &status);
    void catalogChanged(const Tether::ServerCatalog &catalog);
    // The state word changed; `status` is the snapshot right after.
    void stateChanged(const Tether::ServerStatus &status);
    void stderrLine(const QString &line);
    void serverLogMessage(const QString &level, const QString &logger, const QString &text);
    // Quiescent: every generation closed (`complete`) or one could not be stopped.
    void stopped(bool complete);

private:
    struct Generation
    {
        quint64 number = 0;
        std::unique_ptr<McpClientSession> session;
        bool established = false;     // the initial tools sync completed
        bool failureHandled = false;  // one decision per generation, however many signals arrive
    };

    // How a failed generation's connection is ended: by the transport's bounded close, or at
    // once (for stdio: SIGKILL of the server's group) when the server is known not to respond.
    enum class Ending { Close, AtOnce };

    bool isCurrent(quint64 generation) const;
    Generation *current() const;
    void apply(const SupervisorDecision &decision, const QString &reason);
    void launchWhenClear();
    void launchGeneration();
    void onSessionReady(quint64 generation);
    void onGenerationFailed(quint64 generation, const QString &reason, Ending ending = Ending::Close);
    void recordExit(quint64 number, const TransportClosure &closure);
    void onGenerationClosed(quint64 generation, const SessionClosure &closure);
    void closeCurrentGeneration();
    void onBackoffElapsed();
    void onBarrierTimeout();
    void onStabilityWindowElapsed();
    bool listToolsOf(quint64 generation, ToolListHandler done);
    void onSyncFinished(const ToolSyncQueue::Job &job, const ToolListReply &reply);
    void onToolsRegistered(const ToolSyncQueue::Job &job, const ToolChange &change, qsizetype toolCount);
    std::optional<QString> pingCurrent(std::chrono::milliseconds timeout, ReplyHandler onReply);
    // Lists the resources (or prompts) of `generation` anew; only the newest listing is kept.
    void syncResources(quint64 generation);
    void syncPrompts(quint64 generation);
    void setCatalog(ServerCatalog catalog);
    // The subscriptions and log level the client wants, sent to a new connection.
    void sendClientWishes(McpClientSession *session);
    // Why nothing can be sent to the server now, when it is not connected.
    QString unavailableReason() const;
    // The established current generation's session, if any.
    McpClientSession *establishedSession() const;
    void finishStop(bool complete);
    void publish();
    QString label() const;
    QString signInAdvice() const;
    QString lingeringPids() const;

    QString m_name;
    TransportFactory m_transportFactory;
    SupervisorSettings m_settings;
    ProtocolEra m_eraToTryFirst = ProtocolEra::Handshake;
    QString m_protocolVersion; // of the last connection that got ready
    ToolRegistry *m_registry;
    SupervisorCore m_core;
    ToolSyncQueue m_toolSyncs;
    Heartbeat m_heartbeat;

    std::map<quint64, std::unique_ptr<Generation>> m_generations; // every generation not yet closed
    quint64 m_currentGeneration = 0;  // 0: none may change anything
    quint64 m_generationCount = 0;
    bool m_stopping = false;
    bool m_launchPending = false;     // an attempt waits for the previous generation to close

    QTimer m_backoffTimer;
    QTimer m_barrierTimer;
    QTimer m_stabilityTimer;

    QString m_transportDescription;
    QString m_reason;
    QString m_lastError;
    QString m_cause; // of the last failure, in a few words; cleared once connected
    QString m_signInScope; // what the server asked for, while Sign-in needed
    bool m_scopeRefused = false; // … because it refused the token for want of that scope
    std::optional<int> m_lastExitCode;
    std::optional<int> m_lastExitSignal;
    QStringList m_lastStderrTail;
    quint64 m_lastExitGeneration = 0;
    QDateTime m_nextRetryAt;
    std::optional<qint64> m_nextDelayMs;
    QDateTime m_connectedSince;
    ServerState m_publishedState = ServerState::Stopped;
    ServerCatalog m_catalog;
    quint64 m_resourceSyncs = 0; // listings started: a reply to any but the last is stale
    quint64 m_promptSyncs = 0;
    QSet<QString> m_subscriptions; // resource URIs
    QString m_logLevel;
};

} // namespace Tether
