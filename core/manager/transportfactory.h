#pragma once

#include "config/serverconfig.h"
#include "supervisor/connectionsupervisor.h"

namespace Tether {

// Builds the transport a configured server speaks: stdio, Streamable HTTP (falling back to
// HTTP+SSE when the server rejects the Streamable initialize with 404 or 405) or HTTP+SSE.
// Messages show the server as written in the config, before ${env:…} expanded secrets.
TransportFactory transportFactoryFor(const ServerConfig &config);

} // namespace Tether
