#include "servertablemodel.h"

#include "messagelabel.h"
#include "serveractions.h"
#include "stateicons.h"

#include "common/duration.h"
#include "protocol/protocolera.h"

#include <array>

using namespace Qt::StringLiterals;
using namespace std::chrono;

namespace Tether {

ServerTableModel::ServerTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{
    m_batch.setSingleShot(true);
    m_batch.setInterval(100);
    connect(&m_batch, &QTimer::timeout, this, &ServerTableModel::flush);
    m_countdown.setInterval(100);
    connect(&m_countdown, &QTimer::timeout, this, &ServerTableModel::tick);
    // One pixel of a strip of about 120 is five seconds.
    m_healthTick.setInterval(5000);
    connect(&m_healthTick, &QTimer::timeout, this, [this] {
        if (!m_rows.isEmpty())
            emit dataChanged(index(0, Health), index(int(m_rows.size()) - 1, Health));
    });
    m_healthTick.start();
}

void ServerTableModel::setStatuses(const QList<ServerStatus> &statuses)
{
    beginResetModel();
    m_rows = statuses;
    m_health.clear();
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (const ServerStatus &status : statuses) {
        m_health.append(HealthHistory(HealthWindow));
        m_health.last().record(now, status.state);
    }
    m_dirtyRows.clear();
    endResetModel();
    tick();
}

int ServerTableModel::rowOf(const QString &name) const
{
    for (int row = 0; row < m_rows.size(); ++row) {
        if (m_rows.at(row).name == name)
            return row;
    }
    return -1;
}

void ServerTableModel::updateStatus(const ServerStatus &status)
{
    const int row = rowOf(status.name);
    const QDateTime now = QDateTime::currentDateTimeUtc();
    if (row < 0) {
        beginInsertRows({}, int(m_rows.size()), int(m_rows.size()));
        m_rows.append(status);
        m_health.append(HealthHistory(HealthWindow));
        m_health.last().record(now, status.state);
        endInsertRows();
    } else {
        m_rows[row] = status;
        m_health[row].record(now, status.state);
        m_dirtyRows.insert(row);
        if (!m_batch.isActive())
            m_batch.start();
    }
    if (status.nextRetryAt.isValid() && m_countdown.interval() != 100)
        tick(); // a countdown starts: tick at its pace from now on
    else if ((status.nextRetryAt.isValid() || status.connectedSince.isValid()) && !m_countdown.isActive())
        m_countdown.start();
}

void ServerTableModel::removeServer(const QString &name)
{
    const int row = rowOf(name);
    if (row < 0)
        return;
    beginRemoveRows({}, row, row);
    m_rows.removeAt(row);
    m_health.removeAt(row);
    endRemoveRows();
    // Row numbers moved: the queued rows after the removed one move up with it.
    QSet<int> dirty;
    for (int index : std::as_const(m_dirtyRows)) {
        if (index != row && index < m_rows.size() + 1)
            dirty.insert(index > row ? index - 1 : index);
    }
    m_dirtyRows = dirty;
}

void ServerTableModel::setResources(const QHash<QString, ProcessResources> &resources)
{
    if (resources.isEmpty() && m_resources.isEmpty())
        return;
    m_resources = resources;
    if (!m_rows.isEmpty())
        emit dataChanged(index(0, Cpu), index(int(m_rows.size()) - 1, Memory));
}

void ServerTableModel::emitRanges(QList<int> rows, int firstColumn, int lastColumn)
{
    std::sort(rows.begin(), rows.end());
    // Consecutive rows go out as one range.
    for (qsizetype i = 0; i < rows.size();) {
        qsizetype j = i;
        while (j + 1 < rows.size() && rows.at(j + 1) == rows.at(j) + 1)
            ++j;
        emit dataChanged(index(rows.at(i), firstColumn), index(rows.at(j), lastColumn));
        i = j + 1;
    }
}

void ServerTableModel::flush()
{
    const QList<int> rows(m_dirtyRows.cbegin(), m_dirtyRows.cend());
    m_dirtyRows.clear();
    emitRanges(rows, 0, ColumnCount - 1);
}

void ServerTableModel::tick()
{
    // The countdown shows tenths of a second, the uptime whole seconds: the timer runs ten times a
    // second only while something counts down.
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const bool uptimeDue = !m_lastUptimeTick.isValid() || m_lastUptimeTick.msecsTo(now) >= 1000;
    QList<int> counting;
    QList<int> connected;
    for (int row = 0; row < m_rows.size(); ++row) {
        if (m_rows.at(row).nextRetryAt.isValid())
            counting.append(row);
        if (m_rows.at(row).connectedSince.isValid())
            connected.append(row);
    }
    emitRanges(counting, State, State);
    if (uptimeDue) {
        emitRanges(connected, Uptime, Uptime);
        m_lastUptimeTick = now;
    }
    if (counting.isEmpty() && connected.isEmpty()) {
        m_countdown.stop();
        return;
    }
    m_countdown.setInterval(counting.isEmpty() ? 1000 : 100);
    if (!m_countdown.isActive())
        m_countdown.start();
}

int ServerTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ServerTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString ServerTableModel::countdownText(const ServerStatus &status, const QDateTime &now)
{
    if (!status.nextRetryAt.isValid())
        return {};
    const qint64 left = std::max<qint64>(0, now.msecsTo(status.nextRetryAt));
    if (left < 60000)
        return tr("in %1 s").arg(QString::number(double(left) / 1000.0, 'f', 1));
    return tr("in %1").arg(formatDuration(milliseconds(left)));
}

QString ServerTableModel::stateCellText(const ServerStatus &status, const QDateTime &now)
{
    // The attempt belongs to an outage: a connected server shows none, whatever it went through.
    static const QList<ServerState> inOutage{ServerState::Starting, ServerState::Retrying, ServerState::Reconnecting,
                                             ServerState::Failed};
    QString text = stateText(status);
    if (status.attempt > 0 && inOutage.contains(status.state) && status.configErrors.isEmpty())
        text += u" %1/%2"_s.arg(status.attempt).arg(status.maxAttempts);
    if (const QString countdown = countdownText(status, now); !countdown.isEmpty())
        text += u" · "_s + countdown;
    return text;
}

QString ServerTableModel::accessibleText(const ServerStatus &status, const QDateTime &now)
{
    const QString lastEvent = lastEventText(status);
    return lastEvent.isEmpty() ? tr("%1, %2").arg(status.name, stateCellText(status, now))
                               : tr("%1, %2: %3").arg(status.name, stateCellText(status, now), lastEvent);
}

QString ServerTableModel::healthSummary(const QList<HealthSpan> &spans)
{
    std::array<qint64, 5> total{};
    for (const HealthSpan &span : spans)
        total[std::size_t(span.band)] += span.start.msecsTo(span.end);
    const std::array<QString, 5> names{tr("connected"), tr("reconnecting"), tr("failed"), tr("stopped"),
                                       tr("waiting for sign-in")};
    QStringList parts;
    for (std::size_t band = 0; band < total.size(); ++band) {
        if (total[band] >= 1000)
            parts.append(names[band] + u' ' + formatDuration(milliseconds(total[band] / 1000 * 1000)));
    }
    return parts.join(u", "_s);
}

QString ServerTableModel::protocolText(const ServerStatus &status)
{
    return eraOfVersion(status.protocolVersion) == ProtocolEra::Stateless
               ? tr("%1 (stateless)").arg(status.protocolVersion)
               : status.protocolVersion;
}

QString ServerTableModel::stateText(const ServerStatus &status)
{
    if (!status.configErrors.isEmpty())
        return tr("Invalid");
    if (isDisabled(status))
        return tr("Disabled");
    QString text = stateName(status.state);
    if (status.state == ServerState::Connected && status.heartbeatMisses > 0)
        text += status.heartbeatMisses == 1 ? ServerTableModel::tr(" (missed a ping)")
                                            : ServerTableModel::tr(" (missed %1 pings)").arg(status.heartbeatMisses);
    return text;
}

// The figures of the server's current process: none for a server without one, or measured from
// a process that has since been replaced.
static std::optional<ProcessResources> currentResources(const ServerStatus &status,
                                                        const std::optional<ProcessResources> &resources)
{
    return resources && status.pid > 0 && resources->pid == status.pid ? resources : std::nullopt;
}

QString ServerTableModel::cpuText(const ServerStatus &status, const std::optional<ProcessResources> &resources)
{
    if (status.pid <= 0)
        return u"—"_s;
    const auto current = currentResources(status, resources);
    if (!current || !current->cpuPercent)
        return {};
    return tr("%1 %").arg(QString::number(*current->cpuPercent, 'f', *current->cpuPercent < 10 ? 1 : 0));
}

QString ServerTableModel::memoryText(const ServerStatus &status, const std::optional<ProcessResources> &resources)
{
    if (status.pid <= 0)
        return u"—"_s;
    const auto current = currentResources(status, resources);
    if (!current)
        return {};
    return tr("%1 MiB").arg(QString::number(double(current->residentBytes) / (1024.0 * 1024.0), 'f', 1));
}

QString ServerTableModel::lastEventText(const ServerStatus &status)
{
    static const QList<ServerState> failing{ServerState::Retrying, ServerState::Reconnecting, ServerState::Failed,
                                            ServerState::Disconnected};
    return failing.contains(status.state) && !status.cause.isEmpty() ? status.cause : status.reason;
}

QStringList ServerTableModel::storyLines(const ServerStatus &status)
{
    const QString first = lastEventText(status);
    QStringList lines;
    if (!first.isEmpty())
        lines.append(first);
    // The cause's words without its advice: a reason or error that quotes them repeats it.
    QStringList said = lines;
    if (!status.cause.isEmpty())
        said.append(status.cause.section(u" ("_s, 0, 0));
    const auto repeats = [&said](const QString &text) {
        return std::any_of(said.cbegin(), said.cend(), [&text](const QString &before) {
            return before.contains(text, Qt::CaseInsensitive)
                   || (before.size() >= 8 && text.contains(before, Qt::CaseInsensitive));
        });
    };
    if (!status.reason.isEmpty() && !repeats(status.reason)) {
        lines.append(status.reason);
        said.append(status.reason);
    }
    if (!status.lastError.isEmpty() && !repeats(status.lastError))
        lines.append(tr("Last error: %1").arg(status.lastError));
    return lines;
}

static QString uptimeText(const ServerStatus &status, const QDateTime &now)
{
    if (!status.connectedSince.isValid())
        return {};
    const qint64 ms = status.uptimeMs(now);
    return ms < 1000 ? ServerTableModel::tr("just now") : formatDuration(milliseconds(ms / 1000 * 1000));
}

QVariant ServerTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ServerStatus &status = m_rows.at(index.row());
    const QDateTime now = QDateTime::currentDateTimeUtc();
    if (role == NameRole)
        return status.name;
    if (role == Qt::DisplayRole) {
        switch (Column(index.column())) {
        case Name: return status.name;
        case Transport: return status.transport.section(u':', 0, 0);
        case State: return stateCellText(status, now);
        case Health: return {};
        case Tools: return status.toolCount;
        case Uptime: return uptimeText(status, now);
        case Cpu: return cpuText(status, m_resources.value(status.name));
        case Memory: return memoryText(status, m_resources.value(status.name));
        case Pid:
            if (status.pid > 0)
                return status.pid;
            // Remote servers have an address instead of a process.
            return status.transport.startsWith(u"stdio"_s) ? QVariant() : QVariant(status.transport.section(u": "_s, 1));
        case LastEvent: return lastEventText(status);
        case ColumnCount: break;
        }
        return {};
    }
    if (role == SortRole) {
        switch (Column(index.column())) {
        case State: return isDisabled(status) ? int(AllServerStates.size()) : int(status.state);
        case Health: return int(healthBandOf(status.state));
        case Tools: return status.toolCount;
        case Uptime: return status.uptimeMs(now);
        case Cpu: {
            const auto current = currentResources(status, m_resources.value(status.name));
            return current && current->cpuPercent ? *current->cpuPercent : -1.0;
        }
        case Memory: {
            const auto current = currentResources(status, m_resources.value(status.name));
            return current ? current->residentBytes : qint64(-1);
        }
        case Pid: return status.pid;
        default: return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::DecorationRole && index.column() == State)
        return isDisabled(status) ? disabledIcon() : stateIcon(status.state);
    if (role == HealthRole)
        return QVariant::fromValue(m_health.at(index.row()).spans(now, HealthWindow));
    if (role == Qt::AccessibleTextRole && (index.column() == Name || index.column() == State))
        return accessibleText(status, now);
    if (role == Qt::ToolTipRole && index.column() == Health) {
        const QString summary = healthSummary(m_health.at(index.row()).spans(now, HealthWindow));
        return tr("Last %1 min: %2").arg(HealthWindow.count()).arg(summary.isEmpty() ? tr("no history yet") : summary);
    }
    if (role == Qt::ToolTipRole) {
        // The cause first, as in the row, then what else there is to say, each thing once.
        QStringList tip{status.name + u" — "_s + stateCellText(status, now)};
        tip += storyLines(status);
        if (!status.protocolVersion.isEmpty())
            tip.append(tr("Protocol: MCP %1").arg(protocolText(status)));
        return plainToolTip(tip.join(u'\n')); // reasons quote what servers write
    }
    if (role == Qt::TextAlignmentRole) {
        switch (Column(index.column())) {
        case Tools:
        case Cpu:
        case Memory:
        case Pid: return int(Qt::AlignRight | Qt::AlignVCenter);
        default: return {};
        }
    }
    return {};
}

QVariant ServerTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Name: return tr("Server");
    case Transport: return tr("Transport");
    case State: return tr("State");
    case Health: return tr("Last %1 min").arg(HealthWindow.count());
    case Tools: return tr("Tools");
    case Uptime: return tr("Uptime");
    case Cpu: return tr("CPU");
    case Memory: return tr("Memory");
    case Pid: return tr("PID / URL");
    case LastEvent: return tr("Last event");
    case ColumnCount: break;
    }
    return {};
}

} // namespace Tether
