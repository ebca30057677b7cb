#include "logactions.h"

#include "combinedlogview.h"
#include "mnemonics.h"

#include "common/logging.h"
#include "manager/eventlogtext.h"
#include "manager/serversource.h"

#include <QAction>
#include <QClipboard>
#include <QDateTime>
#include <QDesktopServices>
#include <QDir>
#include <QFileDialog>
#include <QGuiApplication>
#include <QMessageBox>
#include <QUrl>

using namespace Qt::StringLiterals;

namespace Tether {

LogActions::LogActions(ServerSource &manager, QWidget *window)
    : QObject(window)
    , m_manager(manager)
    , m_window(window)
    , m_exportServerLog(new QAction(tr("&Export log…"), this))
    , m_exportAllLogs(new QAction(tr("Export &all logs…"), this))
    , m_openLogFolder(new QAction(tr("Open log &folder"), this))
    , m_showCombinedLog(new QAction(tr("Com&bined log"), this))
    , m_copyCommand(new QAction(tr("Copy co&mmand"), this))
    , m_copyUrl(new QAction(tr("Copy &URL"), this))
{
    m_exportServerLog->setObjectName(u"exportServerLog"_s);
    m_exportAllLogs->setObjectName(u"exportAllLogs"_s);
    m_openLogFolder->setObjectName(u"openLogFolder"_s);
    m_showCombinedLog->setObjectName(u"showCombinedLog"_s);
    m_copyCommand->setObjectName(u"copyCommand"_s);
    m_copyUrl->setObjectName(u"copyUrl"_s);
    m_exportServerLog->setShortcut(QKeySequence(u"Ctrl+Shift+S"_s));
    m_showCombinedLog->setShortcut(QKeySequence(u"Ctrl+L"_s));
    // Shortcuts work whether or not the action sits in a visible menu.
    window->addActions({m_exportServerLog, m_showCombinedLog});
    connect(m_exportServerLog, &QAction::triggered, this, [this] { exportLog(m_server); });
    connect(m_exportAllLogs, &QAction::triggered, this, [this] { exportLog({}); });
    connect(m_openLogFolder, &QAction::triggered, this, &LogActions::openFolder);
    connect(m_showCombinedLog, &QAction::triggered, this, &LogActions::openCombinedLog);
    connect(m_copyCommand, &QAction::triggered, this, [this] {
        if (const ServerConfig *config = m_manager.serverConfig(m_server))
            QGuiApplication::clipboard()->setText(config->command.shellLine());
    });
    connect(m_copyUrl, &QAction::triggered, this, [this] {
        if (const ServerConfig *config = m_manager.serverConfig(m_server))
            QGuiApplication::clipboard()->setText(config->url);
    });
    setServer({});
}

void LogActions::setServer(const QString &name)
{
    m_server = name;
    const ServerConfig *config = name.isEmpty() ? nullptr : m_manager.serverConfig(name);
    m_exportServerLog->setEnabled(!name.isEmpty());
    m_exportServerLog->setText(name.isEmpty() ? tr("&Export log…") : tr("&Export log of '%1'…").arg(withoutMnemonic(name)));
    // Each where it applies: a command for a local server, a URL for a remote one.
    const bool local = config && config->transport == TransportKind::Stdio;
    m_copyCommand->setVisible(local);
    m_copyCommand->setEnabled(local && !config->command.program.isEmpty());
    m_copyUrl->setVisible(config && !local);
    m_copyUrl->setEnabled(config && !local && !config->url.isEmpty());
}

void LogActions::exportLog(const QString &server)
{
    const QString textFilter = tr("Text log (*.log *.txt)");
    const QString jsonFilter = tr("JSON lines (*.jsonl)");
    const QString stamp = QDateTime::currentDateTime().toString(u"yyyyMMdd-HHmmss"_s);
    const QString suggested = QDir::home().filePath(
        u"tether-%1-%2.log"_s.arg(server.isEmpty() ? u"all"_s : server, stamp).replace(u'/', u'_'));
    QString filter = textFilter;
    QString path = QFileDialog::getSaveFileName(m_window,
                                                server.isEmpty() ? tr("Export the log of every server")
                                                                 : tr("Export the log of '%1'").arg(server),
                                                suggested, textFilter + u";;"_s + jsonFilter, &filter);
    if (path.isEmpty())
        return;
    if (filter == jsonFilter && eventLogFormatFor(path) != EventLogFormat::JsonLines)
        path += u".jsonl"_s;
    const QList<ServerEvent> events = server.isEmpty() ? m_manager.eventLog().allEvents()
                                                       : m_manager.eventLog().events(server);
    QString error;
    if (!saveEventLog(path, events, eventLogFormatFor(path), &error))
        QMessageBox::warning(m_window, tr("Cannot export the log"),
                             server.isEmpty() ? tr("The log of every server was not exported: %1.").arg(error)
                                              : tr("The log of '%1' was not exported: %2.").arg(server, error));
}

void LogActions::openFolder()
{
    const QString folder = appLogFolder();
    if (!QDir(folder).exists()) {
        QMessageBox::information(m_window, tr("Open log folder"),
                                 tr("There is no log folder: %1 does not exist, so Tether writes no log file "
                                    "(it could not make the folder). File ▸ Export log… saves the events the "
                                    "window shows.").arg(folder));
        return;
    }
    if (!QDesktopServices::openUrl(QUrl::fromLocalFile(folder)))
        QMessageBox::information(m_window, tr("Open log folder"),
                                 tr("No application opens folders here. Tether's log is tether.log in %1.")
                                     .arg(folder));
}

void LogActions::openCombinedLog()
{
    if (!m_combinedLog) {
        m_combinedLog = new CombinedLogView(m_manager, m_window);
        m_combinedLog->setObjectName(u"combinedLog"_s);
    }
    m_combinedLog->show();
    m_combinedLog->raise();
    m_combinedLog->activateWindow();
}

} // namespace Tether
