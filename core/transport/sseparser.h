#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>

#include <chrono>
#include <optional>

namespace Tether {

// One dispatched server-sent event.
struct SseEvent
{
    QByteArray type;  // "message" unless the event named another
    QByteArray data;  // the data lines joined with '\n'
    QByteArray id;    // the stream's last event id when the event was dispatched
};

// Parses a text/event-stream as the HTML standard defines it: lines end with CR, LF or CRLF
// (also when the pair is split between reads), "field: value" lines, a line with no colon is a
// field with an empty value, ':' starts a comment, a blank line dispatches the event. An event
// with no data is not dispatched but its id still counts. An event cut off by the end of the
// stream is never dispatched. An event whose data and current line together exceed the limit
// is a protocol error: the parser then stops and reports overflowed().
class SseParser final
{
public:
    static constexpr qsizetype DefaultMaxEventBytes = 16 * 1024 * 1024;

    explicit SseParser(qsizetype maxEventBytes = DefaultMaxEventBytes);

    QList<SseEvent> push(QByteArrayView bytes);

    // The id to send as Last-Event-ID when resuming; empty when the server gave none.
    const QByteArray &lastEventId() const { return m_lastEventId; }
    // The reconnection delay the server asked for with "retry:".
    std::optional<std::chrono::milliseconds> retry() const { return m_retry; }
    bool overflowed() const { return m_overflowed; }
    qsizetype maxEventBytes() const { return m_maxEventBytes; }

private:
    void processLine(QByteArrayView line, QList<SseEvent> &events);
    qsizetype pendingEventBytes() const { return m_data.size() + m_type.size() + m_line.size(); }

    QByteArray m_line;            // the line read so far
    QByteArray m_data;            // data lines of the current event, each followed by '\n'
    QByteArray m_type;
    QByteArray m_pendingId;       // set by "id:", becomes the last event id at dispatch
    QByteArray m_lastEventId;
    std::optional<std::chrono::milliseconds> m_retry;
    qsizetype m_maxEventBytes;
    bool m_afterCarriageReturn = false; // a '\n' right after a '\r' ends no second line
    bool m_atStreamStart = true;        // a byte order mark there is skipped
    bool m_overflowed = false;
};

} // namespace Tether
