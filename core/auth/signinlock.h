#pragma once

#include <QDeadlineTimer>
#include <QLockFile>
#include <QObject>
#include <QString>
#include <QTimer>

#include <chrono>
#include <deque>
#include <functional>

namespace Tether {

// $XDG_STATE_HOME/tether/auth.lock, held while a sign-in's tokens are refreshed and stored. A
// rotated refresh token works once: two processes refreshing with the same one would lose the
// whole grant, so the second waits, then reads what the first stored.
class SignInLock final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SignInLock)

public:
    using Granted = std::function<void(bool held, const QString &error)>;

    explicit SignInLock(const QString &path, QObject *parent = nullptr);
    ~SignInLock() override;

    static QString defaultPath();

    // Calls `granted(true, {})` once this object holds the lock, or `granted(false, why)` when
    // another process still holds it after `patience`. Callers of one object are served in turn;
    // each one that was granted the lock calls release().
    void acquire(Granted granted, std::chrono::milliseconds patience = std::chrono::seconds(90));
    void release();
    bool isHeld() const { return m_held; }

private:
    void grantNext();

    struct Waiter
    {
        Granted granted;
        QDeadlineTimer deadline;
    };

    QLockFile m_file;
    QTimer m_retry;
    std::deque<Waiter> m_waiting;
    bool m_held = false;
};

} // namespace Tether
