#include "timelineview.h"

#include "messagelabel.h"
#include "stateicons.h"

#include "common/displaytext.h"
#include "manager/eventlog.h"

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

QTreeWidgetItem *timelineItem(const ServerEvent &event)
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
}

void TimelineView::setEvents(const QList<ServerEvent> &events)
{
    clear();
    for (const ServerEvent &event : events) {
        if (event.kind == ServerEvent::Kind::StateChange)
            addTopLevelItem(timelineItem(event));
    }
}

void TimelineView::appendEvent(const ServerEvent &event)
{
    if (event.kind != ServerEvent::Kind::StateChange)
        return;
    addTopLevelItem(timelineItem(event));
    // Bounded like the log, however long a flapping server stays shown.
    while (topLevelItemCount() > EventLog::DefaultCapPerServer)
        delete takeTopLevelItem(0);
}

} // namespace Tether
