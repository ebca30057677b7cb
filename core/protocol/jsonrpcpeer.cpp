#include "jsonrpcpeer.h"

#include "clientside.h"

#include "common/decimaltext.h"
#include "common/jsontext.h"
#include "common/logging.h"

#include <QPointer>

using namespace Qt::StringLiterals;

namespace Tether {

QString requestIdKey(const QJsonValue &id)
{
    if (id.isString())
        return u"s:"_s + id.toString();
    // Every call is keyed: one allocation, not a number's and then the key's.
    const DecimalText digits(id.toInteger());
    QString key;
    key.reserve(2 + digits.size());
    key += u"n:";
    key += digits.latin1();
    return key;
}

bool isRequestId(const QJsonValue &id)
{
    return id.isString() || (id.isDouble() && id.toDouble() == double(id.toInteger()));
}

QString reusedRequestIdMessage(const QJsonValue &id)
{
    return u"Invalid request: the id %1 belongs to a request still in flight; give each request its own id"_s.arg(
        quotedJson(id));
}

QJsonObject progressParams(const QJsonValue &token, const ProgressUpdate &update)
{
    QJsonObject params{{u"progressToken"_s, token}, {u"progress"_s, update.progress}};
    if (update.total)
        params.insert(u"total"_s, *update.total);
    if (!update.message.isEmpty())
        params.insert(u"message"_s, update.message);
    return params;
}

ProgressUpdate progressUpdateOf(const QJsonObject &params)
{
    ProgressUpdate update;
    update.progress = params.value(u"progress").toDouble();
    if (params.value(u"total").isDouble())
        update.total = params.value(u"total").toDouble();
    update.message = params.value(u"message").toString();
    return update;
}

OutgoingRequests::OutgoingRequests(QString peerLabel, std::chrono::milliseconds timeout, Writer writer, QObject *parent)
    : QObject(parent)
    , m_peerLabel(std::move(peerLabel))
    , m_timeout(timeout)
    , m_writer(std::move(writer))
{
    m_deadlineTimer.setSingleShot(true);
    connect(&m_deadlineTimer, &QTimer::timeout, this, &OutgoingRequests::onDeadlineTimer);
}

OutgoingRequests::~OutgoingRequests()
{
    // Nobody is left to hear about the requests; the owner is going away with us.
    m_pending.clear();
}

qint64 OutgoingRequests::send(const QString &method, const QByteArray &params, ReplyHandler handler, RequestOptions options)
{
    const qint64 id = m_nextId++;
    const std::chrono::milliseconds limit = std::min<std::chrono::milliseconds>(options.timeout.value_or(m_timeout),
                                                                                LongestTimeout);
    const auto deadline = std::chrono::steady_clock::now() + limit;
    const QJsonValue related = options.related;
    m_pending.emplace(id, Pending{method, limit, std::move(handler), std::move(options.onProgress), deadline,
                                  options.resultAsText, related, std::move(options.origin)});
    m_wantingText += options.resultAsText ? 1 : 0;
    armDeadlineTimer(deadline);
    m_writer(JsonRpc::serializeRequest(id, method, params), related);
    return id;
}

void OutgoingRequests::notifyCancelled(qint64 id, const QString &reason, const QJsonValue &related)
{
    m_writer(JsonRpc::serialize(JsonRpc::makeNotification(u"notifications/cancelled"_s,
                                                          {{u"requestId"_s, id}, {u"reason"_s, reason}})),
             related);
}

bool OutgoingRequests::cancel(qint64 id, const QString &reason)
{
    const auto it = m_pending.find(id);
    if (it == m_pending.end())
        return false;
    notifyCancelled(id, reason, it->second.related);
    complete(id, RpcReply::failure(JsonRpc::RequestCancelled, reason));
    return true;
}

void OutgoingRequests::failAll(int code, const QString &reason)
{
    const QPointer<OutgoingRequests> guard(this);
    QList<qint64> ids;
    for (const auto &[id, pending] : m_pending)
        ids.append(id);
    for (qint64 id : std::as_const(ids)) {
        if (!guard)
            return;
        complete(id, RpcReply::failure(code, reason));
    }
}

bool OutgoingRequests::complete(qint64 id, const RpcReply &reply)
{
    const auto it = m_pending.find(id);
    if (it == m_pending.end())
        return false;
    Pending node = std::move(it->second);
    m_pending.erase(it);
    m_wantingText -= node.resultAsText ? 1 : 0;
    if (node.handler)
        node.handler(reply);
    return true;
}

bool OutgoingRequests::takeReplyText(const QByteArray &payload, const ResultJudge &judge)
{
    // Only a plain reply is taken: {"jsonrpc":"2.0","id":N,"result":{…}} in any order. Anything
    // else, an error reply among them, is parsed and judged as usual.
    if (m_wantingText == 0)
        return false;
    JsonMembersText resultMembers;
    const std::optional<JsonMembersText> members = validJsonObjectMembers(payload, "result", &resultMembers);
    if (!members || members->size() != 3 || memberValue(*members, "jsonrpc") != "\"2.0\"")
        return false;
    const QByteArrayView result = memberValue(*members, "result");
    const std::optional<qint64> id = jsonInteger(memberValue(*members, "id"));
    if (!id || !result.startsWith('{'))
        return false;
    const auto pending = m_pending.find(*id);
    if (pending == m_pending.end() || !pending->second.resultAsText)
        return false;
    RpcReply reply{QJsonValue::Undefined, std::nullopt}; // undefined: the result is known as text alone
    if (!judge(resultMembers, &reply))
        return false;
    reply.resultJson = result.toByteArray();
    complete(*id, reply);
    return true;
}

bool OutgoingRequests::progress(const QJsonValue &token, const ProgressUpdate &update)
{
    const auto it = m_pending.find(token.toInteger(-1));
    if (it == m_pending.end() || !it->second.onProgress)
        return false;
    it->second.onProgress(update);
    return true;
}

QString OutgoingRequests::method(qint64 id) const
{
    const auto it = m_pending.find(id);
    return it == m_pending.end() ? QString() : it->second.method;
}

void OutgoingRequests::hold(qint64 id)
{
    const auto it = m_pending.find(id);
    if (it == m_pending.end())
        return;
    if (it->second.holds++ == 0) {
        it->second.heldSince = std::chrono::steady_clock::now();
        armDeadlineTimer(it->second.expiry());
    }
}

void OutgoingRequests::release(qint64 id)
{
    const auto it = m_pending.find(id);
    if (it == m_pending.end() || it->second.holds == 0 || --it->second.holds > 0)
        return;
    it->second.deadline = std::chrono::steady_clock::now() + it->second.timeout;
    armDeadlineTimer(it->second.deadline);
}

QList<qint64> OutgoingRequests::requestsOf(const ClientSide *client) const
{
    QList<qint64> ids;
    for (const auto &[id, pending] : m_pending) {
        if (pending.origin.lock().get() == client)
            ids.append(id);
    }
    return ids;
}

std::shared_ptr<ClientSide> OutgoingRequests::origin(qint64 id) const
{
    const auto it = m_pending.find(id);
    return it == m_pending.end() ? nullptr : it->second.origin.lock();
}

std::vector<std::shared_ptr<ClientSide>> OutgoingRequests::origins() const
{
    std::vector<std::shared_ptr<ClientSide>> origins;
    for (const auto &[id, pending] : m_pending) {
        std::shared_ptr<ClientSide> origin = pending.origin.lock();
        if (origin && std::find(origins.cbegin(), origins.cend(), origin) == origins.cend())
            origins.push_back(std::move(origin));
    }
    return origins;
}

void OutgoingRequests::onTimeout(qint64 id)
{
    const auto it = m_pending.find(id);
    if (it == m_pending.end())
        return;
    const QString reason = it->second.holds > 0
                               ? u"request '%1' to %2 timed out: it waited %3 min for an answer of its client"_s
                                     .arg(it->second.method, m_peerLabel)
                                     .arg(MaxHold.count())
                               : u"request '%1' to %2 timed out after %3 ms"_s.arg(it->second.method, m_peerLabel)
                                     .arg(it->second.timeout.count());
    spdlog::warn("{}", reason);
    notifyCancelled(id, reason, it->second.related);
    complete(id, RpcReply::failure(JsonRpc::RequestTimeout, reason));
}

void OutgoingRequests::armDeadlineTimer(std::chrono::steady_clock::time_point deadline)
{
    if (m_deadlineTimer.isActive() && m_armedDeadline <= deadline)
        return;
    m_armedDeadline = deadline;
    const auto remaining = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    m_deadlineTimer.start(std::max(remaining, std::chrono::milliseconds(0)));
}

void OutgoingRequests::onDeadlineTimer()
{
    // A request answered in time leaves the timer armed for it: only the expired ones time out here.
    const auto now = std::chrono::steady_clock::now();
    QList<qint64> expired;
    std::optional<std::chrono::steady_clock::time_point> next;
    for (const auto &[id, pending] : m_pending) {
        const auto expiry = pending.expiry();
        if (expiry <= now)
            expired.append(id);
        else if (!next || expiry < *next)
            next = expiry;
    }
    if (next)
        armDeadlineTimer(*next);
    const QPointer<OutgoingRequests> guard(this);
    for (qint64 id : std::as_const(expired)) {
        if (!guard)
            return;
        onTimeout(id);
    }
}

} // namespace Tether
