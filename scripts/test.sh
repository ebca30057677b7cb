#!/usr/bin/env bash
# Installs what is missing, builds (debug, warnings are errors) and runs every test.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

tether_install_packages "${tether_apt_packages[@]}" "${tether_package_apt_packages[@]}"
tether_install_npm_packages
tether_build debug
cd "$tether_root/build/debug"
ctest --output-on-failure --timeout 300 "$@"
