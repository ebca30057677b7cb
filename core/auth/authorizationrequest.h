#pragma once

#include <QString>
#include <QStringList>
#include <QUrl>

namespace Tether {

// The authorization request the browser is sent with (RFC 6749 §4.1.1, PKCE RFC 7636 §4.3,
// resource RFC 8707 §2).
struct AuthorizationRequest
{
    QUrl authorizationEndpoint;
    QString clientId;
    QUrl redirectUri;
    QStringList scopes; // empty: no scope parameter, the server's default
    QString state;
    QString codeChallenge; // S256
    QString resource;      // empty: none

    // The endpoint with these parameters added to any query it has (RFC 6749 §3.1 keeps it).
    QUrl url() const;
};

} // namespace Tether
