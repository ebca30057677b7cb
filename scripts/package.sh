#!/usr/bin/env bash
# Builds Tether's Debian package with CPack from a release build of what it installs (tests and
# benchmarks left out) and prints the package's path on stdout. The build tree is build/package,
# configured here with Debian's build flags (dpkg-buildflags: -O2, hardening), or the folder
# given; a folder already configured is packed as it was configured (tst_package packs its own).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

tether_install_packages "${tether_apt_packages[@]}" "${tether_package_apt_packages[@]}"
tree=${1:-$tether_root/build/package}
if [ ! -f "$tree/build.ninja" ]; then
    export DEB_BUILD_MAINT_OPTIONS=hardening=+all DEB_CXXFLAGS_MAINT_STRIP=-g
    CXXFLAGS="$(dpkg-buildflags --get CPPFLAGS) $(dpkg-buildflags --get CXXFLAGS)" \
    LDFLAGS="$(dpkg-buildflags --get LDFLAGS)" \
        cmake -S "$tether_root" -B "$tree" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-DNDEBUG \
        -DTETHER_WERROR=ON -DBUILD_TESTING=OFF -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON >&2
fi
cmake --build "$tree" --parallel "$(nproc)" --target tether_installed >&2
# "CPack: - package: /…/tether_0.1.0_amd64.deb generated."
(cd "$tree" && cpack -G DEB) | tee /dev/stderr | sed -n 's/^CPack: - package: \(.*\) generated\.$/\1/p'
