#include "toollistview.h"

#include "columnwidth.h"
#include "toollistmodel.h"

#include <QHeaderView>
#include <QStyle>

#include <algorithm>
#include <tuple>
#include <vector>

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
    widenToolNameColumns(this, tools);
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

void widenToolNameColumns(QTreeView *view, const QList<RegisteredTool> &tools)
{
    static constexpr qsizetype Measured = 16;
    // Pointers into `tools`, not copies: the scan of a long list stays a scan.
    const auto longest = [&tools](auto nameOf) {
        std::vector<const QString *> names;
        names.reserve(tools.size());
        for (const RegisteredTool &tool : tools)
            names.push_back(&nameOf(tool));
        const auto measured = names.begin() + std::min<qsizetype>(Measured, qsizetype(names.size()));
        std::partial_sort(names.begin(), measured, names.end(),
                          [](const QString *a, const QString *b) { return a->size() > b->size(); });
        QStringList texts;
        for (auto name = names.begin(); name != measured; ++name)
            texts.append(**name);
        return texts;
    };
    const QStyle *style = view->style();
    const QFontMetrics metrics = view->fontMetrics();
    // The name column also holds the check box of whether the gateway offers the tool.
    const int checkBox = style->pixelMetric(QStyle::PM_IndicatorWidth) + style->pixelMetric(QStyle::PM_CheckBoxLabelSpacing);
    const int margins = 2 * style->pixelMetric(QStyle::PM_FocusFrameHMargin) + metrics.averageCharWidth() * 2;
    for (const auto &[column, texts, extra] :
         {std::tuple{int(ToolListModel::Name), longest([](const RegisteredTool &tool) -> const QString & { return tool.definition.name; }),
                     checkBox + margins},
          std::tuple{int(ToolListModel::PublicName), longest([](const RegisteredTool &tool) -> const QString & { return tool.publicName; }),
                     margins}}) {
        const int wanted = columnWidthFor(metrics, view->header()->sectionSizeHint(column), texts, extra, 48);
        if (wanted > view->columnWidth(column))
            view->setColumnWidth(column, wanted);
    }
}

} // namespace Tether
