#include "trayicon.h"

#include "serveractions.h"
#include "stateicons.h"

#include "manager/servermanager.h"

#include <QMenu>
#include <QWidget>

namespace Tether {

ServerState aggregateState(const QList<ServerStatus> &statuses)
{
    // Worst first: what needs a hand, then what is recovering, then what works.
    static const QList<ServerState> severity{ServerState::Failed,   ServerState::Disconnected, ServerState::Reconnecting,
                                             ServerState::Retrying, ServerState::Starting,     ServerState::Stopping,
                                             ServerState::Connected};
    for (ServerState state : severity) {
        const bool present = std::any_of(statuses.cbegin(), statuses.cend(), [state](const ServerStatus &status) {
            return status.configErrors.isEmpty() && status.state == state;
        });
        if (present)
            return state;
    }
    return ServerState::Stopped;
}

TrayIcon::TrayIcon(ServerManager &manager, QWidget *window, QObject *parent)
    : QSystemTrayIcon(parent)
    , m_manager(manager)
{
    auto *menu = new QMenu(window);
    menu->addAction(tr("Show Tether"), window, [window] {
        window->show();
        window->raise();
        window->activateWindow();
    });
    menu->addAction(tr("Reconnect all"), &m_manager, &ServerManager::reconnectAll);
    menu->addSeparator();
    menu->addAction(tr("Quit"), this, &TrayIcon::quitRequested);
    setContextMenu(menu);
    connect(this, &QSystemTrayIcon::activated, window, [window](ActivationReason reason) {
        if (reason == Trigger)
            window->setVisible(!window->isVisible());
    });
    connect(&m_manager, &ServerManager::stateChanged, this, [this](const ServerStatus &status) {
        refresh();
        if (status.state == ServerState::Failed)
            showMessage(tr("%1 failed").arg(status.name), status.reason, QSystemTrayIcon::Warning);
    });
    connect(&m_manager, &ServerManager::serverRemoved, this, &TrayIcon::refresh);
    refresh();
}

void TrayIcon::refresh()
{
    const QList<ServerStatus> statuses = m_manager.statuses();
    setIcon(stateIcon(aggregateState(statuses)));
    setToolTip(tr("Tether — %1").arg(summaryText(statuses)));
}

} // namespace Tether
