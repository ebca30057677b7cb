#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QString>

#include <chrono>
#include <optional>

namespace Tether {

// The record of the Tether that serves the gateway over HTTP now (the window or tetherctl serve
// --http), in $XDG_RUNTIME_DIR/tether/gateway.json, so that tetherctl serve can bridge to it. The
// folder is 0700 and the file 0600, both the user's own: a record planted by another user would
// otherwise receive this user's tool calls.
struct GatewayInstanceRecord
{
    qint64 pid = 0;
    QString instance;   // random, answered by /healthz: tells this instance from a later one on the port
    QString url;        // of the MCP endpoint
    QString configPath; // absolute
    QString tokenFile;
    QString version;
    QDateTime startedAt;

    bool operator==(const GatewayInstanceRecord &) const = default;
};

// $XDG_RUNTIME_DIR/tether/gateway.json (Qt's runtime location when the variable is not set).
QString gatewayInstanceRecordPath();

// Writes the record atomically (folder made 0700, file 0600); false with `error` when the folder
// is not the user's own and private, or cannot be written.
bool writeGatewayInstanceRecord(const GatewayInstanceRecord &record, QString *error);
// Removes the record if it is still this instance's (a later instance may have replaced it).
void removeGatewayInstanceRecord(const QString &instance);
// The record, if there is one that can be trusted: nothing, with `why` saying what is wrong with
// it (empty when there is no record at all).
std::optional<GatewayInstanceRecord> readGatewayInstanceRecord(QString *why);

// A Tether to bridge to: its record, and the token its endpoint takes.
struct LiveGatewayInstance
{
    GatewayInstanceRecord record;
    QByteArray token;
};

// The instance serving the config at `configPath` now, checked: its record is trusted, names the
// same config, its process runs (a record whose process has gone is deleted), and its /healthz
// answers the record's instance id with the token within `timeout`. Nothing otherwise, with `why`
// (empty when there is no record).
std::optional<LiveGatewayInstance> findLiveGatewayInstance(const QString &configPath, QString *why,
                                                           std::chrono::milliseconds timeout = std::chrono::milliseconds(500));

} // namespace Tether
