#include "gatewayservice.h"

#include "gateway.h"
#include "gatewayinstance.h"
#include "gatewaytoken.h"
#include "localsocketendpoint.h"
#include "streamablehttpendpoint.h"

#include "common/logging.h"

namespace Tether {

GatewayService::GatewayService(ServerManager &manager, QObject *parent)
    : QObject(parent)
    , m_manager(manager)
{
    m_publishTimer.setSingleShot(true);
    m_publishTimer.setInterval(CoalesceDelay);
    connect(&m_publishTimer, &QTimer::timeout, this, &GatewayService::changed);
}

GatewayService::~GatewayService()
{
    // Before the gateway they serve.
    m_endpoint.reset();
    m_relaySocket.reset();
}

void GatewayService::applyConfig(const GatewayConfig &config, const QString &configPath)
{
    m_config = config;
    m_configPath = configPath;
    const bool first = !m_gateway;
    if (!first) {
        m_gateway->setConfig(config);
    } else {
        m_gateway = std::make_unique<Gateway>(m_manager, config);
        connect(m_gateway.get(), &Gateway::statusChanged, this, &GatewayService::publishSoon);
        m_instanceId = QString::fromLatin1(newRandomId());
    }
    // HTTP first: a Tether that holds the port keeps its record, and is named.
    if (!config.http.enabled) {
        // Serving | NotServed -> Relaying
        stopHttp();
        m_triedHttp.reset();
        m_error.clear();
    } else if (m_triedHttp != config.http) {
        // Relaying | Serving | NotServed -> Serving | NotServed. The endpoint served now goes
        // first: the new one may listen on its port.
        stopHttp();
        m_triedHttp = config.http;
        if (std::unique_ptr<StreamableHttpEndpoint> endpoint = listen(config.http, &m_error))
            useEndpoint(std::move(endpoint));
    }
    // A client's tetherctl serve uses these servers, HTTP or not.
    if (first)
        announce();
    publishSoon();
}

bool GatewayService::serveHttp(const GatewayHttpConfig &http, QString *error)
{
    if (!m_gateway) {
        *error = QStringLiteral("The gateway has no config yet");
        return false;
    }
    if (m_endpoint && m_triedHttp == http)
        return true;
    // Listening before the endpoint served now goes, so that a refusal changes nothing.
    std::unique_ptr<StreamableHttpEndpoint> endpoint = listen(http, error);
    if (!endpoint)
        return false;
    // Relaying | Serving | NotServed -> Serving
    m_triedHttp = http;
    useEndpoint(std::move(endpoint));
    publishSoon();
    return true;
}

std::unique_ptr<StreamableHttpEndpoint> GatewayService::listen(const GatewayHttpConfig &http, QString *error)
{
    // A failure to listen (the port in use) is shown, not fatal: the program works without it.
    std::unique_ptr<StreamableHttpEndpoint> endpoint = StreamableHttpEndpoint::serve(*m_gateway, http, m_configPath,
                                                                                     m_instanceId, error);
    if (!endpoint)
        spdlog::warn("gateway: not serving over HTTP: {}", *error);
    return endpoint;
}

void GatewayService::useEndpoint(std::unique_ptr<StreamableHttpEndpoint> endpoint)
{
    stopListening();
    m_endpoint = std::move(endpoint);
    m_error.clear();
    connect(m_endpoint.get(), &StreamableHttpEndpoint::sessionsChanged, this, &GatewayService::publishSoon);
    // Served after the relay socket (turned on, or the port was freed): the record names it from now on.
    QString why;
    if (m_relaySocket && !m_relaySocket->announceHttp(m_endpoint->url(), m_endpoint->tokenFile(), &why))
        spdlog::warn("gateway: the instance record does not name the HTTP endpoint: {}", why);
}

void GatewayService::stopHttp()
{
    if (!m_endpoint)
        return;
    stopListening();
    QString why;
    if (m_relaySocket && !m_relaySocket->announceHttp({}, {}, &why))
        spdlog::warn("gateway: the instance record still names the HTTP endpoint: {}", why);
    publishSoon();
}

void GatewayService::stopListening()
{
    if (!m_endpoint)
        return;
    spdlog::info("gateway: no longer serving MCP over HTTP at {}", m_endpoint->url());
    m_endpoint->close();
    // Deleted from the event loop: the sessions it ended are deleted first, and may still speak to
    // their channels until then. Should this service go first, it takes the endpoint with it.
    StreamableHttpEndpoint *closed = m_endpoint.release();
    closed->disconnect(this);
    closed->setParent(this);
    closed->deleteLater();
}

void GatewayService::announce()
{
    m_relaySocket = LocalSocketEndpoint::announce(*m_gateway, m_configPath, m_instanceId,
                                                  m_endpoint ? m_endpoint->url() : QString(),
                                                  m_endpoint ? m_endpoint->tokenFile() : QString(), &m_relayError);
    if (!m_relaySocket) {
        spdlog::warn("gateway: the tetherctl serve of clients will not relay to this Tether: {}", m_relayError);
        return;
    }
    m_relaySocket->setService(m_localService);
}

bool GatewayService::rotateToken(QString *error)
{
    if (!m_endpoint) {
        *error = QStringLiteral("The gateway is not served, so it has no token in use");
        return false;
    }
    if (!m_endpoint->rotateToken(error))
        return false;
    spdlog::info("gateway: a new token in {}; hosts connect again with it", m_endpoint->tokenFile());
    publishSoon();
    return true;
}

void GatewayService::close()
{
    if (m_endpoint)
        m_endpoint->close();
    if (m_relaySocket)
        m_relaySocket->close();
}

GatewayServing GatewayService::serving() const
{
    GatewayServing serving;
    serving.port = m_config.http.port;
    serving.configPath = m_configPath;
    serving.tokenFile = m_configPath.isEmpty() ? QString() : gatewayTokenPath(m_configPath);
    if (!m_gateway)
        return serving;
    serving.status = m_gateway->status();
    serving.relayError = m_relaySocket ? QString() : m_relayError;
    if (!m_endpoint && !m_config.http.enabled) {
        serving.state = m_relaySocket ? GatewayServing::State::Relaying : GatewayServing::State::Off;
        serving.error = m_relaySocket ? QString() : m_relayError;
        return serving;
    }
    if (!m_endpoint) {
        serving.state = GatewayServing::State::NotServed;
        serving.error = m_error;
        return serving;
    }
    serving.state = GatewayServing::State::Serving;
    serving.url = m_endpoint->url();
    serving.token = m_endpoint->token();
    return serving;
}

void GatewayService::publishSoon()
{
    if (!m_publishTimer.isActive())
        m_publishTimer.start();
}

} // namespace Tether
