#include "serverdetailsview.h"

#include "servertablemodel.h"

#include "common/displaytext.h"
#include "supervisor/serverstatus.h"

using namespace Qt::StringLiterals;

namespace Tether {

ServerDetailsView::ServerDetailsView(QWidget *parent)
    : QPlainTextEdit(parent)
{
    setReadOnly(true);
}

void ServerDetailsView::showStatus(const ServerStatus &status, const std::optional<ProcessResources> &resources)
{
    QStringList lines{tr("Server: %1").arg(status.name), tr("Transport: %1").arg(status.transport),
                      tr("State: %1 — %2").arg(ServerTableModel::stateText(status), status.reason)};
    if (status.pid > 0) {
        const QString cpu = ServerTableModel::cpuText(status, resources);
        const QString memory = ServerTableModel::memoryText(status, resources);
        const int processes = resources && resources->pid == status.pid ? resources->processes : 0;
        lines.append(tr("Process: pid %1").arg(status.pid));
        if (memory.isEmpty())
            lines.append(tr("CPU and memory: not measured yet"));
        else
            lines.append(tr("CPU: %1; memory: %2 resident, in %3")
                             .arg(cpu.isEmpty() ? tr("not measured yet") : tr("%1 of one core").arg(cpu), memory,
                                  processes == 1 ? tr("the server's one process")
                                                 : tr("%1 processes: the server's and its descendants").arg(processes)));
    }
    if (!status.cause.isEmpty())
        lines.append(tr("Cause of the last failure: %1").arg(status.cause));
    for (const QString &error : status.configErrors)
        lines.append(tr("Configuration: %1").arg(error));
    if (!status.lastError.isEmpty())
        lines.append(tr("Last error: %1").arg(status.lastError));
    if (status.lastExitCode)
        lines.append(tr("Last exit code: %1").arg(*status.lastExitCode));
    if (status.lastExitSignal)
        lines.append(tr("Last exit signal: %1").arg(signalName(*status.lastExitSignal)));
    if (!status.lastStderrTail.isEmpty())
        lines.append(tr("Last stderr lines of the ended process:\n%1").arg(status.lastStderrTail.mid(std::max<qsizetype>(0, status.lastStderrTail.size() - 20)).join(u'\n')));
    setPlainText(lines.join(u'\n'));
}

} // namespace Tether
