#pragma once

// tetherctl serve: Tether's gateway as a stdio MCP server, for hosts that start their servers as
// child processes. It supervises the config's servers itself; a bridge to a Tether that already
// serves the gateway (the window, or tetherctl serve --http) goes in front of this once that
// endpoint exists.
namespace Tether::Ctl {

struct ConfigOptions;

// Serves until stdin closes or SIGINT, SIGTERM or SIGHUP arrives, then stops the servers and
// returns 0; 2 when the config cannot be used. stdout carries MCP messages only.
int serve(const ConfigOptions &options);

} // namespace Tether::Ctl
