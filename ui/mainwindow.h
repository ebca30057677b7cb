#pragma once

#include "manager/servermanager.h"

#include <QMainWindow>
#include <QSettings>

class QAction;
class QLabel;
class QComboBox;
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
class MainWindow final : public QMainWindow
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)

public:
    explicit MainWindow(ServerManager &manager, QWidget *parent = nullptr);

    ServerTableModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QAction *startAction() const { return m_start; }
    QAction *stopAction() const { return m_stop; }
    QAction *reconnectAction() const { return m_reconnect; }
    QAction *reconnectAllAction() const { return m_reconnectAll; }
    void selectServer(const QString &name);
    QPlainTextEdit *logView() const { return m_log; }
    QTreeWidget *timelineView() const { return m_timeline; }
    QString selectedServer() const;
    // Shown above the table when the config cannot be used.
    void setConfigProblem(const QString &problem);
    // Where the window remembers its geometry and splitter between runs.
    static QSettings windowSettings();

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void createActions();
    void updateActions();
    void updateDetails();
    void updateSummary();
    void updateLog();
    void appendEvent(const ServerEvent &event);
    bool passesLogFilter(const ServerEvent &event) const;

    ServerManager &m_manager;
    ServerTableModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_table;
    QSplitter *m_splitter;
    QLineEdit *m_filter;
    QLabel *m_problem;
    QTreeWidget *m_tools;
    QPlainTextEdit *m_details;
    QPlainTextEdit *m_log;
    QComboBox *m_logLevel;
    QLineEdit *m_logSearch;
    QTreeWidget *m_timeline;
    QLabel *m_summary;
    QAction *m_start = nullptr;
    QAction *m_stop = nullptr;
    QAction *m_reconnect = nullptr;
    QAction *m_reconnectAll = nullptr;
};

} // namespace Tether
