#pragma once

#include <QtGlobal>

#include <optional>

// tetherctl serve: Tether's gateway as a stdio MCP server, for hosts that start their servers as
// child processes, or (--http) headless over Streamable HTTP for every host at once. It
// supervises the config's servers itself.
namespace Tether::Ctl {

struct ConfigOptions;

struct ServeOptions
{
    bool http = false;          // serve Streamable HTTP instead of stdin/stdout
    std::optional<quint16> port; // over gateway.http.port
};

// Serves until stdin closes (stdio) or SIGINT, SIGTERM or SIGHUP arrives, then stops the servers
// and returns 0; 2 when the config cannot be used or the HTTP endpoint cannot listen. In stdio
// mode stdout carries MCP messages only.
int serve(const ConfigOptions &options, const ServeOptions &serveOptions);

} // namespace Tether::Ctl
