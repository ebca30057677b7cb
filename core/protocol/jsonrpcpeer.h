#pragma once

#include "jsonrpc.h"
#include "replies.h"

#include "common/jsonscan.h"

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QObject>
#include <QString>
#include <QTimer>

#include <chrono>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <vector>

// The books of one end of a JSON-RPC connection, whichever side of MCP it plays: the requests it
// sent and waits on, and the requests it was sent and has not answered. MCP's client session
// (McpClientSession, to a server) and the gateway's host session (GatewaySession, to a host) both
// stand on them; what a request means is theirs to decide.
namespace Tether {

class ClientSide;

// A request id as a map key: 1 and "1" are different ids.
QString requestIdKey(const QJsonValue &id);
// Whether `id` can name a request: a string or an integer.
bool isRequestId(const QJsonValue &id);
// The answer to a request whose id is in flight already.
QString reusedRequestIdMessage(const QJsonValue &id);

// The params of notifications/progress for `token`.
QJsonObject progressParams(const QJsonValue &token, const ProgressUpdate &update);
// A notifications/progress's params as an update; `update.message` as sent.
ProgressUpdate progressUpdateOf(const QJsonObject &params);

// What a request carries besides its method and params.
struct RequestOptions
{
    ProgressHandler onProgress; // the params must then carry the request's id as progressToken
    std::optional<std::chrono::milliseconds> timeout; // none: the default
    // A reply that takeReplyText() finds plain is answered with its result's text alone.
    bool resultAsText = false;
    QJsonValue related = QJsonValue::Undefined;
    // The client whose request this one serves (a gateway host, the window): a request the
    // other end makes while it runs may be meant for it.
    std::weak_ptr<ClientSide> origin;
};

// The requests this end sent and still waits on. Each is answered exactly once: with its reply,
// its timeout (the other end is told with notifications/cancelled), its cancellation, or the end of
// the connection. One timer watches every deadline.
class OutgoingRequests final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OutgoingRequests)

public:
    // Writes one message (compact JSON). `related`: the other end's request it belongs to, if any
    // (Streamable HTTP sends it on that request's stream).
    using Writer = std::function<void(const QByteArray &message, const QJsonValue &related)>;

    // `peerLabel` names the other end in messages ("server 'github'", "Claude Code 2.1").
    OutgoingRequests(QString peerLabel, std::chrono::milliseconds timeout, Writer writer, QObject *parent = nullptr);
    ~OutgoingRequests() override;

    void setPeerLabel(const QString &label) { m_peerLabel = label; }
    // The id the next request takes: a progress token written into its params before it is sent.
    qint64 nextId() const { return m_nextId; }
    // Sends `method` with `params` already written as JSON (empty: none).
    qint64 send(const QString &method, const QByteArray &params, ReplyHandler handler, RequestOptions options = {});
    // Tells the other end with notifications/cancelled, and answers the request with
    // RequestCancelled at once. False when it was answered already.
    bool cancel(qint64 id, const QString &reason);
    // Every request answered with `code` and `reason`, in the order they were sent.
    void failAll(int code, const QString &reason);

    // A reply of the other end: answers its request. False when none waits for it.
    bool complete(qint64 id, const RpcReply &reply);
    // A plain reply {"jsonrpc":"2.0","id":N,"result":{…}}, read without parsing it, to a request
    // that wants its result as text, when `judge` accepts the result's members (it sets the
    // reply's textResultIsError): answered with the result's text. False for anything else.
    using ResultJudge = std::function<bool(const JsonMembersText &resultMembers, RpcReply *reply)>;
    bool takeReplyText(const QByteArray &payload, const ResultJudge &judge);
    // Progress the other end reports under `token`: passed to the handler of the request that
    // asked for it. False when no request waits for progress under that token.
    bool progress(const QJsonValue &token, const ProgressUpdate &update);

    bool contains(qint64 id) const { return m_pending.contains(id); }
    QString method(qint64 id) const;
    int size() const { return int(m_pending.size()); }
    bool isEmpty() const { return m_pending.empty(); }
    bool anyWantsText() const { return m_wantingText > 0; }

    // While the other end waits on a client's answer to a request it made for request `id` (a
    // form a person fills in), the clock of `id` stands still: held, it times out only after
    // MaxHold; released by every hold, it has its whole timeout again from then.
    static constexpr std::chrono::minutes MaxHold{30};
    // The longest timeout a request may have (a timer's reach): one meant to run as long as the
    // connection asks for it, and is sent again should it ever end.
    static constexpr std::chrono::hours LongestTimeout{24 * 20};
    void hold(qint64 id);
    void release(qint64 id);

    // The client whose request `id` serves, while it is alive.
    std::shared_ptr<ClientSide> origin(qint64 id) const;
    // The requests that serve `client`.
    QList<qint64> requestsOf(const ClientSide *client) const;
    // The distinct live clients among the requests waiting, in the order they were sent.
    std::vector<std::shared_ptr<ClientSide>> origins() const;

private:
    struct Pending
    {
        QString method;
        std::chrono::milliseconds timeout;
        ReplyHandler handler;
        ProgressHandler onProgress;
        std::chrono::steady_clock::time_point deadline;
        bool resultAsText = false;
        QJsonValue related;
        std::weak_ptr<ClientSide> origin;
        int holds = 0;
        std::chrono::steady_clock::time_point heldSince{};

        std::chrono::steady_clock::time_point expiry() const { return holds > 0 ? heldSince + MaxHold : deadline; }
    };

    void notifyCancelled(qint64 id, const QString &reason, const QJsonValue &related);
    void armDeadlineTimer(std::chrono::steady_clock::time_point deadline);
    void onDeadlineTimer();
    void onTimeout(qint64 id);

    QString m_peerLabel;
    std::chrono::milliseconds m_timeout;
    Writer m_writer;
    std::map<qint64, Pending> m_pending; // small when idle, unlike a QHash
    int m_wantingText = 0;               // of m_pending: whether a reply is worth a look as text
    QTimer m_deadlineTimer;
    std::chrono::steady_clock::time_point m_armedDeadline;
    qint64 m_nextId = 1;
};

// The requests the other end sent that are not answered yet, each with the `Work` its receiver
// keeps for it: a reused id is refused, progress goes back only as it grows, and a cancellation by
// the other end finds the request by its id.
template<typename Work>
class IncomingRequests
{
public:
    struct Entry
    {
        QJsonValue id;
        QJsonValue progressToken = QJsonValue::Undefined; // undefined: the other end asked for none
        double lastProgress = -std::numeric_limits<double>::infinity();
        Work work;
    };
    using Entries = std::map<QString, Entry>; // by requestIdKey

    // The request `id` is in flight from now on; null when its id is in flight already.
    Entry *begin(const QJsonValue &id, const QString &key, Work work, const QJsonValue &progressToken = QJsonValue::Undefined)
    {
        const auto [it, inserted] = m_entries.try_emplace(key, Entry{id, progressToken, -std::numeric_limits<double>::infinity(),
                                                                      std::move(work)});
        return inserted ? &it->second : nullptr;
    }
    bool contains(const QString &key) const { return m_entries.contains(key); }
    Entry *find(const QString &key)
    {
        const auto it = m_entries.find(key);
        return it == m_entries.end() ? nullptr : &it->second;
    }
    // The request answered or dropped: it leaves the books.
    std::optional<Entry> take(const QString &key)
    {
        const auto it = m_entries.find(key);
        if (it == m_entries.end())
            return std::nullopt;
        Entry entry = std::move(it->second);
        m_entries.erase(it);
        return entry;
    }
    // The params of the notifications/progress that tells the other end of `update`, when the
    // request asked for progress and `update` moves it forward (progress must increase).
    std::optional<QJsonObject> progressFor(const QString &key, const ProgressUpdate &update)
    {
        Entry *entry = find(key);
        if (!entry || entry->progressToken.isUndefined() || update.progress <= entry->lastProgress)
            return std::nullopt;
        entry->lastProgress = update.progress;
        return progressParams(entry->progressToken, update);
    }
    QList<QString> keys() const
    {
        QList<QString> keys;
        keys.reserve(qsizetype(m_entries.size()));
        for (const auto &[key, entry] : m_entries)
            keys.append(key);
        return keys;
    }
    int size() const { return int(m_entries.size()); }
    const Entries &entries() const { return m_entries; }
    Entries &entries() { return m_entries; }

private:
    Entries m_entries;
};

} // namespace Tether
