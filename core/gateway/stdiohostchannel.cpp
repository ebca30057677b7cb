#include "stdiohostchannel.h"

#include "common/logging.h"
#include "transport/lineframer.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// Bytes read per wakeup before the event loop gets a turn.
constexpr qsizetype ReadBudget = 1024 * 1024;

// Pipes and sockets can be switched to non-blocking use; a file or a terminal is left as it is.
int makeNonBlocking(int fd)
{
    struct stat info{};
    if (::fstat(fd, &info) != 0 || !(S_ISFIFO(info.st_mode) || S_ISSOCK(info.st_mode)))
        return -1;
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0)
        return -1;
    return flags;
}

QString systemError(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

} // namespace

StdioDescriptors StdioHostChannel::socket(int fd, const QString &transport)
{
    return {fd, fd, true, transport, u"the socket"_s, u"the socket"_s};
}

StdioHostChannel::StdioHostChannel(StdioDescriptors descriptors, QObject *parent)
    : QObject(parent)
    , m_descriptors(std::move(descriptors))
    , m_framer(std::make_unique<LineFramer>(MaxLineBytes))
{
    struct stat output{};
    m_outputIsSocket = ::fstat(m_descriptors.output, &output) == 0 && S_ISSOCK(output.st_mode);
    m_inputFlags = makeNonBlocking(m_descriptors.input);
    m_outputFlags = makeNonBlocking(m_descriptors.output);
    if (m_outputFlags >= 0) {
        m_writer = std::make_unique<QSocketNotifier>(m_descriptors.output, QSocketNotifier::Write);
        m_writer->setEnabled(false);
        connect(m_writer.get(), &QSocketNotifier::activated, this, &StdioHostChannel::flush);
    }
}

StdioHostChannel::~StdioHostChannel()
{
    if (!m_finished)
        flush(); // what is still queued, as far as the output takes it now
    m_reader.reset(); // notifiers go before their descriptor
    m_writer.reset();
    if (m_descriptors.owned) {
        ::close(m_descriptors.input);
        if (m_descriptors.output != m_descriptors.input)
            ::close(m_descriptors.output);
        return;
    }
    // A terminal or pipe shared with others is handed back as it was found.
    if (m_inputFlags >= 0)
        ::fcntl(m_descriptors.input, F_SETFL, m_inputFlags);
    if (m_outputFlags >= 0)
        ::fcntl(m_descriptors.output, F_SETFL, m_outputFlags);
}

void StdioHostChannel::start()
{
    m_reader = std::make_unique<QSocketNotifier>(m_descriptors.input, QSocketNotifier::Read);
    connect(m_reader.get(), &QSocketNotifier::activated, this, &StdioHostChannel::onReadable);
}

QString StdioHostChannel::transportName() const
{
    return m_descriptors.transport;
}

void StdioHostChannel::onReadable()
{
    char buffer[64 * 1024];
    for (qsizetype budget = ReadBudget; budget > 0 && !m_finished;) {
        const ssize_t count = ::read(m_descriptors.input, buffer, sizeof buffer);
        if (count < 0 && errno == EINTR)
            continue;
        if (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (count < 0) {
            finish(u"%1 cannot be read: %2"_s.arg(m_descriptors.inputName, systemError(errno)));
            return;
        }
        // A last line without its line end still counts.
        const QList<QByteArray> lines = m_framer->push(count == 0 ? QByteArrayView("\n") : QByteArrayView(buffer, count));
        for (const QByteArray &line : lines) {
            if (m_finished)
                return;
            emit messageReceived(line);
        }
        if (m_framer->overflowed()) {
            finish(u"the host sent a line longer than %1 MiB; the session ends"_s.arg(MaxLineBytes / (1024 * 1024)));
            return;
        }
        if (count == 0) {
            finish(u"the host closed %1"_s.arg(m_descriptors.inputName));
            return;
        }
        budget -= count;
        // A blocking input, or one read to its end for now: read again when the event loop says
        // there is more (rather than ask once more only to hear there is nothing).
        if (m_inputFlags < 0 || count < qsizetype(sizeof buffer))
            return;
    }
}

void StdioHostChannel::send(const QByteArray &message, Role, const QJsonValue &)
{
    if (m_queue.size() - m_queueOffset + message.size() + 1 > MaxQueuedBytes) {
        finish(u"the host stopped reading %1 (%2 MiB waiting)"_s.arg(m_descriptors.outputName).arg(MaxQueuedBytes / (1024 * 1024)));
        return;
    }
    m_queue += message;
    m_queue += '\n';
    // What is sent during one turn of the event loop (the answers to a batch of calls read at
    // once) leaves in one write at its end: fewer system calls, and a host that wakes once.
    if (!m_flushPosted) {
        m_flushPosted = true;
        QMetaObject::invokeMethod(this, &StdioHostChannel::flushPosted, Qt::QueuedConnection);
    }
}

void StdioHostChannel::flushPosted()
{
    m_flushPosted = false;
    flush();
}

void StdioHostChannel::endWithoutResponse(const QJsonValue &)
{
    // A stdio host expects nothing for a request it cancelled.
}

void StdioHostChannel::flush()
{
    while (m_queueOffset < m_queue.size()) {
        const char *data = m_queue.constData() + m_queueOffset;
        const size_t size = size_t(m_queue.size() - m_queueOffset);
        // A socket whose peer has gone fails the write rather than raise SIGPIPE in a window that
        // does not ignore it.
        const ssize_t written = m_outputIsSocket ? ::send(m_descriptors.output, data, size, MSG_NOSIGNAL)
                                                 : ::write(m_descriptors.output, data, size);
        if (written < 0 && errno == EINTR)
            continue;
        if (written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && m_writer) {
            m_writer->setEnabled(true);
            return;
        }
        if (written < 0) {
            m_queue.clear();
            m_queueOffset = 0;
            finish(u"%1 cannot be written: %2"_s.arg(m_descriptors.outputName, systemError(errno)));
            return;
        }
        m_queueOffset += qsizetype(written);
    }
    m_queue.clear();
    m_queueOffset = 0;
    if (m_writer)
        m_writer->setEnabled(false);
}

void StdioHostChannel::finish(const QString &reason)
{
    if (m_finished)
        return;
    m_finished = true;
    if (m_reader)
        m_reader->setEnabled(false);
    emit finished(reason);
}

} // namespace Tether
