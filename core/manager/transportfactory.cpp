#include "transportfactory.h"

#include "config/serverconfig.h"
#include "transport/httpfallbacktransport.h"
#include "transport/httpssetransport.h"
#include "transport/stdiotransport.h"
#include "transport/streamablehttptransport.h"

namespace Tether {

TransportFactory transportFactoryFor(const ServerConfig &config, HttpFallback httpFallback,
                                     std::shared_ptr<ServerCredentials> credentials)
{
    if (config.transport == TransportKind::Stdio) {
        StdioServerCommand command = config.command;
        command.shownAs = config.describe();
        return [command] { return std::make_unique<StdioTransport>(command); };
    }
    HttpServerEndpoint endpoint;
    endpoint.url = QUrl(config.url);
    endpoint.headers = config.headers;
    endpoint.shownUrl = config.shownUrl();
    if (config.usesSignIn())
        endpoint.credentials = std::move(credentials);
    HttpTransportOptions options;
    options.requestTimeout = config.requestTimeout;
    if (config.transport == TransportKind::Sse)
        return [endpoint, options] { return std::make_unique<HttpSseTransport>(endpoint, options); };
    if (httpFallback == HttpFallback::None)
        return [endpoint, options] { return std::make_unique<StreamableHttpTransport>(endpoint, options); };
    return HttpFallbackTransport::factory(endpoint, options);
}

} // namespace Tether
