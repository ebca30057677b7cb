#pragma once

namespace Tether::Ctl {

// Exit statuses are a contract: scripts depend on them (docs/tetherctl.md, "Exit status…").
enum ExitStatus : int {
    Success = 0,
    ToolError = 1,
    Failure = 2,
    // Of status: an enabled server is down and waits for a person (Failed, Disconnected, Sign-in
    // needed, invalid, stopped). Of tools, resources and prompts: a server asked about is not
    // connected (nameServersNotListed).
    ServersDown = 3,
    // None is down, but one is still connecting (Starting, Retrying, Reconnecting).
    ServersConnecting = 4,
    // No Tether runs the config (status: what it shows is of servers it ran itself), or the one
    // attached to went away.
    NoInstance = 5,
};

} // namespace Tether::Ctl
