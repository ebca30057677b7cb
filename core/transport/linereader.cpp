#include "linereader.h"

#include "descriptorwriter.h"

#include <QSocketNotifier>

#include <cerrno>
#include <unistd.h>

namespace Tether {

namespace {

// Bytes read per wakeup before the event loop gets a turn.
constexpr qsizetype ReadBudget = 1024 * 1024;
constexpr size_t ChunkBytes = 64 * 1024;

} // namespace

LineReader::LineReader(int fd, qsizetype maxLineBytes, bool nonBlocking, QObject *parent)
    : QObject(parent)
    , m_fd(fd)
    , m_nonBlocking(nonBlocking)
    , m_framer(maxLineBytes)
{
}

LineReader::~LineReader() = default;

void LineReader::start()
{
    m_notifier = std::make_unique<QSocketNotifier>(m_fd, QSocketNotifier::Read);
    connect(m_notifier.get(), &QSocketNotifier::activated, this, &LineReader::readAvailable);
}

void LineReader::stop()
{
    m_stopped = true;
    if (m_notifier)
        m_notifier->setEnabled(false);
}

void LineReader::readAvailable()
{
    // What the lines cause to be written leaves together once they are handled.
    const DescriptorWriter::Batch batch;
    char buffer[ChunkBytes];
    for (qsizetype budget = ReadBudget; budget > 0 && !m_stopped;) {
        const ssize_t count = ::read(m_fd, buffer, sizeof buffer);
        if (count < 0 && errno == EINTR)
            continue;
        if (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (count < 0) {
            const int error = errno;
            stop();
            emit failed(error);
            return;
        }
        if (count == 0) {
            push("\n"); // the last line, should it lack its line end
            if (!m_stopped) {
                stop();
                emit ended();
            }
            return;
        }
        push(QByteArrayView(buffer, count));
        budget -= count;
        // Read to its end for now: read again when the event loop says there is more, rather
        // than ask once more only to hear there is nothing.
        if (!m_nonBlocking || size_t(count) < sizeof buffer)
            return;
    }
}

void LineReader::push(QByteArrayView bytes)
{
    const QList<QByteArray> lines = m_framer.push(bytes);
    for (const QByteArray &line : lines) {
        if (m_stopped)
            return;
        emit lineReceived(line);
    }
    if (m_framer.overflowed() && !m_stopped) {
        stop();
        emit overflowed();
    }
}

} // namespace Tether
