#include "httpfallbacktransport.h"

#include "common/logging.h"
#include "httpssetransport.h"
#include "protocol/jsonrpc.h"
#include "streamablehttptransport.h"

using namespace Qt::StringLiterals;

namespace Tether {

std::function<std::unique_ptr<Transport>()> HttpFallbackTransport::factory(HttpServerEndpoint endpoint,
                                                                            HttpTransportOptions options)
{
    return [endpoint = std::move(endpoint), options, memory = std::make_shared<Memory>()] {
        return std::make_unique<HttpFallbackTransport>(endpoint, options, memory);
    };
}

HttpFallbackTransport::HttpFallbackTransport(HttpServerEndpoint endpoint, HttpTransportOptions options,
                                             std::shared_ptr<Memory> memory, QObject *parent)
    : Transport(endpoint.secrets(), parent)
    , m_endpoint(std::move(endpoint))
    , m_options(options)
    , m_memory(std::move(memory))
{
    if (m_memory->speaksHttpSseOnly) {
        m_httpSse = std::make_unique<HttpSseTransport>(m_endpoint, m_options);
        m_current = m_httpSse.get();
    } else {
        m_streamableHttp = std::make_unique<StreamableHttpTransport>(m_endpoint, m_options);
        m_current = m_streamableHttp.get();
        connect(m_streamableHttp.get(), &StreamableHttpTransport::initializeRejected, this,
                &HttpFallbackTransport::onInitializeRejected);
    }
    connect(m_current, &Transport::started, this, &Transport::started);
    forwardSignalsOf(*m_current);
}

HttpFallbackTransport::~HttpFallbackTransport() = default;

void HttpFallbackTransport::forwardSignalsOf(const Transport &transport)
{
    connect(&transport, &Transport::messageReceived, this, &Transport::messageReceived);
    connect(&transport, &Transport::inputSkipped, this, &Transport::inputSkipped);
    connect(&transport, &Transport::stderrLine, this, &Transport::stderrLine);
    connect(&transport, &Transport::closed, this, &Transport::closed);
}

QString HttpFallbackTransport::description() const
{
    return m_streamableHttp ? m_streamableHttp->description() : m_httpSse->description();
}

bool HttpFallbackTransport::isOpen() const
{
    return m_current->isOpen();
}

void HttpFallbackTransport::start()
{
    m_current->start();
}

void HttpFallbackTransport::send(const QJsonObject &message)
{
    if (m_current == m_streamableHttp.get()) {
        const JsonRpc::Message classified = JsonRpc::classify(message);
        if (classified.kind == JsonRpc::MessageKind::Request && classified.method == u"initialize")
            m_initializeRequest = message;
    }
    m_current->send(message);
}

void HttpFallbackTransport::close()
{
    m_current->close();
}

void HttpFallbackTransport::onInitializeRejected(int status)
{
    // The 2025-11-25 spec also names 400 among the statuses of an old server, but a Streamable
    // HTTP server answers 400 to an initialize it finds wrong (a header, the body) too, and
    // falling back would hide that error behind an HTTP+SSE one: 404 and 405 only.
    if (status != 404 && status != 405)
        return;
    const QString line = u"the server answered HTTP %1 to the Streamable HTTP initialize; trying the older "
                         "HTTP+SSE transport (protocol 2024-11-05) at the same url"_s.arg(status);
    spdlog::info("{}: {}", description(), line);
    m_memory->speaksHttpSseOnly = true;
    // Streamable HTTP -> HTTP+SSE: the Streamable HTTP connection has no session to end, and
    // its closing is no end of this connection.
    m_streamableHttp->disconnect(this);
    m_streamableHttp->close();
    m_httpSse = std::make_unique<HttpSseTransport>(m_endpoint, m_options);
    m_current = m_httpSse.get();
    connect(m_httpSse.get(), &Transport::started, this, [this] { m_httpSse->send(m_initializeRequest); });
    forwardSignalsOf(*m_httpSse);
    m_httpSse->start();
    emit stderrLine(u"Tether: "_s + line);
}

} // namespace Tether
