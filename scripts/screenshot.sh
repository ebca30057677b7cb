#!/usr/bin/env bash
# Starts tether on the built-in demo configuration under Xvfb, waits until the three demo
# servers show their states, and saves a screenshot (default docs/tether-window.png).
# --dark takes it with a dark palette, the way Qt applications get one on desktops without a
# Qt theme of their own: the qt6ct platform theme with its "darker" colour scheme.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

dark=false
suffix=
extra_packages=()
if [ "${1:-}" = --dark ]; then
    dark=true
    suffix=-dark
    extra_packages=(qt6ct)
    shift
fi
out=${1:-$tether_root/docs/tether-window$suffix.png}
tether_install_packages "${tether_apt_packages[@]}" xvfb imagemagick "${extra_packages[@]}"
tether_build release tether tether-demo-server

display=:$((90 + RANDOM % 100))
Xvfb "$display" -screen 0 1100x700x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
config_home=$(mktemp -d) # no config file: the built-in demo configuration
log=$(mktemp)
cleanup() {
    [ -n "${tether_pid:-}" ] && kill -TERM "$tether_pid" 2>/dev/null && wait "$tether_pid" 2>/dev/null
    kill "$xvfb" 2>/dev/null || true
    rm -rf "$config_home" "$log"
}
trap cleanup EXIT

theme=()
if $dark; then
    mkdir -p "$config_home/qt6ct"
    printf '[Appearance]\ncustom_palette=true\ncolor_scheme_path=/usr/share/qt6ct/colors/darker.conf\nstyle=Fusion\n' \
        >"$config_home/qt6ct/qt6ct.conf"
    theme=(QT_QPA_PLATFORMTHEME=qt6ct)
fi
# A runtime folder of its own (mktemp's are the user's alone), so that a Tether already running is not asked instead.
env "${theme[@]}" DISPLAY="$display" XDG_CONFIG_HOME="$config_home" XDG_RUNTIME_DIR="$config_home" "$tether_root/build/release/app/tether" >"$log" 2>&1 &
tether_pid=$!
# The states are in the log as they happen: wait for demo and flaky Connected, broken Failed.
for _ in $(seq 1 90); do
    if grep -q "server 'broken': gave up" "$log" && grep -q "server 'demo': connected" "$log" \
        && grep -q "server 'flaky': connected" "$log"; then
        break
    fi
    sleep 1
done
sleep 0.5 # one repaint after the last change
mkdir -p "$(dirname "$out")"
DISPLAY=$display import -window root -crop 1000x620+0+0 "$out"
echo "saved $out"
