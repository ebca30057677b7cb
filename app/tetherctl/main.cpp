#include "configcommands.h"
#include "configoptions.h"
#include "exitstatus.h"
#include "importcommand.h"
#include "output.h"
#include "servecommand.h"
#include "servercommands.h"
#include "servertarget.h"
#include "watchcommands.h"

#include "common/commandline.h"
#include "common/logging.h"
#include "config/configlocation.h"
#include "config/policy.h"
#include "supervisor/connectionsupervisor.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonDocument>
#include <QTextStream>

#include <array>

using namespace Qt::StringLiterals;
using namespace Tether;

static const char HelpText[] = R"(Usage: tetherctl COMMAND [OPTIONS]

Talks to MCP servers without a window.

Commands, on the servers of the config file:
  status                          Connect every enabled server once and print a table of their
                                  states, tool counts and pids (--json: an array).
  check                           Like status; exit 0 only if every enabled server comes up, and
                                  say on stderr why each one that did not failed, and warn of a
                                  key written twice in a server (the last one is taken).
  tools [SERVER]                  List the tools of every server (public names SERVER__TOOL), or
                                  of one server.
  call [SERVER] TOOL ['JSON']     Call a tool with JSON arguments (an object; default {}) and
                                  print the result content. Without SERVER the tool is found by
                                  its name or public name across every server; a name that
                                  several servers offer is an error naming them.
  watch [SERVER...]               Supervise the servers (all, or those named): reconnect them
                                  when they crash, hang or fail to start, and print one line per
                                  state change until SIGINT, SIGTERM or SIGHUP; then stop them
                                  and exit 0.
  serve [SERVER...]               Be an MCP server on stdin/stdout for an AI client (Claude
                                  Desktop, Cursor, VS Code, ...): offer the tools of every server
                                  (or of those named) as SERVER__TOOL, supervised as by watch,
                                  less those a server's "tools": {"disabled": [...]} hides. A
                                  call to a server that is reconnecting waits for it (at most
                                  gateway.outageWaitMs, default 10 s). Runs until stdin closes or
                                  SIGINT, SIGTERM or SIGHUP, then stops the servers and exits 0.
                                  stdout carries MCP messages only; diagnostics go to stderr.

  import claude|cursor|vscode [FILE]
                                  Add the servers of a Claude Desktop, Cursor or VS Code file
                                  (default: ~/.config/Claude/claude_desktop_config.json,
                                  ~/.cursor/mcp.json; VS Code needs FILE: a workspace's
                                  .vscode/mcp.json or its settings.json) to the config file,
                                  saying what was added and what was skipped and why. Waits up
                                  to 10 s for another writer of the config (its lock FILE.lock).

Commands, on one server given on the command line (--stdio "CMD ARGS..." or --url URL):
  tools --stdio "CMD ARGS..."               List the server's tools (name and description).
  call  --stdio "CMD ARGS..." TOOL [JSON]   Call TOOL with JSON arguments and print the result.
  watch --stdio "CMD ARGS..."               Supervise the server, as watch above.
  tools --url URL                           The same for a remote server.
  call  --url URL TOOL [JSON]
  watch --url URL

Servers:
  --config FILE           The config file (default $XDG_CONFIG_HOME/tether/servers.json; when
                          there is none, Tether's built-in demo configuration).
  --stdio "CMD ARGS..."   Run one server as a child process speaking MCP over stdio. The command
                          line is split like a shell splits it ('single' and "double" quotes,
                          backslash escapes) but never runs through a shell.
  --url URL               Connect to a remote server at this http:// or https:// URL: Streamable
                          HTTP, or the older HTTP+SSE transport when the server answers the
                          Streamable HTTP initialize with 404 or 405.
  --transport http|sse    With --url: speak only Streamable HTTP (http) or only HTTP+SSE (sse).
  --header 'NAME: VALUE'  With --url: send this header with every request, for example
                          'Authorization: Bearer ${env:TOKEN}' (repeatable). ${env:NAME} in the
                          URL or a value is replaced by the environment variable NAME; header
                          values are never printed, not even with --verbose.

Options:
  --json                  Print machine-readable JSON: the tools array as the server sent it,
                          or the whole tools/call result object. Without it, control
                          characters from a server (ESC, CR and the like) are printed as \x1b.
  --timeout-ms N          Request timeout in milliseconds, also bounding the handshake
                          (default 60000).
  -v, --verbose           Also print the server's stderr, progress, warnings (skipped input,
                          timeouts) and debug diagnostics on stderr.
  -h, --help              Show this help.
  --version               Show the version.

Reconnect policy (watch, serve):
  --initial-delay-ms N    Delay before the first retry of an outage (default 500).
  --max-delay-ms N        Longest delay; the delay doubles up to it (default 30000). A connection
                          that stays up this long ends the outage and resets the budget.
  --max-attempts N        Retries per outage before the server is Failed (default 10).
  --jitter F              Spread each delay by a random factor in [1-F, 1+F] (default 0.2).
  --no-reconnect          Do not reconnect: a lost or failed connection is Disconnected.
  --heartbeat-ms N        Ping the server every N ms (default 30000).
  --heartbeat-timeout-ms N  A ping unanswered for N ms is missed (default 10000).
  --heartbeat-failures N  Missed pings in a row that count as a lost connection (default 3).
  --no-heartbeat          Do not ping the server.

States (watch): Stopped, Starting, Connected, Retrying (an attempt failed: "connection
failed"), Reconnecting (an established connection ended: "connection lost"), Failed (retry
budget used up; nothing restarts by itself), Disconnected (reconnect disabled), Stopping.
With --json, each line is an object with the keys time, server, state, attempt, maxAttempts,
nextDelayMs, generation, pid, tools and reason.

Exit status:
  0  success
  1  the tool ran and returned an error result (isError)
  2  connection, protocol or usage error; one line on stderr says what went wrong and,
     when the server process died, its last stderr line
  128+N  ended by signal N (SIGINT 130, SIGTERM 143, SIGHUP 129): the call in flight was
     cancelled at the server, and the servers were closed and waited for

Examples:
  tetherctl status --config ~/.config/Claude/claude_desktop_config.json
  tetherctl call github search_repositories '{"query": "qt"}'
  tetherctl tools --stdio "tether-demo-server"
  tetherctl call --stdio "tether-demo-server" add '{"a": 2, "b": 3}'
  tetherctl tools --json --stdio "npx -y @modelcontextprotocol/server-everything"
  tetherctl tools --url http://127.0.0.1:3001/mcp
  tetherctl call --url https://example.com/mcp --header 'Authorization: Bearer ${env:TOKEN}' \
      search '{"query": "qt"}'
  tetherctl watch --url http://127.0.0.1:3001/sse --transport sse
  tetherctl watch --json --max-attempts 3 --stdio "tether-demo-server --crash-after-ms 5000"
)";

static int usageError(const QString &message)
{
    Ctl::printError(message + u" (see tetherctl --help)"_s);
    return Ctl::Failure;
}

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(u"tetherctl"_s);
    QCoreApplication::setApplicationVersion(QStringLiteral(TETHER_VERSION));

    QCommandLineParser parser;
    parser.setOptionsAfterPositionalArgumentsMode(QCommandLineParser::ParseAsOptions);
    const QCommandLineOption helpOption(QStringList{u"h"_s, u"help"_s});
    const QCommandLineOption versionOption(u"version"_s);
    const QCommandLineOption stdioOption(u"stdio"_s, {}, u"command"_s);
    const QCommandLineOption urlOption(u"url"_s, {}, u"url"_s);
    const QCommandLineOption transportOption(u"transport"_s, {}, u"http|sse"_s);
    const QCommandLineOption headerOption(u"header"_s, {}, u"name: value"_s);
    const QCommandLineOption configOption(u"config"_s, {}, u"file"_s);
    const QCommandLineOption jsonOption(u"json"_s);
    const QCommandLineOption timeoutOption(u"timeout-ms"_s, {}, u"ms"_s);
    const QCommandLineOption verboseOption(QStringList{u"v"_s, u"verbose"_s});
    parser.addOptions({helpOption, versionOption, stdioOption, urlOption, transportOption, headerOption, configOption,
                       jsonOption, timeoutOption, verboseOption});
    // Policy flags of watch: each maps to a field that resolveReconnectPolicy/resolveHeartbeatPolicy judge.
    const std::array<std::pair<QCommandLineOption, QString>, 4> reconnectFlags{{
        {QCommandLineOption(u"initial-delay-ms"_s, {}, u"ms"_s), u"initialDelayMs"_s},
        {QCommandLineOption(u"max-delay-ms"_s, {}, u"ms"_s), u"maxDelayMs"_s},
        {QCommandLineOption(u"max-attempts"_s, {}, u"n"_s), u"maxAttempts"_s},
        {QCommandLineOption(u"jitter"_s, {}, u"fraction"_s), u"jitter"_s},
    }};
    const std::array<std::pair<QCommandLineOption, QString>, 3> heartbeatFlags{{
        {QCommandLineOption(u"heartbeat-ms"_s, {}, u"ms"_s), u"intervalMs"_s},
        {QCommandLineOption(u"heartbeat-timeout-ms"_s, {}, u"ms"_s), u"timeoutMs"_s},
        {QCommandLineOption(u"heartbeat-failures"_s, {}, u"n"_s), u"maxFailures"_s},
    }};
    const QCommandLineOption noReconnectOption(u"no-reconnect"_s);
    const QCommandLineOption noHeartbeatOption(u"no-heartbeat"_s);
    for (const auto &[option, field] : reconnectFlags)
        parser.addOption(option);
    for (const auto &[option, field] : heartbeatFlags)
        parser.addOption(option);
    parser.addOptions({noReconnectOption, noHeartbeatOption});

    if (!parser.parse(QCoreApplication::arguments()))
        return usageError(parser.errorText());
    if (parser.isSet(helpOption)) {
        QTextStream(stdout) << HelpText;
        return Ctl::Success;
    }
    if (parser.isSet(versionOption)) {
        QTextStream(stdout) << "tetherctl " << TETHER_VERSION << Qt::endl;
        return Ctl::Success;
    }

    configureCliLogging(parser.isSet(verboseOption) ? LogVerbosity::Verbose : LogVerbosity::Normal);

    QStringList positional = parser.positionalArguments();
    if (positional.isEmpty())
        return usageError(u"no command given"_s);
    const QString command = positional.takeFirst();
    const QStringList commands{u"tools"_s, u"call"_s, u"watch"_s, u"serve"_s, u"status"_s, u"check"_s, u"import"_s};
    if (!commands.contains(command))
        return usageError(u"unknown command '%1'"_s.arg(command));

    std::chrono::milliseconds timeout{60000};
    if (parser.isSet(timeoutOption)) {
        bool ok = false;
        const qint64 value = parser.value(timeoutOption).toLongLong(&ok);
        if (!ok || value <= 0)
            return usageError(u"--timeout-ms wants a positive number of milliseconds, not '%1'"_s.arg(
                parser.value(timeoutOption)));
        timeout = std::chrono::milliseconds(value);
    }

    // Policy flags: a flag's text that is not a number goes through as a string, so that the
    // policy resolution names it with the same words as a bad config value.
    const auto flagValue = [&](const QCommandLineOption &option) {
        bool isNumber = false;
        const double number = parser.value(option).toDouble(&isNumber);
        return isNumber ? QJsonValue(number) : QJsonValue(parser.value(option));
    };
    QJsonObject reconnectOverrides;
    QJsonObject heartbeatOverrides;
    for (const auto &[option, field] : reconnectFlags) {
        if (parser.isSet(option))
            reconnectOverrides.insert(field, flagValue(option));
    }
    for (const auto &[option, field] : heartbeatFlags) {
        if (parser.isSet(option))
            heartbeatOverrides.insert(field, flagValue(option));
    }
    if (parser.isSet(noReconnectOption))
        reconnectOverrides.insert(u"enabled", false);
    if (parser.isSet(noHeartbeatOption))
        heartbeatOverrides.insert(u"enabled", false);
    if (command != u"watch" && command != u"serve" && !(reconnectOverrides.isEmpty() && heartbeatOverrides.isEmpty()))
        return usageError(u"the reconnect and heartbeat flags apply to 'watch' and 'serve' only"_s);

    // The tool arguments of 'call': the last word when it is JSON.
    QJsonObject arguments;
    const auto takeArguments = [&](const QString &toolName) -> bool {
        const QString last = positional.isEmpty() ? QString() : positional.last().trimmed();
        if (!last.startsWith(u'{') && !last.startsWith(u'['))
            return true;
        QJsonParseError parseError;
        const QJsonDocument document = QJsonDocument::fromJson(positional.last().toUtf8(), &parseError);
        if (parseError.error != QJsonParseError::NoError) {
            usageError(u"the arguments of '%1' are not valid JSON (%2 at offset %3); pass an object such as '{\"message\": \"hi\"}'"_s
                           .arg(toolName, parseError.errorString())
                           .arg(parseError.offset));
            return false;
        }
        if (!document.isObject()) {
            usageError(u"the arguments of '%1' must be a JSON object such as '{\"message\": \"hi\"}'"_s.arg(toolName));
            return false;
        }
        arguments = document.object();
        positional.removeLast();
        return true;
    };

    const bool adHocServer = parser.isSet(stdioOption) || parser.isSet(urlOption);
    if (parser.isSet(stdioOption) && parser.isSet(urlOption))
        return usageError(u"give one server: --stdio or --url, not both"_s);
    if (!parser.isSet(urlOption) && (parser.isSet(transportOption) || parser.isSet(headerOption)))
        return usageError(u"--transport and --header apply to a server given with --url"_s);

    if (command == u"import") {
        if (adHocServer || positional.isEmpty() || positional.size() > 2)
            return usageError(u"use: tetherctl import claude|cursor|vscode [FILE] [--config TARGET]"_s);
        const QString target = parser.isSet(configOption) ? parser.value(configOption) : defaultConfigPath();
        return Ctl::importConfig(positional.first(), positional.value(1), target);
    }

    if (!adHocServer) {
        Ctl::ConfigOptions options;
        options.source = locateConfig(parser.value(configOption));
        options.timeout = timeout;
        options.json = parser.isSet(jsonOption);
        options.verbose = parser.isSet(verboseOption);
        options.reconnectOverrides = reconnectOverrides;
        options.heartbeatOverrides = heartbeatOverrides;
        if (command == u"status" || command == u"check") {
            if (!positional.isEmpty())
                return usageError(u"'%1' takes no arguments, got '%2'"_s.arg(command, positional.join(u' ')));
            return command == u"status" ? Ctl::configStatus(options) : Ctl::configCheck(options);
        }
        if (command == u"watch") {
            options.servers = positional;
            return Ctl::configWatch(options);
        }
        if (command == u"serve") {
            if (options.json)
                return usageError(u"'serve' speaks MCP on stdout; it takes no --json"_s);
            options.servers = positional;
            return Ctl::serve(options);
        }
        if (command == u"tools") {
            if (positional.size() > 1)
                return usageError(u"'tools' takes at most one server name, got '%1'"_s.arg(positional.join(u' ')));
            options.servers = positional;
            return Ctl::configTools(options);
        }
        if (positional.isEmpty())
            return usageError(u"'call' needs the name of the tool to call"_s);
        if (!takeArguments(positional.last()))
            return Ctl::Failure;
        if (positional.isEmpty() || positional.size() > 2)
            return usageError(u"'call' takes [SERVER] TOOL ['JSON'], got '%1'"_s.arg(positional.join(u' ')));
        const QString server = positional.size() == 2 ? positional.first() : QString();
        return Ctl::configCall(options, server, positional.last(), arguments);
    }

    if (command == u"status" || command == u"check" || command == u"serve")
        return usageError(u"'%1' works on the config file; it takes no --stdio or --url"_s.arg(command));
    Ctl::CommonOptions options;
    options.json = parser.isSet(jsonOption);
    options.verbose = parser.isSet(verboseOption);
    options.timeout = timeout;
    if (parser.isSet(stdioOption)) {
        const SplitCommandLine split = splitCommandLine(parser.value(stdioOption));
        if (!split.error.isEmpty())
            return usageError(u"--stdio: "_s + split.error);
        StdioServerCommand serverCommand;
        serverCommand.program = split.words.first();
        serverCommand.arguments = split.words.mid(1);
        options.target = Ctl::stdioTarget(serverCommand);
    } else {
        Ctl::RemoteServerFlags flags;
        flags.url = parser.value(urlOption);
        flags.transport = parser.value(transportOption);
        flags.headers = parser.values(headerOption);
        flags.timeout = timeout;
        QString error;
        const std::optional<Ctl::ServerTarget> target = Ctl::remoteTarget(flags, &error);
        if (!target)
            return usageError(error);
        options.target = *target;
    }
    const QString serverFlag = parser.isSet(stdioOption) ? u"--stdio"_s : u"--url"_s;

    if (command == u"watch") {
        if (!positional.isEmpty())
            return usageError(u"'watch' takes no server names with %1, got '%2'"_s.arg(serverFlag, positional.join(u' ')));
        const auto reconnectPolicy = resolveReconnectPolicy(options.target.name, reconnectOverrides);
        const auto heartbeatPolicy = resolveHeartbeatPolicy(options.target.name, heartbeatOverrides);
        const QStringList errors = reconnectPolicy.errors + heartbeatPolicy.errors;
        if (!errors.isEmpty())
            return usageError(errors.join(u"; "_s));
        SupervisorSettings settings;
        settings.reconnect = reconnectPolicy.policy;
        settings.heartbeat = heartbeatPolicy.policy;
        settings.requestTimeout = options.timeout;
        return Ctl::watch(options, settings);
    }

    if (command == u"tools") {
        if (!positional.isEmpty())
            return usageError(u"'tools' takes no arguments besides the server, got '%1'"_s.arg(positional.join(u' ')));
        return Ctl::listTools(options);
    }

    if (positional.isEmpty())
        return usageError(u"'call' needs the name of the tool to call"_s);
    if (!takeArguments(positional.first()))
        return Ctl::Failure;
    if (positional.size() != 1)
        return usageError(u"'call' takes TOOL and one JSON object, got %1 arguments"_s.arg(positional.size() + 1));
    return Ctl::callTool(options, positional.first(), arguments);
}
