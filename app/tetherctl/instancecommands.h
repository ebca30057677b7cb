#pragma once

#include "configoptions.h"

#include <QStringList>

#include <optional>

namespace Tether::Ctl {

// The commands that exist only beside a running instance, and the headless instance itself.

// start, stop or reconnect (`command`) the servers named, in the Tether that runs the config; stop
// waits until they have stopped.
int controlServers(const ConfigOptions &options, const QString &command, const QStringList &servers);
// The event log of the instance (of one server when named), and with `follow` what comes next.
int showLogs(const ConfigOptions &options, const QString &server, bool follow);
// serve --http: the gateway over Streamable HTTP too, on `port` when given.
struct HttpServing
{
    std::optional<quint16> port;
};

// Runs the config's servers and gateway without a window until a signal: the instance that
// tetherctl and windows attach to. Another process that already runs the config is left to it.
// With `http` (serve --http) the gateway is served over HTTP too; that it cannot be, or that another
// Tether runs the config, is then an error.
int runDaemon(const ConfigOptions &options, std::optional<HttpServing> http = std::nullopt);

} // namespace Tether::Ctl
