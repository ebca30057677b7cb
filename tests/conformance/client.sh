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

# Signs in to the suite's server from a config naming it (what --url cannot say), then lists its
# tools: $1 is the server's oauth object (JSON, or nothing), $2 the config's defaults.oauth.
signed_in_from_config() {
    local config="$home/servers.json"
    URL="$url" OAUTH="$1" DEFAULT_OAUTH="${2:-}" node -e '
        const server = { url: process.env.URL };
        if (process.env.OAUTH) server.oauth = JSON.parse(process.env.OAUTH);
        const config = { mcpServers: { conformance: server } };
        if (process.env.DEFAULT_OAUTH) config.defaults = { oauth: JSON.parse(process.env.DEFAULT_OAUTH) };
        process.stdout.write(JSON.stringify(config));' > "$config" || return 1
    "$TETHERCTL" --config "$config" login conformance && "$TETHERCTL" --config "$config" tools conformance
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
    # A client registered beforehand can be given only in a config: the server's oauth client.
    export CONFORMANCE_CLIENT_SECRET
    CONFORMANCE_CLIENT_SECRET=$(context client_secret)
    signed_in_from_config "{\"clientId\": \"$(context client_id)\",
                            \"clientSecret\": \"\${env:CONFORMANCE_CLIENT_SECRET}\"}" ;;
auth/basic-cimd)
    # The suite's authorization server knows the client by the metadata document URL it expects:
    # Tether's own is replaced with it through defaults.oauth.clientMetadataUrl.
    signed_in_from_config "" '{"clientMetadataUrl": "https://conformance-test.local/client-metadata.json"}' ;;
auth/scope-step-up)
    # The scope is stepped up for a tool call, after tools/list went through.
    "$TETHERCTL" call --url "$url" test-tool '{}' ;;
*)
    "$TETHERCTL" tools --url "$url" ;;
esac
