#!/usr/bin/env bash
# Takes the pictures of the window that README.md shows: starts tether under Xvfb on a
# configuration made for the view, drives the window with keystrokes as a person would (xdotool),
# waits until the window shows what the view is about and saves a screenshot.
#
#   scripts/screenshot.sh [--dark] [--view VIEW] [FILE]   one view (default: window)
#   scripts/screenshot.sh [--dark] --all                  every view, into docs/
#
# Views (FILE defaults to docs/tether-VIEW.png, docs/tether-VIEW-dark.png with --dark):
#   window        the built-in demo configuration: demo and flaky connected, broken failed
#   failures      healthy demo servers next to ones failing in different ways (a command that
#                 does not exist, an exit with code 3, an HTTP server asking for a sign-in, an
#                 unsupported protocol version), a failing one selected with its log
#   all-tools     Server ▸ All tools… (Ctrl+Shift+T) over the demo servers and server-everything
#   resources     server-everything selected, its Resources tab open, a resource read
#   combined-log  View ▸ Combined log (Ctrl+L): every server's log in one list
# --dark takes it with a dark palette, the way Qt applications get one on desktops without a
# Qt theme of their own: the qt6ct platform theme with its "darker" colour scheme.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

views=(window failures all-tools resources combined-log)

usage() {
    sed -n '6,7p' "${BASH_SOURCE[0]}" | sed 's/^#  */usage: /'
    echo "views: ${views[*]}"
}

fail() {
    echo "screenshot.sh: $*" >&2
    exit 1
}

dark=false
all=false
view=window
out=
while [ $# -gt 0 ]; do
    case $1 in
        --dark) dark=true ;;
        --all) all=true ;;
        --view)
            [ $# -ge 2 ] || fail "--view needs one of: ${views[*]}"
            view=$2
            shift
            ;;
        --view=*) view=${1#--view=} ;;
        -h | --help)
            usage
            exit 0
            ;;
        -*) fail "unknown option '$1' (see --help)" ;;
        *)
            [ -z "$out" ] || fail "one FILE at most, got '$out' and '$1'"
            out=$1
            ;;
    esac
    shift
done
[[ " ${views[*]} " == *" $view "* ]] || fail "unknown view '$view'; the views are: ${views[*]}"
suffix=
$dark && suffix=-dark

if $all; then
    [ -z "$out" ] || fail "--all writes docs/tether-VIEW$suffix.png for every view and takes no FILE"
    dark_option=()
    $dark && dark_option=(--dark)
    failed=()
    for each in "${views[@]}"; do
        "${BASH_SOURCE[0]}" "${dark_option[@]}" --view "$each" || failed+=("$each")
    done
    [ ${#failed[@]} -eq 0 ] || fail "these views were not saved: ${failed[*]}"
    exit 0
fi

out=${out:-$tether_root/docs/tether-$view$suffix.png}
extra_packages=()
$dark && extra_packages=(qt6ct)
tether_install_packages "${tether_apt_packages[@]}" xvfb imagemagick xdotool "${extra_packages[@]}"
case $view in all-tools | resources) tether_install_npm_packages ;; esac
tether_build release tether tether-demo-server

# The screen is the size of the picture; the window is placed at its top left corner (there is
# no window manager) and sized to fill it.
case $view in
    failures) screen=1280x640 ;;
    *) screen=1000x620 ;;
esac
config_home=$(mktemp -d)
# Xvfb picks a free display number itself and writes it to descriptor 3.
Xvfb -displayfd 3 -screen 0 "${screen}x24" -nolisten tcp 3>"$config_home/display" >/dev/null 2>&1 &
xvfb=$!
log=$config_home/tether.out
cleanup() {
    [ -n "${tether_pid:-}" ] && kill -TERM "$tether_pid" 2>/dev/null && wait "$tether_pid" 2>/dev/null
    [ -n "${refusing_pid:-}" ] && kill "$refusing_pid" 2>/dev/null
    kill "$xvfb" 2>/dev/null || true
    rm -rf "$config_home"
}
trap cleanup EXIT

# await SECONDS WHAT COMMAND...: polls COMMAND until it succeeds; after SECONDS, fails naming WHAT
# (and showing the end of Tether's output, which usually says why).
await() {
    local seconds=$1 what=$2 deadline
    shift 2
    deadline=$((SECONDS + seconds))
    until "$@" >/dev/null 2>&1; do
        if [ $SECONDS -ge $deadline ]; then
            echo "screenshot.sh: view '$view': gave up after $seconds s waiting for $what; Tether's last lines:" >&2
            tail -n 8 "$log" 2>/dev/null | sed 's/^/  /' >&2
            exit 1
        fi
        sleep 0.2
    done
}
logged() { grep -q -- "$1" "$log"; }
# The id of the visible window whose title matches $1 (a regular expression).
window_id() { xdotool search --onlyvisible --name "$1" 2>/dev/null | head -n 1; }
has_window() { [ -n "$(window_id "$1")" ]; }
# Waits until a window's picture stops changing (a repaint after the last keystroke or state),
# at most three seconds: a countdown or an uptime may go on ticking.
settle() {
    local previous='' current
    for _ in $(seq 1 10); do
        sleep 0.3
        current=$(import -window "$1" rgb:- 2>/dev/null | md5sum)
        [ "$current" = "$previous" ] && return 0
        previous=$current
    done
}
keys() { xdotool key --delay 60 "$@"; }
# A click into the pane of tabs under the table, above the status bar, as a person clicks into
# the list a tab shows; Ctrl+Tab then moves from tab to tab.
click_tab_pane() { xdotool mousemove --window "$main" $((${screen%x*} / 2)) $((${screen#*x} - 60)) click 1; }

# shellcheck disable=SC2016 # Tether expands it, not the shell
demo='${tether:bindir}/tether-demo-server'
everything="$tether_root/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
config=$config_home/servers.json
arguments=(--config "$config")
case $view in
    window)
        arguments=() # no config file: the built-in demo configuration
        ;;
    failures)
        # An HTTP server refusing every request with 401, as a remote server wanting a sign-in does.
        node -e '
            const server = require("http").createServer((request, response) => {
                response.writeHead(401, {"WWW-Authenticate": "Bearer"});
                response.end("a token is needed\n");
            });
            server.listen(0, "127.0.0.1", () => console.log(server.address().port));' >"$config_home/port" &
        refusing_pid=$!
        await 10 "the HTTP server answering 401 to listen" test -s "$config_home/port"
        cat >"$config" <<EOF
{
  "mcpServers": {
    "files": { "command": "$demo", "args": ["--tools", "6"] },
    "github": { "command": "github-mcp-server", "args": ["stdio"] },
    "search": { "command": "$demo", "args": ["--tools", "3", "--log-notifications"] },
    "refuses": {
      "command": "$demo",
      "args": ["--fail-at-startup"],
      "reconnect": { "initialDelayMs": 1000, "maxDelayMs": 2000, "maxAttempts": 2 }
    },
    "remote-api": { "url": "http://127.0.0.1:$(cat "$config_home/port")/mcp" },
    "legacy": { "command": "$demo", "args": ["--protocol-version", "2023-01-01"] },
    "flaky": {
      "command": "$demo",
      "args": ["--crash-after-ms", "1500", "--exit-code", "2"],
      "reconnect": { "initialDelayMs": 30000, "maxDelayMs": 60000 }
    }
  }
}
EOF
        ;;
    all-tools | resources)
        # server-everything first: the first row is selected when the window opens.
        cat >"$config" <<EOF
{
  "mcpServers": {
    "everything": { "command": "node", "args": ["$everything", "stdio"] },
    "demo": { "command": "$demo", "args": ["--tools", "4"] }
  }
}
EOF
        ;;
    combined-log)
        cat >"$config" <<EOF
{
  "mcpServers": {
    "demo": { "command": "$demo", "args": ["--tools", "4", "--log-notifications", "--stderr-lines", "3"] },
    "flaky": {
      "command": "$demo",
      "args": ["--crash-after-ms", "4000", "--stderr-lines", "2"],
      "reconnect": { "initialDelayMs": 500, "maxDelayMs": 1000, "maxAttempts": 2 }
    },
    "broken": {
      "command": "$demo",
      "args": ["--fail-at-startup"],
      "reconnect": { "initialDelayMs": 500, "maxDelayMs": 1000, "maxAttempts": 2 }
    }
  }
}
EOF
        ;;
esac

theme=()
if $dark; then
    mkdir -p "$config_home/qt6ct"
    printf '[Appearance]\ncustom_palette=true\ncolor_scheme_path=/usr/share/qt6ct/colors/darker.conf\nstyle=Fusion\n' \
        >"$config_home/qt6ct/qt6ct.conf"
    theme=(QT_QPA_PLATFORMTHEME=qt6ct)
fi
await 10 "Xvfb to start" test -s "$config_home/display"
DISPLAY=:$(cat "$config_home/display")
export DISPLAY
# A runtime folder of its own (mktemp's are the user's alone), so that a Tether already running
# is not asked instead; a config folder of its own, so that no remembered window size applies.
env "${theme[@]}" XDG_CONFIG_HOME="$config_home" XDG_DATA_HOME="$config_home" XDG_RUNTIME_DIR="$config_home" \
    "$tether_root/build/release/app/tether" "${arguments[@]}" >"$log" 2>&1 &
tether_pid=$!
await 30 "the Tether window to appear" has_window '^Tether$'
main=$(window_id '^Tether$')
xdotool windowsize "$main" "${screen%x*}" "${screen#*x}"
xdotool windowfocus "$main"

# The states are in the log as they happen.
connected() { logged "server '$1': connected"; }
not_retried() { logged "server '$1': .*not retried"; }
shot=$main
case $view in
    window)
        await 90 "demo and flaky to connect and broken to give up" \
            eval "logged \"server 'broken': gave up\" && connected demo && connected flaky"
        ;;
    failures)
        await 60 "every server to connect or fail" eval "connected files && connected search \
            && not_retried github && logged \"server 'remote-api': sign-in needed\" && not_retried legacy \
            && logged \"server 'refuses': gave up\" && logged \"server 'flaky': .*retrying in\""
        keys ctrl+f Tab Down # from the filter to the table, and its second row: github
        click_tab_pane
        keys ctrl+Tab ctrl+Tab ctrl+Tab ctrl+Tab ctrl+Tab # Tools to Details
        ;;
    all-tools)
        await 90 "everything and demo to connect" eval "connected everything && connected demo"
        keys ctrl+shift+t
        await 10 "Server ▸ All tools… (Ctrl+Shift+T) to open" has_window '^All tools$'
        shot=$(window_id '^All tools$')
        keys Tab Home # from the search field into the list: its first tool picked, Call… enabled
        ;;
    resources)
        await 90 "everything to connect" connected everything
        click_tab_pane
        keys ctrl+Tab Down Home Return # Tools to Resources; its first resource picked and read
        ;;
    combined-log)
        await 60 "demo to connect, flaky to recover and broken to give up" \
            eval "connected demo && logged \"server 'flaky': recovered\" && logged \"server 'broken': gave up\""
        keys ctrl+l
        await 10 "the Combined log window (View ▸ Combined log, Ctrl+L) to open; a Tether without it cannot take this view" \
            has_window '^Combined log'
        shot=$(window_id '^Combined log')
        ;;
esac
settle "$shot"
mkdir -p "$(dirname "$out")"
import -window "$shot" "$out"
echo "saved $out"
