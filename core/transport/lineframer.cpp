#include "lineframer.h"

#include <utility>

namespace Tether {

LineFramer::LineFramer(qsizetype maxLineBytes)
    : m_maxLineBytes(maxLineBytes)
{}

QList<QByteArray> LineFramer::push(QByteArrayView bytes)
{
    QList<QByteArray> lines;
    if (m_overflowed)
        return lines;

    // The start of a line held from an earlier read is completed first; the lines after it are
    // taken from `bytes` as they are, never copied into the buffer and out again.
    qsizetype from = 0;
    if (!m_buffer.isEmpty()) {
        const qsizetype newline = bytes.indexOf('\n');
        if (newline < 0) {
            m_buffer.append(bytes);
            if (m_buffer.size() > m_maxLineBytes) {
                m_overflowed = true;
                m_buffer.clear();
            }
            return lines;
        }
        m_buffer.append(bytes.first(newline));
        const QByteArray line = std::exchange(m_buffer, {});
        if (!take(line, &lines))
            return lines;
        from = newline + 1;
    }
    for (qsizetype newline = bytes.indexOf('\n', from); newline >= 0; newline = bytes.indexOf('\n', from)) {
        if (!take(bytes.sliced(from, newline - from), &lines))
            return lines;
        from = newline + 1;
    }
    // Between messages nothing is kept: the buffer of a large reply is released, not reused.
    m_buffer = bytes.sliced(from).toByteArray();
    if (m_buffer.size() > m_maxLineBytes) {
        m_overflowed = true;
        m_buffer.clear();
    }
    return lines;
}

bool LineFramer::take(QByteArrayView line, QList<QByteArray> *lines)
{
    if (line.size() > m_maxLineBytes) {
        m_overflowed = true;
        m_buffer.clear();
        return false;
    }
    if (line.endsWith('\r'))
        line.chop(1);
    if (!line.trimmed().isEmpty())
        lines->append(line.toByteArray());
    return true;
}

} // namespace Tether
