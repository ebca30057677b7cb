#pragma once

#include <QObject>
#include <QPointer>

class QAction;
class QWidget;

namespace Tether {

class CombinedLogView;
class ServerSource;

// The logs to take away and what to copy of a server: File ▸ Export log… of the selected server
// or of every server, File ▸ Open log folder, View ▸ Combined log, and Copy command / Copy URL
// for the table's context menu. The window tells it which server is selected.
class LogActions final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LogActions)

public:
    LogActions(ServerSource &manager, QWidget *window);

    QAction *exportServerLog() const { return m_exportServerLog; }
    QAction *exportAllLogs() const { return m_exportAllLogs; }
    QAction *openLogFolder() const { return m_openLogFolder; }
    QAction *showCombinedLog() const { return m_showCombinedLog; }
    QAction *copyCommand() const { return m_copyCommand; }
    QAction *copyUrl() const { return m_copyUrl; }

    // The selected server (empty: none): what Export log… and the copy actions act on.
    void setServer(const QString &name);

private:
    // Asks where to save the events of `server` (every server when empty) and saves them there.
    void exportLog(const QString &server);
    void openFolder();
    void openCombinedLog();

    ServerSource &m_manager;
    QWidget *m_window;
    QString m_server;
    QPointer<CombinedLogView> m_combinedLog; // made when first shown
    QAction *m_exportServerLog;
    QAction *m_exportAllLogs;
    QAction *m_openLogFolder;
    QAction *m_showCombinedLog;
    QAction *m_copyCommand;
    QAction *m_copyUrl;
};

} // namespace Tether
