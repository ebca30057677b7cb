#pragma once

#include "protocol/clientside.h"
#include "protocol/jsonrpc.h"
#include "protocol/jsonrpcpeer.h"
#include "protocol/mcptypes.h"
#include "protocol/protocolera.h"
#include "protocol/replies.h"
#include "transport/transport.h"

#include <QHash>
#include <QJsonArray>
#include <QObject>
#include <QPointer>
#include <QSet>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>

namespace Tether {

struct SessionOptions
{
    QString serverName;
    std::chrono::milliseconds requestTimeout{60000}; // every request, the handshake included
    // What the client declares besides answering pings: clientFeatureCapabilities(), or nothing.
    QJsonObject clientCapabilities{};
    // Answers the server's requests that no client's request explains (roots/list outside any
    // call, say) and hears the notifications hosts may want: the gateway's shared side, or a
    // host's own for a session of its own.
    std::weak_ptr<ClientSide> clientSide{};
    // What roots/list answers when no client side is left to ask: the config's roots.
    QJsonArray roots{};
    // The era spoken: a pinned one is the only one tried. Without one the session opens with
    // `firstEra`: initialize by default, as every server of the handshake era expects, and
    // server/discover when its -32022 answer names a stateless version; server/discover first
    // for a server known to be stateless, and initialize when it refuses.
    std::optional<ProtocolEra> pinnedEra{};
    ProtocolEra firstEra = ProtocolEra::Handshake;
    EraPinnedBy pinnedBy = EraPinnedBy::Setting; // named in the refusal of a pinned era
};

struct SessionClosure
{
    bool wasReady = false;    // the handshake had completed
    QString failure;          // why the session failed; empty when it was closed on request
    TransportClosure transport;

    // "connection closed during initialize: process exited with code 3"
    QString describe() const;
};

struct SessionStats
{
    int skippedInput = 0;       // lines that were not JSON, JSON that was no message
    int unknownResponses = 0;   // responses to ids nobody is waiting for
    int unsupportedRequests = 0; // server requests answered with -32601
    int refusedRequests = 0;     // server requests answered with another error: malformed, or nobody to answer
};

// The client side of one MCP connection over one transport: handshake and version
// negotiation, request correlation with timeouts and cancellation, the notifications MCP defines,
// and the server's own requests (sampling, elicitation, roots), each passed to the client whose
// request it serves. Every request gets exactly one answer: its reply, a timeout, or the closing
// of the connection; so does every request of the server.
class McpClientSession final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(McpClientSession)

public:
    enum class State { Idle, Initializing, Ready, Closing, Closed };

    McpClientSession(std::unique_ptr<Transport> transport, SessionOptions options, QObject *parent = nullptr);
    ~McpClientSession() override;

    // Starts the transport and the handshake; ready() or failed() follows, and closed() at the end.
    void open();
    // Bounded; closed() follows once the transport is really closed.
    void close();

    State state() const { return m_state; }
    // The era spoken once ready; while initializing, the one being tried.
    ProtocolEra era() const { return m_era; }
    // What a later session to the same server should try first: the era this one found, or the
    // handshake when the connection ended during server/discover (a server that quits on a
    // request it does not know).
    ProtocolEra eraToTryFirst() const { return m_eraToTryFirst; }
    bool isReady() const { return m_state == State::Ready; }
    const ServerIdentity &serverIdentity() const { return m_serverIdentity; }
    const SessionOptions &options() const { return m_options; }
    const SessionStats &stats() const { return m_stats; }
    Transport *transport() const { return m_transport.get(); }

    // `timeout` overrides the session's request timeout for this request. A request of the
    // server's made while this one runs may be meant for `origin`.
    qint64 request(const QString &method, const QJsonObject &params, ReplyHandler handler,
                   ProgressHandler onProgress = {}, std::optional<std::chrono::milliseconds> timeout = {},
                   std::weak_ptr<ClientSide> origin = {});
    void notify(const QString &method, const QJsonObject &params = {});
    // Sends notifications/cancelled and fails the request locally at once. A stateless request
    // whose server asked for input is found by the id it was first sent under.
    void cancel(qint64 requestId, const QString &reason);

    // Whether the server's initialize result advertises `capability` ("resources", "prompts").
    bool offers(QStringView capability) const { return m_serverIdentity.capabilities.contains(capability); }

    // Each list follows nextCursor until the last page. Tools, resources and prompts are asked for
    // only of a server that offers them: the lists of one that does not are empty, and reading or
    // getting from it fails without a request.
    void listTools(ToolListHandler handler);
    // resources/list, then resources/templates/list.
    void listResources(ResourceListHandler handler);
    void listPrompts(PromptListHandler handler);
    qint64 readResource(const QString &uri, ResourceReadHandler handler);
    // `arguments` maps names to strings, as prompts/get wants them.
    qint64 getPrompt(const QString &name, const QJsonObject &arguments, PromptHandler handler);
    qint64 callTool(const QString &name, const ToolCallInput &input,
                    ToolCallHandler handler, ProgressHandler onProgress = {});
    // Proves the server alive: ping, or on a stateless server (which has none) server/discover.
    // The method sent.
    QString ping(ReplyHandler handler, std::optional<std::chrono::milliseconds> timeout = {});
    // notifications/roots/list_changed, when the session declared roots.
    void notifyRootsChanged();
    void setClientSide(std::weak_ptr<ClientSide> clientSide) { m_options.clientSide = std::move(clientSide); }

    int pendingRequestCount() const { return m_sent.size(); }
    // The server's requests waiting for a client's answer.
    int waitingServerRequestCount() const { return m_received.size(); }
    // How the transport closed, or was lost, once it was: already known when `failed` is emitted for it.
    const std::optional<TransportClosure> &transportClosure() const { return m_transportClosure; }

signals:
    void ready();
    // The session became unusable for a reason other than close(); emitted at most once.
    void failed(const QString &reason);
    // Emitted exactly once, after the transport has closed.
    void closed(const Tether::SessionClosure &closure);
    void toolsListChanged();
    void resourcesListChanged();
    void promptsListChanged();
    void logMessage(const QString &level, const QString &logger, const QJsonValue &data);
    void progressNotified(const QJsonValue &progressToken, const Tether::ProgressUpdate &update);
    void stderrLine(const QString &line);

private:
    // request() with `params` already written as JSON (empty: none), a progress token among them
    // when `options.onProgress` is given: its id is the one this request takes, m_sent.nextId().
    // With `options.resultAsText`, a reply that a scan finds valid is answered with its result's
    // text alone (RpcReply::resultJson), never parsed.
    qint64 sendRequest(const QString &method, const QByteArray &params, ReplyHandler handler,
                       RequestOptions options);
    void writeMessage(const QByteArray &message);

    // What the session keeps of a server's request while a client answers it.
    struct ServerRequestWork
    {
        std::weak_ptr<ClientSide> answerer;
        quint64 handle = 0;
        quint64 serial = 0; // tells it from a later request of the server under the same id
        QList<qint64> held; // our requests it serves, whose clocks stand still while it waits
    };
    // The entry leaves the books; the clocks it held go on.
    std::optional<IncomingRequests<ServerRequestWork>::Entry> takeServerRequest(const QString &key);

    void onTransportStarted();
    void onMessage(const QJsonObject &object, const QByteArray &text, const QJsonValue &related);
    // A payload that is a reply with a result to a request that wants it as text: taken unparsed.
    bool takeReplyAsText(const QByteArray &payload);
    void onInputSkipped(const QString &what);
    void onTransportLost(const TransportClosure &closure);
    void onTransportClosed(const TransportClosure &closure);
    void rememberClosure(const TransportClosure &closure);
    QString failureReason(const TransportClosure &closure) const;
    void sendInitialize();
    void onInitializeReply(const RpcReply &reply);
    // Stateless: server/discover opens the session, and answers the heartbeat.
    void sendDiscover();
    void onDiscoverReply(const RpcReply &reply);
    void becomeReady(ServerIdentity identity);
    // The session falls back to the handshake, or fails when its era is pinned.
    void discoverRefused(const QString &why);

    // A stateless request: the envelope added, its result judged (resultType), and a server's
    // input_required answered by the clients and the request sent again with the answers.
    struct InputFlow;
    qint64 sendStateless(const QString &method, QJsonObject params, ReplyHandler handler, RequestOptions options,
                         std::shared_ptr<InputFlow> flow = {});
    QJsonObject envelope() const;
    void onStatelessReply(const std::shared_ptr<InputFlow> &flow, const RpcReply &reply);
    void askForInput(const std::shared_ptr<InputFlow> &flow, const QJsonObject &inputRequests);
    void onInputAnswered(const std::shared_ptr<InputFlow> &flow, quint64 round, const QString &key,
                         const RpcReply &reply);
    // The flow ends with `reply`: the questions still out are withdrawn.
    void finishInputFlow(const std::shared_ptr<InputFlow> &flow, const RpcReply &reply,
                         const QString &withdrawReason = {});
    // Requests of the handshake era that a stateless server does not take, answered here:
    // logging/setLevel sets the envelope's log level, resources/subscribe and unsubscribe the
    // resources listened to. True when `method` was one of them.
    bool answerLocally(const QString &method, const QJsonObject &params, ReplyHandler &handler);
    // subscriptions/listen for what the server says it can tell (list changes, the resources
    // subscribed to); opened again when what is wanted changes or the stream ends.
    void listen();
    // `related`: our request whose HTTP stream it came on, if any.
    void onServerRequest(const JsonRpc::Message &message, const QJsonValue &related);
    // The client that answers a request of the server: the one whose request it came with or
    // serves, else the session's client side (told of the candidates when they were several);
    // roots/list always the client side.
    std::shared_ptr<ClientSide> answererFor(const ServerRequest &request, const QJsonValue &related,
                                            QStringList *undecided) const;
    void answerServerRequest(const QString &key, quint64 serial, const RpcReply &reply);
    void reportServerRequestProgress(const QString &key, quint64 serial, const ProgressUpdate &update);
    void refuseServerRequest(const QJsonValue &id, int code, const QString &message);
    void cancelServerRequests(const QString &reason);
    void onNotification(const JsonRpc::Message &message);
    // A notification hosts may want, passed to the client it is meant for.
    void passOnNotification(const JsonRpc::Message &message);
    void onResponse(const JsonRpc::Message &message, const QByteArray &text);
    void fail(const QString &reason);
    void failAllPending(const QString &reason);
    // How a paginated list ended: every page read, or why not.
    struct ListedEntries
    {
        std::optional<JsonRpc::Error> error;
        qint64 ttlMs = 0; // a stateless server's: how long the list may be kept
    };
    // A stateless server that tells no changes of `capability`'s list (no listChanged) but lets
    // it be kept for a while: `changed` is emitted when that while is over, so that it is listed again.
    void expireList(const ListedEntries &listed, QStringView capability, void (McpClientSession::*changed)());
    using ListedEntriesHandler = std::function<void(const ListedEntries &)>;
    using PageHandler = std::function<void(const QJsonArray &entries)>;
    // Every page of `method`: `onPage` gets the entries under `key` of each as it comes, in its
    // own turn (a long list is not judged all at once at the end), `handler` how the list ended.
    void listEntries(const QString &method, const QString &key, PageHandler onPage, ListedEntriesHandler handler);
    void fetchPage(const QString &method, const QString &key, const QString &cursor,
                   std::shared_ptr<ListedEntries> accumulated, std::shared_ptr<QSet<QString>> seenCursors,
                   PageHandler onPage, ListedEntriesHandler handler);
    void logSkipped(const QString &method, const QStringList &warnings) const;
    // The failure of a request to a server that does not offer `capability`.
    JsonRpc::Error notOffered(QStringView capability) const;
    QString serverLabel() const;
    // The failure of a request whose result has the wrong shape, `what` saying how.
    JsonRpc::Error wrongShape(const QString &method, const QString &what) const;

    std::unique_ptr<Transport> m_transport;
    SessionOptions m_options;
    State m_state = State::Idle;
    ServerIdentity m_serverIdentity;
    OutgoingRequests m_sent;
    IncomingRequests<ServerRequestWork> m_received;
    // URL-mode elicitations by their id: notifications/elicitation/complete goes where each went.
    QHash<QString, std::weak_ptr<ClientSide>> m_urlElicitations;
    quint64 m_serverRequests = 0; // received so far
    QString m_failure;
    std::optional<TransportClosure> m_transportClosure;
    bool m_wasReady = false;
    SessionStats m_stats;

    ProtocolEra m_era = ProtocolEra::Handshake;
    ProtocolEra m_eraToTryFirst = ProtocolEra::Stateless;
    bool m_discoverTried = false;
    bool m_initializeTried = false;
    QString m_logLevel;                    // stateless: sent in every envelope once set
    QStringList m_resourceSubscriptions;   // stateless: what the listen asks updates of
    qint64 m_listenId = 0;                 // the subscriptions/listen in flight
    int m_listenFailures = 0;              // in a row: each one waits longer before the next
    std::map<qint64, std::shared_ptr<InputFlow>> m_inputFlows; // by the id the caller knows
    QSet<QString> m_expiringLists; // capabilities whose list is to be fetched again when its ttlMs is over
};

} // namespace Tether
