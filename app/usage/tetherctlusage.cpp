#include "tetherctlusage.h"

using namespace Qt::StringLiterals;

namespace Tether::Usage {

const ProgramUsage &tetherctlUsage()
{
    // The commands that take one server given with --stdio or --url instead of the config's.
    const QStringList oneServer{u"tools"_s,   u"call"_s,   u"resources"_s, u"read"_s,
                                u"prompts"_s, u"prompt"_s, u"watch"_s};
    // The commands that supervise servers by a reconnect policy and a heartbeat.
    const QStringList supervising{u"watch"_s, u"serve"_s};
    static const ProgramUsage usage{
        .name = u"tetherctl"_s,
        .summary = u"talk to MCP servers without a window"_s,
        .synopsis = {u"COMMAND [OPTIONS]"_s, u"--help [COMMAND]"_s},
        .description = u"Talks to MCP servers without a window: to the servers of the config file, or to one server "
                       "given on the command line with --stdio or --url.\n\n"
                       "One Tether runs a config's servers: the window, tetherctl daemon or tetherctl serve --http, "
                       "whichever started first (its instance). The commands on the servers of the config (status, "
                       "check, watch, tools, call, resources, read, prompts, prompt) ask that instance over its local "
                       "socket, the user's alone, and show exactly what it runs, pids included; they start no server. "
                       "When no Tether runs the config, they run its servers themselves for as long as they take, and "
                       "say so in one line on stderr. start, stop, reconnect and logs need a running instance."_s,
        .overview = {
            {u"The servers of the config and their tools"_s, {
                {u"status"_s, u"The servers' states, tool counts and pids"_s},
                {u"check"_s, u"Exit 0 only if every enabled server is up; say why not"_s},
                {u"servers"_s, u"The names of the servers, starting none"_s},
                {u"tools"_s, u"List the tools, of every server or of one"_s},
                {u"call"_s, u"Call a tool with JSON arguments"_s},
                {u"resources"_s, u"List the resources and resource templates"_s},
                {u"read"_s, u"Read a resource"_s},
                {u"prompts"_s, u"List the prompts and their arguments"_s},
                {u"prompt"_s, u"Get a prompt filled in with its arguments"_s},
                {u"watch"_s, u"Supervise the servers, a line for each change of state"_s},
            }},
            {u"The Tether that runs the config"_s, {
                {u"daemon"_s, u"Be that Tether, without a window"_s},
                {u"start"_s, u"Start servers there"_s},
                {u"stop"_s, u"Stop servers there, and wait until they have"_s},
                {u"reconnect"_s, u"Connect servers there again, with a fresh retry budget"_s},
                {u"logs"_s, u"Its event log (--follow: then each new event)"_s},
            }},
            {u"AI clients and their files"_s, {
                {u"serve"_s, u"Be one MCP server for an AI client (--http: for all, over HTTP)"_s},
                {u"connect"_s, u"Point Claude, Cursor, VS Code or Claude Code at Tether"_s},
                {u"import"_s, u"Add the servers of Claude, Cursor or VS Code to the config"_s},
            }},
            {u"Signing in"_s, {
                {u"login"_s, u"Sign in to a remote server that asks for it"_s},
                {u"logout"_s, u"Forget a server's sign-in"_s},
            }},
            {u"One server given on the command line, instead of the config's"_s, {
                {u"--stdio \"CMD ARGS...\""_s, u"tools, call, resources, read, prompts, prompt and watch on a server "
                                             "started as a child process"_s},
                {u"--url URL"_s, u"The same on a remote server"_s},
            }},
        },
        .commandGroups = {
            {u"Commands, on the servers of the config file"_s, {
                {u"status"_s, u"Print a table of the servers' states, tool counts and pids (--json: an array), as the "
                              "running Tether has them (without one: after connecting every enabled server once). "
                              "Exit 0 only when every enabled server is connected; see EXIT STATUS."_s},
                {u"check"_s, u"Like status; exit 0 only if every enabled server is up, and say on stderr why each "
                             "one that is not failed, and warn of a key written twice in a server (the last one is "
                             "taken)."_s},
                {u"tools [SERVER]"_s, u"List the tools of every server (public names SERVER__TOOL), or of one server. "
                                      "A server asked about (named, or any enabled one) that is not connected is named "
                                      "on stderr, and the exit status is 3."_s},
                {u"call [SERVER] TOOL ['JSON']"_s,
                 u"Call a tool with JSON arguments (an object; default {}) and print the result content. Without "
                 "SERVER the tool is found by its name or public name across every server; a name that several "
                 "servers offer is an error naming them. A server that is starting, retrying or reconnecting is "
                 "waited for, at most gateway.outageWaitMs (default 10 s), as a client of the gateway waits. A tool "
                 "that asks for input while it runs (elicitation) "
                 "prompts on the terminal: each field of its form with its default in [brackets], then accept, "
                 "decline or cancel; or a URL to open in a browser (--browser CMD with --url, else "
                 "$TETHER_BROWSER, else xdg-open on a display). The call's timeout stands still while you answer "
                 "(for at most 30 min) and runs whole again once you have. "
                 "Without a terminal (stdin or stderr not a TTY) the request is refused at once, and the tool gets "
                 "the refusal. A request to sample from a model is refused (tetherctl has none); the server's roots "
                 "are its \"roots\" in the config."_s},
                {u"resources [SERVER]"_s,
                 u"List the resources of every server (or of one): URI, name, type, description; then its resource "
                 "templates, URIs with {placeholders} to fill in for read (--json: {\"resources\": [...], "
                 "\"resourceTemplates\": [...]} as the servers sent them, each with its \"server\")."_s},
                {u"read [SERVER] URI"_s,
                 u"Read a resource and print its text; bytes of a text type as text, other bytes summarised (--json: "
                 "the contents, bytes as base64 \"blob\"). Without SERVER it goes to the server that lists URI, or "
                 "to the only server with resources."_s},
                {u"prompts [SERVER]"_s,
                 u"List the prompts of every server (or of one) with their arguments, the required ones marked *."_s},
                {u"prompt [SERVER] NAME [--arg NAME=VALUE...]"_s,
                 u"Get a prompt filled in with the arguments and print its messages, one \"role: text\" each (--json: "
                 "the prompts/get result). Without SERVER it goes to the server that offers the prompt."_s},
                {u"watch [SERVER...]"_s, u"Supervise the servers (all, or those named): reconnect them when they "
                                         "crash, hang or fail to start, and print one line per state change until "
                                         "SIGINT, SIGTERM or SIGHUP; then stop them and exit 0."_s},
                {u"start SERVER..."_s, u"Start the servers named in the running Tether."_s},
                {u"stop SERVER..."_s, u"Stop the servers named in the running Tether (they stay stopped until "
                                      "started), and wait until they have."_s},
                {u"reconnect SERVER..."_s, u"Close the connections of the servers named in the running Tether and "
                                           "connect them again, with a fresh retry budget."_s},
                {u"logs [SERVER] [--follow]"_s,
                 u"Print the running Tether's recent event log (of one server when named): state changes, stderr "
                 "lines, the servers' log messages, calls (--json: one object per line). --follow then prints each "
                 "new event until SIGINT, SIGTERM or SIGHUP."_s},
                {u"daemon"_s,
                 u"Be the instance of the config without a window: run its servers and gateway (its local socket, "
                 "and HTTP when gateway.http is enabled), follow the file, and answer tetherctl and windows until "
                 "SIGINT, SIGTERM or SIGHUP; then stop the servers. If a Tether already runs the config, say which "
                 "and exit 0: of many started at once, exactly one runs it. The systemd user unit "
                 "tether-daemon.service runs this."_s},
                {u"serve [SERVER...]"_s,
                 u"Be an MCP server on stdin/stdout for an AI client (Claude Desktop, Cursor, VS Code, ...): offer "
                 "the tools of every server (or of those named) as SERVER__TOOL, supervised as by watch, less those "
                 "a server's \"tools\": {\"disabled\": [...]} hides. A call to a server that is reconnecting waits "
                 "for it (at most gateway.outageWaitMs, default 10 s). Runs until stdin closes or SIGINT, SIGTERM or "
                 "SIGHUP, then stops the servers and exits 0. stdout carries MCP messages only; diagnostics go to "
                 "stderr. When a running Tether (the window, with HTTP or without, or serve --http) runs the same "
                 "config, serve without SERVER "
                 "relays to it instead, over its local socket (the user's own), so the client uses the servers that "
                 "Tether shows; if that Tether goes away, serve starts the servers itself (--no-bridge: from the "
                 "start)."_s},
                {u"serve --http [--port N] [SERVER...]"_s,
                 u"Serve the same gateway headless over Streamable HTTP at http://127.0.0.1:27413/mcp "
                 "(gateway.http in the config: host, port, TLS) for any number of hosts at once, until SIGINT, "
                 "SIGTERM or SIGHUP. Every request needs the header \"Authorization: Bearer TOKEN\" with the token "
                 "in gateway-token next to the config file (made on first use, readable by you alone). The "
                 "systemd user unit tether-gateway.service runs this."_s},
                {u"login SERVER [--browser CMD] [--scope SCOPE...]"_s,
                 u"Sign in to a remote server that asks for it (OAuth): find its authorization server, print the URL "
                 "to open and open it in a browser (--browser CMD or $TETHER_BROWSER runs CMD with the URL as its "
                 "last argument instead; with neither, xdg-open when there is a display), wait for the browser to "
                 "come back to 127.0.0.1 (at most oauth.browserTimeoutMs, default 5 minutes), keep the tokens in the "
                 "system keyring (or the file named below), then connect the server and print its tool count; a "
                 "server that then refuses the tokens for want of scope gets one more sign-in, for the scopes it "
                 "names. Every Tether on this machine uses the sign-in from then on, and renews it by itself. --scope "
                 "asks for these scopes instead of those the server names."_s},
                {u"logout SERVER"_s,
                 u"Forget the tokens of a server's sign-in (and revoke them at the authorization server where it "
                 "allows): the server is in Sign-in needed until the next login."_s},
                {u"servers"_s, u"Print the names of the servers, one per line, without starting them (--json: an "
                               "array). The shell completions use it."_s},
                {u"import claude|cursor|vscode [FILE]"_s,
                 u"Add the servers of a Claude Desktop, Cursor or VS Code file (default: "
                 "~/.config/Claude/claude_desktop_config.json, under $XDG_CONFIG_HOME when set, "
                 "~/.cursor/mcp.json; VS Code needs FILE: a workspace's .vscode/mcp.json or its settings.json) to "
                 "the config file, saying what was added and what was skipped and why. Waits up to 10 s for "
                 "another writer of the config (its lock FILE.lock)."_s},
                {u"connect claude|cursor|vscode|claude-code [FILE]"_s,
                 u"Connect an AI client to Tether: add a \"tether\" entry to its config file (default: "
                 "~/.config/Claude/claude_desktop_config.json, ~/.cursor/mcp.json, ~/.config/Code/User/mcp.json, "
                 "~/.claude.json; ~/.config is $XDG_CONFIG_HOME when set), so that it reaches every server of "
                 "the config through Tether. Claude Desktop gets the command tetherctl serve (its absolute path, with --config FILE unless the config is the "
                 "usual one); the others the gateway's URL as the config's gateway.http gives it (default "
                 "http://127.0.0.1:27413/mcp) and an Authorization header with the token of "
                 "gateway-token next to the config (made on first use). Only the entry is added or replaced: every "
                 "other byte of the file stays (comments and trailing commas of VS Code files included), a copy of "
                 "the file is kept first in $XDG_STATE_HOME/tether/connect, and the file is replaced at once, its mode "
                 "kept. Prints the lines added and removed, the tool names too long for the client, and that the "
                 "client must be restarted. A file that is not valid JSON is left untouched."_s},
            }},
            {u"Commands, on one server given on the command line (--stdio or --url)"_s, {
                {u"tools --stdio \"CMD ARGS...\""_s, u"List the server's tools (name and description)."_s},
                {u"call --stdio \"CMD ARGS...\" TOOL ['JSON']"_s,
                 u"Call TOOL with JSON arguments and print the result; input the tool asks for is prompted for "
                 "on the terminal, and refused without one, as call above. The server has no roots."_s},
                {u"resources --stdio \"CMD ARGS...\""_s, u"List the server's resources and resource templates."_s},
                {u"read --stdio \"CMD ARGS...\" URI"_s, u"Read a resource, as read above."_s},
                {u"prompts --stdio \"CMD ARGS...\""_s, u"List the server's prompts."_s},
                {u"prompt --stdio \"CMD ARGS...\" NAME [--arg NAME=VALUE...]"_s, u"Get a prompt, as prompt above."_s},
                {u"watch --stdio \"CMD ARGS...\""_s, u"Supervise the server, as watch above."_s},
                {u"tools --url URL"_s,
                 u"The same for a remote server. One that asks for a sign-in (OAuth) is signed in within the run, "
                 "as login does (--browser CMD when there is no display), and the tokens are kept for the URL; a "
                 "call refused for want of scope signs in again for it and is made again."_s},
                {u"call --url URL TOOL ['JSON']"_s, {}},
                {u"resources --url URL"_s, {}},
                {u"read --url URL URI"_s, {}},
                {u"prompts --url URL"_s, {}},
                {u"prompt --url URL NAME [--arg NAME=VALUE...]"_s, {}},
                {u"watch --url URL"_s, {}},
            }},
        },
        .optionGroups = {
            {u"Servers"_s, {
                {{u"config"_s}, u"FILE"_s,
                 u"The config file (default $XDG_CONFIG_HOME/tether/servers.json; when there is none, Tether's "
                 "built-in demo configuration)."_s},
                {{u"stdio"_s}, u"\"CMD ARGS...\""_s,
                 u"Run one server as a child process speaking MCP over stdio. The command line is split like a "
                 "shell splits it ('single' and \"double\" quotes, backslash escapes) but never runs through a "
                 "shell."_s, oneServer},
                {{u"url"_s}, u"URL"_s,
                 u"Connect to a remote server at this http:// or https:// URL: Streamable HTTP, or the older "
                 "HTTP+SSE transport when the server answers the Streamable HTTP initialize with 404 or 405."_s,
                 oneServer},
                {{u"transport"_s}, u"stdio|http|sse"_s,
                 u"With --url: speak only Streamable HTTP (http) or only HTTP+SSE (sse). With connect: how the client "
                 "reaches Tether, by starting tetherctl serve (stdio, which needs no running Tether) or at the "
                 "gateway's URL (http)."_s, oneServer + QStringList{u"connect"_s}},
                {{u"protocol"_s}, u"auto|2026-07-28|2025-11-25"_s,
                 u"With --stdio or --url: the MCP era to speak. auto (the default) opens with initialize and turns "
                 "to server/discover when the server answers that it speaks 2026-07-28 only; a version pins the era "
                 "and fails, saying so, when the server does not speak it."_s, oneServer},
                {{u"header"_s}, u"'NAME: VALUE'"_s,
                 u"With --url: send this header with every request, for example 'Authorization: Bearer "
                 "${env:TOKEN}' (repeatable). ${env:NAME} in the URL or a value is replaced by the environment "
                 "variable NAME; header values are never printed, not even with --verbose."_s, oneServer},
            }},
            {u"Connect"_s, {
                {{u"move"_s}, {}, u"Also take out of the client's file the servers Tether runs itself (the same name, "
                                  "command, arguments, environment, url and headers), such as those imported from "
                                  "it, so that they do not run twice."_s, {u"connect"_s}},
                {{u"undo"_s}, {}, u"Take the last connect of the file back: restore the copy kept before it, or, when "
                                  "the file changed since, remove only the \"tether\" entry and put the moved servers "
                                  "back, saying so."_s, {u"connect"_s}},
                {{u"dry-run"_s}, {}, u"Print what connect would change, and write nothing."_s, {u"connect"_s}},
            }},
            {u"Sign-in"_s, {
                {{u"browser"_s}, u"CMD"_s,
                 u"With login, or a server given with --url: run CMD (split like --stdio) with the sign-in URL as its "
                 "last argument, instead of the desktop's browser. Overrides $TETHER_BROWSER."_s,
                 QStringList{u"login"_s} + oneServer},
                {{u"scope"_s}, u"SCOPE"_s, u"With login: ask for this scope (repeatable)."_s, {u"login"_s}},
            }},
            {u"Options"_s, {
                {{u"json"_s}, {},
                 u"Print machine-readable JSON: the tools array as the server sent it, the whole tools/call "
                 "result object, one object per line of watch. Without it, control characters from a server "
                 "(ESC, CR and the like) are printed as \\x1b."_s},
                {{u"arg"_s}, u"NAME=VALUE"_s,
                 u"With prompt: give the prompt's argument NAME this value (repeatable)."_s, {u"prompt"_s}},
                {{u"http"_s}, {},
                 u"With serve: serve Streamable HTTP, for any number of hosts at once, instead of stdin/stdout."_s, {u"serve"_s}},
                {{u"follow"_s}, {}, u"With logs: keep printing new events."_s, {u"logs"_s}},
                {{u"no-bridge"_s}, {},
                 u"With serve over stdio: supervise the servers here even when a running Tether (the window, "
                 "serve --http) runs the same config; without it, serve relays to that Tether."_s, {u"serve"_s}},
                {{u"port"_s}, u"N"_s, u"With serve --http: listen on this port instead of gateway.http.port "
                                       "(default 27413); 0 takes any free port, named on stderr."_s, {u"serve"_s}},
                {{u"timeout-ms"_s}, u"N"_s,
                 u"Request timeout in milliseconds, also bounding the handshake (default 60000)."_s},
                {{u"v"_s, u"verbose"_s}, {},
                 u"Also print the server's stderr, progress, warnings (skipped input, timeouts) and debug "
                 "diagnostics on stderr."_s},
                {{u"h"_s, u"help"_s}, {},
                 u"Show a summary of the commands; with a command (tetherctl --help COMMAND, tetherctl COMMAND "
                 "--help or tetherctl help COMMAND), its usage, options, examples and the exit statuses it can end "
                 "with."_s},
                {{u"version"_s}, {}, u"Show the version."_s},
            }},
            {u"Reconnect policy (watch, serve)"_s, {
                {{u"initial-delay-ms"_s}, u"N"_s, u"Delay before the first retry of an outage (default 500)."_s,
                 supervising},
                {{u"max-delay-ms"_s}, u"N"_s,
                 u"Longest delay; the delay doubles up to it (default 30000). A connection that stays up this long "
                 "ends the outage and resets the budget."_s, supervising},
                {{u"max-attempts"_s}, u"N"_s, u"Retries per outage before the server is Failed (default 10)."_s,
                 supervising},
                {{u"jitter"_s}, u"F"_s, u"Spread each delay by a random factor in [1-F, 1+F] (default 0.2)."_s,
                 supervising},
                {{u"no-reconnect"_s}, {}, u"Do not reconnect: a lost or failed connection is Disconnected."_s,
                 supervising},
                {{u"heartbeat-ms"_s}, u"N"_s, u"Ping the server every N ms (default 30000)."_s, supervising},
                {{u"heartbeat-timeout-ms"_s}, u"N"_s, u"A ping unanswered for N ms is missed (default 10000)."_s,
                 supervising},
                {{u"heartbeat-failures"_s}, u"N"_s,
                 u"Missed pings in a row that count as a lost connection (default 3)."_s, supervising},
                {{u"no-heartbeat"_s}, {}, u"Do not ping the server."_s, supervising},
            }},
        },
        .notes = {
            {u"States (watch)"_s,
             u"Stopped, Starting, Connected, Retrying (an attempt failed: \"connection failed\"), Reconnecting (an "
             "established connection ended: \"connection lost\"), Failed (retry budget used up; nothing restarts by "
             "itself), Disconnected (reconnect disabled), Sign-in needed (the server asks for a sign-in that could "
             "not be renewed without you; nothing is retried; printed with \"— run: tetherctl login NAME\", or for a "
             "server given with --url \"— this run signs in\", as it then does), Stopping. "
             "With --json, each line is an object with the keys time, server, state, attempt, maxAttempts, "
             "nextDelayMs, generation, pid, tools, reason and cause (the last failure's cause in a few words with what "
             "to do, as the window shows it; null once connected), and in Sign-in needed signIn: {\"command\": "
             "\"tetherctl login NAME\" (null with --url), \"scope\": the scope the server asked for}."_s,
             {u"watch"_s}},
        },
        .exitStatus = {
            {u"0"_s, u"success"_s},
            {u"1"_s, u"the tool ran and returned an error result (isError)"_s, {u"call"_s}},
            {u"2"_s, u"connection, protocol or usage error; one line on stderr says what went wrong and, when the "
                     "server process died, its last stderr line"_s},
            {u"3"_s,
             u"status: an enabled server is down and waits for you (Failed, Disconnected, Sign-in needed, "
             "invalid, stopped); tools, resources, prompts: a server asked about is not connected, and it is "
             "named"_s,
             {u"status"_s, u"tools"_s, u"resources"_s, u"prompts"_s}},
            {u"4"_s, u"status: none is down, but one is still connecting (Starting, Retrying, Reconnecting)"_s,
             {u"status"_s}},
            {u"5"_s,
             u"no Tether runs the config (status then shows servers it connected itself, and start, stop, "
             "reconnect and logs do nothing), or the one attached to went away"_s,
             {u"status"_s, u"check"_s, u"tools"_s, u"call"_s, u"resources"_s, u"read"_s, u"prompts"_s, u"prompt"_s,
              u"watch"_s, u"start"_s, u"stop"_s, u"reconnect"_s, u"logs"_s}},
            {u"128+N"_s, u"ended by signal N (SIGINT 130, SIGTERM 143, SIGHUP 129): a request in flight was "
                         "cancelled at its server, and the servers were closed and waited for"_s},
        },
        .environment = {
            {u"XDG_CONFIG_HOME"_s, u"The folder of the config file (default ~/.config)."_s},
            {u"XDG_STATE_HOME"_s, u"Where connect keeps its copies and sign-in keeps what it knows (default "
                                  "~/.local/state)."_s},
            {u"TETHER_BROWSER"_s, u"The browser command of login, as --browser; also the one that opens the URL a "
                                  "tool asks you to open during call."_s},
            {u"TETHER_TOKEN_STORE"_s,
             u"file: keep sign-in tokens in the file below, never in the system keyring (as \"defaults\": "
             "{\"oauth\": {\"tokenStore\": \"file\"}} in the config)."_s},
            {u"NAME, as ${env:NAME}"_s,
             u"${env:NAME} in the config file, in --url and in --header values is replaced by the environment "
             "variable NAME; a server that names an unset variable is not started and says which."_s},
        },
        .files = {
            {u"$XDG_CONFIG_HOME/tether/servers.json"_s,
             u"The config file, unless --config names another. When it does not exist, the built-in demo "
             "configuration runs: three tether-demo-server processes named demo, flaky and broken. tether(1) "
             "describes the file."_s},
            {u"$XDG_CONFIG_HOME/tether/gateway-token"_s,
             u"The bearer token of serve --http (next to the config file in use): 32 random bytes in base64url, "
             "made on first use with mode 0600; a token file others can read is refused."_s},
            {u"$XDG_STATE_HOME/tether/credentials.json"_s,
             u"Sign-in tokens and client registrations, mode 0600, used only where the system keyring cannot be "
             "(no Secret Service on the machine, or TETHER_TOKEN_STORE=file); login says which holds them."_s},
            {u"$XDG_STATE_HOME/tether/signins.json"_s,
             u"What is known of each sign-in without a secret (account, scopes, expiry, where the tokens are), "
             "mode 0600; every Tether watches it to learn of another's login and logout. auth.lock next to it "
             "orders the token refreshes of several Tether processes."_s},
            {u"$XDG_RUNTIME_DIR/tether/gateway-*.json"_s,
             u"Written by the Tether that runs a config (the window, daemon, serve --http): its pid, config, local "
             "socket, and address and token file when it serves HTTP; one per config file, 0600 in a 0700 folder, "
             "removed when it exits. tetherctl reads its config's to attach to that Tether. The lock on "
             "gateway-*.json.lock beside it is held by that Tether while it runs: the kernel lets it go however the "
             "process ends."_s},
            {u"~/.config/Claude/claude_desktop_config.json, ~/.cursor/mcp.json"_s,
             u"What import claude and import cursor read when no FILE is given."_s},
            {u"$XDG_STATE_HOME/tether/connect"_s,
             u"What connect kept of each client file it changed: a copy from before, and what it wrote (for "
             "--undo)."_s},
            {u"$XDG_CONFIG_HOME/tether/gateway-token"_s,
             u"The token an AI client sends to the gateway's URL (mode 0600); connect writes it into the client's "
             "file."_s},
        },
        .examples = {
            {u"tetherctl status --config ~/.config/Claude/claude_desktop_config.json"_s,
             u"The state of every server Claude Desktop runs."_s},
            {u"tetherctl call github search_repositories '{\"query\": \"qt\"}'"_s,
             u"Call a tool of the server github."_s},
            {u"tetherctl tools --stdio \"tether-demo-server\""_s, u"The tools of one server, started for it."_s},
            {u"tetherctl call --stdio \"tether-demo-server\" add '{\"a\": 2, \"b\": 3}'"_s,
             u"Call its tool add with arguments."_s},
            {u"tetherctl tools --json\n--stdio \"npx -y @modelcontextprotocol/server-everything\""_s,
             u"The tools as JSON, as the server sent them."_s},
            {u"tetherctl tools --url http://127.0.0.1:3001/mcp"_s, u"The tools of a remote server."_s},
            {u"tetherctl read --stdio \"npx -y @modelcontextprotocol/server-everything\"\n"
             "demo://resource/dynamic/text/1"_s,
             u"Read a resource of a server given on the command line."_s},
            {u"tetherctl prompt everything args-prompt --arg city=Paris --arg state=IDF"_s,
             u"Get the prompt args-prompt of the server everything, with its two arguments."_s},
            {u"tetherctl call --url https://example.com/mcp\n"
             "--header 'Authorization: Bearer ${env:TOKEN}' search '{\"query\": \"qt\"}'"_s,
             u"Call a tool of a remote server that wants a token, taken from the environment variable TOKEN."_s},
            {u"tetherctl watch --url http://127.0.0.1:3001/sse --transport sse"_s,
             u"Supervise a remote server that speaks HTTP+SSE only."_s},
            {u"tetherctl daemon"_s,
             u"Run the config headless, until a signal stops it; the other commands ask this Tether meanwhile."_s},
            {u"tetherctl check && tetherctl stop flaky"_s,
             u"With a Tether running the config (daemon, or the window), once its servers have started: check that "
             "every server is up, then stop one."_s},
            {u"tetherctl logs demo --follow"_s, u"The event log of the server demo, then each new event."_s},
            {u"tetherctl serve --config ~/.config/tether/servers.json"_s,
             u"What an AI client runs to reach the tools of every server of that config."_s},
            {u"tetherctl serve --http --port 27414"_s,
             u"The same tools over HTTP at http://127.0.0.1:27414/mcp, for every AI client at once."_s},
            {u"tetherctl connect cursor --move --dry-run"_s,
             u"What connecting Cursor would change in ~/.cursor/mcp.json, taking out the servers Tether runs."_s},
            {u"tetherctl connect claude --undo"_s, u"Take the last connect of Claude Desktop's file back."_s},
            {u"tetherctl watch --json --max-attempts 3\n--stdio \"tether-demo-server --crash-after-ms 5000\""_s,
             u"Supervise a server that crashes every 5 s, printing each state change as JSON."_s},
        },
        .seeAlso = {u"tether(1)"_s, u"tether-demo-server(1)"_s},
    };
    return usage;
}

} // namespace Tether::Usage
