#pragma once

#include "protocol/jsonrpc.h"
#include "protocol/mcptypes.h"
#include "protocol/replies.h"
#include "transport/transport.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QTimer>

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
};

// The client side of one MCP connection over one transport: handshake and version
// negotiation, request correlation with timeouts and cancellation, and the notifications MCP
// defines. Every request gets exactly one answer: its reply, a timeout, or the closing of the
// connection.
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
    bool isReady() const { return m_state == State::Ready; }
    const ServerIdentity &serverIdentity() const { return m_serverIdentity; }
    const SessionOptions &options() const { return m_options; }
    const SessionStats &stats() const { return m_stats; }
    Transport *transport() const { return m_transport.get(); }

    // `timeout` overrides the session's request timeout for this request.
    qint64 request(const QString &method, const QJsonObject &params, ReplyHandler handler,
                   ProgressHandler onProgress = {}, std::optional<std::chrono::milliseconds> timeout = {});
    void notify(const QString &method, const QJsonObject &params = {});
    // Sends notifications/cancelled and fails the request locally at once.
    void cancel(qint64 requestId, const QString &reason);

    // Whether the server's initialize result advertises `capability` ("resources", "prompts").
    bool offers(QStringView capability) const { return m_serverIdentity.capabilities.contains(capability); }

    // Each list follows nextCursor until the last page. Resources and prompts are asked for only
    // of a server that offers them: the lists of one that does not are empty, and reading or
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
    void ping(ReplyHandler handler, std::optional<std::chrono::milliseconds> timeout = {});

    int pendingRequestCount() const { return int(m_pending.size()); }
    // How the transport closed, once it has: already known when `failed` is emitted for it.
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
    // when `onProgress` is given: its id is the one this request takes, nextRequestId().
    // With `resultAsText`, a reply that a scan finds valid is answered with its result's text
    // alone (RpcReply::resultJson), never parsed.
    qint64 sendRequest(const QString &method, const QByteArray &params, ReplyHandler handler, ProgressHandler onProgress,
                       std::optional<std::chrono::milliseconds> timeout, bool resultAsText = false);
    qint64 nextRequestId() const { return m_nextRequestId; }

    struct PendingRequest
    {
        QString method;
        std::chrono::milliseconds timeout;
        ReplyHandler handler;
        ProgressHandler onProgress;
        std::chrono::steady_clock::time_point deadline;
        bool resultAsText = false;
    };

    void onTransportStarted();
    void onMessage(const QJsonObject &object, const QByteArray &text);
    // A payload that is a reply with a result to a request that wants it as text: taken unparsed.
    bool takeReplyAsText(const QByteArray &payload);
    void onInputSkipped(const QString &what);
    void onTransportClosed(const TransportClosure &closure);
    void onInitializeReply(const RpcReply &reply);
    void onServerRequest(const JsonRpc::Message &message);
    void onNotification(const JsonRpc::Message &message);
    void onResponse(const JsonRpc::Message &message, const QByteArray &text);
    void onRequestTimeout(qint64 requestId);
    // One timer for every request's deadline: the earliest one pending.
    void armDeadlineTimer(std::chrono::steady_clock::time_point deadline);
    void onDeadlineTimer();
    void fail(const QString &reason);
    void completeRequest(qint64 requestId, const RpcReply &reply);
    void failAllPending(const QString &reason);
    // Every entry of a paginated list, or why there are none.
    struct ListedEntries
    {
        QJsonArray entries;
        std::optional<JsonRpc::Error> error;
    };
    using ListedEntriesHandler = std::function<void(const ListedEntries &)>;
    // The entries under `key` of every page of `method`.
    void listEntries(const QString &method, const QString &key, ListedEntriesHandler handler);
    void fetchPage(const QString &method, const QString &key, const QString &cursor,
                   std::shared_ptr<ListedEntries> accumulated, std::shared_ptr<QSet<QString>> seenCursors,
                   ListedEntriesHandler handler);
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
    std::map<qint64, PendingRequest> m_pending; // small when idle, unlike a QHash
    int m_requestsWantingText = 0; // of m_pending: whether a reply is worth a look as text
    QTimer m_deadlineTimer;
    std::chrono::steady_clock::time_point m_armedDeadline;
    qint64 m_nextRequestId = 1;
    QString m_failure;
    std::optional<TransportClosure> m_transportClosure;
    bool m_wasReady = false;
    SessionStats m_stats;
};

} // namespace Tether
