#pragma once

#include <QtGlobal>

#include <optional>

// tetherctl serve: Tether's gateway as a stdio MCP server, for hosts that start their servers as
// child processes, or (--http) headless over Streamable HTTP for every host at once. Over stdio
// it relays to a running Tether that serves the same config over HTTP, when there is one, and
// supervises the config's servers itself otherwise (or once that Tether goes away).
namespace Tether::Ctl {

struct ConfigOptions;

struct ServeOptions
{
    bool http = false;          // serve Streamable HTTP instead of stdin/stdout
    std::optional<quint16> port; // over gateway.http.port
    bool bridge = true;          // stdio: relay to a running Tether of the same config, if any
};

// Serves until stdin closes (stdio) or SIGINT, SIGTERM or SIGHUP arrives, then ends the relayed
// session or stops the servers and returns 0; 2 when the config cannot be used or the HTTP
// endpoint cannot listen. In stdio mode stdout carries MCP messages only.
int serve(const ConfigOptions &options, const ServeOptions &serveOptions);

} // namespace Tether::Ctl
