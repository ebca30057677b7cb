#include "launcherpark.h"

#include "spawnqueue.h"

#include <QProcess>

#include <cerrno>
#include <cstring>
#include <sys/socket.h>
#include <unistd.h>

namespace Tether {

bool askToRunAgain(int socket, const std::array<int, 5> &fds)
{
    char word[] = "run\n";
    iovec data{word, 4};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof fds)] = {};
    msghdr message{};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof fds);
    std::memcpy(CMSG_DATA(header), fds.data(), sizeof fds);
    ssize_t sent = 0;
    do {
        sent = ::sendmsg(socket, &message, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    return sent == 4;
}

LauncherPark &LauncherPark::instance()
{
    // On the thread that starts the servers, as the spawn queue is.
    static thread_local LauncherPark park;
    return park;
}

LauncherPark::LauncherPark()
{
    // The queue is made first, so that it outlives the park: what is let go at the end is reaped by it.
    SpawnQueue::instance();
    m_expiry.setSingleShot(true);
    connect(&m_expiry, &QTimer::timeout, this, &LauncherPark::letGoExpired);
}

LauncherPark::~LauncherPark()
{
    for (Kept &kept : m_kept) {
        kept.launcher.process->disconnect(this);
        letGo(std::move(kept.launcher));
    }
}

void LauncherPark::park(const StdioServerCommand &command, IdleLauncher launcher)
{
    QProcess *process = launcher.process.get();
    // One that exits meanwhile (someone killed it) is no longer kept.
    connect(process, &QProcess::finished, this, [this, process] {
        const auto gone = std::find_if(m_kept.begin(), m_kept.end(),
                                       [process](const Kept &kept) { return kept.launcher.process.get() == process; });
        if (gone == m_kept.end())
            return;
        IdleLauncher exited = std::move(gone->launcher);
        m_kept.erase(gone);
        ::close(exited.socket);
        exited.process.release()->deleteLater(); // it is emitting this signal
    });
    m_kept.push_back({command, std::move(launcher), std::chrono::steady_clock::now() + KeepTime});
    if (!m_expiry.isActive())
        m_expiry.start(KeepTime);
}

std::optional<IdleLauncher> LauncherPark::take(const StdioServerCommand &command)
{
    const auto kept = std::find_if(m_kept.begin(), m_kept.end(), [&](const Kept &each) { return each.command == command; });
    if (kept == m_kept.end())
        return std::nullopt;
    IdleLauncher launcher = std::move(kept->launcher);
    m_kept.erase(kept);
    launcher.process->disconnect(this);
    return launcher;
}

void LauncherPark::letGo(IdleLauncher launcher)
{
    ::close(launcher.socket);
    SpawnQueue::instance().keepUntilFinished(std::move(launcher.process));
}

void LauncherPark::letGoExpired()
{
    const auto now = std::chrono::steady_clock::now();
    while (!m_kept.empty() && m_kept.front().until <= now) {
        IdleLauncher launcher = std::move(m_kept.front().launcher);
        m_kept.erase(m_kept.begin());
        launcher.process->disconnect(this);
        letGo(std::move(launcher));
    }
    if (!m_kept.empty())
        m_expiry.start(std::chrono::ceil<std::chrono::milliseconds>(m_kept.front().until - now));
}

} // namespace Tether
