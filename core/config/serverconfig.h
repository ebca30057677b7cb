#pragma once

#include "config/configcontext.h"
#include "config/jsonkeyorder.h"
#include "config/policy.h"
#include "config/stdiocommand.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <chrono>

namespace Tether {

enum class TransportKind { Stdio, StreamableHttp, Sse };

QString transportName(TransportKind kind); // "stdio", "http", "sse"

// How messages name a member of a JSON object: "mcpServers.demo" for plain names,
// "mcpServers[\"my server\"]" when a dot or space would mislead.
QString memberPath(const QString &parent, const QString &key);

// Several sessions of one server, for servers that answer one request at a time.
struct PoolPolicy
{
    int min = 1;
    int max = 1;
    int maxQueue = 64; // calls waiting for a free session; one more is refused

    bool operator==(const PoolPolicy &) const = default;
};

// One server as the config file describes it, resolved: ${env:NAME} expanded, aliases and
// defaults applied, every value judged.
struct ServerConfig
{
    QString name;
    bool enabled = true;
    TransportKind transport = TransportKind::Stdio;
    StdioServerCommand command;                   // stdio
    QString url;                                  // http, sse
    QList<std::pair<QString, QString>> headers;   // http, sse
    ReconnectPolicy reconnect;
    HeartbeatPolicy heartbeat;
    PoolPolicy pool;
    std::chrono::milliseconds requestTimeout{60000};
    QJsonObject source;   // the server's object exactly as in the file
    QStringList errors;   // why the server is invalid; an invalid server is shown, never started

    bool isValid() const { return errors.isEmpty(); }
    // Equal settings: a reload leaves the running server alone.
    bool sameSettings(const ServerConfig &other) const;
    // What the window and the log may show: env and header values replaced by "••••••".
    QJsonObject redacted() const;
    // "stdio: node server.js" or "http: https://…"
    QString describe() const;
};

struct ConfigDocument
{
    QString path;          // for messages; may be a resource path
    QJsonObject root;      // the file as read: unknown keys are kept when it is saved
    JsonKeyOrder keyOrder; // the order of every object's keys in the file, which root does not keep
    QString serversKey;    // "mcpServers" (Claude Desktop, Cursor, Tether) or "servers" (VS Code)
    QList<ServerConfig> servers; // in file order
    QStringList errors;    // problems with the file as a whole: it is then not used at all

    bool isValid() const { return errors.isEmpty(); }
    const ServerConfig *server(const QString &name) const;
    QStringList serverNames() const; // in file order
};

ConfigDocument parseConfig(const QByteArray &bytes, const QString &path, const ConfigContext &context);
// Reads and parses a file; a missing or unreadable file is a file-level error.
ConfigDocument loadConfig(const QString &path, const ConfigContext &context);

// Writes `root` atomically (a temporary file in the same folder, then rename), mode 0600.
// Refuses, leaving the file untouched, when the file on disk exists but does not parse:
// a broken file is never overwritten. Indented as QJsonDocument does, with every key where the
// file on disk has it (see toOrderedJson: new keys go last, a renamed one stays in place). When
// there is no file yet, keys follow `orderWithoutFile` (the document's keyOrder, such as the
// embedded demo's), else alphabetically. `written` receives the bytes of the saved file.
bool saveConfig(const QString &path, const QJsonObject &root, QString *error,
                const JsonKeyOrder &orderWithoutFile = {}, QByteArray *written = nullptr);

// $XDG_CONFIG_HOME/tether/servers.json (via QStandardPaths).
QString defaultConfigPath();

} // namespace Tether
