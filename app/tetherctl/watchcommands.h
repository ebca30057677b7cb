#pragma once

// The watch commands: supervise servers and print one line per state change until SIGINT or
// SIGTERM.
namespace Tether {
struct SupervisorSettings;
}

namespace Tether::Ctl {

struct CommonOptions;
struct ConfigOptions;

// The server named on the command line.
int watch(const CommonOptions &options, const SupervisorSettings &settings);
// The servers of the config file, following its changes.
int configWatch(const ConfigOptions &options);

} // namespace Tether::Ctl
