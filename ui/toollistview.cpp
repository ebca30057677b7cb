#include "toollistview.h"

#include "toollistmodel.h"

namespace Tether {

ToolListView::ToolListView(QWidget *parent)
    : QTreeView(parent)
    , m_model(new ToolListModel(this))
{
    setModel(m_model);
    setRootIsDecorated(false);
    setItemsExpandable(false);
    setUniformRowHeights(true); // one line a row: the view need not measure every row of a long list
    setAllColumnsShowFocus(true);
    for (const auto &[column, characters] : {std::pair{ToolListModel::Name, 14}, {ToolListModel::PublicName, 22},
                                             {ToolListModel::Description, 48}, {ToolListModel::Parameters, 30}})
        setColumnWidth(column, fontMetrics().averageCharWidth() * characters);
    // One server's tools: its name and state are the window's selection.
    hideColumn(ToolListModel::Server);
    hideColumn(ToolListModel::State);
    connect(selectionModel(), &QItemSelectionModel::currentChanged, this, &ToolListView::currentToolChanged);
    connect(m_model, &ToolListModel::offeredToggled, this, &ToolListView::offeredToggled);
}

ToolListView::~ToolListView() = default;

void ToolListView::setTools(const QList<RegisteredTool> &tools)
{
    // The window asks again on every status change of the server; the same list stays as it is.
    if (tools == m_model->tools())
        return;
    const QString picked = currentTool();
    const int pickedRow = currentIndex().row();
    m_model->setTools(tools); // one reset, not a row per tool
    // Names readable whole: widened to the longest (Qt measures at most 1000 rows), to a limit.
    for (int column : {int(ToolListModel::Name), int(ToolListModel::PublicName)}) {
        const int needed = std::min(sizeHintForColumn(column), fontMetrics().averageCharWidth() * 48);
        if (needed > columnWidth(column))
            setColumnWidth(column, needed);
    }
    if (picked.isEmpty())
        return;
    if (const int row = m_model->rowOf(picked, pickedRow); row >= 0)
        setCurrentIndex(m_model->index(row, 0));
    else
        emit currentToolChanged(); // gone with the old list
}

void ToolListView::setHiddenTools(const QHash<QString, QStringList> &hiddenByServer)
{
    m_model->setHiddenTools(hiddenByServer);
}

void ToolListView::setSwitchable(bool switchable)
{
    m_model->setSwitchable(switchable);
}

QString ToolListView::currentTool() const
{
    return currentIndex().data(ToolListModel::PublicNameRole).toString();
}

} // namespace Tether
