#pragma once

#include "config/stdiocommand.h"

#include <QObject>
#include <QTimer>

#include <array>
#include <chrono>
#include <memory>
#include <optional>
#include <vector>

class QProcess;

namespace Tether {

// A tether-launcher whose server has ended and everything it started is killed, waiting on its
// report socket to run the same server again (tether-launcher --rerun).
struct IdleLauncher
{
    std::unique_ptr<QProcess> process;
    int socket = -1;
};

// Asks an idle launcher to run its server again on `fds`: the server's stdin, stdout and stderr,
// the reading end of its stdout to watch, and the folder to run it in ("run" with the five passed
// as SCM_RIGHTS). False when the launcher is gone.
bool askToRunAgain(int socket, const std::array<int, 5> &fds);

// Keeps the launcher of a stdio server that ended on its own for a moment, for the restart that
// usually follows a crash: run in it, the next server skips the start of a launcher (about as long
// as the rest of the way to the server's exec). One not taken within KeepTime is let go: its socket
// is closed, it exits and is reaped. It holds no server, nor anything a server started.
class LauncherPark final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LauncherPark)

public:
    // Past the first retry of the default reconnect policy (0.5 s, jitter 20 %).
    static constexpr std::chrono::milliseconds KeepTime{2000};

    static LauncherPark &instance();
    ~LauncherPark() override;

    void park(const StdioServerCommand &command, IdleLauncher launcher);
    // A launcher kept for exactly this command (program, arguments, environment and folder).
    std::optional<IdleLauncher> take(const StdioServerCommand &command);
    // Closes its socket, so that it exits, and reaps it when it has.
    static void letGo(IdleLauncher launcher);
    int size() const { return int(m_kept.size()); }

private:
    LauncherPark();
    void letGoExpired();

    struct Kept
    {
        StdioServerCommand command;
        IdleLauncher launcher;
        std::chrono::steady_clock::time_point until;
    };
    std::vector<Kept> m_kept; // oldest first
    QTimer m_expiry;
};

} // namespace Tether
