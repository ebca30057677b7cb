# Sourced by run.sh and test.sh: installs what a fresh Debian 12 machine lacks, quickly when
# nothing is missing.

tether_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# qtkeychain-qt6-dev: sign-in tokens in the system keyring; libsecret-1-0, which QtKeychain loads
# at run time to reach it, is only recommended by Debian. libqt6svg6: the plugin that draws the
# window's SVG icons.
tether_apt_packages=(cmake ninja-build g++ pkg-config qt6-base-dev libgl-dev libspdlog-dev qtkeychain-qt6-dev
    libsecret-1-0 libqt6svg6)
# tst_authkeyring: a keyring of its own in a private D-Bus session (dbus-run-session).
tether_keyring_test_packages=(gnome-keyring dbus-daemon)
# The package's man page of tether-demo-server and PNG icons, the Debian package itself (dpkg-dev:
# dpkg-shlibdeps, dpkg-buildflags), the tools that judge it (systemd: systemd-analyze for the user
# unit), and the shells its completions are tested in.
tether_package_apt_packages=(help2man librsvg2-bin dpkg-dev lintian appstream desktop-file-utils zsh fish systemd)
# The fuzz stage of test.sh: clang, and its runtime libraries (libFuzzer, the sanitizers), which
# clang only recommends.
tether_sanitizer_packages=(clang libclang-rt-14-dev)

tether_install_packages() {
    local wanted=("$@") missing=() package
    for package in "${wanted[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' || missing+=("$package")
    done
    # Node.js may come from elsewhere than Debian (it does on some images): any node and npm will do.
    command -v node >/dev/null || missing+=(nodejs)
    command -v npm >/dev/null || missing+=(npm)
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "tether: installing ${missing[*]}" >&2
    if [ "$(id -u)" -ne 0 ]; then
        echo "tether: these packages are missing and installing them needs root: ${missing[*]}" >&2
        return 1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Installs the npm packages of the end-to-end tests exactly as package-lock.json pins them,
# again only when the lock file changed since the last install.
tether_install_npm_packages() {
    local stamp="$tether_root/node_modules/.tether-lock.sha256"
    local wanted
    wanted=$(sha256sum "$tether_root/package-lock.json" | cut -d' ' -f1)
    [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] && return 0
    echo "tether: installing npm packages from package-lock.json" >&2
    (cd "$tether_root" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$wanted" > "$stamp"
}

# promtool, which the metrics test checks Tether's /metrics text with, from Debian's prometheus
# package: extracted into build/tools/ once rather than installed, since installing the package
# would also set up a prometheus daemon and user.
tether_extract_promtool() {
    local tools="$tether_root/build/tools" unpacked
    [ -x "$tools/promtool" ] && return 0
    echo "tether: extracting promtool from Debian's prometheus package into $tools" >&2
    unpacked=$(mktemp -d)
    # As root apt warns that it downloads into a folder its own user cannot write, and does.
    if ! (cd "$unpacked" && apt-get download -qq prometheus 2>/dev/null); then
        [ "$(id -u)" -eq 0 ] && apt-get update -qq
        (cd "$unpacked" && apt-get download -qq prometheus) || {
            echo "tether: apt-get download prometheus failed; promtool is needed by tst_metricsscrape" >&2
            rm -rf "$unpacked"
            return 1
        }
    fi
    dpkg-deb -x "$unpacked"/prometheus_*.deb "$unpacked/root"
    mkdir -p "$tools"
    mv "$unpacked/root/usr/bin/promtool" "$tools/promtool"
    rm -rf "$unpacked"
}

# Configures (once) and builds a CMake preset: everything, or the targets named after it.
# With ccache installed every preset compiles through it, so a stage built before is quick.
# tether_configure_args: extra cmake arguments for a tree configured for the first time.
tether_configure_args=()
tether_build() {
    local preset=$1 targets=()
    shift
    [ $# -gt 0 ] && targets=(--target "$@")
    if [ ! -f "$tether_root/build/$preset/build.ninja" ]; then
        command -v ccache >/dev/null && export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
        cmake --preset "$preset" -S "$tether_root" "${tether_configure_args[@]}" >/dev/null
    fi
    cmake --build "$tether_root/build/$preset" --parallel "$(nproc)" "${targets[@]}"
}
