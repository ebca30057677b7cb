#pragma once

#include "common/unixsignalwatcher.h"

#include <QObject>
#include <QString>

#include <optional>

namespace Tether::Ctl {

// SIGINT, SIGTERM and SIGHUP end a one-shot command early: what is in flight is cancelled at the
// server, the servers are closed by their usual sequence and waited for, and tetherctl exits with
// 128 + the signal's number, as a shell reports a command that a signal ended. Held by the object
// that owns a command's servers, for as long as they may run.
class Interruption final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Interruption)

public:
    explicit Interruption(QObject *parent = nullptr);

    bool happened() const { return m_signalNumber != 0; }
    // "interrupted by SIGINT": the reason given to the server with notifications/cancelled.
    QString reason() const;
    // 128 + the signal's number, once one came.
    std::optional<int> exitStatus() const;

signals:
    // The first signal only: closing is bounded already, a second one changes nothing.
    void interrupted();

private:
    void onSignal(int signalNumber);

    UnixSignalWatcher m_watcher;
    int m_signalNumber = 0;
};

} // namespace Tether::Ctl
