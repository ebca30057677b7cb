#include "sseparser.h"

#include <algorithm>
#include <utility>

namespace Tether {

SseParser::SseParser(qsizetype maxEventBytes)
    : m_maxEventBytes(maxEventBytes)
{}

QList<SseEvent> SseParser::push(QByteArrayView bytes)
{
    QList<SseEvent> events;
    if (m_overflowed)
        return events;
    if (m_atStreamStart && !bytes.isEmpty()) {
        // The byte order mark may itself arrive split; wait until it can be told apart.
        static constexpr QByteArrayView byteOrderMark("\xEF\xBB\xBF");
        m_line.append(bytes);
        if (m_line.size() < byteOrderMark.size() && byteOrderMark.startsWith(m_line))
            return events;
        m_atStreamStart = false;
        QByteArray start = std::exchange(m_line, {});
        if (QByteArrayView(start).startsWith(byteOrderMark))
            start.remove(0, byteOrderMark.size());
        return push(start);
    }

    qsizetype lineStart = 0;
    for (qsizetype i = 0; i < bytes.size(); ++i) {
        const char byte = bytes[i];
        if (byte != '\r' && byte != '\n')
            continue;
        if (byte == '\n' && m_afterCarriageReturn && i == lineStart && m_line.isEmpty()) {
            // The '\n' of a CRLF whose '\r' already ended the line.
            m_afterCarriageReturn = false;
            lineStart = i + 1;
            continue;
        }
        m_afterCarriageReturn = byte == '\r';
        if (m_line.isEmpty()) {
            processLine(bytes.sliced(lineStart, i - lineStart), events);
        } else {
            m_line.append(bytes.sliced(lineStart, i - lineStart));
            processLine(std::exchange(m_line, {}), events);
        }
        lineStart = i + 1;
        if (m_overflowed)
            return events;
    }
    if (lineStart < bytes.size()) {
        m_afterCarriageReturn = false;
        m_line.append(bytes.sliced(lineStart));
    }
    if (pendingEventBytes() > m_maxEventBytes) {
        m_overflowed = true;
        m_line.clear();
        m_data.clear();
    }
    return events;
}

void SseParser::processLine(QByteArrayView line, QList<SseEvent> &events)
{
    if (m_data.size() + m_type.size() + line.size() > m_maxEventBytes) {
        m_overflowed = true;
        m_data.clear();
        return;
    }
    if (line.isEmpty()) {
        // A blank line ends the event.
        m_lastEventId = m_pendingId;
        if (!m_data.isEmpty()) {
            m_data.chop(1); // the '\n' after the last data line
            events.append({m_type.isEmpty() ? QByteArray("message") : m_type, std::exchange(m_data, {}), m_lastEventId});
        }
        m_data.clear();
        m_type.clear();
        return;
    }
    if (line.startsWith(':'))
        return; // a comment, often a keep-alive
    const qsizetype colon = line.indexOf(':');
    const QByteArrayView field = colon < 0 ? line : line.first(colon);
    QByteArrayView value = colon < 0 ? QByteArrayView() : line.sliced(colon + 1);
    if (value.startsWith(' '))
        value = value.sliced(1);

    if (field == "data") {
        m_data.append(value);
        m_data.append('\n');
    } else if (field == "event") {
        m_type = value.toByteArray();
    } else if (field == "id") {
        if (!value.contains('\0'))
            m_pendingId = value.toByteArray();
    } else if (field == "retry") {
        const bool digits = !value.isEmpty()
                            && std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
        bool ok = false;
        const qint64 milliseconds = digits ? value.toLongLong(&ok) : 0;
        if (ok)
            m_retry = std::chrono::milliseconds(milliseconds);
    }
    // Any other field is ignored, as the standard says.
}

} // namespace Tether
