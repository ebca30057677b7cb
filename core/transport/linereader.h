#pragma once

#include "lineframer.h"

#include <QByteArray>
#include <QObject>

#include <memory>

class QSocketNotifier;

namespace Tether {

// Reads one JSON-RPC message per line from a descriptor (a child's stdout, a host's stdin, a
// socket) as the event loop says it is readable, without blocking it. A last line without its
// line end still counts. The descriptor stays the owner's to close.
class LineReader final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LineReader)

public:
    // `nonBlocking`: the descriptor is non-blocking, so it is read until it has nothing more;
    // a blocking one (a file, a terminal) is read once per wakeup.
    LineReader(int fd, qsizetype maxLineBytes, bool nonBlocking, QObject *parent = nullptr);
    ~LineReader() override;

    // Starts watching the descriptor; lineReceived() follows for each line.
    void start();
    // Nothing more is read or emitted, even from a read in progress.
    void stop();
    // Reads what the descriptor holds now, such as a process's last words at its exit.
    void readAvailable();

    qsizetype maxLineBytes() const { return m_framer.maxLineBytes(); }

signals:
    void lineReceived(const QByteArray &line);
    // The writer closed its end; emitted once, after the last line.
    void ended();
    // A read failed with `error` (errno); emitted once.
    void failed(int error);
    // A line was longer than maxLineBytes(); emitted once, and nothing more is read.
    void overflowed();

private:
    void push(QByteArrayView bytes);

    int m_fd;
    bool m_nonBlocking;
    bool m_stopped = false;
    LineFramer m_framer;
    std::unique_ptr<QSocketNotifier> m_notifier;
};

} // namespace Tether
