#pragma once

#include <QDateTime>
#include <QString>

#include <memory>
#include <optional>

namespace Tether {

// The record of the Tether that serves the gateway of a config now (the window or tetherctl serve
// --http), in $XDG_RUNTIME_DIR/tether/, so that tetherctl serve of that config can relay to it. The folder is
// 0700 and the file 0600, both the user's own: a record planted by another user would otherwise
// receive this user's tool calls.
struct GatewayInstanceRecord
{
    qint64 pid = 0;
    QString instance;   // random, answered by /healthz: tells this instance from a later one on the port
    QString url;        // of the MCP endpoint; empty while it serves no HTTP
    QString configPath; // absolute
    QString tokenFile;  // empty while it serves no HTTP
    QString version;
    QDateTime startedAt;
    QString socket; // the relay socket (localsocketendpoint.h); empty when there is none

    bool operator==(const GatewayInstanceRecord &) const = default;
};

// 128 random bits as hex: visible ASCII, as Mcp-Session-Id must be, and not to be guessed; an
// instance's id and each HTTP session's.
QByteArray newRandomId();

// The record of the instance that serves the config at `configPath`:
// $XDG_RUNTIME_DIR/tether/ (/tmp/tether-UID when the variable is not set) and
// gatewayInstanceRecordName(configPath), one per config file.
QString gatewayInstanceRecordPath(const QString &configPath);
// "gateway-" and 16 hex digits of a hash of the config file's canonical path, ".json".
QString gatewayInstanceRecordName(const QString &configPath);
// The relay socket of the instance `instance`, beside its record.
QString gatewayRelaySocketPath(const QString &instance);
// Makes the folder of the record and the relay socket (0700) if needed; false with `error` when it
// is not the user's own and private, or cannot be made.
bool makeGatewayRuntimeFolder(QString *error);

// Writes the record atomically (folder made 0700, file 0600, privatefile.h); false with `error`
// when the folder is not the user's own and private, when a link or anything but a file is at the
// record's path (it is left as it is), or when it cannot be written.
bool writeGatewayInstanceRecord(const GatewayInstanceRecord &record, QString *error);
// Removes the record of the config at `configPath` if it is still this instance's (a later
// instance may have replaced it).
void removeGatewayInstanceRecord(const QString &configPath, const QString &instance);
// The record of the config at `configPath`, if there is one that can be trusted: nothing, with
// `why` saying what is wrong with it (empty when there is no record at all).
std::optional<GatewayInstanceRecord> readGatewayInstanceRecord(const QString &configPath, QString *why);
// Every record that can be trusted and whose process runs, whatever its config.
QList<GatewayInstanceRecord> readGatewayInstanceRecords();
// Removes what instances killed without a chance to clean up left in the folder: the records whose
// process is gone, and the relay sockets, the user's own, that no running instance's record names
// and that refuse a connection (nothing listens on them).
void removeStaleGatewayFiles();

// The claim of a config by the process that runs its servers (its instance): a write lock on a
// file beside the record (gatewayInstanceRecordPath + ".lock"), held while the process runs and
// let go by the kernel however it ends, SIGKILL included. Of many processes that claim one config
// at once, exactly one gets it. Taken before any server of the config starts.
class InstanceClaim final
{
    Q_DISABLE_COPY_MOVE(InstanceClaim)

public:
    // The claim, or nothing: with `holder` set to the pid of the process that has it, or with
    // `error` (and holder 0) when the lock file cannot be made.
    static std::unique_ptr<InstanceClaim> claim(const QString &configPath, qint64 *holder, QString *error);
    ~InstanceClaim();

private:
    InstanceClaim(int fd, QString path);

    int m_fd;
    QString m_path;
};

// The pid of the process that holds the claim of the config at `configPath`, 0 when none does
// (tested without taking it, so it never disturbs a process claiming it; in the process that holds
// it, the file is not even opened: closing any descriptor of it would let the lock go).
qint64 instanceClaimHolder(const QString &configPath);

// A Tether to relay to: its record, and a connection to its relay socket (the caller's to close).
struct LiveGatewayInstance
{
    GatewayInstanceRecord record;
    int socket = -1;
};

// The instance serving the config at `configPath` now, connected to: its record is trusted, names
// the same config, its process runs (a record whose process has gone is deleted), and its relay
// socket, the user's alone, accepts a connection at once. Nothing otherwise, with `why` (empty when
// there is no record).
std::optional<LiveGatewayInstance> findLiveGatewayInstance(const QString &configPath, QString *why);

} // namespace Tether
