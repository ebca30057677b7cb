#include "trayicon.h"

#include "mainwindow.h"
#include "serveractions.h"
#include "servertablemodel.h"
#include "stateicons.h"

#include "manager/servermanager.h"

#include <QEvent>
#include <QMenu>

#include <spdlog/spdlog.h>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// Set once the tray has said that closing the window leaves Tether running.
const QString ClosedToTrayToldKey = u"closedToTrayTold"_s;

} // namespace

ServerState aggregateState(const QList<ServerStatus> &statuses)
{
    // Worst first: what needs a hand, then what is recovering, then what works.
    static const QList<ServerState> severity{ServerState::Failed,       ServerState::Disconnected,
                                             ServerState::SignInNeeded, ServerState::Reconnecting,
                                             ServerState::Retrying,     ServerState::Starting,
                                             ServerState::Stopping,     ServerState::Connected};
    for (ServerState state : severity) {
        const bool present = std::any_of(statuses.cbegin(), statuses.cend(), [state](const ServerStatus &status) {
            return status.configErrors.isEmpty() && status.state == state;
        });
        if (present)
            return state;
    }
    return ServerState::Stopped;
}

TrayNotice failureNotice(const QList<ServerStatus> &failed)
{
    if (failed.size() == 1)
        return {TrayIcon::tr("%1 failed").arg(failed.first().name), ServerTableModel::lastEventText(failed.first())};
    QStringList names;
    for (const ServerStatus &status : failed)
        names.append(status.name);
    return {TrayIcon::tr("%1 servers failed: %2").arg(failed.size()).arg(names.join(u", "_s)),
            TrayIcon::tr("Open Tether to see why: each one's reason is in its row and its Details.")};
}

TrayIcon::TrayIcon(ServerManager &manager, MainWindow *window, QObject *parent)
    : QSystemTrayIcon(parent)
    , m_manager(manager)
{
    auto *menu = new QMenu(window);
    menu->addAction(tr("Show Tether"), window, &MainWindow::bringToFront);
    menu->addAction(tr("Retry failed"), &m_manager, &ServerManager::retryFailed);
    menu->addSeparator();
    menu->addAction(tr("Quit"), this, &TrayIcon::quitRequested);
    setContextMenu(menu);
    connect(this, &QSystemTrayIcon::activated, window, [window](ActivationReason reason) {
        if (reason == Trigger)
            window->setVisible(!window->isVisible());
    });
    m_failureTimer.setSingleShot(true);
    m_failureTimer.setInterval(FailureGroupingWindow);
    connect(&m_failureTimer, &QTimer::timeout, this, &TrayIcon::notifyFailures);
    connect(&m_manager, &ServerManager::stateChanged, this, [this](const ServerStatus &status) {
        refresh();
        if (status.state != ServerState::Failed)
            return;
        m_failed.removeIf([&status](const ServerStatus &failed) { return failed.name == status.name; });
        m_failed.append(status);
        if (!m_failureTimer.isActive())
            m_failureTimer.start();
    });
    connect(&m_manager, &ServerManager::serverRemoved, this, &TrayIcon::refresh);
    window->installEventFilter(this);
    refresh();
}

bool TrayIcon::eventFilter(QObject *watched, QEvent *event)
{
    // A close by the user (quitting hides the window instead): Tether goes on in the tray.
    if (event->type() == QEvent::Close && isVisible()) {
        QSettings settings = MainWindow::windowSettings();
        if (!settings.value(ClosedToTrayToldKey).toBool()) {
            settings.setValue(ClosedToTrayToldKey, true);
            notify({tr("Tether is still running"),
                    tr("Your servers stay supervised from the tray. To stop them and leave, choose Quit in the tray's "
                       "menu or File ▸ Quit.")},
                   QSystemTrayIcon::Information);
        }
    }
    return QSystemTrayIcon::eventFilter(watched, event);
}

void TrayIcon::notify(const TrayNotice &notice, MessageIcon icon)
{
    spdlog::info("notification: {}: {}", notice.title.toStdString(), notice.message.toStdString());
    showMessage(notice.title, notice.message, icon);
    emit noticeShown(notice);
}

void TrayIcon::notifyFailures()
{
    // A server that recovered meanwhile is not news.
    m_failed.removeIf([this](const ServerStatus &failed) {
        const auto now = m_manager.status(failed.name);
        return !now || now->state != ServerState::Failed;
    });
    if (!m_failed.isEmpty())
        notify(failureNotice(m_failed), QSystemTrayIcon::Warning);
    m_failed.clear();
}

void TrayIcon::refresh()
{
    const QList<ServerStatus> statuses = m_manager.statuses();
    setIcon(stateIcon(aggregateState(statuses)));
    setToolTip(tr("Tether — %1").arg(summaryText(statuses)));
}

} // namespace Tether
