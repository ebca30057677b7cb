#pragma once

#include "config/serverconfig.h"

#include <QByteArray>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>
#include <utility>

namespace Tether {

// Connecting an AI client (a program that starts or reaches MCP servers) to Tether: a "tether"
// entry in the client's own config file, added by splicing its bytes so that everything else in
// the file stays as written. Pure functions; clientconnectfile.h writes the result.

enum class ConnectClient { ClaudeDesktop, Cursor, VsCode, ClaudeCode };

inline constexpr char16_t TetherEntryName[] = u"tether";

// "claude", "cursor", "vscode", "claude-code"; false for any other word.
bool connectClientFromName(const QString &name, ConnectClient *client);
QString connectClientName(ConnectClient client);
QStringList connectClientNames();
// "Claude Desktop", "Cursor", "VS Code", "Claude Code"
QString connectClientTitle(ConnectClient client);
// The user's own file of the client: ~/.config/Claude/claude_desktop_config.json,
// ~/.cursor/mcp.json, ~/.config/Code/User/mcp.json, ~/.claude.json.
QString defaultClientConfigPath(ConnectClient client);
// Whether the client reaches servers over Streamable HTTP from its file (Claude Desktop's file
// holds stdio servers only).
bool clientSpeaksHttp(ConnectClient client);
// The longest tool name the client takes from a server called "tether": Claude Code names tools
// mcp__tether__TOOL within 64 characters, Cursor leaves out tools whose server and tool names
// together exceed 60; the others take the 64 of Tether's own names.
int clientToolNameBudget(ConnectClient client);

// How the client reaches Tether: by starting `tetherctl serve` (stdio) or at the gateway's URL.
struct GatewayReach
{
    bool http = false;
    QString tetherctl;          // stdio: an absolute path
    QStringList serveArguments; // stdio: {"serve"}, or {"serve", "--config", FILE}
    QString url;                // http
    QString token;              // http: sent as "Authorization: Bearer TOKEN"
    QString notice;             // what else it takes for the client to reach the window's servers
};

using JsonMembers = QList<std::pair<QString, QJsonValue>>;

// The "tether" entry for `client`, its keys in the order written.
JsonMembers tetherEntry(ConnectClient client, const GatewayReach &reach);

// A server taken out of the client's file by --move: its value exactly as written there.
struct MovedServer
{
    QString name;
    QByteArray text;
};

struct DiffLine
{
    bool added = false; // else removed
    int line = 0;       // from 1: in the new text when added, in the old one when removed
    QString text;
};

struct ConnectPlan
{
    QByteArray after;         // the file to write
    bool replacesEntry = false; // the file had a "tether" entry already
    bool holdsToken = false;    // the entry carries the gateway's token: only its owner may read the file
    QList<MovedServer> moved;
    QList<DiffLine> diff;
    QString error;            // the file cannot be edited; nothing is to be written
};

// The client's file `before` (empty: there is none yet) with the "tether" entry added or
// replaced; with `moveMatching`, also without the servers that Tether runs itself (same name,
// same command, arguments, environment, folder, url and headers, variables as written).
ConnectPlan planConnect(const QByteArray &before, const QString &path, ConnectClient client, const GatewayReach &reach,
                        const std::optional<QList<ServerConfig>> &moveMatching = std::nullopt);

// The client's file without the "tether" entry and with the `moved` servers back (those it does
// not hold again meanwhile): undoing a connect after the file changed.
struct UndoSplice
{
    QByteArray after;
    bool removedEntry = false;
    QStringList restored;
    QString error;
};
UndoSplice planUndoSplice(const QByteArray &before, const QString &path, ConnectClient client,
                          const QList<MovedServer> &moved);

// The servers of Tether's config file as written (variables unexpanded), to be matched by --move.
QList<ServerConfig> serversAsWritten(const QByteArray &tetherConfig, const QString &path);

// The lines `after` adds to and removes from `before`, removed ones first at each change.
QList<DiffLine> lineDiff(const QByteArray &before, const QByteArray &after);

// Public tool names longer than the client's budget, in the order given.
QStringList namesOverBudget(ConnectClient client, const QStringList &publicNames);

// What a connect will do, for a person: the lines, with the token shown as "••••••"; that a file
// others can read (`readableByOthers`) becomes its owner's alone once it holds the token; the
// servers moved; tool names too long for the client; and that the client must be restarted.
QString connectPreview(const QString &path, ConnectClient client, const ConnectPlan &plan, const GatewayReach &reach,
                       const QStringList &longNames, bool readableByOthers = false);

} // namespace Tether
