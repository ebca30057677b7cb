#pragma once

#include <chrono>

namespace Tether {

// The config's "gateway" section: how Tether serves its servers' tools to MCP hosts.
struct GatewayConfig
{
    // How long a call to a server that is starting or reconnecting waits for it to connect
    // before it fails with a tool error result.
    std::chrono::milliseconds outageWait{10000};
    // Tools in one page of tools/list.
    int toolsPageSize = 1000;

    bool operator==(const GatewayConfig &) const = default;
};

} // namespace Tether
