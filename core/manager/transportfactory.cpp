#include "transportfactory.h"

#include "common/displaytext.h"
#include "transport/httpssetransport.h"
#include "transport/stdiotransport.h"

namespace Tether {

TransportFactory transportFactoryFor(const ServerConfig &config, StreamableHttpTransport::SseFallback httpFallback)
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
    HttpTransportOptions options;
    options.requestTimeout = config.requestTimeout;
    if (config.transport == TransportKind::Sse)
        return [endpoint, options] { return std::make_unique<HttpSseTransport>(endpoint, options); };
    // Once the server turned out to speak HTTP+SSE only, later connections (reconnects after a
    // loss, a manual Reconnect) go there at once: fallen back once, for as long as this config
    // of the server stands. A changed config builds a new factory that tries Streamable HTTP again.
    auto speaksHttpSseOnly = std::make_shared<bool>(false);
    return [endpoint, options, httpFallback, speaksHttpSseOnly]() -> std::unique_ptr<Transport> {
        if (*speaksHttpSseOnly)
            return std::make_unique<HttpSseTransport>(endpoint, options);
        auto transport = std::make_unique<StreamableHttpTransport>(endpoint, options, httpFallback);
        QObject::connect(transport.get(), &StreamableHttpTransport::fellBack, transport.get(),
                         [speaksHttpSseOnly] { *speaksHttpSseOnly = true; });
        return transport;
    };
}

} // namespace Tether
