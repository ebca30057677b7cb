#pragma once

#include "config/serverconfig.h"
#include "supervisor/connectionsupervisor.h"
#include "transport/streamablehttptransport.h"

namespace Tether {

// Builds the transport a configured server speaks: stdio, Streamable HTTP (falling back to
// HTTP+SSE when the server rejects the Streamable initialize with 404 or 405) or HTTP+SSE.
// Messages show the server as written in the config, before ${env:…} expanded secrets.
// `httpFallback` Never keeps a type http server to Streamable HTTP (tetherctl --transport http).
TransportFactory transportFactoryFor(const ServerConfig &config,
                                     StreamableHttpTransport::SseFallback httpFallback
                                     = StreamableHttpTransport::SseFallback::OnInitializeRejected);

} // namespace Tether
