#include "descriptorwriter.h"

#include <QSocketNotifier>

#include <cerrno>
#include <csignal>
#include <mutex>
#include <vector>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Tether {

namespace {

constexpr qsizetype KeptCapacity = 64 * 1024;

// The batches open on this thread, and the writers waiting for their end.
thread_local int openBatches = 0;
thread_local std::vector<DescriptorWriter *> writersDue;

// A pipe whose reader has gone raises SIGPIPE at the writer, which would end Tether. It is ignored
// once for the whole process, as Qt does before it writes to a pipe or socket of its own.
void ignoreBrokenPipeSignal()
{
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction ignore{};
        ignore.sa_handler = SIG_IGN;
        ::sigaction(SIGPIPE, &ignore, nullptr);
    });
}

} // namespace

DescriptorWriter::DescriptorWriter(int fd, bool canWait, QObject *parent)
    : QObject(parent)
    , m_fd(fd)
{
    struct stat info{};
    m_isSocket = ::fstat(fd, &info) == 0 && S_ISSOCK(info.st_mode);
    if (!m_isSocket)
        ignoreBrokenPipeSignal();
    m_endOfTurn.setSingleShot(true);
    m_endOfTurn.setInterval(0);
    connect(&m_endOfTurn, &QTimer::timeout, this, &DescriptorWriter::flush);
    if (canWait) {
        m_writable = std::make_unique<QSocketNotifier>(fd, QSocketNotifier::Write);
        m_writable->setEnabled(false);
        connect(m_writable.get(), &QSocketNotifier::activated, this, &DescriptorWriter::flush);
    }
}

DescriptorWriter::~DescriptorWriter()
{
    setDue(false);
}

DescriptorWriter::Batch::Batch()
{
    ++openBatches;
}

DescriptorWriter::Batch::~Batch()
{
    if (--openBatches > 0)
        return;
    // A flush may end a channel, and so delete other writers: each leaves the list as it goes.
    while (!writersDue.empty())
        writersDue.back()->flush();
}

void DescriptorWriter::setDue(bool due)
{
    if (due == m_due)
        return;
    m_due = due;
    if (due)
        writersDue.push_back(this);
    else
        std::erase(writersDue, this);
}

void DescriptorWriter::write(QByteArrayView bytes)
{
    if (m_failed || bytes.isEmpty())
        return;
    m_queue.append(bytes);
    // While the descriptor is full, its notifier says when to go on.
    if (m_writable && m_writable->isEnabled())
        return;
    if (openBatches > 0)
        setDue(true);
    // Also in a batch: should a handler run an event loop of its own, the bytes still go.
    if (!m_endOfTurn.isActive())
        m_endOfTurn.start();
}

void DescriptorWriter::flush()
{
    setDue(false);
    m_endOfTurn.stop();
    while (!m_failed && m_written < m_queue.size()) {
        const char *data = m_queue.constData() + m_written;
        const size_t size = size_t(m_queue.size() - m_written);
        // A socket whose peer has gone fails the write instead of raising SIGPIPE.
        const ssize_t count = m_isSocket ? ::send(m_fd, data, size, MSG_NOSIGNAL) : ::write(m_fd, data, size);
        if (count < 0 && errno == EINTR)
            continue;
        if (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && m_writable) {
            m_writable->setEnabled(true);
            return;
        }
        if (count < 0) {
            const int error = errno;
            m_failed = true;
            m_queue.clear();
            m_written = 0;
            if (m_writable)
                m_writable->setEnabled(false);
            emit failed(error);
            return;
        }
        m_written += qsizetype(count);
    }
    if (m_failed)
        return;
    // A small queue's memory is kept for the next turn rather than allocated again.
    if (m_queue.capacity() > KeptCapacity)
        m_queue.clear();
    else
        m_queue.resize(0);
    m_written = 0;
    if (m_writable && m_writable->isEnabled())
        m_writable->setEnabled(false);
    emit drained();
}

} // namespace Tether
