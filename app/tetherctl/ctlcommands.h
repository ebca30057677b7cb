#pragma once

#include "config/configlocation.h"
#include "config/serverconfig.h"
#include "supervisor/connectionsupervisor.h"
#include "transport/stdiotransport.h"

#include <QJsonObject>
#include <QString>

#include <chrono>
#include <optional>

namespace Tether::Ctl {

// Exit statuses are a contract: scripts depend on them.
enum ExitStatus : int { Success = 0, ToolError = 1, Failure = 2 };

// One server named on the command line, with --stdio or --url.
struct ServerTarget
{
    QString name;     // in messages and watch lines: the program's file name, or the url's host
    QString shownAs;  // the command line, or "http: URL" as given (before ${env:…} expanded)
    TransportFactory transport;
};

ServerTarget stdioTarget(const StdioServerCommand &command);

// What --url, --transport and --header say.
struct RemoteServerFlags
{
    QString url;
    QString transport;     // "http", "sse", or empty: Streamable HTTP falling back to HTTP+SSE
    QStringList headers;   // "Name: value"
    std::chrono::milliseconds timeout{60000};
};

// The server of --url, judged by the config's own rules: a bad url or header gets the message
// the config file would give, worded for the flag. Nothing, and `error` set, when it is invalid.
std::optional<ServerTarget> remoteTarget(const RemoteServerFlags &flags, QString *error);

struct CommonOptions
{
    ServerTarget target;
    std::chrono::milliseconds timeout{60000};
    bool json = false;
    bool verbose = false;
};

int listTools(const CommonOptions &options);
int callTool(const CommonOptions &options, const QString &toolName, const QJsonObject &arguments);
// Supervises the server and prints one line per state change until SIGINT or SIGTERM.
int watch(const CommonOptions &options, const SupervisorSettings &settings);

// The servers of a config file (or of the embedded demo configuration).
struct ConfigOptions
{
    ConfigSource source;
    QStringList servers;          // restrict to these; empty: every server
    std::chrono::milliseconds timeout{60000};
    bool json = false;
    bool verbose = false;
    QJsonObject reconnectOverrides; // policy flags, applied over each server's policy
    QJsonObject heartbeatOverrides;
};

// One-shot table of every server: each enabled server is connected once.
int configStatus(const ConfigOptions &options);
// Like status, exit 0 only if every enabled server comes up; says why each failure failed.
int configCheck(const ConfigOptions &options);
int configTools(const ConfigOptions &options);
// `serverName` empty: route by tool name alone across every server.
int configCall(const ConfigOptions &options, const QString &serverName, const QString &toolName,
               const QJsonObject &arguments);
int configWatch(const ConfigOptions &options);
// Merges another program's MCP servers into Tether's config file (`target`).
int importConfig(const QString &formatName, const QString &sourcePath, const QString &target);

// Prints "tetherctl: <message>" as one line on stderr.
void printError(const QString &message);

} // namespace Tether::Ctl
