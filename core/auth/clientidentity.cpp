#include "clientidentity.h"

#include <QUrl>

using namespace Qt::StringLiterals;

namespace Tether {

ClientIdentity ClientIdentity::preRegistered(const QString &clientId, const QString &clientSecret,
                                             const QStringList &tokenEndpointAuthMethods)
{
    if (clientSecret.isEmpty())
        return {clientId, {}, Authentication::None};
    const bool basicAllowed = tokenEndpointAuthMethods.isEmpty()
                              || tokenEndpointAuthMethods.contains(u"client_secret_basic"_s);
    const bool postAllowed = tokenEndpointAuthMethods.contains(u"client_secret_post"_s);
    return {clientId, clientSecret,
            basicAllowed || !postAllowed ? Authentication::SecretBasic : Authentication::SecretPost};
}

ClientIdentity ClientIdentity::registered(const QString &clientId, const QString &clientSecret,
                                          const QString &tokenEndpointAuthMethod)
{
    if (clientSecret.isEmpty() || tokenEndpointAuthMethod == u"none"_s)
        return {clientId, {}, Authentication::None};
    return {clientId, clientSecret,
            tokenEndpointAuthMethod == u"client_secret_post"_s ? Authentication::SecretPost
                                                                : Authentication::SecretBasic};
}

ClientIdentity::Credentials ClientIdentity::credentials() const
{
    switch (authentication) {
    case Authentication::None:
        return {{{u"client_id"_s, clientId}}, {}};
    case Authentication::SecretPost:
        return {{{u"client_id"_s, clientId}, {u"client_secret"_s, clientSecret}}, {}};
    case Authentication::SecretBasic:
        // RFC 6749 §2.3.1: id and secret are form-encoded before they are joined and Base64-encoded.
        const QByteArray pair = QUrl::toPercentEncoding(clientId) + ':' + QUrl::toPercentEncoding(clientSecret);
        return {{}, "Basic " + pair.toBase64()};
    }
    return {};
}

QString defaultClientMetadataUrl()
{
    return u"https://tether.github.io/tether/oauth/client-metadata.json"_s;
}

std::optional<ClientIdentity> clientBeforeRegistration(const OAuthSettings &oauth, const AuthServerMetadata &server)
{
    if (!oauth.clientId.isEmpty())
        return ClientIdentity::preRegistered(oauth.clientId, oauth.clientSecret, server.tokenEndpointAuthMethodsSupported);
    if (!server.clientIdMetadataDocumentSupported)
        return std::nullopt;
    // A metadata document's client is public: it has no secret to send.
    return ClientIdentity{oauth.clientMetadataUrl.isEmpty() ? defaultClientMetadataUrl() : oauth.clientMetadataUrl, {},
                          ClientIdentity::Authentication::None};
}

} // namespace Tether
