#pragma once

#include "supervisor/connectionsupervisor.h"

namespace Tether {

struct ServerConfig;

// Whether a server of type http that rejects the Streamable HTTP initialize with 404 or 405 is
// tried again over HTTP+SSE at the same url.
enum class HttpFallback { ToHttpSse, None };

// Builds the transport a configured server speaks: stdio, Streamable HTTP (falling back to
// HTTP+SSE unless `httpFallback` is None, as for tetherctl --transport http) or HTTP+SSE.
// Messages show the server as written in the config, before ${env:…} expanded secrets.
TransportFactory transportFactoryFor(const ServerConfig &config, HttpFallback httpFallback = HttpFallback::ToHttpSse);

} // namespace Tether
