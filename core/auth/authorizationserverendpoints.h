#pragma once

#include <QString>
#include <QStringList>
#include <QUrl>

namespace Tether {

// What the sign-in flow needs of one authorization server, taken from its metadata (RFC 8414
// §2): where to send the browser and the requests, and how the server authenticates clients.
struct AuthorizationServerEndpoints
{
    QString issuer;
    QUrl authorizationEndpoint;
    QUrl tokenEndpoint;
    QUrl registrationEndpoint; // empty: no Dynamic Client Registration
    QUrl revocationEndpoint;   // empty: tokens are not revoked on sign-out
    // token_endpoint_auth_methods_supported; empty means the default, client_secret_basic.
    QStringList tokenEndpointAuthMethods;
    // authorization_response_iss_parameter_supported (RFC 9207 §3): the callback must carry `iss`.
    bool sendsIssuerInCallback = false;
};

} // namespace Tether
