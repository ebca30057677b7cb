#pragma once

#include <QByteArray>
#include <QObject>
#include <QSocketNotifier>

namespace Demo {

// Reads stdin without blocking the event loop: a notifier on fd 0 triggers one read() per
// wake-up, and complete lines are handed out one by one. '\r' before '\n' is dropped; blank
// lines are passed on (the server skips them).
class StdinReader final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(StdinReader)

public:
    explicit StdinReader(QObject *parent = nullptr);

signals:
    void lineReceived(const QByteArray &line);
    void endOfInput();

private:
    void readAvailable();

    QSocketNotifier m_notifier;
    QByteArray m_buffer;
};

} // namespace Demo
