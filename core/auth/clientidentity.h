#pragma once

#include "authmetadata.h"
#include "formencoding.h"

#include "config/oauthsettings.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>

namespace Tether {

// Who Tether is to an authorization server, and how it proves it at the token endpoint
// (RFC 6749 §2.3.1).
struct ClientIdentity
{
    enum class Authentication { None, SecretBasic, SecretPost };

    QString clientId;
    QString clientSecret; // never shown, never logged
    Authentication authentication = Authentication::None;

    // A client registered in advance: with a secret, client_secret_basic where the server
    // allows it (its default when it lists no methods, RFC 8414 §2), else client_secret_post.
    static ClientIdentity preRegistered(const QString &clientId, const QString &clientSecret,
                                        const QStringList &tokenEndpointAuthMethods);
    // A client registered by Dynamic Client Registration, authenticated as the server said
    // (RFC 7591 §3.2.1 token_endpoint_auth_method).
    static ClientIdentity registered(const QString &clientId, const QString &clientSecret,
                                     const QString &tokenEndpointAuthMethod);

    // What a token request carries to authenticate: fields for its body and, for
    // client_secret_basic, the Authorization header's value.
    struct Credentials
    {
        FormFields fields;
        QByteArray authorizationHeader;
    };
    Credentials credentials() const;
};

// Where the project publishes Tether's Client ID Metadata Document, the one in
// resources/oauth/client-metadata.json; `defaults.oauth.clientMetadataUrl` names another.
QString defaultClientMetadataUrl();

// Who Tether signs in as, before any registration (MCP 2025-11-25 §Client Registration): the
// client of the config, else Tether's Client ID Metadata Document (the configured one, else the
// default) where the authorization server takes those, else nothing: a client registered by
// Tether then.
std::optional<ClientIdentity> clientBeforeRegistration(const OAuthSettings &oauth, const AuthServerMetadata &server);

} // namespace Tether
