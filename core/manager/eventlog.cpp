#include "eventlog.h"

#include "common/duration.h"
#include "protocol/jsonrpc.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Tether {

ServerEvent toolCallEvent(const QString &server, const QString &caller, const QString &tool,
                          const ToolCallReply &reply, std::chrono::milliseconds took)
{
    QString outcome;
    if (!reply.error)
        outcome = reply.result.isError ? u"tool error"_s : u"ok"_s;
    else if (reply.error->code == JsonRpc::RequestCancelled)
        outcome = reply.error->message;
    else
        outcome = u"failed: "_s + reply.error->message;
    const bool failed = reply.error.has_value() || reply.result.isError;
    // One per tool call: written in one go rather than through a format string.
    return {{}, server, ServerEvent::Kind::ToolCall, failed ? u"warning"_s : u"info"_s,
            caller + u" called "_s + tool + u": "_s + outcome + u" ("_s + formatDuration(took) + u')', {}};
}

EventLog::EventLog(int capPerServer, QObject *parent)
    : QObject(parent)
    , m_cap(capPerServer)
{}

void EventLog::append(ServerEvent event)
{
    if (!event.time.isValid())
        event.time = QDateTime::currentDateTimeUtc();
    std::deque<ServerEvent> &events = m_events[event.server];
    events.push_back(std::move(event));
    while (int(events.size()) > m_cap)
        events.pop_front();
    emit appended(events.back());
}

QList<ServerEvent> EventLog::events(const QString &server) const
{
    const auto it = m_events.constFind(server);
    return it == m_events.cend() ? QList<ServerEvent>() : QList<ServerEvent>(it->cbegin(), it->cend());
}

QList<ServerEvent> EventLog::allEvents() const
{
    QList<ServerEvent> all;
    for (const std::deque<ServerEvent> &events : m_events)
        all.append(QList<ServerEvent>(events.cbegin(), events.cend()));
    // Each server's events are in order already; equal times keep it.
    std::stable_sort(all.begin(), all.end(),
                     [](const ServerEvent &a, const ServerEvent &b) { return a.time < b.time; });
    return all;
}

void EventLog::forget(const QString &server)
{
    m_events.remove(server);
}

} // namespace Tether
