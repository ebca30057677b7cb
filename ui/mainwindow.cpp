#include "mainwindow.h"

#include "serveractions.h"
#include "servertablemodel.h"

#include <QAction>
#include <QCloseEvent>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QTreeWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Tether {

MainWindow::MainWindow(ServerManager &manager, QWidget *parent)
    : QMainWindow(parent)
    , m_manager(manager)
    , m_model(new ServerTableModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_table(new QTableView(this))
    , m_filter(new QLineEdit(this))
    , m_problem(new QLabel(this))
    , m_tools(new QTreeWidget(this))
    , m_details(new QPlainTextEdit(this))
    , m_summary(new QLabel(this))
{
    setWindowTitle(tr("Tether"));

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ServerTableModel::SortRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(-1);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 10);
    // Fixed widths: sizing to contents would measure every row on every change.
    const QList<std::pair<int, int>> widths{{ServerTableModel::Name, 14}, {ServerTableModel::Transport, 7},
                                            {ServerTableModel::State, 15}, {ServerTableModel::Attempt, 7},
                                            {ServerTableModel::NextRetry, 9}, {ServerTableModel::Tools, 5},
                                            {ServerTableModel::Uptime, 9}, {ServerTableModel::Pid, 7}};
    for (const auto &[column, characters] : widths) {
        const QString header = m_model->headerData(column, Qt::Horizontal).toString();
        m_table->setColumnWidth(column, std::max(m_table->fontMetrics().averageCharWidth() * characters,
                                                 m_table->fontMetrics().horizontalAdvance(header) + 12) + 16);
    }

    m_filter->setPlaceholderText(tr("Filter servers"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);

    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(u"QLabel { color: palette(bright-text); background: #b03a2e; padding: 6px; }"_s);
    m_problem->hide();

    m_tools->setHeaderLabels({tr("Tool"), tr("Public name"), tr("Description")});
    m_tools->setRootIsDecorated(false);
    m_details->setReadOnly(true);
    auto *tabs = new QTabWidget(this);
    tabs->addTab(m_tools, tr("Tools"));
    tabs->addTab(m_details, tr("Details"));

    auto *top = new QWidget(this);
    auto *topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_problem);
    topLayout->addWidget(m_filter);
    topLayout->addWidget(m_table);
    m_splitter = new QSplitter(Qt::Vertical, this);
    m_splitter->addWidget(top);
    m_splitter->addWidget(tabs);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 2);
    setCentralWidget(m_splitter);
    statusBar()->addWidget(m_summary);

    createActions();

    // Snapshots in, actions out.
    // The actions of the selected server follow at once; the table's repaint is batched.
    connect(&m_manager, &ServerManager::statusChanged, this, [this](const ServerStatus &status) {
        m_model->updateStatus(status);
        if (status.name == selectedServer())
            updateActions();
    });
    connect(&m_manager, &ServerManager::stateChanged, this, [this](const ServerStatus &status) {
        m_model->updateStatus(status);
        updateSummary();
        if (status.name == selectedServer()) {
            updateActions();
            updateDetails();
        }
    });
    connect(&m_manager, &ServerManager::serverAdded, this, [this](const QString &name) {
        if (const auto status = m_manager.status(name))
            m_model->updateStatus(*status);
        updateSummary();
    });
    connect(&m_manager, &ServerManager::serverRemoved, this, [this](const QString &name) {
        m_model->removeServer(name);
        updateSummary();
    });
    connect(&m_manager.registry(), &ToolRegistry::toolsChanged, this, &MainWindow::updateDetails);
    connect(&m_manager.registry(), &ToolRegistry::availabilityChanged, this, &MainWindow::updateDetails);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        updateActions();
        updateDetails();
    });
    connect(m_table, &QWidget::customContextMenuRequested, this, [this](const QPoint &position) {
        QMenu menu(this);
        menu.addActions({m_start, m_stop, m_reconnect});
        menu.exec(m_table->viewport()->mapToGlobal(position));
    });

    m_model->setStatuses(m_manager.statuses());
    // The first server is selected, so its tools show at once.
    connect(m_model, &QAbstractItemModel::rowsInserted, this, [this] {
        if (selectedServer().isEmpty() && m_proxy->rowCount() > 0)
            m_table->selectRow(0);
    });
    updateSummary();
    updateActions();
    resize(1000, 620);
    QSettings settings = windowSettings();
    restoreGeometry(settings.value(u"geometry"_s).toByteArray());
    m_splitter->restoreState(settings.value(u"splitter"_s).toByteArray());
    m_table->horizontalHeader()->restoreState(settings.value(u"columns"_s).toByteArray());
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
    settings.setValue(u"columns"_s, m_table->horizontalHeader()->saveState());
    QMainWindow::closeEvent(event);
}

void MainWindow::createActions()
{
    auto *toolbar = addToolBar(tr("Servers"));
    toolbar->setObjectName(u"servers"_s);
    m_start = toolbar->addAction(tr("Start"), this, [this] { m_manager.start(selectedServer()); });
    m_start->setShortcut(QKeySequence(u"Ctrl+R"_s));
    m_stop = toolbar->addAction(tr("Stop"), this, [this] { m_manager.stop(selectedServer()); });
    m_stop->setShortcut(QKeySequence(u"Ctrl+."_s));
    m_reconnect = toolbar->addAction(tr("Reconnect"), this, [this] { m_manager.reconnect(selectedServer()); });
    m_reconnect->setShortcut(QKeySequence(u"F5"_s));
    toolbar->addSeparator();
    m_reconnectAll = toolbar->addAction(tr("Reconnect all"), this, [this] { m_manager.reconnectAll(); });
    m_reconnectAll->setShortcut(QKeySequence(u"Shift+F5"_s));
    for (QAction *action : {m_start, m_stop, m_reconnect, m_reconnectAll})
        action->setToolTip(action->text() + u" ("_s + action->shortcut().toString(QKeySequence::NativeText) + u')');
}

QString MainWindow::selectedServer() const
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    return rows.isEmpty() ? QString() : rows.first().data(ServerTableModel::NameRole).toString();
}

void MainWindow::selectServer(const QString &name)
{
    const int row = m_model->rowOf(name);
    if (row < 0)
        return;
    m_table->selectRow(m_proxy->mapFromSource(m_model->index(row, 0)).row());
}

void MainWindow::setConfigProblem(const QString &problem)
{
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
}

void MainWindow::updateActions()
{
    const QString name = selectedServer();
    const int row = m_model->rowOf(name);
    const ServerActions actions = row < 0 ? ServerActions{} : availableActions(m_model->statusAt(row));
    m_start->setEnabled(actions.start);
    m_stop->setEnabled(actions.stop);
    m_reconnect->setEnabled(actions.reconnect);
    m_reconnectAll->setEnabled(m_model->rowCount() > 0);
}

void MainWindow::updateSummary()
{
    m_summary->setText(summaryText(m_manager.statuses()));
}

void MainWindow::updateDetails()
{
    const QString name = selectedServer();
    m_tools->clear();
    m_details->clear();
    if (name.isEmpty())
        return;
    for (const RegisteredTool &tool : m_manager.registry().serverTools(name)) {
        auto *item = new QTreeWidgetItem(m_tools, {tool.definition.name, tool.publicName,
                                                   tool.definition.description.section(u'\n', 0, 0)});
        item->setToolTip(2, tool.definition.description);
        if (!tool.available) {
            for (int column = 0; column < 3; ++column)
                item->setForeground(column, palette().brush(QPalette::Disabled, QPalette::Text));
            item->setToolTip(0, tr("Unavailable while the server reconnects"));
        }
    }
    const auto status = m_manager.status(name);
    if (!status)
        return;
    QStringList lines{tr("Server: %1").arg(status->name), tr("Transport: %1").arg(status->transport),
                      tr("State: %1 — %2").arg(stateName(status->state), status->reason)};
    for (const QString &error : status->configErrors)
        lines.append(tr("Configuration: %1").arg(error));
    if (!status->lastError.isEmpty())
        lines.append(tr("Last error: %1").arg(status->lastError));
    if (status->lastExitCode)
        lines.append(tr("Last exit code: %1").arg(*status->lastExitCode));
    if (status->lastExitSignal)
        lines.append(tr("Last exit signal: %1").arg(signalName(*status->lastExitSignal)));
    if (!status->lastStderrTail.isEmpty())
        lines.append(tr("Last stderr lines of the ended process:\n%1").arg(status->lastStderrTail.mid(std::max<qsizetype>(0, status->lastStderrTail.size() - 20)).join(u'\n')));
    m_details->setPlainText(lines.join(u'\n'));
}

} // namespace Tether
