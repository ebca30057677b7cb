#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QObject>
#include <QTimer>

#include <memory>

class QSocketNotifier;

namespace Tether {

// Writes a stream of messages to one descriptor (a pipe, a socket, a file) without blocking the
// event loop. What is written during one turn of the event loop leaves in one system call at its
// end: the answers to a batch of requests read at once wake their reader once. A pipe or socket
// that takes no more is waited for; the descriptor must then be non-blocking, which the owner
// arranges. The descriptor stays the owner's to close.
class DescriptorWriter final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DescriptorWriter)

public:
    // While one exists, what is written leaves at its end, before the end of the turn, which then
    // costs the event loop no extra pass: a reader holds one while it hands on what it read.
    class Batch final
    {
        Q_DISABLE_COPY_MOVE(Batch)

    public:
        Batch();
        ~Batch();
    };

    // `canWait`: the descriptor is non-blocking and can be waited on (a pipe, a socket).
    DescriptorWriter(int fd, bool canWait, QObject *parent = nullptr);
    ~DescriptorWriter() override;

    // Queues `bytes`; they are written at the end of this turn of the event loop.
    void write(QByteArrayView bytes);
    // Writes what is queued, as far as the descriptor takes it now.
    void flush();
    // Bytes queued that the descriptor has not taken yet.
    qsizetype pendingBytes() const { return m_queue.size() - m_written; }
    // Whether a write failed: nothing more is written.
    bool hasFailed() const { return m_failed; }

signals:
    // Everything queued so far is written.
    void drained();
    // A write failed with `error` (errno), such as EPIPE once the reader is gone; what was queued
    // is dropped. Emitted once.
    void failed(int error);

private:
    void setDue(bool due);

    int m_fd;
    bool m_isSocket = false;
    bool m_failed = false;
    bool m_due = false; // waits for the end of a batch
    QByteArray m_queue;
    qsizetype m_written = 0; // how much of m_queue the descriptor has taken
    // A zero-interval timer ends the turn: unlike a posted event, starting it costs no system call.
    QTimer m_endOfTurn;
    std::unique_ptr<QSocketNotifier> m_writable;
};

} // namespace Tether
