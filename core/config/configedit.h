#pragma once

#include "config/policy.h"
#include "config/serverconfig.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>
#include <utility>

namespace Tether {

// Edits of a config file's JSON: pure functions that take its root object and return the edited
// root. Every key they were not asked to change is kept, unknown ones included. `serversKey` is
// the document's ("mcpServers", or "servers" in VS Code's form). An edit of a server the root
// does not hold (or holds as something other than an object) returns the root unchanged. These
// are the one place the window changes config JSON; saveConfig writes the result.

// The `defaults` section: what every server without its own setting uses.
QJsonObject setDefaultReconnectPolicy(QJsonObject root, const ReconnectPolicy &policy);
QJsonObject setDefaultHeartbeatPolicy(QJsonObject root, const HeartbeatPolicy &policy);

// A server's own policy, written whole under `reconnect` / `heartbeat`, so later changes of the
// defaults no longer reach it. The seed article's `connection.reconnect` / `connection.heartbeat`
// form is removed with it, since the two would otherwise disagree.
QJsonObject setServerReconnectPolicy(QJsonObject root, const QString &serversKey, const QString &server,
                                     const ReconnectPolicy &policy);
QJsonObject setServerHeartbeatPolicy(QJsonObject root, const QString &serversKey, const QString &server,
                                     const HeartbeatPolicy &policy);
// Removes a server's own policy in both forms: it uses the defaults again.
QJsonObject clearServerReconnectPolicy(QJsonObject root, const QString &serversKey, const QString &server);
QJsonObject clearServerHeartbeatPolicy(QJsonObject root, const QString &serversKey, const QString &server);

// What a server's object says itself about "reconnect" or "heartbeat": `connection.<section>`
// overlaid with `<section>`, as the config reads them; nothing when it says nothing (it uses the
// defaults). Judge it with resolveReconnectPolicy / resolveHeartbeatPolicy over the defaults.
std::optional<QJsonObject> serverPolicyOverride(const QJsonObject &serverEntry, const QString &section);

// Adds the server `name`, or replaces the server `previousName` (renaming it when the names
// differ; a server already called `name` is then replaced as well).
QJsonObject putServer(QJsonObject root, const QString &serversKey, const QString &previousName, const QString &name,
                      const QJsonObject &entry);
QJsonObject removeServer(QJsonObject root, const QString &serversKey, const QString &server);
// Enabled is the default: enabling a server that does not say `enabled` adds nothing.
QJsonObject setServerEnabled(QJsonObject root, const QString &serversKey, const QString &server, bool enabled);

// Hides one tool of a server from the gateway, or shows it again: its name (the server's own) is
// added to or removed from `tools.disabled`; an emptied list goes, and `tools` with it once
// nothing else is left in it.
QJsonObject setToolHidden(QJsonObject root, const QString &serversKey, const QString &server, const QString &tool,
                          bool hidden);

// Serves the gateway over HTTP or not (`gateway.http.enabled`), on `port`: written only when the
// file's port (its own, or the default) is another.
QJsonObject setGatewayHttpServed(QJsonObject root, bool enabled, quint16 port);

// A server's entry as the window's server dialog edits it: each field as text, the way it is
// typed, with variables unexpanded.
struct ServerEntryFields
{
    TransportKind transport = TransportKind::Stdio;
    bool enabled = true;
    QString command;                                // stdio
    QString arguments;                              // stdio: a command line, split into words as a shell would
    QList<std::pair<QString, QString>> environment; // stdio: rows in order; a name may be given twice
    QString workingDirectory;                       // stdio
    QString url;                                    // http, sse
    QList<std::pair<QString, QString>> headers;     // http, sse: as environment
    QString timeoutMs;                              // empty: the default
};

// A server's fields as its entry in the file writes them, for editing.
ServerEntryFields serverEntryFields(const ServerConfig &server);

// The entry `fields` make, and what in them cannot be written as JSON. Everything else is left
// for parseConfig to judge, as it judges the file.
struct BuiltServerEntry
{
    QJsonObject entry;
    QString argumentsError;          // why the arguments cannot be split into words; they are then left out
    QStringList repeatedEnvironment; // names given in more than one row: JSON keeps only the last
    QStringList repeatedHeaders;
};

// The entry of a server edited as `fields`, starting from `existing`: its entry as written, read
// as `existingTransport` (empty and stdio for a new server). Keys the fields do not cover are
// kept (reconnect, heartbeat, pool, oauth, unknown keys) except those only the other transport uses;
// "type" and "enabled" are written only when `existing` has them or they differ from what the
// entry implies without them.
BuiltServerEntry buildServerEntry(const ServerEntryFields &fields, const QJsonObject &existing,
                                  TransportKind existingTransport);

} // namespace Tether
