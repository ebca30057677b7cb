#pragma once

#include <QMainWindow>
#include <QPointer>
#include <QSet>
#include <QSettings>
#include <QStringList>

#include <memory>

class QAction;
class QHBoxLayout;
class QJsonObject;
class QLabel;
class QLineEdit;
class QMenu;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;
class QToolButton;

namespace Tether {

struct ServerActions;
class AllToolsDialog;
class ConfigStore;
class EventLogView;
class GatewayService;
class GatewayView;
class LogActions;
class ResourceSampler;
class ServerConfigView;
class ServerDetailsView;
class ServerSource;
class ServerTableModel;
class TimelineView;
class ToolListView;
class WelcomeBanner;
class WindowClientSide;

// The server table, the details of the selected server and the manual actions. It shows value
// snapshots from the manager and acts through the manager; it holds no pointer into a supervisor.
// Edits (add, edit, remove, enable, policy, import) are saved to the config through the store,
// and reach the manager the same way an edit in a text editor does.
class MainWindow final : public QMainWindow
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)

public:
    MainWindow(ServerSource &manager, ConfigStore &config, QWidget *parent = nullptr);

    // Where the servers are listed: the tether program reports when it was first painted.
    QTableView *table() const { return m_table; }
    void selectServer(const QString &name);
    // The server whose tabs are shown: the current row of the selection.
    QString selectedServer() const;
    // Every selected server, which Start, Stop and Reconnect act on.
    QStringList selectedServers() const;
    // The gateway the program serves: an indicator in the status bar, the Gateway window (File ▸
    // Gateway…), and the calls through it in the selected server's Details.
    void setGateway(GatewayService *gateway);
    void showGateway();
    // Shown, unminimized and raised: from the tray, or for a second launch of Tether.
    void bringToFront();
    // Where the window remembers its geometry and splitter between runs.
    static QSettings windowSettings();

signals:
    // File ▸ Quit: stop every server and leave (the tray's Quit does the same).
    void quitRequested();

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void setUpTable();
    // The width of each column of fixed texts, and of the name and PID / URL columns for the
    // servers listed now.
    QList<std::pair<int, int>> columnWidthsNeeded() const;
    void widenColumnsToTheirTexts();
    // Calls `action` with each selected server it applies to.
    void actOnSelection(bool ServerActions::*applies, void (ServerSource::*action)(const QString &));
    // Asks first: it restarts connected servers too.
    void reconnectAll();
    // The table above the tabs of the selected server, the summary in the status bar.
    void layOutWidgets();
    void createActions();
    void createMenus();
    // Snapshots in: the manager's statuses, tools and events, the config's document and problem.
    void followSnapshots();
    // The selection, context menus and double clicks of the table and the tools.
    void connectViews();
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
    // File ▸ Connect a client…
    void connectClient();
    // A tool's check box in the Tools tab: saves it in (or out of) the server's "tools.disabled".
    void setToolOffered(const QString &server, const QString &tool, bool offered);
    void callSelectedTool();
    // Opens the Call tool dialog for a tool by its public name.
    void callTool(const QString &publicName);
    // Server ▸ All tools…: every server's tools in one searchable list, kept current while open.
    void showAllTools();
    void updateAllTools();
    void updateActions();
    // Sign in to the selected server in the desktop's browser, or forget its tokens.
    void signInSelected();
    void signOutSelected();
    void updateDetails();
    // The Details tab alone: the server's status, and the calls made to it through the gateway.
    void updateDetailsText();
    void updateGatewayIndicator();
    void updateSummary();
    void updateFleetActions();
    // The first-run banner, and why the Tools tab is empty.
    void updateWelcome();
    void updateToolsHint();
    // View ▸ Columns: a check for each column but the server's name.
    void fillColumnsMenu();
    // Whether `name` signs in (OAuth): it asked to, or has tokens. Sign in shows while any does.
    void updateSignsIn(const QString &name);
    void updateLog();

    ServerSource &m_manager;
    ConfigStore &m_config;
    ResourceSampler *m_resources;
    ServerTableModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_table;
    QSplitter *m_splitter = nullptr;
    QLineEdit *m_filter;
    QLabel *m_problem;
    ToolListView *m_tools;
    ServerDetailsView *m_details;
    ServerConfigView *m_configView;
    EventLogView *m_log;
    TimelineView *m_timeline;
    QLabel *m_summary;
    QHBoxLayout *m_header = nullptr; // the summary, the gateway's state and the filter
    WelcomeBanner *m_welcome = nullptr;
    QMenu *m_columnsMenu = nullptr;
    QSet<QString> m_signsIn;
    QAction *m_start = nullptr;
    QAction *m_stop = nullptr;
    QAction *m_reconnect = nullptr;
    QAction *m_signIn = nullptr;
    QAction *m_signOut = nullptr;
    QAction *m_retryFailed = nullptr;
    QAction *m_reconnectAll = nullptr;
    QAction *m_add = nullptr;
    QAction *m_edit = nullptr;
    QAction *m_remove = nullptr;
    QAction *m_enable = nullptr;
    QAction *m_settings = nullptr;
    QAction *m_openConfig = nullptr;
    QAction *m_callTool = nullptr;
    QAction *m_allTools = nullptr;
    QMenu *m_importMenu = nullptr;
    QPointer<AllToolsDialog> m_allToolsDialog;
    QAction *m_showGateway = nullptr;
    QSet<QString> m_signingIn; // servers whose browser step is under way
    GatewayService *m_gateway = nullptr;
    QToolButton *m_gatewayIndicator = nullptr;
    GatewayView *m_gatewayView = nullptr;
    LogActions *m_logActions = nullptr;
    // The client of the window's own tool calls: what their servers ask goes to it.
    std::shared_ptr<WindowClientSide> m_clientSide;
};

} // namespace Tether
