#pragma once

#include "hostchannel.h"

#include <QByteArray>
#include <QObject>
#include <QString>

#include <memory>

namespace Tether {

class DescriptorWriter;
class LineReader;

// What a StdioHostChannel reads and writes.
struct StdioDescriptors
{
    int input = 0;
    int output = 1;
    // Closed with the channel (a socket of its own); stdin and stdout are handed back as found.
    bool owned = false;
    QString transport = QStringLiteral("stdio"); // as the window names the host's connection
    QString inputName = QStringLiteral("stdin");  // for the reasons finished() gives
    QString outputName = QStringLiteral("stdout");
};

// One JSON-RPC message per line each way, as MCP's stdio transport frames them, on a pair of
// descriptors: stdin and stdout of a host that started Tether as its MCP server, or one connected
// local socket (a relayed host, or the relay's side of it). Reading never blocks the event loop;
// a line longer than the bound, a peer that stops reading (more than MaxQueuedBytes waiting), or
// the end of the input ends the channel.
class StdioHostChannel final : public QObject, public HostChannel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(StdioHostChannel)

public:
    static constexpr qsizetype MaxLineBytes = 16 * 1024 * 1024;
    static constexpr qsizetype MaxQueuedBytes = 64 * 1024 * 1024;

    // Why the channel ended.
    enum class Ending {
        Running,             // it has not
        InputClosed,         // the peer closed its end: the usual way
        InputFailed,         // the input could not be read
        LineTooLong,         // the peer sent a line of more than MaxLineBytes
        OutputFailed,        // the output could not be written
        PeerStoppedReading,  // more than MaxQueuedBytes waited to be written
    };

    // One connected socket, both ways, closed with the channel.
    static StdioDescriptors socket(int fd, const QString &transport);

    explicit StdioHostChannel(StdioDescriptors descriptors = {}, QObject *parent = nullptr);
    ~StdioHostChannel() override;

    // Starts reading; messageReceived() follows for each line.
    void start();

    QString transportName() const override;
    void send(const QByteArray &message, Role role, const QJsonValue &request) override;
    void endWithoutResponse(const QJsonValue &request) override;

    // Whether what is sent can still be written: the output has not failed and the peer reads it.
    // A channel whose input ended still writes.
    bool canWrite() const;
    // Whether everything sent so far is written, or never will be (!canWrite()).
    bool isOutputWritten() const;
    Ending ending() const { return m_ending; }

signals:
    void messageReceived(const QByteArray &line);
    // Emitted once: the peer closed the input, or the channel cannot go on (`reason` says why).
    void finished(const QString &reason);
    // Everything sent so far is written, or the output failed.
    void outputWritten();

private:
    void finish(Ending ending, const QString &reason);

    StdioDescriptors m_descriptors;
    int m_inputFlags = -1;  // as found, restored at the end; -1: left alone
    int m_outputFlags = -1;
    std::unique_ptr<LineReader> m_reader;
    std::unique_ptr<DescriptorWriter> m_writer;
    Ending m_ending = Ending::Running;
    bool m_peerStoppedReading = false;
};

} // namespace Tether
