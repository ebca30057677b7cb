#!/usr/bin/env bash
# Installs what is missing, builds release and runs Tether on its configuration (the built-in
# demo configuration when there is no config file): the window when a display is available,
# otherwise `tetherctl watch`, which prints every state change until Ctrl-C.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

tether_install_packages "${tether_apt_packages[@]}"
tether_build release tether tetherctl tether-demo-server
bin="$tether_root/build/release/app"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    exec "$bin/tether" "$@"
fi
echo "No display: supervising the servers with tetherctl watch instead of opening the window (Ctrl-C stops)." >&2
exec "$bin/tetherctl" watch "$@"
