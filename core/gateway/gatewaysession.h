#pragma once

#include "hostchannel.h"

#include "gatewayprotocol.h"

#include "manager/toolcallticket.h"
#include "protocol/clientside.h"
#include "protocol/jsonrpc.h"
#include "protocol/jsonrpcpeer.h"

#include <QByteArray>
#include <QDateTime>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QSet>
#include <QString>

#include <functional>
#include <map>
#include <vector>
#include <memory>

namespace Tether {

class Gateway;

// One MCP host connected to the gateway: its lifecycle (initialize, then everything MCP's server
// side offers), its requests in flight by id with their progress and cancellation, the list
// changes it has been told of, what it wants of the servers (log level, resource subscriptions,
// its tasks), and the servers' requests passed on to it (sampling, elicitation, roots), which it
// answers. Whatever the transport, its channel hands it the host's messages and carries its own.
class GatewaySession final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(GatewaySession)

public:
    // How long a server's request may wait for the host's answer: a person may be filling in a
    // form, so long, but never for ever.
    static constexpr std::chrono::minutes ServerRequestTimeout{30};

    GatewaySession(Gateway &gateway, HostChannel &channel, QObject *parent = nullptr);
    ~GatewaySession() override;

    // One message or batch as the host sent it (a stdio line, an HTTP body).
    void receive(const QByteArray &payload);
    void receiveMessage(const QJsonObject &object);

    // Cancels every request of the session, upstream too, and answers every request of a server
    // that waits on this host with an error; nothing more is sent for them.
    void cancelAllCalls(const QString &reason);
    // The host sends nothing more (its stdin closed) but may still read: its requests in flight
    // go on to their answers (hostChanged() tells as each leaves, hasRequests() whether any is
    // left), while what only the host could continue ends now: the servers' requests waiting on
    // its answer fail (and those to come), and its listens and its requests waiting for a retry
    // are dropped.
    void endInput(const QString &reason);
    // Sends list_changed for each list (tools, resources, prompts) the host was last told of
    // differently.
    void listsChanged();
    // A notification of a server for hosts: a log message reaches this host at its level and
    // above, a resource update when it subscribed to the resource, a task's status when the task
    // is its own, an elicitation's completion when it was asked.
    void passOn(const QString &serverName, const QString &method, const QJsonObject &params);

    bool isInitialized() const { return m_initialized; }
    // A host of MCP 2026-07-28: no initialize, an envelope on each request; chosen by the first one.
    bool isStateless() const { return m_stateless; }
    const QString &clientName() const { return m_clientName; }
    const QString &clientVersion() const { return m_clientVersion; }
    const QString &protocolVersion() const { return m_protocolVersion; }
    const QDateTime &since() const { return m_since; }
    int callsInFlight() const;
    // Whether any request of the host is still being answered (or waits for its retry).
    bool hasRequests() const { return !m_received.entries().empty(); }
    QString transportName() const { return m_channel.transportName(); }
    // "Claude Code 2.1", or "a host over stdio" before it initializes: on every call's log line.
    const QString &hostLabel() const { return m_hostLabel; }

    // What plays the client's part for this host: servers' requests made for its requests go to
    // it, and a perHost server's session of its own answers through it.
    std::shared_ptr<ClientSide> clientSide() const { return m_side; }
    // The roots the host declares (after it answered roots/list); whether it declares any at all.
    const QJsonArray &roots() const { return m_roots; }
    bool declaresRoots() const { return m_capabilities.contains(u"roots"); }
    // The level it asked for with logging/setLevel; empty when it asked for none.
    const QString &logLevel() const { return m_logLevel; }
    // A server's request passed on to this host: on the stream of the host's request it serves
    // (over HTTP), answered through `reply` exactly once unless cancelled first.
    quint64 forwardServerRequest(const ServerRequest &request, ReplyHandler reply, ProgressHandler onProgress);
    void cancelServerRequest(quint64 id, const QString &reason);

signals:
    // What the window shows of the host changed: it initialized, a call began or ended.
    void hostChanged();
    // The roots it declares changed (or became known).
    void rootsChanged();
    void logLevelChanged();
    // A stateless host was answered input_required under `requestState`: its retry continues here.
    void requestParked(const QString &requestState);

private:
    // A host request that is not answered yet.
    struct HostRequest
    {
        quint64 order = 0;            // arrival
        QString method;
        QJsonObject params;           // a request held while the servers start
        ToolCallRequest call;         // tools/call: what to call
        QString serverName;           // where it went
        ToolCallTicket ticket;        // once sent
        bool waitsForServers = false; // held until the servers starting with the gateway are up
        QString taskId;               // tasks/result: the task it waits on
        // A result of a server's to rewrite before the host sees it (task ids).
        std::function<QJsonObject(const QJsonObject &)> rewrite;
        // A stateless host's request whose server asked for input: answered with input_required
        // under this requestState, it waits for the host's retry, which then takes its answer.
        QString parkedAs;
        QJsonValue answerTo = QJsonValue::Undefined; // the retry that gets the answer now
        std::map<QString, ReplyHandler> asked;        // the server's questions the host was sent, by input key
        std::vector<std::pair<QString, QJsonObject>> unasked; // questions to put to the host with the next answer
        std::map<QString, ReplyHandler> unaskedReplies;
        // subscriptions/listen: what the host listens to.
        bool listensToTools = false;
        bool listensToPrompts = false;
        bool listensToResources = false;
        QSet<QString> listenedUris; // "<server>\0<uri>"
        // The answer of a parked request that came before the host's retry: given to the retry.
        std::function<void(const QJsonValue &id)> deliver;
    };
    using Received = IncomingRequests<HostRequest>;

    // A plain tools/call read without parsing it; false when the payload is anything else.
    bool receiveToolCallText(const QByteArray &payload);
    void onRequest(const JsonRpc::Message &message);
    // A request taken (a stateless host's without its envelope), to what answers it.
    void dispatch(const JsonRpc::Message &message, const QString &key);
    // Answers a request whose id is in flight already; true when it did.
    bool refuseReusedId(const QJsonValue &id, const QString &key);
    Received::Entry *accept(const JsonRpc::Message &message, const QString &key, HostRequest work);
    void acceptToolCall(const QJsonValue &id, const QString &key, ToolCallRequest call);
    // While the servers starting with the gateway come up, a request that needs what they offer
    // (a list, or a name none offers yet) waits for them; true when it does.
    bool waitForServers(const JsonRpc::Message &message, const QString &key);
    void onNotification(const JsonRpc::Message &message);
    void onResponse(const JsonRpc::Message &message);
    void onInitialize(const QJsonValue &id, const QJsonObject &params);
    // A list the gateway makes of its servers' (tools, resources, templates, prompts), held while
    // the servers start.
    void answerList(const QJsonValue &id, const QString &method, const QJsonObject &params);
    void startToolCall(const QString &key);
    void onToolCallProgress(const QString &key, const ProgressUpdate &update);
    void finishToolCall(const QString &key, const HostToolReply &reply);
    // Requests that go to one server as they are, besides a name or id put back as the server
    // knows it: the server's answer comes back as it is.
    void forward(const JsonRpc::Message &message, const QString &key, const QString &serverName,
                 const QJsonObject &params, std::function<QJsonObject(const QJsonObject &)> rewrite = {});
    void finishForwarded(const QString &key, const RpcReply &reply);
    void readResource(const JsonRpc::Message &message, const QString &key);
    void subscribe(const JsonRpc::Message &message, const QString &key, bool subscribed);
    void getPrompt(const JsonRpc::Message &message, const QString &key);
    void complete(const JsonRpc::Message &message, const QString &key);
    void setLogLevel(const JsonRpc::Message &message);
    void callToolAsTask(const JsonRpc::Message &message, const QString &key);
    void onTaskRequest(const JsonRpc::Message &message, const QString &key);
    void listTasks(const JsonRpc::Message &message, const QString &key);
    void dropRequest(const QString &key);
    // Stateless hosts: the request of the era's own, the listen, the server's questions.
    bool takeStatelessRequest(JsonRpc::Message &message, const QString &key);
    void listen(const JsonRpc::Message &message, const QString &key);
    void endListen(Received::Entry &entry);
    void sendToListeners(const QString &method, QJsonObject params, const std::function<bool(const HostRequest &)> &wants);
    // The id a request's answer goes to: the host's retry once its server asked for input.
    QJsonValue answerId(const Received::Entry &entry) const;
    // Puts the server's questions to the host as input_required, on its request waiting for an answer.
    void askHost(Received::Entry &entry, const QString &key);
    // Answers request `key` with `deliver` once the host waits for an answer: now, or at its retry.
    void deliverWhenAsked(const QString &key, std::function<void(const QJsonValue &id)> deliver);
    // The request leaves the books, and the server's questions still open on it are refused.
    std::optional<Received::Entry> finishRequest(const QString &key);
    // The host's retry of a request it was answered input_required for: the answers go to the
    // server, and the retry waits for what comes next.
    void resume(const JsonRpc::Message &message, const QString &key);
    void onSettled();
    // Why a server's request to the host fails once the host sends nothing more.
    QString inputEndedMessage() const;
    // Asks the host for its roots (when it declares them).
    void fetchRoots();
    // `cacheable`: a stateless host is told how long it may keep the result (a list, a read).
    void respond(const QJsonValue &id, const QJsonObject &result, const QByteArray &resultJson = {}, bool cacheable = false);
    void respondError(const QJsonValue &id, int code, const QString &message, const QJsonValue &data = {});
    void respondError(const QJsonValue &id, const JsonRpc::Error &error) { respondError(id, error.code, error.message, error.data); }
    void send(const QJsonObject &message, HostChannel::Role role, const QJsonValue &request);
    // The host request (id) a server's request belongs with: the host's request to that server
    // (for a task's request, the tasks/result that waits on it); undefined when there is none.
    QJsonValue relatedRequest(const ServerRequest &request) const;

    Gateway &m_gateway;
    HostChannel &m_channel;
    bool m_initialized = false;
    bool m_stateless = false;
    QString m_inputEnd; // why the host sends nothing more (endInput()); empty while it may
    quint64 m_questions = 0; // input keys given so far
    QHash<QString, QString> m_parked;  // requestState -> the key of the request it continues
    QHash<QString, QString> m_retries; // a retry's key -> the key of the request it continues
    QString m_clientName;
    QString m_clientVersion;
    QString m_protocolVersion;
    QString m_hostLabel;
    QDateTime m_since;
    QJsonObject m_capabilities; // the host's, from its initialize
    QJsonArray m_roots;
    QString m_logLevel;
    QSet<QString> m_subscriptions; // "<server>\0<uri>"
    // URL elicitations the host was asked, "<server>\0<elicitationId>": their completion is its alone.
    static constexpr qsizetype MaxUrlElicitations = 256;
    QSet<QString> m_urlElicitations;
    // Of the lists the host was last told of (tools, resources, prompts).
    QByteArray m_toolsFingerprint;
    QByteArray m_resourcesFingerprint;
    QByteArray m_promptsFingerprint;
    Received m_received;
    OutgoingRequests m_sent; // the servers' requests passed on to the host
    std::shared_ptr<ClientSide> m_side;
    quint64 m_arrivals = 0;
};

} // namespace Tether
