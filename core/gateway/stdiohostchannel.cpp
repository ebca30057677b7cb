#include "stdiohostchannel.h"

#include "transport/descriptorwriter.h"
#include "transport/linereader.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

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
{
    m_inputFlags = makeNonBlocking(m_descriptors.input);
    m_outputFlags = makeNonBlocking(m_descriptors.output);
    m_reader = std::make_unique<LineReader>(m_descriptors.input, MaxLineBytes, m_inputFlags >= 0);
    connect(m_reader.get(), &LineReader::lineReceived, this, &StdioHostChannel::messageReceived);
    connect(m_reader.get(), &LineReader::ended, this,
            [this] { finish(Ending::InputClosed, u"the host closed %1"_s.arg(m_descriptors.inputName)); });
    connect(m_reader.get(), &LineReader::failed, this, [this](int error) {
        finish(Ending::InputFailed, u"%1 cannot be read: %2"_s.arg(m_descriptors.inputName, systemError(error)));
    });
    connect(m_reader.get(), &LineReader::overflowed, this, [this] {
        finish(Ending::LineTooLong,
               u"the host sent a line longer than %1 MiB; the session ends"_s.arg(MaxLineBytes / (1024 * 1024)));
    });
    m_writer = std::make_unique<DescriptorWriter>(m_descriptors.output, m_outputFlags >= 0);
    connect(m_writer.get(), &DescriptorWriter::failed, this, [this](int error) {
        finish(Ending::OutputFailed, u"%1 cannot be written: %2"_s.arg(m_descriptors.outputName, systemError(error)));
        emit outputWritten(); // nothing more will be
    });
    connect(m_writer.get(), &DescriptorWriter::drained, this, &StdioHostChannel::outputWritten);
}

StdioHostChannel::~StdioHostChannel()
{
    // What is still queued, as far as the output takes it now: also once the input ended, the
    // answers to what it read go.
    if (!m_writer->hasFailed())
        m_writer->flush();
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
    m_reader->start();
}

QString StdioHostChannel::transportName() const
{
    return m_descriptors.transport;
}

void StdioHostChannel::send(const QByteArray &message, Role, const QJsonValue &)
{
    if (m_writer->pendingBytes() + message.size() + 1 > MaxQueuedBytes) {
        m_peerStoppedReading = true;
        finish(Ending::PeerStoppedReading, u"the host stopped reading %1 (%2 MiB waiting)"_s.arg(m_descriptors.outputName)
                                               .arg(MaxQueuedBytes / (1024 * 1024)));
        return;
    }
    m_writer->write(message);
    m_writer->write("\n");
}

bool StdioHostChannel::canWrite() const
{
    return !m_writer->hasFailed() && !m_peerStoppedReading;
}

bool StdioHostChannel::isOutputWritten() const
{
    return !canWrite() || m_writer->pendingBytes() == 0;
}

void StdioHostChannel::endWithoutResponse(const QJsonValue &)
{
    // A stdio host expects nothing for a request it cancelled.
}

void StdioHostChannel::finish(Ending ending, const QString &reason)
{
    if (m_ending != Ending::Running)
        return;
    m_ending = ending;
    m_reader->stop();
    emit finished(reason);
}

} // namespace Tether
