#pragma once

#include "manager/healthhistory.h"
#include "manager/resourcesampler.h"
#include "supervisor/serverstatus.h"

#include <QAbstractTableModel>
#include <QList>
#include <QSet>
#include <QTimer>

#include <chrono>

namespace Tether {

// One row per server, from value snapshots. Changes are queued and announced as merged
// dataChanged ranges at most ten times a second, so hundreds of flapping servers keep the
// window responsive; the retry countdown repaints only the rows that are counting down. Each row
// also keeps its recent health for the strip, from the snapshots as they arrive.
class ServerTableModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ServerTableModel)

public:
    // Transport and PID / URL are hidden until the user shows them (View ▸ Columns); Last event, the
    // cause of a failure, takes the width left.
    enum Column { Name, State, Health, Tools, Uptime, Cpu, Memory, Transport, Pid, LastEvent, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, NameRole, HealthRole /* QList<HealthSpan> of the strip's window */ };

    // How far back the health strip looks.
    static constexpr std::chrono::minutes HealthWindow{10};

    explicit ServerTableModel(QObject *parent = nullptr);

    void setStatuses(const QList<ServerStatus> &statuses);
    // Queued; announced with the next batch.
    void updateStatus(const ServerStatus &status);
    void removeServer(const QString &name);
    // The CPU and memory of every stdio server's processes at the last sample; repaints those columns.
    void setResources(const QHash<QString, ProcessResources> &resources);

    int rowOf(const QString &name) const;
    const ServerStatus &statusAt(int row) const { return m_rows.at(row); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // When the next retry comes: "in 3.2 s", empty when nothing is scheduled.
    static QString countdownText(const ServerStatus &status, const QDateTime &now);
    // The State column: the state's word with the attempt of an outage and the retry's countdown,
    // "Retrying 3/5 · in 2.0 s".
    static QString stateCellText(const ServerStatus &status, const QDateTime &now);
    // What a screen reader says of a row: "github, Failed 3/3: command not found: github-mcp".
    static QString accessibleText(const ServerStatus &status, const QDateTime &now);
    // What happened to a server, each thing said once: the Last event text, then its state's
    // reason and the last error where they add something to what is said before them.
    static QStringList storyLines(const ServerStatus &status);
    // The Last event column: while a server fails, the cause in a few words with what to do
    // (its whole story in the tooltip and Details); otherwise the reason of its state.
    static QString lastEventText(const ServerStatus &status);
    // The state's word, "Disabled" for a server disabled in the config, "Invalid" for one whose
    // config cannot be used.
    static QString stateText(const ServerStatus &status);
    // "2026-07-28 (stateless)", "2025-11-25": the revision the server speaks with Tether.
    static QString protocolText(const ServerStatus &status);
    // "12.5 %" of one core, "—" without a process (a remote or stopped server), empty until
    // measured over an interval.
    static QString cpuText(const ServerStatus &status, const std::optional<ProcessResources> &resources);
    // "41.2 MiB" resident, the server's process and its descendants; "—" without a process.
    static QString memoryText(const ServerStatus &status, const std::optional<ProcessResources> &resources);
    // "connected 9 min 40 s, reconnecting 20 s" over the strip's window.
    static QString healthSummary(const QList<HealthSpan> &spans);

private:
    void flush();
    void tick();
    void emitRanges(QList<int> rows, int firstColumn, int lastColumn);

    QList<ServerStatus> m_rows;
    QList<HealthHistory> m_health; // parallel to m_rows
    QHash<QString, ProcessResources> m_resources;
    QSet<int> m_dirtyRows;
    QTimer m_batch;     // merges queued changes
    QTimer m_countdown; // repaints rows that count down or count up
    QDateTime m_lastUptimeTick;
    QTimer m_healthTick; // moves the strips along as time passes
};

} // namespace Tether
