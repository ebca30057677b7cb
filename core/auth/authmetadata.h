#pragma once

#include <QString>
#include <QStringList>
#include <QUrl>

namespace Tether {

// What a protected resource (the MCP server) says of itself: its Protected Resource Metadata
// (RFC 9728 §2), as far as signing in needs it.
struct ProtectedResourceMetadata
{
    QString resource;                 // the resource identifier, as the document writes it
    QStringList authorizationServers; // issuer identifiers, in the document's order; never empty once validated
    QStringList scopesSupported;
    QUrl documentUrl; // where it was read
};

// What an authorization server says of itself: its metadata (RFC 8414 §2, or OpenID Connect
// Discovery), as far as signing in needs it. Only validated documents become this value: the
// endpoints are https (or loopback http) and S256 is among the PKCE methods.
struct AuthServerMetadata
{
    QString issuer; // as the document writes it
    QUrl authorizationEndpoint;
    QUrl tokenEndpoint;
    QUrl registrationEndpoint; // empty: no dynamic client registration (RFC 7591)
    QUrl revocationEndpoint;   // empty: none (RFC 7009)
    QStringList codeChallengeMethodsSupported;
    // Empty when the document does not say; RFC 8414 §2 then means "client_secret_basic".
    QStringList tokenEndpointAuthMethodsSupported;
    QStringList scopesSupported;
    bool authorizationResponseIssParameterSupported = false; // RFC 9207 §3: check `iss` in the callback
    bool clientIdMetadataDocumentSupported = false;          // MCP 2025-11-25 §Client ID Metadata Documents
    QUrl documentUrl; // where it was read
};

// Everything discovery learnt that the sign-in flow needs for one server.
struct SignInTarget
{
    QUrl serverUrl;         // the MCP server's url, as configured
    QString resource;       // the `resource` parameter (RFC 8707): the PRM's resource, else the canonical server url
    QStringList scopes;     // to ask for: the challenge's scope, else the PRM's scopes_supported; empty: omit `scope`
    AuthServerMetadata authServer;
    // True when the metadata came from the server's own origin (the MCP 2025-03-26 fallback,
    // no Protected Resource Metadata): the issuer was not checked against a named one.
    bool fromServerOrigin = false;
};

} // namespace Tether
