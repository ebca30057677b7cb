#pragma once

#include "config/configstore.h"
#include "manager/servermanager.h"

#include <QMainWindow>
#include <QSettings>

class QAction;
class QLabel;
class QComboBox;
class QMenu;
class QLineEdit;
class QPlainTextEdit;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;
class QTreeWidget;

namespace Tether {

class ServerTableModel;

// The server table, the details of the selected server and the manual actions. It shows value
// snapshots from the manager and acts through the manager; it holds no pointer into a supervisor.
// Edits (add, edit, remove, enable, policy, import) are saved to the config through the store,
// and reach the manager the same way an edit in a text editor does.
class MainWindow final : public QMainWindow
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)

public:
    MainWindow(ServerManager &manager, ConfigStore &config, QWidget *parent = nullptr);

    ServerTableModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QAction *startAction() const { return m_start; }
    QAction *stopAction() const { return m_stop; }
    QAction *reconnectAction() const { return m_reconnect; }
    QAction *reconnectAllAction() const { return m_reconnectAll; }
    QAction *addAction() const { return m_add; }
    QAction *editAction() const { return m_edit; }
    QAction *removeAction() const { return m_remove; }
    QAction *enableAction() const { return m_enable; }
    QAction *settingsAction() const { return m_settings; }
    QAction *openConfigAction() const { return m_openConfig; }
    QAction *callToolAction() const { return m_callTool; }
    QTreeWidget *toolsView() const { return m_tools; }
    QPlainTextEdit *configView() const { return m_configView; }
    QLabel *problemBanner() const { return m_problem; }
    void selectServer(const QString &name);
    QPlainTextEdit *logView() const { return m_log; }
    QTreeWidget *timelineView() const { return m_timeline; }
    QString selectedServer() const;
    // Shown above the table when the config cannot be used.
    void setConfigProblem(const QString &problem);
    // Where the window remembers its geometry and splitter between runs.
    static QSettings windowSettings();

signals:
    // File ▸ Quit: stop every server and leave (the tray's Quit does the same).
    void quitRequested();

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void createActions();
    void createMenus();
    // Saves an edited config root; says why in a message box when it cannot.
    bool saveConfig(const QJsonObject &root);
    // False, with a message, when one of `names` has meanwhile been taken in the config.
    bool namesStillFree(const QStringList &names);
    void addServer();
    void editServer();
    void removeServer();
    void toggleEnabled();
    void editSettings();
    void openConfigFile();
    void importServers(int source);
    void callSelectedTool();
    void updateActions();
    void updateDetails();
    void updateSummary();
    void updateReconnectAll();
    void updateLog();
    void appendEvent(const ServerEvent &event);
    bool passesLogFilter(const ServerEvent &event) const;

    ServerManager &m_manager;
    ConfigStore &m_config;
    ServerTableModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_table;
    QSplitter *m_splitter;
    QLineEdit *m_filter;
    QLabel *m_problem;
    QTreeWidget *m_tools;
    QPlainTextEdit *m_details;
    QPlainTextEdit *m_configView;
    QPlainTextEdit *m_log;
    QComboBox *m_logLevel;
    QLineEdit *m_logSearch;
    QTreeWidget *m_timeline;
    QLabel *m_summary;
    QAction *m_start = nullptr;
    QAction *m_stop = nullptr;
    QAction *m_reconnect = nullptr;
    QAction *m_reconnectAll = nullptr;
    QAction *m_add = nullptr;
    QAction *m_edit = nullptr;
    QAction *m_remove = nullptr;
    QAction *m_enable = nullptr;
    QAction *m_settings = nullptr;
    QAction *m_openConfig = nullptr;
    QAction *m_callTool = nullptr;
    QMenu *m_importMenu = nullptr;
};

} // namespace Tether
