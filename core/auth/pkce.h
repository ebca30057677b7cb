#pragma once

#include <QString>

namespace Tether {

// Proof Key for Code Exchange (RFC 7636), S256 only: the verifier goes with the token request,
// its challenge with the authorization request, so that a stolen code is worth nothing alone.
struct Pkce
{
    QString verifier;  // base64url of 32 random bytes: 43 characters (RFC 7636 §4.1)
    QString challenge; // base64url(SHA-256(verifier)) (RFC 7636 §4.2)

    static Pkce generate();
    static Pkce forVerifier(const QString &verifier);
};

// The value that ties a callback to the authorization request Tether sent (RFC 6749 §10.12):
// base64url of 32 random bytes.
QString newAuthorizationState();

// base64url without padding, as PKCE and `state` use it.
QString base64Url(const QByteArray &bytes);

} // namespace Tether
