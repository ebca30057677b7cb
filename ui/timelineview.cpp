#include "timelineview.h"

#include "eventlogview.h"
#include "messagelabel.h"
#include "stateicons.h"

#include "common/displaytext.h"
#include "manager/eventlog.h"

#include <QApplication>
#include <QFontDatabase>
#include <QHeaderView>
#include <QScrollBar>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

constexpr int SeverityRole = Qt::UserRole;

void colourRow(QTreeWidgetItem *item, const QPalette &palette)
{
    const QColor colour = logSeverityColour(LogSeverity(item->data(0, SeverityRole).toInt()), palette);
    for (int column = 0; column < item->columnCount(); ++column)
        item->setData(column, Qt::ForegroundRole, colour.isValid() ? QVariant(colour) : QVariant());
}

QTreeWidgetItem *timelineItem(const ServerEvent &event, const QPalette &palette)
{
    const ServerStatus &status = event.status;
    QString exit;
    // Only the exit of the process whose end this row reports: a failure found while the process
    // still ran (a heartbeat, say) is published before its exit is known.
    const bool endedProcess = status.lastExitGeneration != 0 && status.lastExitGeneration == status.generation;
    if (endedProcess && (status.state == ServerState::Retrying || status.state == ServerState::Reconnecting
                         || status.state == ServerState::Failed || status.state == ServerState::Disconnected)) {
        if (status.lastExitSignal)
            exit = signalName(*status.lastExitSignal);
        else if (status.lastExitCode)
            exit = QString::number(*status.lastExitCode);
    }
    auto *item = new QTreeWidgetItem({event.time.toLocalTime().toString(u"HH:mm:ss.zzz"_s), stateName(status.state),
                                      status.attempt > 0 ? u"%1/%2"_s.arg(status.attempt).arg(status.maxAttempts) : QString(),
                                      exit, event.text});
    item->setIcon(1, stateIcon(status.state));
    item->setData(0, SeverityRole, int(logSeverity(event)));
    colourRow(item, palette);
    if (!exit.isEmpty() && !status.lastStderrTail.isEmpty())
        item->setToolTip(4, plainToolTip(status.lastStderrTail.mid(std::max<qsizetype>(0, status.lastStderrTail.size() - 15)).join(u'\n')));
    return item;
}

} // namespace

TimelineView::TimelineView(QWidget *parent)
    : QTreeWidget(parent)
{
    setHeaderLabels({tr("Time"), tr("State"), tr("Attempt"), tr("Exit"), tr("Reason")});
    setRootIsDecorated(false);
    setUniformRowHeights(true);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    header()->setFont(QApplication::font(header())); // the rows line up; the header reads as the window's
    setColumnWidth(0, fontMetrics().horizontalAdvance(u"00:00:00.000   "_s)); // the time whole, at any font size
    connect(verticalScrollBar(), &QScrollBar::valueChanged, this, &TimelineView::scrolled);
    // More rows, or fewer in view: one who follows stays at the bottom.
    connect(verticalScrollBar(), &QScrollBar::rangeChanged, this, [this](int, int maximum) {
        if (m_following)
            verticalScrollBar()->setValue(maximum);
    });
}

void TimelineView::setEvents(const QList<ServerEvent> &events)
{
    clear();
    QList<QTreeWidgetItem *> items;
    for (const ServerEvent &event : events) {
        if (event.kind == ServerEvent::Kind::StateChange)
            items.append(timelineItem(event, palette()));
    }
    addTopLevelItems(items);
    m_following = true;
    scrollToBottom();
}

void TimelineView::appendEvent(const ServerEvent &event)
{
    if (event.kind != ServerEvent::Kind::StateChange)
        return;
    addTopLevelItem(timelineItem(event, palette()));
    // Bounded like the log, however long a flapping server stays shown.
    int removed = 0;
    for (; topLevelItemCount() > EventLog::DefaultCapPerServer; ++removed)
        delete takeTopLevelItem(0);
    if (m_following)
        scrollToBottom();
    else if (removed > 0)
        verticalScrollBar()->setValue(verticalScrollBar()->value() - removed); // the rows being read stay in view
}

void TimelineView::changeEvent(QEvent *event)
{
    QTreeWidget::changeEvent(event);
    // A switch between light and dark at run time: the colours follow.
    if (event->type() == QEvent::PaletteChange)
        colourRows();
}

void TimelineView::colourRows()
{
    for (int row = 0; row < topLevelItemCount(); ++row)
        colourRow(topLevelItem(row), palette());
}

void TimelineView::scrolled(int value)
{
    m_following = value >= verticalScrollBar()->maximum();
}

} // namespace Tether
