#!/bin/bash
# The client that the official conformance suite runs for each of its client scenarios:
#   client.sh URL
# with the scenario's name in MCP_CONFORMANCE_SCENARIO and, for some, its data (JSON) in
# MCP_CONFORMANCE_CONTEXT. It runs $TETHERCTL against the suite's server, in folders of its own
# (config, tokens, runtime) that it removes, with the sign-in's browser step taken by browser.mjs.
set -u
url="${!#}"
: "${TETHERCTL:?TETHERCTL must name the tetherctl to test}"

home=$(mktemp -d) || exit 1
trap 'rm -rf "$home"' EXIT
mkdir -p "$home"/{config,data,state,cache,runtime}
chmod 700 "$home/runtime"
export XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" XDG_STATE_HOME="$home/state" \
       XDG_CACHE_HOME="$home/cache" XDG_RUNTIME_DIR="$home/runtime"
# Tokens go to the file store in $home, never to the desktop's keyring.
unset DBUS_SESSION_BUS_ADDRESS
export TETHER_BROWSER="node '$(dirname "$(readlink -f "$0")")/browser.mjs'"

# A value of the scenario's context, such as client_id.
context() {
    node -e 'const v = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}")[process.argv[1]];
             process.stdout.write(v === undefined ? "" : String(v));' "$1"
}

case "${MCP_CONFORMANCE_SCENARIO:-}" in
tools_call)
    "$TETHERCTL" call --url "$url" add_numbers '{"a":2,"b":3}' ;;
elicitation-sep1034-client-defaults)
    # tetherctl asks for a tool's form on a terminal only: on a pseudo-terminal here, where Enter
    # takes each field's default (five of them) and Enter again accepts the form.
    printf '\n%.0s' 1 2 3 4 5 6 |
        script --quiet --return --command "$(printf '%q ' "$TETHERCTL" call --url "$url" test_client_elicitation_defaults '{}')" /dev/null ;;
sse-retry)
    "$TETHERCTL" call --url "$url" test_reconnection '{}' ;;
auth/pre-registration)
    # A client registered beforehand comes from the config: a server there with its oauth client.
    export CONFORMANCE_CLIENT_SECRET
    CONFORMANCE_CLIENT_SECRET=$(context client_secret)
    config="$home/servers.json"
    URL="$url" CLIENT_ID=$(context client_id) node -e '
        const server = { url: process.env.URL,
                         oauth: { clientId: process.env.CLIENT_ID,
                                  clientSecret: "${env:CONFORMANCE_CLIENT_SECRET}" } };
        process.stdout.write(JSON.stringify({ mcpServers: { conformance: server } }));' > "$config"
    "$TETHERCTL" --config "$config" login conformance && "$TETHERCTL" --config "$config" tools conformance ;;
*)
    "$TETHERCTL" tools --url "$url" ;;
esac
