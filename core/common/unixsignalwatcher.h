#pragma once

#include <QObject>

#include <initializer_list>

namespace Tether {

// Turns Unix signals (SIGINT, SIGTERM, …) into a Qt signal on the event loop, through a
// self-pipe: the handler itself only writes one byte, which is all it may safely do. Several
// watchers may live at once; every watcher of a signal hears it.
class UnixSignalWatcher final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(UnixSignalWatcher)

public:
    explicit UnixSignalWatcher(std::initializer_list<int> signalNumbers, QObject *parent = nullptr);
    ~UnixSignalWatcher() override;

    bool watches(int signalNumber) const { return m_signals.contains(signalNumber); }

signals:
    void received(int signalNumber);

private:
    QList<int> m_signals;
};

} // namespace Tether
