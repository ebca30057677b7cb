#pragma once

#include "supervisor/serverstate.h"

#include <QList>
#include <QStringList>
#include <QSystemTrayIcon>
#include <QTimer>

#include <chrono>

namespace Tether {

class MainWindow;
class ServerSource;
struct ServerStatus;

// The state that stands for all servers in the tray: the worst one a person should look at.
ServerState aggregateState(const QList<ServerStatus> &statuses);

// A desktop notification.
struct TrayNotice
{
    QString title;
    QString message;

    bool operator==(const TrayNotice &) const = default;
};

// One notification for the servers that failed close together: one server with its reason,
// several by name ("3 servers failed: a, b, c"), so that a config gone wrong is not a flood.
TrayNotice failureNotice(const QList<ServerStatus> &failed);
// The same for the servers that came to wait for a sign-in, saying how to give it.
TrayNotice signInNotice(const QList<ServerStatus> &waiting);

// Tray icon with the aggregate health, a menu (show the window, retry failed, quit), and a
// desktop notification when servers reach Failed or Sign-in needed, grouped over
// FailureGroupingWindow. Closing
// the window hides it to the tray, which says so the first time (remembered in the window's
// settings).
class TrayIcon final : public QSystemTrayIcon
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TrayIcon)

public:
    static constexpr std::chrono::milliseconds FailureGroupingWindow{2000};

    TrayIcon(ServerSource &manager, MainWindow *window, QObject *parent = nullptr);

signals:
    void quitRequested();
    // A notification was shown (and logged).
    void noticeShown(const TrayNotice &notice);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void refresh();
    void notify(const TrayNotice &notice, MessageIcon icon);
    void notifyGrouped();

    ServerSource &m_manager;
    QList<ServerStatus> m_failed;           // since the last notice
    QList<ServerStatus> m_waitingForSignIn; // since the last notice
    QTimer m_failureTimer;
};

} // namespace Tether
