#include "transportfactory.h"

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
    const QJsonValue written = config.source.value(QLatin1StringView("url"));
    if (written.isString())
        endpoint.shownUrl = written.toString();
    HttpTransportOptions options;
    options.requestTimeout = config.requestTimeout;
    if (config.transport == TransportKind::Sse)
        return [endpoint, options] { return std::make_unique<HttpSseTransport>(endpoint, options); };
    return [endpoint, options, httpFallback] {
        return std::make_unique<StreamableHttpTransport>(endpoint, options, httpFallback);
    };
}

} // namespace Tether
