#include "serverdetailsview.h"

#include "common/displaytext.h"
#include "supervisor/serverstatus.h"

using namespace Qt::StringLiterals;

namespace Tether {

ServerDetailsView::ServerDetailsView(QWidget *parent)
    : QPlainTextEdit(parent)
{
    setReadOnly(true);
}

void ServerDetailsView::showStatus(const ServerStatus &status)
{
    QStringList lines{tr("Server: %1").arg(status.name), tr("Transport: %1").arg(status.transport),
                      tr("State: %1 — %2").arg(stateName(status.state), status.reason)};
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
