#include "authdiscoverysteps.h"

#include "canonicalurl.h"

using namespace Qt::StringLiterals;

namespace Tether {

AuthDiscoverySteps::AuthDiscoverySteps(const QUrl &serverUrl, const BearerChallenge &challenge)
    : m_serverUrl(serverUrl), m_challenge(challenge), m_urls(protectedResourceMetadataUrls(serverUrl, challenge))
{
}

QUrl AuthDiscoverySteps::next() const
{
    return m_phase == Phase::Over ? QUrl() : m_urls.value(m_at);
}

void AuthDiscoverySteps::answered(int status, QByteArrayView body)
{
    if (m_phase == Phase::Over)
        return;
    const QUrl url = m_urls.value(m_at);
    QString outcome = u"HTTP %1"_s.arg(status);
    if (status >= 200 && status < 300) {
        QString refusal;
        const bool found = m_phase == Phase::ResourceMetadata ? readResourceMetadata(body, url, &refusal)
                                                              : readAuthServerMetadata(body, url, &refusal);
        if (found)
            return;
        outcome += refusal.isEmpty() ? u", no JSON object"_s : u", not used"_s;
        if (m_firstRefusal.isEmpty())
            m_firstRefusal = refusal;
    } else if (status >= 300 && status < 400) {
        outcome += u", a redirect Tether does not follow"_s;
    }
    if (status != 404)
        m_onlyNotFound = false;
    (m_phase == Phase::AuthServer ? m_triedForIssuer : m_triedForServer).append({url, outcome});
    advance();
}

void AuthDiscoverySteps::unreachable(const QString &reason)
{
    if (m_phase != Phase::Over)
        fail(reason);
}

bool AuthDiscoverySteps::readResourceMetadata(QByteArrayView body, const QUrl &url, QString *refusal)
{
    m_resource = readProtectedResourceMetadata(body, url, m_serverUrl, refusal);
    if (!m_resource)
        return false;
    startAuthServer(0);
    return true;
}

bool AuthDiscoverySteps::readAuthServerMetadata(QByteArrayView body, const QUrl &url, QString *refusal)
{
    const bool atOrigin = m_phase == Phase::ServerOrigin;
    const QString issuer = atOrigin ? QString() : m_resource->authorizationServers.at(m_issuerIndex);
    const std::optional<AuthServerMetadata> metadata = Tether::readAuthServerMetadata(body, url, issuer, refusal);
    if (!metadata)
        return false;
    // MCP 2025-11-25 §Resource Parameter Implementation: the resource as its metadata names it,
    // else the server's canonical url.
    finish({m_serverUrl, atOrigin ? canonicalResourceUrl(m_serverUrl) : m_resource->resource,
            scopesToRequest(m_challenge, m_resource), *metadata, atOrigin});
    return true;
}

void AuthDiscoverySteps::advance()
{
    if (++m_at < m_urls.size())
        return;
    switch (m_phase) {
    case Phase::ResourceMetadata:
        // A document that was there but not usable says more than the fallback's 404s would.
        if (!m_firstRefusal.isEmpty())
            return fail(m_firstRefusal);
        m_phase = Phase::ServerOrigin;
        m_urls = serverOriginMetadataUrls(m_serverUrl);
        m_at = 0;
        return;
    case Phase::AuthServer:
        m_issuerFailures.append(m_firstRefusal.isEmpty()
                                    ? DiscoveryErrors::noAuthServerMetadata(
                                          m_resource->authorizationServers.at(m_issuerIndex), m_triedForIssuer)
                                    : m_firstRefusal);
        return startAuthServer(m_issuerIndex + 1);
    case Phase::ServerOrigin:
        if (m_onlyNotFound) {
            if (const std::optional<AuthServerMetadata> defaults = defaultEndpointsAtOrigin(m_serverUrl))
                return finish({m_serverUrl, canonicalResourceUrl(m_serverUrl), scopesToRequest(m_challenge, std::nullopt),
                               *defaults, true});
        }
        return fail(!m_firstRefusal.isEmpty()
                        ? m_firstRefusal
                        : DiscoveryErrors::noSignInMetadata(m_serverUrl, m_challenge.status ? m_challenge.status : 401,
                                                            m_triedForServer));
    case Phase::Over:
        return;
    }
}

// RFC 9728 §7.6 leaves the choice among several authorization servers to the client: the
// first one whose metadata is usable, in the document's order.
void AuthDiscoverySteps::startAuthServer(qsizetype issuerIndex)
{
    m_phase = Phase::AuthServer;
    m_firstRefusal.clear();
    m_triedForIssuer.clear();
    const QStringList &issuers = m_resource->authorizationServers;
    for (m_issuerIndex = issuerIndex; m_issuerIndex < issuers.size(); ++m_issuerIndex) {
        const QString &issuer = issuers.at(m_issuerIndex);
        if (isSecureEnough(QUrl(issuer))) {
            m_urls = authServerMetadataUrls(issuer);
            m_at = 0;
            return;
        }
        m_issuerFailures.append(DiscoveryErrors::authServerNotHttps(m_serverUrl, issuer));
    }
    fail(m_issuerFailures.join(u"; "_s));
}

void AuthDiscoverySteps::finish(const SignInTarget &target)
{
    m_phase = Phase::Over;
    m_target = target;
}

void AuthDiscoverySteps::fail(const QString &reason)
{
    m_phase = Phase::Over;
    m_failure = reason;
}

} // namespace Tether
