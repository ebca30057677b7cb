#include "trayicon.h"

#include "mainwindow.h"
#include "serveractions.h"
#include "servertablemodel.h"
#include "stateicons.h"

#include "manager/serversource.h"

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

TrayNotice signInNotice(const QList<ServerStatus> &waiting)
{
    if (waiting.size() == 1)
        return {TrayIcon::tr("%1 needs you to sign in").arg(waiting.first().name),
                TrayIcon::tr("Select it in Tether and choose Sign in, or run: %1").arg(signInCommand(waiting.first().name))};
    QStringList names;
    for (const ServerStatus &status : waiting)
        names.append(status.name);
    return {TrayIcon::tr("%1 servers need you to sign in: %2").arg(waiting.size()).arg(names.join(u", "_s)),
            TrayIcon::tr("Select each in Tether and choose Sign in.")};
}

TrayIcon::TrayIcon(ServerSource &manager, MainWindow *window, QObject *parent)
    : QSystemTrayIcon(parent)
    , m_manager(manager)
{
    auto *menu = new QMenu(window);
    menu->addAction(tr("Show Tether"), window, &MainWindow::bringToFront);
    menu->addAction(tr("Retry failed"), &m_manager, &ServerSource::retryFailed);
    menu->addSeparator();
    menu->addAction(tr("Quit"), this, &TrayIcon::quitRequested);
    setContextMenu(menu);
    connect(this, &QSystemTrayIcon::activated, window, [window](ActivationReason reason) {
        if (reason == Trigger)
            window->setVisible(!window->isVisible());
    });
    m_failureTimer.setSingleShot(true);
    m_failureTimer.setInterval(FailureGroupingWindow);
    connect(&m_failureTimer, &QTimer::timeout, this, &TrayIcon::notifyGrouped);
    connect(&m_manager, &ServerSource::stateChanged, this, [this](const ServerStatus &status) {
        refresh();
        QList<ServerStatus> *news = status.state == ServerState::Failed         ? &m_failed
                                    : status.state == ServerState::SignInNeeded ? &m_waitingForSignIn
                                                                                : nullptr;
        if (!news)
            return;
        news->removeIf([&status](const ServerStatus &known) { return known.name == status.name; });
        news->append(status);
        if (!m_failureTimer.isActive())
            m_failureTimer.start();
    });
    connect(&m_manager, &ServerSource::serverRemoved, this, &TrayIcon::refresh);
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

void TrayIcon::notifyGrouped()
{
    // A server that left the state meanwhile is not news.
    const auto stillIn = [this](QList<ServerStatus> &statuses, ServerState state) {
        statuses.removeIf([this, state](const ServerStatus &known) {
            const auto now = m_manager.status(known.name);
            return !now || now->state != state;
        });
    };
    stillIn(m_failed, ServerState::Failed);
    stillIn(m_waitingForSignIn, ServerState::SignInNeeded);
    if (!m_failed.isEmpty())
        notify(failureNotice(m_failed), QSystemTrayIcon::Warning);
    if (!m_waitingForSignIn.isEmpty())
        notify(signInNotice(m_waitingForSignIn), QSystemTrayIcon::Information);
    m_failed.clear();
    m_waitingForSignIn.clear();
}

void TrayIcon::refresh()
{
    const QList<ServerStatus> statuses = m_manager.statuses();
    setIcon(stateIcon(aggregateState(statuses)));
    setToolTip(tr("Tether — %1").arg(summaryText(statuses)));
}

} // namespace Tether
