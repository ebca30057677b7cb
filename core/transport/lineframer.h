#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>

namespace Tether {

// Splits a byte stream into lines: '\n' ends a line, a trailing '\r' is dropped, blank and
// whitespace-only lines are skipped. A line longer than the limit is a protocol error: the
// framer then stops and reports overflowed().
class LineFramer final
{
public:
    static constexpr qsizetype DefaultMaxLineBytes = 16 * 1024 * 1024;

    explicit LineFramer(qsizetype maxLineBytes = DefaultMaxLineBytes);

    QList<QByteArray> push(QByteArrayView bytes);

    bool overflowed() const { return m_overflowed; }
    qsizetype maxLineBytes() const { return m_maxLineBytes; }
    qsizetype bufferedBytes() const { return m_buffer.size(); }

private:
    // Adds one line (without its '\n') to `lines`, unless blank; false when it is too long.
    bool take(QByteArrayView line, QList<QByteArray> *lines);

    QByteArray m_buffer; // the start of a line whose end has not come yet
    qsizetype m_maxLineBytes;
    bool m_overflowed = false;
};

} // namespace Tether
