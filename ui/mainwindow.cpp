#include "mainwindow.h"

#include "healthstripdelegate.h"
#include "importdialog.h"
#include "messagelabel.h"
#include "serveractions.h"
#include "servertablemodel.h"
#include "serverdialog.h"
#include "settingsdialog.h"
#include "stateicons.h"
#include "toolcalldialog.h"

#include "common/displaytext.h"
#include "common/jsontext.h"
#include "config/configedit.h"
#include "config/configimport.h"

#include <QAction>
#include <QDesktopServices>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QComboBox>
#include <QHBoxLayout>
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
#include <QUrl>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Tether {

// "message: string, count?: integer, style?: plain|fancy": a tool's parameters at a glance,
// required ones first; optional ones carry a question mark.
static QString parameterSummary(const QJsonObject &inputSchema)
{
    QStringList parts;
    for (const ToolParameter &parameter : toolParameters(inputSchema)) {
        QString type = parameter.schema.value(u"type"_s).toString(u"any"_s);
        if (const QJsonArray choices = parameter.schema.value(u"enum"_s).toArray(); !choices.isEmpty()) {
            QStringList values;
            for (const QJsonValue &choice : choices)
                values.append(fieldText(choice));
            type = values.join(u'|');
        }
        parts.append(parameter.name + (parameter.required ? u""_s : u"?"_s) + u": "_s + type);
    }
    return parts.join(u", "_s);
}

// "read-only, idempotent": the hints a tool's annotations give.
static QString annotationSummary(const QJsonObject &annotations)
{
    const QList<std::pair<QString, QString>> hints{{u"readOnlyHint"_s, MainWindow::tr("read-only")},
                                                   {u"destructiveHint"_s, MainWindow::tr("destructive")},
                                                   {u"idempotentHint"_s, MainWindow::tr("idempotent")},
                                                   {u"openWorldHint"_s, MainWindow::tr("open world")}};
    QStringList parts;
    for (const auto &[key, text] : hints) {
        if (annotations.value(key).toBool())
            parts.append(text);
    }
    return parts.join(u", "_s);
}

MainWindow::MainWindow(ServerManager &manager, ConfigStore &config, QWidget *parent)
    : QMainWindow(parent)
    , m_manager(manager)
    , m_config(config)
    , m_model(new ServerTableModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_table(new QTableView(this))
    , m_filter(new QLineEdit(this))
    , m_problem(new QLabel(this))
    , m_tools(new QTreeWidget(this))
    , m_details(new QPlainTextEdit(this))
    , m_configView(new QPlainTextEdit(this))
    , m_log(new QPlainTextEdit(this))
    , m_logLevel(new QComboBox(this))
    , m_logSearch(new QLineEdit(this))
    , m_timeline(new QTreeWidget(this))
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
    m_table->setItemDelegateForColumn(ServerTableModel::Health, new HealthStripDelegate(m_table));
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 10);
    // Fixed widths: sizing to contents would measure every row on every change.
    const QList<std::pair<int, int>> widths{{ServerTableModel::Name, 14}, {ServerTableModel::Transport, 7},
                                            {ServerTableModel::State, 15}, {ServerTableModel::Health, 16},
                                            {ServerTableModel::Attempt, 7},
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

    makeErrorBanner(m_problem);
    m_problem->hide();

    m_tools->setHeaderLabels({tr("Tool"), tr("Public name"), tr("Description"), tr("Parameters"), tr("Annotations")});
    m_tools->setRootIsDecorated(false);
    for (const auto &[column, characters] : {std::pair{0, 14}, {1, 22}, {2, 48}, {3, 30}})
        m_tools->setColumnWidth(column, m_tools->fontMetrics().averageCharWidth() * characters);
    m_tools->setContextMenuPolicy(Qt::CustomContextMenu);
    m_details->setReadOnly(true);
    m_configView->setReadOnly(true);
    m_configView->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(EventLog::DefaultCapPerServer); // as many as the event log keeps
    m_log->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_logLevel->addItems({tr("Everything"), tr("Warnings and errors"), tr("State changes"), tr("Server stderr"),
                          tr("Server log messages"), tr("Config changes")});
    m_logSearch->setPlaceholderText(tr("Search the log"));
    m_logSearch->setClearButtonEnabled(true);
    connect(m_logLevel, &QComboBox::currentIndexChanged, this, &MainWindow::updateLog);
    connect(m_logSearch, &QLineEdit::textChanged, this, &MainWindow::updateLog);
    auto *logPage = new QWidget(this);
    auto *logLayout = new QVBoxLayout(logPage);
    logLayout->setContentsMargins(0, 0, 0, 0);
    auto *logBar = new QHBoxLayout;
    logBar->addWidget(m_logLevel);
    logBar->addWidget(m_logSearch, 1);
    logLayout->addLayout(logBar);
    logLayout->addWidget(m_log);

    m_timeline->setHeaderLabels({tr("Time"), tr("State"), tr("Attempt"), tr("Exit"), tr("Reason")});
    m_timeline->setRootIsDecorated(false);

    auto *tabs = new QTabWidget(this);
    tabs->addTab(m_tools, tr("Tools"));
    tabs->addTab(logPage, tr("Log"));
    tabs->addTab(m_timeline, tr("Timeline"));
    tabs->addTab(m_details, tr("Details"));
    tabs->addTab(m_configView, tr("Config"));
    connect(&m_manager.eventLog(), &EventLog::appended, this, &MainWindow::appendEvent);

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
        updateReconnectAll();
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
    connect(&m_manager.registry(), &ToolRegistry::toolsChanged, this, [this](const ToolChange &change) {
        if (change.serverName == selectedServer())
            updateDetails();
    });
    connect(&m_manager.registry(), &ToolRegistry::availabilityChanged, this, [this](const QString &server) {
        if (server == selectedServer())
            updateDetails();
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        updateActions();
        updateDetails();
        updateLog();
    });
    connect(m_table, &QWidget::customContextMenuRequested, this, [this](const QPoint &position) {
        QMenu menu(this);
        menu.addActions({m_start, m_stop, m_reconnect});
        menu.addSeparator();
        menu.addActions({m_edit, m_enable, m_settings, m_remove});
        menu.exec(m_table->viewport()->mapToGlobal(position));
    });
    connect(m_table, &QAbstractItemView::doubleClicked, this, [this] {
        if (m_edit->isEnabled())
            editServer();
    });
    connect(m_tools, &QWidget::customContextMenuRequested, this, [this](const QPoint &position) {
        QMenu menu(this);
        menu.addAction(m_callTool);
        menu.exec(m_tools->viewport()->mapToGlobal(position));
    });
    connect(m_tools, &QTreeWidget::itemDoubleClicked, this, [this] {
        if (m_callTool->isEnabled())
            callSelectedTool();
    });
    connect(m_tools, &QTreeWidget::currentItemChanged, this, &MainWindow::updateActions);
    connect(&m_config, &ConfigStore::problemChanged, this, [this](const QString &problem) {
        setConfigProblem(problem);
        updateActions(); // edits need a config that loaded
    });
    connect(&m_config, &ConfigStore::documentChanged, this, [this] {
        updateActions();
        updateDetails();
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
    m_reconnectAll = toolbar->addAction(tr("Reconnect all"), this, [this] { m_manager.reconnectAll(); });
    m_reconnectAll->setShortcut(QKeySequence(u"Shift+F5"_s));
    toolbar->addSeparator();
    m_add = toolbar->addAction(tr("Add…"), this, &MainWindow::addServer);
    m_add->setShortcut(QKeySequence::New);
    m_edit = toolbar->addAction(tr("Edit…"), this, &MainWindow::editServer);
    m_edit->setShortcut(QKeySequence(u"Ctrl+E"_s));
    m_enable = toolbar->addAction(tr("Disable"), this, &MainWindow::toggleEnabled);
    m_enable->setShortcut(QKeySequence(u"Ctrl+D"_s));
    m_remove = toolbar->addAction(tr("Remove…"), this, &MainWindow::removeServer);
    m_remove->setShortcut(QKeySequence::Delete);
    toolbar->addSeparator();
    m_settings = toolbar->addAction(tr("Reconnect policy…"), this, &MainWindow::editSettings);
    m_settings->setShortcut(QKeySequence(u"Ctrl+,"_s));
    m_openConfig = new QAction(tr("Open config file"), this);
    m_openConfig->setShortcut(QKeySequence::Open);
    connect(m_openConfig, &QAction::triggered, this, &MainWindow::openConfigFile);
    m_callTool = new QAction(tr("Call tool…"), this);
    m_callTool->setShortcut(QKeySequence(u"Ctrl+T"_s));
    connect(m_callTool, &QAction::triggered, this, &MainWindow::callSelectedTool);
    // Shortcuts work whether or not the action sits in a visible menu or toolbar.
    addActions({m_openConfig, m_callTool});
    for (QAction *action : {m_start, m_stop, m_reconnect, m_reconnectAll, m_add, m_edit, m_enable, m_remove, m_settings})
        action->setToolTip(action->text().remove(u'…') + u" ("_s + action->shortcut().toString(QKeySequence::NativeText) + u')');
    createMenus();
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openConfig);
    m_importMenu = file->addMenu(tr("Import servers from"));
    const QList<std::pair<ImportFormat, QString>> sources{{ImportFormat::ClaudeDesktop, tr("Claude Desktop…")},
                                                          {ImportFormat::Cursor, tr("Cursor…")},
                                                          {ImportFormat::VsCode, tr("VS Code…")}};
    for (const auto &[format, label] : sources)
        m_importMenu->addAction(label, this, [this, format] { importServers(int(format)); });
    file->addSeparator();
    file->addAction(tr("Close window"), QKeySequence::Close, this, &QWidget::close);
    file->addAction(tr("Quit"), QKeySequence::Quit, this, &MainWindow::quitRequested);

    QMenu *server = menuBar()->addMenu(tr("&Server"));
    server->addActions({m_start, m_stop, m_reconnect, m_reconnectAll});
    server->addSeparator();
    server->addActions({m_add, m_edit, m_enable, m_remove});
    server->addSeparator();
    server->addActions({m_callTool, m_settings});
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

void MainWindow::removeServer()
{
    const QString name = selectedServer();
    if (!m_config.document().server(name))
        return;
    QMessageBox confirm(QMessageBox::Question, tr("Remove server"),
                        tr("Remove the server '%1'? It is stopped and its entry is deleted from %2.")
                            .arg(name, m_config.savePath()),
                        QMessageBox::Cancel, this);
    const QAbstractButton *remove = confirm.addButton(tr("Remove"), QMessageBox::DestructiveRole);
    confirm.setDefaultButton(QMessageBox::Cancel);
    confirm.exec();
    if (confirm.clickedButton() != remove)
        return;
    const ConfigDocument &document = m_config.document();
    saveConfig(Tether::removeServer(document.root, document.serversKey, name));
}

void MainWindow::toggleEnabled()
{
    const QString name = selectedServer();
    const ServerConfig *config = m_config.document().server(name);
    if (!config)
        return;
    const ConfigDocument &document = m_config.document();
    saveConfig(setServerEnabled(document.root, document.serversKey, name, !config->enabled));
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

void MainWindow::callSelectedTool()
{
    const QString server = selectedServer();
    const QTreeWidgetItem *item = m_tools->currentItem();
    if (!item)
        return;
    const auto tool = m_manager.registry().find(item->data(0, Qt::UserRole).toString());
    if (!tool)
        return;
    auto *dialog = new ToolCallDialog(m_manager, server, tool->definition, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
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
    showMessage(m_problem, problem);
}

void MainWindow::updateActions()
{
    const QString name = selectedServer();
    const int row = m_model->rowOf(name);
    const ServerActions actions = row < 0 ? ServerActions{} : availableActions(m_model->statusAt(row));
    m_start->setEnabled(actions.start);
    m_stop->setEnabled(actions.stop);
    m_reconnect->setEnabled(actions.reconnect);
    updateReconnectAll();

    // Edits need a config that loaded; the server must be one of its entries.
    const bool editable = m_config.document().isValid();
    const ServerConfig *config = editable ? m_config.document().server(name) : nullptr;
    m_add->setEnabled(editable);
    m_importMenu->setEnabled(editable);
    m_settings->setEnabled(editable);
    // A disabled server does not start: Enable is the way.
    if (config && !config->enabled)
        m_start->setEnabled(false);
    m_edit->setEnabled(config != nullptr);
    m_remove->setEnabled(config != nullptr);
    m_enable->setEnabled(config != nullptr);
    m_enable->setText(config && !config->enabled ? tr("Enable") : tr("Disable"));
    m_callTool->setEnabled(m_tools->currentItem() != nullptr
                           && m_manager.status(name).value_or(ServerStatus{}).state == ServerState::Connected);
}

void MainWindow::updateReconnectAll()
{
    // Reconnect all leaves stopped servers alone: with only those, there is nothing to do.
    bool anyRunning = false;
    for (int row = 0; row < m_model->rowCount() && !anyRunning; ++row) {
        const ServerState state = m_model->statusAt(row).state;
        anyRunning = state != ServerState::Stopped && state != ServerState::Stopping;
    }
    m_reconnectAll->setEnabled(anyRunning);
}

void MainWindow::updateSummary()
{
    m_summary->setText(summaryText(m_manager.statuses()));
}

void MainWindow::updateDetails()
{
    const QString name = selectedServer();
    // The tool the user picked stays picked when the list is rebuilt.
    const QString currentTool = m_tools->currentItem() ? m_tools->currentItem()->data(0, Qt::UserRole).toString() : QString();
    m_tools->clear();
    m_details->clear();
    m_configView->clear();
    if (name.isEmpty())
        return;
    for (const RegisteredTool &tool : m_manager.registry().serverTools(name)) {
        const QJsonObject annotations = tool.definition.raw().value(u"annotations"_s).toObject();
        auto *item = new QTreeWidgetItem(m_tools, {tool.definition.name, tool.publicName,
                                                   tool.definition.description.section(u'\n', 0, 0),
                                                   parameterSummary(tool.definition.inputSchema()),
                                                   annotationSummary(annotations)});
        item->setData(0, Qt::UserRole, tool.publicName);
        if (tool.publicName == currentTool)
            m_tools->setCurrentItem(item);
        item->setToolTip(2, plainToolTip(tool.definition.description));
        item->setToolTip(3, plainToolTip(jsonText(tool.definition.inputSchema(), QJsonDocument::Indented)));
        if (!annotations.isEmpty())
            item->setToolTip(4, plainToolTip(jsonText(annotations, QJsonDocument::Indented)));
        if (!tool.available) {
            for (int column = 0; column < m_tools->columnCount(); ++column)
                item->setForeground(column, palette().brush(QPalette::Disabled, QPalette::Text));
            item->setToolTip(0, tr("Unavailable while the server reconnects"));
        }
    }
    if (const ServerConfig *config = m_config.document().server(name)) {
        m_configView->setPlainText(tr("From %1\n\n%2").arg(m_config.path(), jsonText(config->redacted(), QJsonDocument::Indented)));
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

bool MainWindow::passesLogFilter(const ServerEvent &event) const
{
    switch (m_logLevel->currentIndex()) {
    case 1: // warnings and errors
        if (event.kind == ServerEvent::Kind::StateChange) {
            const ServerState state = event.status.state;
            if (state == ServerState::Connected || state == ServerState::Starting || state == ServerState::Stopped
                || state == ServerState::Stopping)
                return false;
        } else if (!QStringList{u"warning"_s, u"error"_s, u"critical"_s, u"alert"_s, u"emergency"_s}.contains(event.level)) {
            return false;
        }
        break;
    case 2: if (event.kind != ServerEvent::Kind::StateChange) return false; break;
    case 3: if (event.kind != ServerEvent::Kind::Stderr) return false; break;
    case 4: if (event.kind != ServerEvent::Kind::ServerLog) return false; break;
    case 5: if (event.kind != ServerEvent::Kind::ConfigChange) return false; break;
    default: break;
    }
    const QString search = m_logSearch->text();
    return search.isEmpty() || event.text.contains(search, Qt::CaseInsensitive);
}

static QString logLine(const ServerEvent &event)
{
    const QString time = event.time.toLocalTime().toString(u"HH:mm:ss.zzz"_s);
    switch (event.kind) {
    case ServerEvent::Kind::StateChange:
        return u"%1  %2  %3"_s.arg(time, stateName(event.status.state), event.text);
    case ServerEvent::Kind::Stderr:
        return u"%1  stderr  %2"_s.arg(time, event.text);
    case ServerEvent::Kind::ServerLog:
        return u"%1  %2  %3"_s.arg(time, event.level, event.text);
    case ServerEvent::Kind::ConfigChange:
        return u"%1  config  %2"_s.arg(time, event.text);
    }
    return {};
}

static QTreeWidgetItem *timelineItem(const ServerEvent &event)
{
    const ServerStatus &status = event.status;
    QString exit;
    if (status.state == ServerState::Retrying || status.state == ServerState::Reconnecting
        || status.state == ServerState::Failed || status.state == ServerState::Disconnected) {
        if (status.lastExitSignal)
            exit = signalName(*status.lastExitSignal);
        else if (status.lastExitCode)
            exit = QString::number(*status.lastExitCode);
    }
    auto *item = new QTreeWidgetItem({event.time.toLocalTime().toString(u"HH:mm:ss.zzz"_s), stateName(status.state),
                                      status.attempt > 0 ? u"%1/%2"_s.arg(status.attempt).arg(status.maxAttempts) : QString(),
                                      exit, event.text});
    item->setIcon(1, stateIcon(status.state));
    if (!exit.isEmpty() && !status.lastStderrTail.isEmpty())
        item->setToolTip(4, plainToolTip(status.lastStderrTail.mid(std::max<qsizetype>(0, status.lastStderrTail.size() - 15)).join(u'\n')));
    return item;
}

void MainWindow::updateLog()
{
    m_log->clear();
    m_timeline->clear();
    const QString name = selectedServer();
    if (name.isEmpty())
        return;
    QStringList lines;
    for (const ServerEvent &event : m_manager.eventLog().events(name)) {
        if (passesLogFilter(event))
            lines.append(logLine(event));
        if (event.kind == ServerEvent::Kind::StateChange)
            m_timeline->addTopLevelItem(timelineItem(event));
    }
    m_log->setPlainText(lines.join(u'\n'));
    m_log->moveCursor(QTextCursor::End);
}

void MainWindow::appendEvent(const ServerEvent &event)
{
    if (event.server != selectedServer())
        return;
    if (passesLogFilter(event))
        m_log->appendPlainText(logLine(event));
    if (event.kind == ServerEvent::Kind::StateChange) {
        m_timeline->addTopLevelItem(timelineItem(event));
        // Bounded like the log, however long a flapping server stays selected.
        while (m_timeline->topLevelItemCount() > EventLog::DefaultCapPerServer)
            delete m_timeline->takeTopLevelItem(0);
    }
}

} // namespace Tether
