#pragma once

#include "config/gatewayconfig.h"
#include "config/jsonkeyorder.h"
#include "config/oauthsettings.h"
#include "config/policy.h"
#include "config/stdiocommand.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <chrono>

namespace Tether {

enum class TransportKind { Stdio, StreamableHttp, Sse };

QString transportName(TransportKind kind); // "stdio", "http", "sse"

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
    QString urlAsWritten;                         // http, sse: before ${env:…} expansion; empty: as `url`
    QList<std::pair<QString, QString>> headers;   // http, sse
    OAuthSettings oauth;                          // http, sse
    ReconnectPolicy reconnect;
    HeartbeatPolicy heartbeat;
    PoolPolicy pool;
    // The entry gives "pool" itself (the defaults' alone do not count): its sessions then take
    // one call at a time.
    bool poolConfigured = false;
    std::chrono::milliseconds requestTimeout{60000};
    // Tools (by the server's own names) the gateway neither lists nor calls: "tools": {"disabled":
    // […]}. Changing them restarts nothing.
    QStringList hiddenTools;
    // Tether's client declares sampling, elicitation and roots to the server, so that it offers
    // what needs them, and passes its requests on to the AI client they are for
    // ("clientFeatures": false declares none).
    bool clientFeatures = true;
    // A session (a process) of its own for each host of the gateway that uses it, so that the
    // server always knows its client ("perHost": true).
    bool perHost = false;
    // What roots/list answers for the window's and tetherctl's own sessions, and adds to the
    // hosts' roots on a shared session: {"uri": "file:///…", "name": …} each ("roots": [paths or
    // file URIs]).
    QJsonArray roots;
    // The MCP era Tether speaks to the server: "auto" finds it (server/discover, else initialize),
    // "2026-07-28" or "2025-11-25" pin it ("protocol").
    QString protocol = QStringLiteral("auto");
    QJsonObject source;   // the server's object exactly as in the file
    QStringList errors;   // why the server is invalid; an invalid server is shown, never started
    QStringList warnings; // what the file says that Tether reads one way but was likely not meant so (a key written twice)

    bool isValid() const { return errors.isEmpty(); }
    // Equal settings: a reload leaves the running server alone. The hidden tools do not count.
    bool sameSettings(const ServerConfig &other) const;
    // Whether the server signs in when it asks: a remote server, "oauth" not false, and no
    // Authorization header of its own (that header is what it sends instead).
    bool usesSignIn() const;
    // What the window and the log may show: env and header values and the client secret replaced by "••••••".
    QJsonObject redacted() const;
    // The entry as the file gives it (`source`, no defaults filled in), hidden the same way:
    // env and header values, oauth.clientSecret, and a url's user info and query values.
    QJsonObject redactedSource() const;
    // "stdio: node server.js" or "http: https://…"
    QString describe() const;
    // The url as written, with its user info and query values hidden: what messages may show.
    QString shownUrl() const;
};

struct ConfigDocument
{
    QString path;          // for messages; may be a resource path
    QJsonObject root;      // the file as read: unknown keys are kept when it is saved
    JsonKeyOrder keyOrder; // the order of every object's keys in the file, which root does not keep
    QString serversKey;    // "mcpServers" (Claude Desktop, Cursor, Tether) or "servers" (VS Code)
    QList<ServerConfig> servers; // in file order
    GatewayConfig gateway;
    OAuthSettings oauthDefaults; // `defaults.oauth`: what every server's oauth starts from; tokenStore is Tether's own
    QStringList errors;    // problems with the file as a whole: it is then not used at all

    bool isValid() const { return errors.isEmpty(); }
    const ServerConfig *server(const QString &name) const;
    QStringList serverNames() const; // in file order
};

// "the config FILE has no server named 'githbu'; did you mean github?", or with the names of its
// servers when none is close: what every command that names a server says of a name not there.
QString noServerNamedText(const QString &configPath, const QString &name, const QStringList &serverNames);

} // namespace Tether
