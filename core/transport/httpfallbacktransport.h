#pragma once

#include "httpendpoint.h"
#include "transport.h"

#include <functional>
#include <memory>

namespace Tether {

class HttpSseTransport;
class StreamableHttpTransport;

// A server of type http: Streamable HTTP first, and the older HTTP+SSE transport (protocol
// 2024-11-05) at the same URL when the server answers the first initialize with 404 or 405,
// as a server that speaks HTTP+SSE only does. The connection then continues over HTTP+SSE,
// under the description it began with, and the server's log says so once. The transports of
// one factory remember it: their later connections go to HTTP+SSE at once.
class HttpFallbackTransport final : public Transport
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HttpFallbackTransport)

public:
    // What the connections of one server learned, for as long as its config stands.
    struct Memory
    {
        bool speaksHttpSseOnly = false;
    };

    // Transports for one server's connections, one per attempt, sharing one Memory. A changed
    // config builds a new factory, which tries Streamable HTTP again.
    static std::function<std::unique_ptr<Transport>()> factory(HttpServerEndpoint endpoint,
                                                               HttpTransportOptions options);

    explicit HttpFallbackTransport(HttpServerEndpoint endpoint, HttpTransportOptions options = {},
                                   std::shared_ptr<Memory> memory = std::make_shared<Memory>(),
                                   QObject *parent = nullptr);
    ~HttpFallbackTransport() override;

    void start() override;
    void send(const QJsonObject &message) override;
    void close() override;

    bool isOpen() const override;
    // Those of the transport the connection runs over now, which learns renewed tokens.
    const SecretScrubber &secrets() const override { return m_current->secrets(); }
    bool signsIn() const override { return m_current->signsIn(); }
    // "http: https://host/mcp", or "sse: https://host/mcp" when the server was known to speak
    // HTTP+SSE only before this connection began.
    QString description() const override;

    bool fellBackToHttpSse() const { return m_streamableHttp && m_httpSse; }

private:
    void forwardSignalsOf(const Transport &transport);
    void onInitializeRejected(int status);

    HttpServerEndpoint m_endpoint;
    HttpTransportOptions m_options;
    std::shared_ptr<Memory> m_memory;
    std::unique_ptr<StreamableHttpTransport> m_streamableHttp;
    std::unique_ptr<HttpSseTransport> m_httpSse;
    Transport *m_current = nullptr; // the one of the two the connection runs over now
    QJsonObject m_initializeRequest; // sent again over HTTP+SSE when falling back
};

} // namespace Tether
