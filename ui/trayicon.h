#pragma once

#include "supervisor/serverstate.h"

#include <QList>
#include <QSystemTrayIcon>

namespace Tether {

class ServerManager;
struct ServerStatus;

// The state that stands for all servers in the tray: the worst one a person should look at.
ServerState aggregateState(const QList<ServerStatus> &statuses);

// Tray icon with the aggregate health, a menu (show the window, reconnect all, quit), and a
// desktop notification when a server reaches Failed.
class TrayIcon final : public QSystemTrayIcon
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TrayIcon)

public:
    TrayIcon(ServerManager &manager, QWidget *window, QObject *parent = nullptr);

signals:
    void quitRequested();

private:
    void refresh();

    ServerManager &m_manager;
};

} // namespace Tether
