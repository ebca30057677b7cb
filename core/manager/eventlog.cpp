#include "eventlog.h"

namespace Tether {

EventLog::EventLog(int capPerServer, QObject *parent)
    : QObject(parent)
    , m_cap(capPerServer)
{}

void EventLog::append(ServerEvent event)
{
    if (!event.time.isValid())
        event.time = QDateTime::currentDateTimeUtc();
    std::deque<ServerEvent> &events = m_events[event.server];
    events.push_back(event);
    while (int(events.size()) > m_cap)
        events.pop_front();
    emit appended(events.back());
}

QList<ServerEvent> EventLog::events(const QString &server) const
{
    const auto it = m_events.constFind(server);
    return it == m_events.cend() ? QList<ServerEvent>() : QList<ServerEvent>(it->cbegin(), it->cend());
}

void EventLog::forget(const QString &server)
{
    m_events.remove(server);
}

} // namespace Tether
