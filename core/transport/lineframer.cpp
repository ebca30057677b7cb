#include "lineframer.h"

namespace Tether {

LineFramer::LineFramer(qsizetype maxLineBytes)
    : m_maxLineBytes(maxLineBytes)
{}

QList<QByteArray> LineFramer::push(QByteArrayView bytes)
{
    QList<QByteArray> lines;
    if (m_overflowed)
        return lines;

    // Only the new bytes can hold a newline: scan them, not the whole buffer again.
    qsizetype scanFrom = m_buffer.size();
    m_buffer.append(bytes);
    qsizetype lineStart = 0;
    for (qsizetype newline = m_buffer.indexOf('\n', scanFrom); newline >= 0;
         newline = m_buffer.indexOf('\n', lineStart)) {
        QByteArrayView line(m_buffer.constData() + lineStart, newline - lineStart);
        if (line.size() > m_maxLineBytes) {
            m_overflowed = true;
            m_buffer.clear();
            return lines;
        }
        if (line.endsWith('\r'))
            line.chop(1);
        if (!line.trimmed().isEmpty())
            lines.append(line.toByteArray());
        lineStart = newline + 1;
    }
    // Between messages nothing is kept: the buffer of a large reply is released, not reused.
    if (lineStart == m_buffer.size())
        m_buffer.clear();
    else
        m_buffer.remove(0, lineStart);
    if (m_buffer.size() > m_maxLineBytes) {
        m_overflowed = true;
        m_buffer.clear();
    }
    return lines;
}

} // namespace Tether
