#include "alltoolsdialog.h"

#include "toollistmodel.h"
#include "toollistview.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QStyle>
#include <QTreeView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Tether {

AllToolsDialog::AllToolsDialog(QWidget *parent)
    : QDialog(parent)
    , m_model(new ToolListModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_search(new QLineEdit(this))
    , m_view(new QTreeView(this))
    , m_count(new QLabel(this))
    , m_call(new QPushButton(tr("&Call…"), this))
{
    setWindowTitle(tr("All tools"));
    m_proxy->setSourceModel(m_model);
    m_proxy->setFilterKeyColumn(-1); // a word of any column: name, server, state, description…
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setSortCaseSensitivity(Qt::CaseInsensitive);

    m_search->setObjectName(u"toolSearch"_s);
    m_search->setPlaceholderText(tr("Search tools, servers and descriptions"));
    m_search->setClearButtonEnabled(true);
    m_search->setAccessibleName(tr("Search tools"));
    m_view->setObjectName(u"allTools"_s);
    m_view->setAccessibleName(tr("Every server's tools"));
    m_view->setModel(m_proxy);
    m_view->setRootIsDecorated(false);
    m_view->setItemsExpandable(false);
    m_view->setUniformRowHeights(true);
    m_view->setAllColumnsShowFocus(true);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(ToolListModel::PublicName, Qt::AscendingOrder);
    // Tool, Server, State first: what a person scans for.
    QHeaderView *header = m_view->header();
    header->moveSection(header->visualIndex(ToolListModel::Server), 1);
    header->moveSection(header->visualIndex(ToolListModel::State), 2);
    const int character = fontMetrics().averageCharWidth();
    for (const auto &[column, characters] :
         {std::pair{ToolListModel::Name, 18}, {ToolListModel::Server, 14}, {ToolListModel::State, 12},
          {ToolListModel::PublicName, 24}, {ToolListModel::Description, 48}, {ToolListModel::Parameters, 30}})
        m_view->setColumnWidth(column, character * characters);
    m_count->setObjectName(u"toolCount"_s);
    m_call->setObjectName(u"callTool"_s);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_call, QDialogButtonBox::ActionRole);
    auto *top = new QHBoxLayout;
    top->addWidget(m_search, 1);
    top->addWidget(m_count);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);
    layout->addWidget(buttons);
    resize(character * 150, fontMetrics().height() * 32);

    connect(m_search, &QLineEdit::textChanged, this, [this](const QString &text) {
        m_proxy->setFilterFixedString(text.trimmed());
        updateCount();
    });
    connect(m_model, &ToolListModel::offeredToggled, this, &AllToolsDialog::offeredToggled);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &AllToolsDialog::updateCallButton);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &AllToolsDialog::updateCallButton);
    connect(m_view, &QTreeView::doubleClicked, this, &AllToolsDialog::requestCall);
    connect(m_call, &QPushButton::clicked, this, &AllToolsDialog::requestCall);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    // It stays open beside the main window, as a window of its own: Ctrl+W closes it too.
    connect(new QShortcut(QKeySequence::Close, this), &QShortcut::activated, this, &QDialog::reject);
    updateCount();
    updateCallButton();
}

void AllToolsDialog::setTools(const QList<RegisteredTool> &tools)
{
    if (tools == m_model->tools())
        return;
    const QString picked = currentTool();
    m_model->setTools(tools);
    if (const int row = picked.isEmpty() ? -1 : m_model->rowOf(picked); row >= 0)
        m_view->setCurrentIndex(m_proxy->mapFromSource(m_model->index(row, ToolListModel::Name)));
    widenToolNameColumns(m_view, tools);
    updateCount();
    updateCallButton();
}

void AllToolsDialog::setServerStates(const QHash<QString, ServerState> &states)
{
    m_model->setServerStates(states);
}

void AllToolsDialog::setHiddenTools(const QHash<QString, QStringList> &hiddenByServer)
{
    m_model->setHiddenTools(hiddenByServer);
}

void AllToolsDialog::setSwitchable(bool switchable)
{
    m_model->setSwitchable(switchable);
}

QString AllToolsDialog::currentTool() const
{
    return m_view->currentIndex().data(ToolListModel::PublicNameRole).toString();
}

void AllToolsDialog::updateCount()
{
    const int all = m_model->rowCount();
    const int shown = m_proxy->rowCount();
    const QString tools = all == 1 ? tr("1 tool") : tr("%1 tools").arg(all);
    m_count->setText(shown == all ? tools : tr("%1 of %2").arg(shown).arg(tools));
}

void AllToolsDialog::updateCallButton()
{
    const QModelIndex current = m_proxy->mapToSource(m_view->currentIndex());
    const bool callable = current.isValid() && m_model->isCallable(current.row());
    m_call->setEnabled(callable);
    m_call->setToolTip(current.isValid() && !callable ? tr("Its server is not connected") : QString());
}

void AllToolsDialog::requestCall()
{
    const QModelIndex current = m_proxy->mapToSource(m_view->currentIndex());
    if (current.isValid() && m_model->isCallable(current.row()))
        emit callRequested(m_model->tools().at(current.row()).publicName);
}

} // namespace Tether
