#pragma once

#include "supervisor/connectionsupervisor.h"

#include <memory>

namespace Tether {

class ServerCredentials;
struct ServerConfig;

// Whether a server of type http that rejects the Streamable HTTP initialize with 404 or 405 is
// tried again over HTTP+SSE at the same url.
enum class HttpFallback { ToHttpSse, None };

// Builds the transport a configured server speaks: stdio, Streamable HTTP (falling back to
// HTTP+SSE unless `httpFallback` is None, as for tetherctl --transport http) or HTTP+SSE.
// Messages show the server as written in the config, before ${env:…} expanded secrets. A remote
// server's requests carry `credentials` (and renew them on a 401) when it usesSignIn() (not "oauth": false, no
// Authorization header of its own).
TransportFactory transportFactoryFor(const ServerConfig &config, HttpFallback httpFallback = HttpFallback::ToHttpSse,
                                     std::shared_ptr<ServerCredentials> credentials = {});

} // namespace Tether
