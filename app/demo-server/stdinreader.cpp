#include "stdinreader.h"

#include <QPointer>

#include <cerrno>
#include <utility>
#include <unistd.h>

namespace Demo {

StdinReader::StdinReader(QObject *parent)
    : QObject(parent)
    , m_notifier(STDIN_FILENO, QSocketNotifier::Read)
{
    connect(&m_notifier, &QSocketNotifier::activated, this, &StdinReader::readAvailable);
}

void StdinReader::readAvailable()
{
    // One read() per notification: the fd stays blocking (it may be shared with other
    // processes), and the notifier only fires when read() will not block.
    char chunk[64 * 1024];
    const ssize_t count = ::read(STDIN_FILENO, chunk, sizeof chunk);
    if (count < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (count <= 0) {
        // EOF (or an unreadable stdin, which we treat the same): stop watching, or an fd at
        // EOF would wake us up forever.
        m_notifier.setEnabled(false);
        if (!m_buffer.isEmpty()) {
            QByteArray last = std::exchange(m_buffer, {});
            if (last.endsWith('\r'))
                last.chop(1);
            emit lineReceived(last);
        }
        emit endOfInput();
        return;
    }

    const qsizetype scanFrom = m_buffer.size();
    m_buffer.append(chunk, count);
    qsizetype lineStart = 0;
    for (qsizetype newline = m_buffer.indexOf('\n', scanFrom); newline >= 0;
         newline = m_buffer.indexOf('\n', lineStart)) {
        qsizetype lineEnd = newline;
        if (lineEnd > lineStart && m_buffer.at(lineEnd - 1) == '\r')
            --lineEnd;
        const QByteArray line = m_buffer.mid(lineStart, lineEnd - lineStart);
        lineStart = newline + 1;
        // A line may make the server stop reading (--ping-flood deletes this reader).
        const QPointer<StdinReader> guard(this);
        emit lineReceived(line);
        if (!guard)
            return;
    }
    m_buffer.remove(0, lineStart);
}

} // namespace Demo
