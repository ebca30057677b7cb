#!/usr/bin/env bash
# Installs what is missing, builds release and runs Tether: the window when a display is
# available, otherwise tetherctl against the bundled demo server.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

tether_install_packages "${tether_apt_packages[@]}"
tether_build release tether tetherctl tether-demo-server
bin="$tether_root/build/release/app"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    exec "$bin/tether" "$@"
fi
echo "No display: listing the demo server's tools with tetherctl instead of opening the window." >&2
"$bin/tetherctl" tools --stdio "$bin/demo-server/tether-demo-server"
echo >&2
echo "Calling its add tool: tetherctl call --stdio .../tether-demo-server add '{\"a\": 2, \"b\": 3}'" >&2
exec "$bin/tetherctl" call --stdio "$bin/demo-server/tether-demo-server" add '{"a": 2, "b": 3}'
