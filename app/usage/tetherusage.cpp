#include "tetherusage.h"

using namespace Qt::StringLiterals;

namespace Tether::Usage {

const ProgramUsage &tetherUsage()
{
    static const ProgramUsage usage{
        .name = u"tether"_s,
        .summary = u"keep MCP servers connected, in a window"_s,
        .synopsis = {u"[--config FILE]"_s},
        .description =
            u"Tether keeps your MCP servers connected: it supervises each one, reconnects it with bounded, jittered "
            "backoff when it crashes, hangs or drops its session, and shows every server's state, attempts, next "
            "retry and tools live in a window.\n\n"
            "With no --config, Tether reads $XDG_CONFIG_HOME/tether/servers.json, and without that file it runs its "
            "built-in demo configuration. Changes made in the window (servers added, edited, removed, enabled, "
            "imported; reconnect policies) are saved to the config file; on the built-in demo the first change "
            "creates $XDG_CONFIG_HOME/tether/servers.json. Edits made to the file in a text editor are picked up "
            "when it is saved."_s,
        .commandGroups = {},
        .optionGroups = {
            {u"Options"_s, {
                {{u"config"_s}, u"FILE"_s, u"The config file to run."_s},
                {{u"h"_s, u"help"_s}, {}, u"Show this help."_s},
                {{u"version"_s}, {}, u"Show the version."_s},
            }},
        },
        .notes = {
            {u"Configuration"_s,
             u"The config file is JSON. Its mcpServers object (as Claude Desktop and Cursor write it; VS Code's "
             "servers form is read too) maps each server's name to its command, args, env and cwd, or to its type "
             "(http or sse), url and headers, and to its enabled, reconnect, heartbeat, pool and timeoutMs "
             "settings; defaults gives every server's reconnect, heartbeat and timeoutMs. ${env:NAME} is replaced "
             "by the environment variable NAME and ${tether:bindir} by the folder of Tether's programs. The user "
             "guide's configuration page (docs/configuration.md; installed as "
             "/usr/share/doc/tether/docs/configuration.md.gz) describes every setting."_s},
            {u"One Tether per user"_s,
             u"Started while Tether runs, tether brings the running window to the front and exits 0, supervising "
             "nothing itself. Given a --config other than the running one's, it says so and exits 1: quit the "
             "running Tether first. The two meet on $XDG_RUNTIME_DIR/tether.socket."_s},
            {u"One Tether per config"_s,
             u"The window runs the servers of its config unless another Tether already does (tetherctl daemon, "
             "tetherctl serve --http): then it attaches to that one and shows its servers, states, tools, logs "
             "and actions, starts no server, and leaves them running when it closes; if that Tether goes away, "
             "the window says so and offers to run the servers itself. The window that runs the servers asks, "
             "when it quits, whether to keep them running in a headless tetherctl daemon or stop them; "
             "\"Do not ask again\" keeps the answer in window.ini ([quit] servers=keep or stop), which SIGTERM "
             "follows too (without one, SIGTERM stops them). tetherctl status, stop and the rest act on the "
             "servers of whichever Tether runs the config."_s},
            {u"Gateway"_s,
             u"With \"gateway\": {\"http\": {\"enabled\": true}} in the config file, the window serves the tools of "
             "every server to AI clients over Streamable HTTP at http://127.0.0.1:27413/mcp while it runs (port "
             "and address in gateway.http), each request carrying the bearer token of the file gateway-token next "
             "to the config file; a client's tetherctl serve relays to it. The status bar shows its address and "
             "hosts, or why it is not served (a port in use); click it, or File > Gateway..., for the token (show, "
             "copy, rotate), the hosts connected now and the calls through it by server. See tetherctl(1), serve."_s},
            {u"Qt options"_s,
             u"Tether also takes the options of every Qt application, such as -platform NAME and -style NAME."_s},
        },
        .exitStatus = {
            {u"0"_s, u"Tether was quit (File > Quit, the tray's Quit, SIGINT, SIGTERM or SIGHUP) and every server has stopped"_s},
            {u"0"_s, u"Tether was already running and its window was brought to the front"_s},
            {u"1"_s, u"the command line was wrong, or Tether already runs another config; a line on stderr says why"_s},
        },
        .environment = {
            {u"XDG_RUNTIME_DIR"_s, u"The folder of the socket that keeps Tether to one instance per user."_s},
            {u"XDG_CONFIG_HOME"_s, u"The folder of the config file and the window's settings (default ~/.config)."_s},
            {u"XDG_DATA_HOME"_s, u"The folder of the log (default ~/.local/share)."_s},
            {u"DISPLAY, WAYLAND_DISPLAY"_s,
             u"The display the window opens on; --help and --version need none."_s},
            {u"QT_QPA_PLATFORM"_s,
             u"The Qt platform plugin, for example offscreen to run without a display."_s},
            {u"NAME, as ${env:NAME}"_s,
             u"${env:NAME} in the config file is replaced by the environment variable NAME; a server that names an "
             "unset variable is not started and says which."_s},
        },
        .files = {
            {u"$XDG_CONFIG_HOME/tether/servers.json"_s,
             u"The config file, unless --config names another. When it does not exist, the built-in demo "
             "configuration runs: three tether-demo-server processes named demo, flaky and broken."_s},
            {u"$XDG_CONFIG_HOME/tether/window.ini"_s, u"The window's size, splitter and columns, and what becomes of "
                                                       "the servers when it quits ([quit] servers=keep|stop)."_s},
            {u"$XDG_RUNTIME_DIR/tether.socket"_s,
             u"Where the running Tether listens for a second launch; one left by a Tether that was killed is replaced."_s},
            {u"$XDG_CONFIG_HOME/tether/gateway-token"_s,
             u"The gateway's bearer token (next to the config file in use), made on first use, mode 0600; "
             "Rotate in the Gateway window replaces it."_s},
            {u"$XDG_RUNTIME_DIR/tether/gateway-*.json"_s,
             u"While the window runs: where the tetherctl serve of the same config finds it (one per config "
             "file)."_s},
            {u"$XDG_DATA_HOME/tether/tether.log"_s,
             u"Tether's log, also written to stderr: three files of 5 MiB at most (File > Open log folder). "
             "File > Export log... saves the events the window shows."_s},
        },
        .examples = {
            {u"tether"_s, u"Run the config file, or the built-in demo when there is none."_s},
            {u"tether --config ~/.config/Claude/claude_desktop_config.json"_s,
             u"Supervise the servers Claude Desktop runs."_s},
        },
        .seeAlso = {u"tetherctl(1)"_s, u"tether-demo-server(1)"_s},
    };
    return usage;
}

} // namespace Tether::Usage
