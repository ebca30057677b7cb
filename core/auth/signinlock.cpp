#include "signinlock.h"

#include "common/privatefile.h"
#include "config/configlocation.h"

#include <QFileInfo>

#include <utility>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// How often a waiting process looks again; the lock is held for one token request.
constexpr std::chrono::milliseconds RetryInterval{25};
// A holder that is alive but still holds the lock after this long is taken for hung. A dead
// holder's lock is taken over at once (QLockFile checks its process).
constexpr std::chrono::minutes StaleAfter{5};

} // namespace

SignInLock::SignInLock(const QString &path, QObject *parent)
    : QObject(parent)
    , m_file(path)
{
    m_file.setStaleLockTime(StaleAfter);
    m_retry.setInterval(RetryInterval);
    connect(&m_retry, &QTimer::timeout, this, &SignInLock::grantNext);
}

SignInLock::~SignInLock() = default;

QString SignInLock::defaultPath()
{
    return tetherStateFolder() + u"/auth.lock"_s;
}

void SignInLock::acquire(Granted granted, std::chrono::milliseconds patience)
{
    m_waiting.push_back({std::move(granted), QDeadlineTimer(patience)});
    grantNext();
}

void SignInLock::release()
{
    if (!m_held)
        return;
    m_held = false;
    m_file.unlock();
    grantNext();
}

void SignInLock::grantNext()
{
    if (m_held || m_waiting.empty()) {
        m_retry.stop();
        return;
    }
    QString folderError; // tryLock then fails, and says so
    makePrivateFolder(QFileInfo(m_file.fileName()).absolutePath(), &folderError);
    if (m_file.tryLock(0)) {
        m_held = true;
        m_retry.stop();
        const Granted granted = std::move(m_waiting.front().granted);
        m_waiting.pop_front();
        granted(true, {});
        return;
    }
    if (m_file.error() == QLockFile::PermissionError || m_file.error() == QLockFile::UnknownError) {
        // Not held by anyone: it cannot be made at all, and waiting would not change that.
        const std::deque<Waiter> failed = std::exchange(m_waiting, {});
        m_retry.stop();
        for (const Waiter &waiter : failed)
            waiter.granted(false, u"Cannot make the lock file %1: check that its folder is yours and writable"_s.arg(
                                      m_file.fileName()));
        return;
    }
    while (!m_waiting.empty() && m_waiting.front().deadline.hasExpired()) {
        qint64 pid = 0;
        QString host;
        QString application;
        const QString holder = m_file.getLockInfo(&pid, &host, &application)
                                   ? u"%1 (process %2)"_s.arg(application).arg(pid)
                                   : u"another process"_s;
        const Granted granted = std::move(m_waiting.front().granted);
        m_waiting.pop_front();
        granted(false, u"%1 still holds %2; try again once it is done, or end it"_s.arg(holder, m_file.fileName()));
    }
    if (m_waiting.empty())
        m_retry.stop();
    else if (!m_retry.isActive())
        m_retry.start();
}

} // namespace Tether
