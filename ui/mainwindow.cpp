#include "mainwindow.h"

#include "actionicons.h"
#include "alltoolsdialog.h"
#include "catalogtabs.h"
#include "columnwidth.h"
#include "connectdialog.h"
#include "emptyhint.h"
#include "eventlogview.h"
#include "gatewaytext.h"
#include "gatewayview.h"
#include "healthstripdelegate.h"
#include "importdialog.h"
#include "logactions.h"
#include "messagelabel.h"
#include "serveractions.h"
#include "serverconfigview.h"
#include "serverdetailsview.h"
#include "serverdialog.h"
#include "servertablemodel.h"
#include "settingsdialog.h"
#include "timelineview.h"
#include "toolcalldialog.h"
#include "toollistview.h"
#include "welcomebanner.h"
#include "windowclientside.h"
#include "windowsize.h"
#include "mnemonics.h"

#include "config/configedit.h"
#include "config/configimport.h"
#include "config/configstore.h"
#include "gateway/gatewayservice.h"
#include "gateway/toolcatalog.h"
#include "manager/resourcesampler.h"
#include "manager/serversource.h"

#include <QAction>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDesktopServices>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QScreen>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Tether {

MainWindow::MainWindow(ServerSource &manager, ConfigStore &config, QWidget *parent)
    : QMainWindow(parent)
    , m_manager(manager)
    , m_config(config)
    , m_resources(new ResourceSampler(manager, this))
    , m_model(new ServerTableModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_table(new QTableView(this))
    , m_filter(new QLineEdit(this))
    , m_problem(new QLabel(this))
    , m_tools(new ToolListView(this))
    , m_details(new ServerDetailsView(this))
    , m_configView(new ServerConfigView(this))
    , m_log(new EventLogView(this))
    , m_timeline(new TimelineView(this))
    , m_summary(new QLabel(this))
    , m_clientSide(std::make_shared<WindowClientSide>(this))
{
    setWindowTitle(tr("Tether"));
    setUpTable();
    createActions();
    layOutWidgets();
    followSnapshots();
    connectViews();

    m_model->setStatuses(m_manager.statuses());
    for (const ServerStatus &status : m_manager.statuses())
        updateSignsIn(status.name);
    updateSummary();
    updateActions();
    updateWelcome();
    int tableWidth = 0;
    for (int column = 0; column < ServerTableModel::ColumnCount; ++column)
        tableWidth += m_table->columnWidth(column);
    resize(fittingWindowSize({tableWidth + 40, 700}, screen()->availableSize()));
    QSettings settings = windowSettings();
    restoreGeometry(settings.value(u"geometry"_s).toByteArray());
    // Saved on a larger screen, it is brought within this one.
    const QSize available = screen()->availableSize();
    if (width() > available.width() || height() > available.height())
        resize(fittingWindowSize(size(), available));
    m_splitter->restoreState(settings.value(u"splitter"_s).toByteArray());
    // Under a key of its own since the table's columns changed: an older Tether's layout is left alone.
    m_table->horizontalHeader()->restoreState(settings.value(u"tableColumns"_s).toByteArray());
    widenColumnsToTheirTexts(); // columns saved too narrow, by an older Tether say
}

// What the style adds to a cell's text in `view`: its margins, the grid line, and an icon with its own.
static int cellOverhead(const QTableView &view, bool withIcon)
{
    QStyleOptionViewItem option;
    option.initFrom(&view);
    option.text = u"x"_s;
    option.features = QStyleOptionViewItem::HasDisplay;
    if (withIcon) {
        option.features |= QStyleOptionViewItem::HasDecoration;
        const int icon = view.style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, &view);
        option.decorationSize = QSize(icon, icon);
    }
    const int cell = view.style()->sizeFromContents(QStyle::CT_ItemViewItem, &option, QSize(), &view).width();
    return cell - view.fontMetrics().horizontalAdvance(option.text) + (view.showGrid() ? 1 : 0);
}

void MainWindow::setUpTable()
{
    m_model->setObjectName(u"serverModel"_s);
    m_table->setObjectName(u"serverTable"_s);
    m_filter->setObjectName(u"serverFilter"_s);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ServerTableModel::SortRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(-1);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    // Tab leaves the table for the next control; the arrows move between rows.
    m_table->setTabKeyNavigation(false);
    m_table->setAccessibleName(tr("Servers"));
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->setItemDelegateForColumn(ServerTableModel::Health, new HealthStripDelegate(m_table));
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 10);
    for (const auto &[column, width] : columnWidthsNeeded())
        m_table->setColumnWidth(column, width);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &MainWindow::widenColumnsToTheirTexts);
    connect(m_model, &QAbstractItemModel::modelReset, this, &MainWindow::widenColumnsToTheirTexts);
    // Details show these; the user can bring them back in the table (View ▸ Columns).
    m_table->setColumnHidden(ServerTableModel::Transport, true);
    m_table->setColumnHidden(ServerTableModel::Pid, true);
    m_table->horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_table->horizontalHeader(), &QWidget::customContextMenuRequested, this, [this](const QPoint &position) {
        fillColumnsMenu();
        m_columnsMenu->exec(m_table->horizontalHeader()->mapToGlobal(position));
    });

    m_filter->setPlaceholderText(tr("Filter servers"));
    m_filter->setAccessibleName(tr("Filter servers"));
    m_filter->setToolTip(tr("Shows the servers whose name, state or last event holds these words (Ctrl+F)"));
    auto *focusFilter = new QAction(this);
    focusFilter->setShortcut(QKeySequence::Find);
    connect(focusFilter, &QAction::triggered, m_filter, [this] { m_filter->setFocus(Qt::ShortcutFocusReason); });
    addAction(focusFilter);
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
}

QList<std::pair<int, int>> MainWindow::columnWidthsNeeded() const
{
    // From the texts a column can hold, and the names and URLs of the servers listed now; not
    // from every row's cells, which sizing to contents would measure on every change.
    QStringList names{QString(12, u'n')};
    QStringList addresses{u"4194304"_s};
    for (int row = 0; row < m_model->rowCount(); ++row) {
        names.append(m_model->index(row, ServerTableModel::Name).data().toString());
        addresses.append(m_model->index(row, ServerTableModel::Pid).data().toString());
    }
    QStringList states{ServerTableModel::tr("Disabled"), ServerTableModel::tr("Invalid")};
    for (ServerState state : AllServerStates)
        states.append(stateName(state));
    // The longest a state cell gets while it counts down.
    states.append(stateName(ServerState::Reconnecting) + u" 10/10 · "_s + ServerTableModel::tr("in %1 s").arg(u"59.9"_s));
    const int margins = cellOverhead(*m_table, false);
    const QList<std::tuple<int, QStringList, int, int>> columns{
        {ServerTableModel::Name, names, 0, 32},
        {ServerTableModel::Transport, {u"stdio"_s, u"http"_s, u"sse"_s}, 0, 8},
        {ServerTableModel::State, states, cellOverhead(*m_table, true) - margins, 30},
        {ServerTableModel::Health, {QString(16, u'n')}, 0, 16},
        {ServerTableModel::Tools, {u"100"_s}, 0, 8},
        {ServerTableModel::Uptime, {u"59 min 59 s"_s}, 0, 16},
        {ServerTableModel::Cpu, {u"100 %"_s}, 0, 8},
        {ServerTableModel::Memory, {u"1024.0 MiB"_s}, 0, 12},
        {ServerTableModel::Pid, addresses, 0, 48}};
    QList<std::pair<int, int>> widths;
    for (const auto &[column, texts, icon, maxCharacters] : columns) {
        widths.append({column, columnWidthFor(m_table->fontMetrics(), m_table->horizontalHeader()->sectionSizeHint(column),
                                              texts, icon + margins, maxCharacters)});
    }
    return widths;
}

void MainWindow::widenColumnsToTheirTexts()
{
    // Only wider: a column the user widened stays so. A hidden one is sized when it is shown.
    for (const auto &[column, width] : columnWidthsNeeded()) {
        if (!m_table->isColumnHidden(column) && width > m_table->columnWidth(column))
            m_table->setColumnWidth(column, width);
    }
}

void MainWindow::layOutWidgets()
{
    m_problem->setObjectName(u"configProblem"_s);
    makeErrorBanner(m_problem);
    m_problem->hide();
    m_welcome = new WelcomeBanner(m_importMenu, this);
    connect(m_welcome, &WelcomeBanner::addRequested, this, &MainWindow::addServer);

    m_tools->setObjectName(u"tools"_s);
    m_log->setObjectName(u"log"_s);
    m_timeline->setObjectName(u"timeline"_s);
    m_details->setObjectName(u"details"_s);
    m_configView->setObjectName(u"serverConfig"_s);
    // Named as their tabs are, for screen readers.
    m_tools->setAccessibleName(tr("Tools of the selected server"));
    m_log->setAccessibleName(tr("Log of the selected server"));
    m_timeline->setAccessibleName(tr("Timeline of the selected server"));
    m_details->setAccessibleName(tr("Details of the selected server"));
    m_configView->setAccessibleName(tr("Config entry of the selected server"));
    auto *tabs = new QTabWidget(this);
    tabs->setObjectName(u"serverTabs"_s);
    tabs->addTab(m_tools, tr("Tools"));
    addCatalogTabs(tabs, m_manager, m_table->selectionModel(), ServerTableModel::NameRole);
    tabs->addTab(m_log, tr("Log"));
    tabs->addTab(m_timeline, tr("Timeline"));
    tabs->addTab(m_details, tr("Details"));
    tabs->addTab(m_configView, tr("Config"));

    // The fleet at a glance: how many servers work and fail, and the gateway, beside the filter.
    m_summary->setObjectName(u"summary"_s);
    m_summary->setTextFormat(Qt::PlainText);
    m_header = new QHBoxLayout;
    m_header->addWidget(m_summary, 1);
    m_header->addWidget(m_filter);
    m_filter->setMinimumWidth(fontMetrics().averageCharWidth() * 28);
    auto *top = new QWidget(this);
    auto *topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_problem);
    topLayout->addWidget(m_welcome);
    topLayout->addLayout(m_header);
    topLayout->addWidget(m_table);
    m_splitter = new QSplitter(Qt::Vertical, this);
    m_splitter->addWidget(top);
    m_splitter->addWidget(tabs);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 2);
    setCentralWidget(m_splitter);
    // Tab goes from the filter to the table, then to the tabs of the selected server.
    setTabOrder(m_filter, m_table);
    setTabOrder(m_table, tabs);
}

void MainWindow::followSnapshots()
{
    // The actions of the selected server follow at once; the table's repaint is batched.
    connect(&m_manager, &ServerSource::statusChanged, this, [this](const ServerStatus &status) {
        m_model->updateStatus(status);
        if (selectedServers().contains(status.name))
            updateActions();
    });
    connect(&m_manager, &ServerSource::stateChanged, this, [this](const ServerStatus &status) {
        m_model->updateStatus(status);
        updateSummary();
        updateAllTools();
        if (status.state == ServerState::SignInNeeded && !m_signsIn.contains(status.name))
            updateSignsIn(status.name);
        if (selectedServers().contains(status.name))
            updateActions();
        else
            updateFleetActions();
        if (status.name == selectedServer())
            updateDetails();
    });
    connect(m_resources, &ResourceSampler::sampled, this, [this] {
        m_model->setResources(m_resources->allResources());
        if (m_manager.status(selectedServer()).value_or(ServerStatus{}).pid > 0)
            updateDetailsText();
    });
    connect(&m_manager, &ServerSource::signInChanged, this, [this](const QString &name) {
        updateSignsIn(name);
        if (name != selectedServer())
            return;
        updateActions();
        updateDetailsText();
    });
    connect(&m_manager, &ServerSource::serverAdded, this, [this](const QString &name) {
        if (const auto status = m_manager.status(name))
            m_model->updateStatus(*status);
        updateSignsIn(name);
        updateSummary();
    });
    connect(&m_manager, &ServerSource::serverRemoved, this, [this](const QString &name) {
        m_model->removeServer(name);
        updateSignsIn(name);
        updateSummary();
    });
    connect(&m_manager.registry(), &ToolRegistry::toolsChanged, this, [this](const ToolChange &change) {
        if (change.serverName == selectedServer())
            updateDetails();
        updateAllTools();
    });
    connect(&m_manager.registry(), &ToolRegistry::availabilityChanged, this, [this](const QString &server) {
        if (server == selectedServer())
            updateDetails();
        updateAllTools();
    });
    connect(&m_manager.eventLog(), &EventLog::appended, this, [this](const ServerEvent &event) {
        if (event.server != selectedServer())
            return;
        m_log->appendEvent(event);
        m_timeline->appendEvent(event);
    });
    connect(&m_config, &ConfigStore::problemChanged, this, [this](const QString &problem) {
        showMessage(m_problem, problem);
        updateActions(); // edits need a config that loaded
    });
    connect(&m_config, &ConfigStore::documentChanged, this, [this] {
        updateWelcome();
        updateActions();
        updateDetails();
        updateAllTools();
    });
}

void MainWindow::connectViews()
{
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        updateActions();
        updateDetails();
        updateLog();
    });
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_table, &QWidget::customContextMenuRequested, this, [this](const QPoint &position) {
        QMenu menu(this);
        menu.addActions({m_start, m_stop, m_reconnect, m_retryFailed});
        menu.addSeparator();
        menu.addActions({m_signIn, m_signOut});
        menu.addSeparator();
        menu.addActions({m_edit, m_enable, m_settings, m_remove});
        menu.addSeparator();
        menu.addActions({m_logActions->copyCommand(), m_logActions->copyUrl(), m_logActions->exportServerLog()});
        menu.exec(m_table->viewport()->mapToGlobal(position));
    });
    connect(m_table, &QAbstractItemView::doubleClicked, this, [this] {
        if (m_edit->isEnabled())
            editServer();
    });
    // The first server is selected, so its tools show at once.
    connect(m_model, &QAbstractItemModel::rowsInserted, this, [this] {
        if (selectedServer().isEmpty() && m_proxy->rowCount() > 0)
            m_table->selectRow(0);
    });
    m_tools->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_tools, &QWidget::customContextMenuRequested, this, [this](const QPoint &position) {
        QMenu menu(this);
        menu.addAction(m_callTool);
        menu.exec(m_tools->viewport()->mapToGlobal(position));
    });
    connect(m_tools, &QAbstractItemView::doubleClicked, this, [this] {
        if (m_callTool->isEnabled())
            callSelectedTool();
    });
    connect(m_tools, &ToolListView::currentToolChanged, this, &MainWindow::updateActions);
    connect(m_tools, &ToolListView::offeredToggled, this, &MainWindow::setToolOffered);
    connect(m_log, &EventLogView::filterChanged, this, &MainWindow::updateLog);
}

void MainWindow::bringToFront()
{
    show();
    setWindowState((windowState() & ~Qt::WindowMinimized) | Qt::WindowActive);
    raise();
    activateWindow();
}

QSettings MainWindow::windowSettings()
{
    // Beside servers.json: ~/.config/tether/window.ini
    return QSettings(QSettings::IniFormat, QSettings::UserScope, u"tether"_s, u"window"_s);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    QSettings settings = windowSettings();
    settings.setValue(u"geometry"_s, saveGeometry());
    settings.setValue(u"splitter"_s, m_splitter->saveState());
    settings.setValue(u"tableColumns"_s, m_table->horizontalHeader()->saveState());
    QMainWindow::closeEvent(event);
}

void MainWindow::createActions()
{
    // Every action in one place on the toolbar, whatever the selection: those that do not apply
    // are greyed out, and Sign in shows while any server signs in.
    auto *toolbar = addToolBar(tr("Servers"));
    toolbar->setObjectName(u"servers"_s);
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    const auto newAction = [this](const QString &text, const QString &themeIcon, const QString &fallbackIcon) {
        return new QAction(actionIcon(themeIcon, fallbackIcon), text, this);
    };
    m_start = newAction(tr("&Start"), u"media-playback-start"_s, u"start"_s);
    m_start->setShortcut(QKeySequence(u"Ctrl+R"_s));
    connect(m_start, &QAction::triggered, this, [this] { actOnSelection(&ServerActions::start, &ServerSource::start); });
    m_stop = newAction(tr("S&top"), u"media-playback-stop"_s, u"stop"_s);
    m_stop->setShortcut(QKeySequence(u"Ctrl+."_s));
    connect(m_stop, &QAction::triggered, this, [this] { actOnSelection(&ServerActions::stop, &ServerSource::stop); });
    m_reconnect = newAction(tr("&Reconnect"), u"view-refresh"_s, u"reconnect"_s);
    m_reconnect->setShortcut(QKeySequence(u"F5"_s));
    connect(m_reconnect, &QAction::triggered, this,
            [this] { actOnSelection(&ServerActions::reconnect, &ServerSource::reconnect); });
    m_retryFailed = newAction(tr("Retry &failed"), u"view-refresh"_s, u"retry-failed"_s);
    m_retryFailed->setShortcut(QKeySequence(u"Shift+F5"_s));
    connect(m_retryFailed, &QAction::triggered, &m_manager, &ServerSource::retryFailed);
    // Not on the toolbar: it restarts healthy servers too, and asks first.
    m_reconnectAll = newAction(tr("Reconnect a&ll…"), u"view-refresh"_s, u"reconnect"_s);
    connect(m_reconnectAll, &QAction::triggered, this, &MainWindow::reconnectAll);
    m_signIn = newAction(tr("Sign &in…"), u"dialog-password"_s, u"sign-in"_s);
    connect(m_signIn, &QAction::triggered, this, &MainWindow::signInSelected);
    m_signOut = newAction(tr("Sign o&ut"), u"system-log-out"_s, u"sign-out"_s);
    connect(m_signOut, &QAction::triggered, this, &MainWindow::signOutSelected);
    m_add = newAction(tr("&Add…"), u"list-add"_s, u"add"_s);
    m_add->setShortcut(QKeySequence::New);
    connect(m_add, &QAction::triggered, this, &MainWindow::addServer);
    m_edit = newAction(tr("&Edit…"), u"document-edit"_s, u"edit"_s);
    m_edit->setShortcut(QKeySequence(u"Ctrl+E"_s));
    connect(m_edit, &QAction::triggered, this, &MainWindow::editServer);
    m_enable = newAction(tr("&Disable"), u"media-playback-pause"_s, u"disable"_s);
    m_enable->setShortcut(QKeySequence(u"Ctrl+D"_s));
    connect(m_enable, &QAction::triggered, this, &MainWindow::toggleEnabled);
    m_remove = newAction(tr("Re&move…"), u"list-remove"_s, u"remove"_s);
    m_remove->setShortcut(QKeySequence::Delete);
    connect(m_remove, &QAction::triggered, this, &MainWindow::removeServer);
    m_settings = newAction(tr("Reconnect &policy…"), u"preferences-system"_s, u"policy"_s);
    m_settings->setShortcut(QKeySequence(u"Ctrl+,"_s));
    connect(m_settings, &QAction::triggered, this, &MainWindow::editSettings);
    m_openConfig = newAction(tr("&Open config file"), u"document-open"_s, u"open-config"_s);
    m_openConfig->setShortcut(QKeySequence::Open);
    connect(m_openConfig, &QAction::triggered, this, &MainWindow::openConfigFile);
    m_callTool = newAction(tr("&Call tool…"), u"system-run"_s, u"call-tool"_s);
    m_callTool->setShortcut(QKeySequence(u"Ctrl+T"_s));
    connect(m_callTool, &QAction::triggered, this, &MainWindow::callSelectedTool);
    m_allTools = newAction(tr("All t&ools…"), u"edit-find"_s, u"all-tools"_s);
    m_allTools->setShortcut(QKeySequence(u"Ctrl+Shift+T"_s));
    connect(m_allTools, &QAction::triggered, this, &MainWindow::showAllTools);
    toolbar->addActions({m_start, m_stop, m_reconnect, m_retryFailed});
    toolbar->addSeparator();
    toolbar->addActions({m_add, m_edit, m_enable, m_remove});
    toolbar->addSeparator();
    toolbar->addActions({m_settings, m_signIn});
    // Shortcuts work whether or not the action sits in a visible menu or toolbar.
    addActions({m_openConfig, m_callTool, m_allTools});
    for (QAction *action : {m_start, m_stop, m_reconnect, m_retryFailed, m_add, m_edit, m_enable, m_remove, m_settings})
        action->setToolTip(action->iconText().remove(u'…') + u" ("_s + action->shortcut().toString(QKeySequence::NativeText) + u')');
    const QList<std::pair<QAction *, QString>> names{
        {m_start, u"startServer"_s}, {m_stop, u"stopServer"_s}, {m_reconnect, u"reconnectServer"_s},
        {m_signIn, u"signIn"_s}, {m_signOut, u"signOut"_s},
        {m_retryFailed, u"retryFailed"_s}, {m_reconnectAll, u"reconnectAll"_s}, {m_add, u"addServer"_s}, {m_edit, u"editServer"_s},
        {m_enable, u"toggleEnabled"_s}, {m_remove, u"removeServer"_s}, {m_settings, u"editSettings"_s},
        {m_openConfig, u"openConfigFile"_s}, {m_callTool, u"callTool"_s},
        {m_allTools, u"allTools"_s}};
    for (const auto &[action, name] : names)
        action->setObjectName(name);
    m_logActions = new LogActions(m_manager, this);
    createMenus();
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openConfig);
    m_importMenu = file->addMenu(actionIcon(u"document-import"_s, u"import"_s), tr("&Import servers from"));
    const QList<std::pair<ImportFormat, QString>> sources{{ImportFormat::ClaudeDesktop, tr("&Claude Desktop…")},
                                                          {ImportFormat::Cursor, tr("C&ursor…")},
                                                          {ImportFormat::VsCode, tr("&VS Code…")}};
    for (const auto &source : sources)
        m_importMenu->addAction(source.second, this, [this, format = source.first] { importServers(int(format)); });
    file->addAction(actionIcon(u"network-wired"_s, u"connect-client"_s), tr("Co&nnect a client…"), this,
                    &MainWindow::connectClient)
        ->setObjectName(u"connectClient"_s);
    // Shown once the program gives the window a gateway to show.
    m_showGateway = file->addAction(actionIcon(u"network-server"_s, u"gateway"_s), tr("&Gateway…"), this,
                                    &MainWindow::showGateway);
    m_showGateway->setObjectName(u"showGateway"_s);
    m_showGateway->setVisible(false);
    file->addSeparator();
    m_logActions->exportServerLog()->setIcon(actionIcon(u"document-save-as"_s, u"export"_s));
    m_logActions->exportAllLogs()->setIcon(actionIcon(u"document-save-as"_s, u"export"_s));
    m_logActions->openLogFolder()->setIcon(actionIcon(u"folder-open"_s, u"folder"_s));
    m_logActions->showCombinedLog()->setIcon(actionIcon(u"text-x-generic"_s, u"log"_s));
    file->addActions({m_logActions->exportServerLog(), m_logActions->exportAllLogs(), m_logActions->openLogFolder()});
    file->addSeparator();
    file->addAction(actionIcon(u"window-close"_s, u"close"_s), tr("&Close window"), QKeySequence::Close, this,
                    &QWidget::close);
    file->addAction(actionIcon(u"application-exit"_s, u"quit"_s), tr("&Quit"), QKeySequence::Quit, this,
                    &MainWindow::quitRequested);

    QMenu *server = menuBar()->addMenu(tr("&Server"));
    server->addActions({m_start, m_stop, m_reconnect, m_retryFailed, m_reconnectAll});
    server->addSeparator();
    server->addActions({m_signIn, m_signOut});
    server->addSeparator();
    server->addActions({m_add, m_edit, m_enable, m_remove});
    server->addSeparator();
    server->addActions({m_callTool, m_allTools, m_settings});

    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_logActions->showCombinedLog());
    m_columnsMenu = view->addMenu(actionIcon(u"view-list-details"_s, u"columns"_s), tr("&Columns"));
    m_columnsMenu->setObjectName(u"columnsMenu"_s);
    connect(m_columnsMenu, &QMenu::aboutToShow, this, &MainWindow::fillColumnsMenu);
    fillColumnsMenu();

    // The log actions come with their own words: each gets a letter its menu has free.
    for (QMenu *menu : {file, server, view}) {
        QString taken;
        for (const QAction *action : menu->actions())
            if (const QChar letter = mnemonicOf(action->text()); !letter.isNull())
                taken += letter;
        for (QAction *action : menu->actions())
            if (!action->isSeparator() && mnemonicOf(action->text()).isNull())
                action->setText(withMnemonic(action->text(), &taken));
    }
}

void MainWindow::fillColumnsMenu()
{
    m_columnsMenu->clear();
    for (int column = ServerTableModel::Name + 1; column < ServerTableModel::ColumnCount; ++column) {
        QAction *shown = m_columnsMenu->addAction(m_model->headerData(column, Qt::Horizontal).toString());
        shown->setObjectName(u"column%1"_s.arg(column));
        shown->setCheckable(true);
        shown->setChecked(!m_table->isColumnHidden(column));
        connect(shown, &QAction::toggled, this, [this, column](bool on) {
            m_table->setColumnHidden(column, !on);
            widenColumnsToTheirTexts();
            // Remembered at once, not only when the window closes.
            windowSettings().setValue(u"tableColumns"_s, m_table->horizontalHeader()->saveState());
        });
    }
    QString taken;
    for (QAction *action : m_columnsMenu->actions())
        action->setText(withMnemonic(action->text(), &taken));
}

bool MainWindow::saveConfig(const QJsonObject &root)
{
    QString error;
    if (m_config.save(root, &error))
        return true;
    QMessageBox::warning(this, tr("Cannot save the config"), error);
    return false;
}

bool MainWindow::namesStillFree(const QStringList &names)
{
    QStringList taken;
    for (const QString &name : names) {
        if (m_config.document().server(name))
            taken.append(name);
    }
    if (taken.isEmpty())
        return true;
    QMessageBox::warning(this, tr("Cannot save the config"),
                         tr("%1 now has a server named %2, added while the dialog was open; nothing was saved. "
                            "Choose another name.")
                             .arg(m_config.savePath(), taken.join(u", "_s)));
    return false;
}

void MainWindow::addServer()
{
    ServerDialog dialog(m_config.document(), {}, m_config.context(), this);
    // The config may change on disk while the dialog is open: it is checked again afterwards.
    if (dialog.exec() != QDialog::Accepted || !namesStillFree({dialog.serverName()}))
        return;
    const ConfigDocument &document = m_config.document();
    if (saveConfig(putServer(document.root, document.serversKey, {}, dialog.serverName(), dialog.serverEntry())))
        selectServer(dialog.serverName());
}

void MainWindow::editServer()
{
    const QString name = selectedServer();
    if (!m_config.document().server(name))
        return;
    ServerDialog dialog(m_config.document(), name, m_config.context(), this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    if (!m_config.document().server(name)) {
        QMessageBox::warning(this, tr("Cannot save the config"),
                             tr("The server '%1' was removed from %2 while the dialog was open; nothing was saved.")
                                 .arg(name, m_config.savePath()));
        return;
    }
    if (dialog.serverName() != name && !namesStillFree({dialog.serverName()}))
        return;
    const ConfigDocument &document = m_config.document();
    if (saveConfig(putServer(document.root, document.serversKey, name, dialog.serverName(), dialog.serverEntry())))
        selectServer(dialog.serverName());
}

// The selected servers that the config lists, in the table's order.
static QStringList listedServers(const QStringList &selected, const ConfigDocument &document)
{
    QStringList listed;
    for (const QString &name : selected) {
        if (document.server(name))
            listed.append(name);
    }
    return listed;
}

void MainWindow::removeServer()
{
    const QStringList names = listedServers(selectedServers(), m_config.document());
    if (names.isEmpty())
        return;
    const QString question =
        names.size() == 1 ? tr("Remove the server '%1'? It is stopped and its entry is deleted from %2.")
                                .arg(names.first(), m_config.savePath())
                          : tr("Remove the %1 servers %2? They are stopped and their entries are deleted from %3.")
                                .arg(names.size())
                                .arg(names.join(u", "_s), m_config.savePath());
    QMessageBox confirm(QMessageBox::Question, names.size() == 1 ? tr("Remove server") : tr("Remove servers"), question,
                        QMessageBox::Cancel, this);
    const QAbstractButton *remove = confirm.addButton(tr("&Remove"), QMessageBox::DestructiveRole);
    confirm.setDefaultButton(QMessageBox::Cancel);
    confirm.exec();
    if (confirm.clickedButton() != remove)
        return;
    const ConfigDocument &document = m_config.document();
    QJsonObject root = document.root;
    for (const QString &name : names)
        root = Tether::removeServer(root, document.serversKey, name);
    saveConfig(root);
}

void MainWindow::toggleEnabled()
{
    const ConfigDocument &document = m_config.document();
    const QStringList names = listedServers(selectedServers(), document);
    // As the action says: Disable while any selected server is enabled, else Enable.
    const bool enable = std::none_of(names.cbegin(), names.cend(),
                                     [&document](const QString &name) { return document.server(name)->enabled; });
    QJsonObject root = document.root;
    for (const QString &name : names)
        root = setServerEnabled(root, document.serversKey, name, enable);
    if (!names.isEmpty())
        saveConfig(root);
}

void MainWindow::editSettings()
{
    SettingsDialog dialog(m_config.document(), selectedServer(), this);
    // A failed save keeps the dialog open, with the error and the edits.
    dialog.setSaveFunction([this](const QJsonObject &root, QString *error) { return m_config.save(root, error); });
    dialog.exec();
}

void MainWindow::openConfigFile()
{
    // The built-in demo has no file yet: it is saved as the user's file first, so there is one to edit.
    if (m_config.isEmbedded() && !saveConfig(m_config.document().root))
        return;
    if (!QDesktopServices::openUrl(QUrl::fromLocalFile(m_config.savePath())))
        QMessageBox::information(this, tr("Open config file"),
                                 tr("No application opens %1 here. Edit it with any text editor; Tether picks up "
                                    "the changes when it is saved.").arg(m_config.savePath()));
}

void MainWindow::importServers(int source)
{
    ImportDialog dialog(ImportFormat(source), m_config.document(), this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const QList<std::pair<QString, QJsonObject>> servers = dialog.selectedServers();
    QStringList names;
    for (const auto &[name, entry] : servers)
        names.append(name);
    if (!namesStillFree(names))
        return;
    const ConfigDocument &document = m_config.document();
    QJsonObject root = document.root;
    for (const auto &[name, entry] : servers)
        root = putServer(root, document.serversKey, {}, name, entry);
    saveConfig(root);
}

void MainWindow::connectClient()
{
    ConnectDialog::Setup setup{{m_config.path(), m_config.isEmbedded()},
                               QCoreApplication::applicationDirPath() + u"/tetherctl"_s, {},
                               m_config.document().gateway.http};
    const ToolCatalog exposed = exposedTools(m_manager, m_config.document().gateway.names);
    for (const ExposedTool &tool : exposed.tools())
        setup.toolNames.append(tool.publicName);
    if (m_gateway)
        setup.serveHttp = [this](QString *error) {
            return serveGatewayOverHttp(*m_gateway, m_config, m_config.document().gateway.http.port, error);
        };
    ConnectDialog dialog(setup, this);
    dialog.exec();
}

void MainWindow::setToolOffered(const QString &server, const QString &tool, bool offered)
{
    const ConfigDocument &document = m_config.document();
    saveConfig(setToolHidden(document.root, document.serversKey, server, tool, !offered));
}

void MainWindow::callSelectedTool()
{
    callTool(m_tools->currentTool());
}

void MainWindow::callTool(const QString &publicName)
{
    const auto tool = m_manager.registry().find(publicName);
    if (!tool)
        return;
    auto *dialog = new ToolCallDialog(m_manager, tool->serverName, tool->definition, m_clientSide, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
}

void MainWindow::showAllTools()
{
    if (!m_allToolsDialog) {
        m_allToolsDialog = new AllToolsDialog(this);
        m_allToolsDialog->setObjectName(u"allToolsDialog"_s);
        connect(m_allToolsDialog, &AllToolsDialog::callRequested, this, &MainWindow::callTool);
        connect(m_allToolsDialog, &AllToolsDialog::offeredToggled, this, &MainWindow::setToolOffered);
    }
    m_allToolsDialog->show();
    updateAllTools();
    m_allToolsDialog->raise();
    m_allToolsDialog->activateWindow();
}

void MainWindow::updateAllTools()
{
    // Fed while it is open only: a list of every tool costs nothing while nobody looks.
    if (!m_allToolsDialog || !m_allToolsDialog->isVisible())
        return;
    const ConfigDocument &document = m_config.document();
    QHash<QString, ServerState> states;
    QHash<QString, QStringList> hidden;
    for (const ServerStatus &status : m_manager.statuses()) {
        states.insert(status.name, status.state);
        if (const ServerConfig *config = document.server(status.name); config && !config->hiddenTools.isEmpty())
            hidden.insert(status.name, config->hiddenTools);
    }
    m_allToolsDialog->setTools(m_manager.registry().tools());
    m_allToolsDialog->setServerStates(states);
    m_allToolsDialog->setHiddenTools(hidden);
    m_allToolsDialog->setSwitchable(document.isValid());
}

QString MainWindow::selectedServer() const
{
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    if (current.isValid() && m_table->selectionModel()->isRowSelected(current.row()))
        return current.data(ServerTableModel::NameRole).toString();
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    return rows.isEmpty() ? QString() : rows.first().data(ServerTableModel::NameRole).toString();
}

QStringList MainWindow::selectedServers() const
{
    QStringList names;
    for (const QModelIndex &row : m_table->selectionModel()->selectedRows())
        names.append(row.data(ServerTableModel::NameRole).toString());
    return names;
}

void MainWindow::actOnSelection(bool ServerActions::*applies, void (ServerSource::*action)(const QString &))
{
    for (const QString &name : selectedServers()) {
        const int row = m_model->rowOf(name);
        if (row >= 0 && availableActions(m_model->statusAt(row)).*applies)
            (m_manager.*action)(name);
    }
}

void MainWindow::reconnectAll()
{
    int connected = 0;
    for (const ServerStatus &status : m_manager.statuses())
        connected += status.state == ServerState::Connected;
    if (connected > 0) {
        QMessageBox confirm(QMessageBox::Question, tr("Reconnect all"),
                            (connected == 1 ? tr("Reconnect every running server? The connected one is restarted too")
                                            : tr("Reconnect every running server? The %1 connected ones are restarted too")
                                                  .arg(connected))
                                + tr(", and calls in flight are lost. Retry failed reconnects only the failing ones."),
                            QMessageBox::Cancel, this);
        const QAbstractButton *reconnect = confirm.addButton(tr("Reconnect all"), QMessageBox::DestructiveRole);
        confirm.setDefaultButton(QMessageBox::Cancel);
        confirm.exec();
        if (confirm.clickedButton() != reconnect)
            return;
    }
    m_manager.reconnectAll();
}

void MainWindow::selectServer(const QString &name)
{
    const int row = m_model->rowOf(name);
    if (row < 0)
        return;
    m_table->selectRow(m_proxy->mapFromSource(m_model->index(row, 0)).row());
}

void MainWindow::updateActions()
{
    const QString name = selectedServer();
    const QStringList names = selectedServers();
    QList<ServerStatus> selection;
    for (const QString &each : names) {
        if (const int row = m_model->rowOf(each); row >= 0)
            selection.append(m_model->statusAt(row));
    }
    const ServerActions actions = availableActions(selection);
    m_start->setEnabled(actions.start);
    m_stop->setEnabled(actions.stop);
    m_reconnect->setEnabled(actions.reconnect);
    const bool signsIn = names.size() == 1 && m_signsIn.contains(name) && m_manager.canSignIn(name);
    const SignInInfo::State signIn = signsIn ? m_manager.signInInfo(name).state : SignInInfo::State::NotUsed;
    m_signIn->setEnabled(signsIn && !m_signingIn.contains(name));
    m_signIn->setText(signIn == SignInInfo::State::SignedIn ? tr("Sign &in again…") : tr("Sign &in…"));
    m_signOut->setEnabled(signIn == SignInInfo::State::SignedIn);
    updateFleetActions();
    m_logActions->setServer(name);

    // Edits need a config that loaded; the server must be one of its entries.
    const bool editable = m_config.document().isValid();
    const ServerConfig *config = editable ? m_config.document().server(name) : nullptr;
    m_add->setEnabled(editable);
    m_importMenu->setEnabled(editable);
    m_settings->setEnabled(editable);
    // Edit acts on one server; Remove, Enable and Disable on every selected one.
    m_edit->setEnabled(config && names.size() == 1);
    bool anyEnabled = false;
    bool anyListed = false;
    for (const QString &each : names) {
        if (const ServerConfig *listed = editable ? m_config.document().server(each) : nullptr) {
            anyListed = true;
            anyEnabled |= listed->enabled;
        }
    }
    m_remove->setEnabled(anyListed);
    m_enable->setEnabled(anyListed);
    m_enable->setText(anyListed && !anyEnabled ? tr("&Enable") : tr("&Disable"));
    m_enable->setIcon(anyListed && !anyEnabled ? actionIcon(u"media-playback-start"_s, u"enable"_s)
                                               : actionIcon(u"media-playback-pause"_s, u"disable"_s));
    updateToolsHint();
    m_callTool->setEnabled(!m_tools->currentTool().isEmpty()
                           && m_manager.status(name).value_or(ServerStatus{}).state == ServerState::Connected);
}

void MainWindow::signInSelected()
{
    const QString name = selectedServer();
    if (name.isEmpty() || m_signingIn.contains(name))
        return;
    m_signingIn.insert(name);
    updateActions();
    statusBar()->showMessage(tr("Signing in to %1: finish in the browser").arg(name));
    const QPointer<MainWindow> guard(this);
    const auto opener = [guard, name](const QUrl &url) {
        if (!guard || QDesktopServices::openUrl(url))
            return;
        // No browser to open: the URL to copy into one.
        auto *box = new QMessageBox(QMessageBox::Information, tr("Sign in to %1").arg(name),
                                    tr("Open this address in a browser to sign in to %1:\n\n%2")
                                        .arg(name, url.toString(QUrl::FullyEncoded)),
                                    QMessageBox::Ok, guard);
        box->setTextInteractionFlags(Qt::TextSelectableByMouse);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    };
    m_manager.signIn(name, {}, opener, [guard, name](bool signedIn, const QString &message) {
        if (!guard)
            return;
        guard->m_signingIn.remove(name);
        guard->updateActions();
        guard->updateDetailsText();
        guard->statusBar()->showMessage(message, 15000);
        if (signedIn)
            return;
        auto *box = new QMessageBox(QMessageBox::Warning, tr("Sign-in to %1 failed").arg(name), message,
                                    QMessageBox::Ok, guard);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
}

void MainWindow::signOutSelected()
{
    const QString name = selectedServer();
    if (name.isEmpty())
        return;
    const QPointer<MainWindow> guard(this);
    m_manager.signOut(name, [guard](bool, const QString &message) {
        if (!guard)
            return;
        guard->updateActions();
        guard->updateDetailsText();
        guard->statusBar()->showMessage(message, 15000);
    });
}

void MainWindow::updateFleetActions()
{
    // Reconnect all leaves stopped servers alone: with only those, there is nothing to do.
    bool anyRunning = false;
    bool anyFailing = false;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const ServerStatus &status = m_model->statusAt(row);
        anyRunning |= status.state != ServerState::Stopped && status.state != ServerState::Stopping;
        anyFailing |= needsRetry(status);
    }
    m_reconnectAll->setEnabled(anyRunning);
    m_retryFailed->setEnabled(anyFailing);
}

void MainWindow::updateSummary()
{
    m_summary->setText(summaryText(m_manager.statuses()));
}

void MainWindow::updateWelcome()
{
    m_welcome->showFor(m_config.isEmbedded(), m_config.document().isValid() ? m_config.document().servers.size() : -1);
}

void MainWindow::updateSignsIn(const QString &name)
{
    const std::optional<ServerStatus> status = m_manager.status(name);
    const bool signsIn = status && m_manager.canSignIn(name)
                         && (status->state == ServerState::SignInNeeded
                             || m_manager.signInInfo(name).state != SignInInfo::State::NotUsed);
    if (signsIn)
        m_signsIn.insert(name);
    else
        m_signsIn.remove(name);
    m_signIn->setVisible(!m_signsIn.isEmpty());
    m_signOut->setVisible(!m_signsIn.isEmpty());
}

void MainWindow::updateToolsHint()
{
    const QString name = selectedServer();
    const std::optional<ServerStatus> status = name.isEmpty() ? std::nullopt : m_manager.status(name);
    QString hint;
    if (!status)
        hint = selectedServers().size() > 1 ? tr("Several servers are selected: select one to see its tools.")
                                            : tr("Select a server to see its tools.");
    else if (!status->configErrors.isEmpty())
        hint = tr("%1 cannot start: its entry in the config is not valid (see Details).").arg(name);
    else if (isDisabled(*status))
        hint = tr("%1 is disabled. Enable it to start it and list its tools.").arg(name);
    else
        switch (status->state) {
        case ServerState::Connected: hint = tr("%1 offers no tools.").arg(name); break;
        case ServerState::Stopped:
        case ServerState::Stopping: hint = tr("%1 is stopped. Start it to list its tools.").arg(name); break;
        case ServerState::Starting:
        case ServerState::Retrying:
        case ServerState::Reconnecting: hint = tr("%1 is not connected yet: its tools show once it is.").arg(name); break;
        case ServerState::SignInNeeded: hint = tr("%1 needs you to sign in (Server ▸ Sign in…) before it lists its tools.").arg(name); break;
        case ServerState::Failed:
        case ServerState::Disconnected:
            hint = tr("%1 is not connected: %2").arg(name, ServerTableModel::lastEventText(*status));
            break;
        }
    setEmptyHint(m_tools, hint);
}

void MainWindow::updateDetails()
{
    const QString name = selectedServer();
    const ServerConfig *config = name.isEmpty() ? nullptr : m_config.document().server(name);
    const std::optional<ServerStatus> status = name.isEmpty() ? std::nullopt : m_manager.status(name);
    m_tools->setTools(name.isEmpty() ? QList<RegisteredTool>() : m_manager.registry().serverTools(name));
    m_tools->setHiddenTools(config ? QHash<QString, QStringList>{{name, config->hiddenTools}} : QHash<QString, QStringList>());
    m_tools->setSwitchable(config && m_config.document().isValid());
    if (config)
        m_configView->showConfig(*config, m_config);
    else
        m_configView->clear();
    updateDetailsText();
}

void MainWindow::updateDetailsText()
{
    const QString name = selectedServer();
    const std::optional<ServerStatus> status = name.isEmpty() ? std::nullopt : m_manager.status(name);
    if (!status) {
        m_details->clear();
        return;
    }
    m_details->showStatus(*status, m_resources->resources(name));
    m_details->showSignIn(name, m_manager.signInInfo(name));
    if (!m_gateway)
        return;
    const GatewayServing serving = m_gateway->serving();
    if (serving.state != GatewayServing::State::Off)
        m_details->appendPlainText(tr("Tool calls through the gateway: %1")
                                       .arg(gatewayCallsTo(serving.status, name).value_or(0)));
}

void MainWindow::setGateway(GatewayService *gateway)
{
    m_gateway = gateway;
    m_gatewayIndicator = new QToolButton(this);
    m_gatewayIndicator->setObjectName(u"gatewayIndicator"_s);
    m_gatewayIndicator->setAutoRaise(true);
    m_gatewayIndicator->setIcon(actionIcon(u"network-server"_s, u"gateway"_s));
    m_gatewayIndicator->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_header->insertWidget(1, m_gatewayIndicator);
    connect(m_gatewayIndicator, &QToolButton::clicked, this, &MainWindow::showGateway);
    m_showGateway->setVisible(true);
    connect(m_gateway, &GatewayService::changed, this, [this] {
        updateGatewayIndicator();
        updateDetailsText();
    });
    updateGatewayIndicator();
}

void MainWindow::showGateway()
{
    if (!m_gateway)
        return;
    if (!m_gatewayView)
        m_gatewayView = new GatewayView(*m_gateway, m_config, this);
    m_gatewayView->show();
    m_gatewayView->raise();
    m_gatewayView->activateWindow();
}

void MainWindow::updateGatewayIndicator()
{
    const GatewayServing serving = m_gateway->serving();
    m_gatewayIndicator->setText(gatewayIndicatorText(serving));
    switch (serving.state) {
    case GatewayServing::State::Off:
        m_gatewayIndicator->setToolTip(tr("Tether does not serve its servers' tools to AI clients; "
                                          "click for how to turn it on"));
        break;
    case GatewayServing::State::Relaying:
        m_gatewayIndicator->setToolTip(tr("AI clients that start tetherctl serve use these servers; over HTTP the "
                                          "gateway is off. Click for the hosts connected and how to serve it over HTTP"));
        break;
    case GatewayServing::State::Serving:
        m_gatewayIndicator->setToolTip(tr("AI clients reach these servers' tools at %1; click for the token, "
                                          "the hosts connected and their calls").arg(serving.url));
        break;
    case GatewayServing::State::NotServed:
        m_gatewayIndicator->setToolTip(plainToolTip(serving.error));
        break;
    }
}

void MainWindow::updateLog()
{
    const QString name = selectedServer();
    const QList<ServerEvent> events = name.isEmpty() ? QList<ServerEvent>() : m_manager.eventLog().events(name);
    m_log->setEvents(events);
    m_timeline->setEvents(events);
}

} // namespace Tether
