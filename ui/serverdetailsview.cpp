#include "serverdetailsview.h"

#include "servertablemodel.h"

#include "common/displaytext.h"
#include "common/duration.h"
#include "supervisor/serverstate.h"
#include "supervisor/serverstatus.h"

#include <QLocale>

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
                      tr("State: %1").arg(ServerTableModel::stateCellText(status, QDateTime::currentDateTimeUtc()))};
    // The cause, the reason and the last error, each said once.
    const QStringList story = ServerTableModel::storyLines(status);
    lines += story;
    if (!status.cause.isEmpty() && !story.contains(status.cause))
        lines.append(tr("Last failure: %1").arg(status.cause));
    if (!status.protocolVersion.isEmpty())
        lines.append(tr("Protocol: MCP %1").arg(ServerTableModel::protocolText(status)));
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
    for (const QString &error : status.configErrors)
        lines.append(tr("Configuration: %1").arg(error));
    if (status.lastExitCode)
        lines.append(tr("Last exit code: %1").arg(*status.lastExitCode));
    if (status.lastExitSignal)
        lines.append(tr("Last exit signal: %1").arg(signalName(*status.lastExitSignal)));
    if (!status.lastStderrTail.isEmpty())
        lines.append(tr("Last stderr lines of the ended process:\n%1").arg(status.lastStderrTail.mid(std::max<qsizetype>(0, status.lastStderrTail.size() - 20)).join(u'\n')));
    setPlainText(lines.join(u'\n'));
}

void ServerDetailsView::showSignIn(const QString &serverName, const SignInInfo &info)
{
    for (const QString &line : signInLines(serverName, info, QDateTime::currentDateTimeUtc()))
        appendPlainText(line);
}

QStringList ServerDetailsView::signInLines(const QString &serverName, const SignInInfo &info, const QDateTime &now)
{
    switch (info.state) {
    case SignInInfo::State::NotUsed:
        return {};
    case SignInInfo::State::Needed:
        return {tr("Sign-in: needed; use Sign in, or run: %1").arg(signInCommand(serverName))};
    case SignInInfo::State::SignedIn:
        break;
    }
    QStringList lines;
    const QString scopes = info.scopes.isEmpty() ? QString() : tr(" (scopes %1)").arg(info.scopes.join(u' '));
    lines.append(info.account.isEmpty() ? tr("Signed in%1").arg(scopes)
                                        : tr("Signed in as %1%2").arg(withVisibleControls(info.account), scopes));
    if (info.expiresAt.isValid()) {
        const qint64 remaining = now.msecsTo(info.expiresAt);
        const QString at = QLocale().toString(info.expiresAt.toLocalTime(), QLocale::ShortFormat);
        lines.append(remaining > 0
                         ? tr("Access token: expires %1 (in %2); Tether renews it before then")
                               .arg(at, formatDuration(std::chrono::milliseconds(remaining)))
                         : tr("Access token: expired %1; Tether renews it at the next request").arg(at));
    }
    if (info.store == u"keyring")
        lines.append(tr("Tokens kept in: the system keyring"));
    else if (info.store == u"file")
        lines.append(tr("Tokens kept in: a file readable by you alone (%1)").arg(info.storeNote));
    else if (!info.store.isEmpty())
        lines.append(tr("Tokens kept in: memory, until Tether quits (%1)").arg(info.storeNote));
    return lines;
}

} // namespace Tether
