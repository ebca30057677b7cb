#pragma once

#include "hostchannel.h"

#include <QByteArray>
#include <QObject>
#include <QSocketNotifier>

#include <memory>

namespace Tether {

class LineFramer;

// A host that started Tether as its MCP server: one JSON-RPC message per line on stdin and on
// stdout (and nothing else on stdout). Reading never blocks the event loop; a line longer than the
// bound, a host that stops reading (more than MaxQueuedBytes waiting), or the end of stdin ends
// the channel.
class StdioHostChannel final : public QObject, public HostChannel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(StdioHostChannel)

public:
    static constexpr qsizetype MaxLineBytes = 16 * 1024 * 1024;
    static constexpr qsizetype MaxQueuedBytes = 64 * 1024 * 1024;

    explicit StdioHostChannel(int inputFd = 0, int outputFd = 1, QObject *parent = nullptr);
    ~StdioHostChannel() override;

    // Starts reading; messageReceived() follows for each line.
    void start();

    QString transportName() const override;
    void send(const QByteArray &message, Role role, const QJsonValue &request) override;
    void endWithoutResponse(const QJsonValue &request) override;

signals:
    void messageReceived(const QByteArray &line);
    // Emitted once: the host closed stdin, or the channel cannot go on (`reason` says why).
    void finished(const QString &reason);

private:
    void onReadable();
    void flush();
    void finish(const QString &reason);

    int m_input;
    int m_output;
    int m_inputFlags = -1;  // as found, restored at the end; -1: left alone
    int m_outputFlags = -1;
    std::unique_ptr<LineFramer> m_framer;
    std::unique_ptr<QSocketNotifier> m_reader;
    std::unique_ptr<QSocketNotifier> m_writer; // only for a pipe or socket, whose writes may wait
    QByteArray m_queue;                        // written to stdout as it takes it
    qsizetype m_queueOffset = 0;               // how much of m_queue is written
    bool m_finished = false;
};

} // namespace Tether
