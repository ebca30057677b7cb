#pragma once

#include "authmetadata.h"

#include <QByteArrayView>
#include <QList>
#include <QString>
#include <QUrl>

#include <optional>

namespace Tether {

struct BearerChallenge;

// Where the metadata for signing in to a server is looked for, and what is accepted there
// (MCP 2025-11-25 §Authorization Server Discovery; docs: design 15 §2). Pure functions; the
// order of the requests is AuthDiscoverySteps', the network AuthDiscovery's.

// Protected Resource Metadata (RFC 9728): the challenge's resource_metadata, then the
// path-aware well-known url (RFC 9728 §3.1; not for a server at '/'), then the root one.
QList<QUrl> protectedResourceMetadataUrls(const QUrl &serverUrl, const BearerChallenge &challenge);

// An authorization server's metadata, for its issuer: RFC 8414 with the path inserted, OpenID
// Connect Discovery with the path inserted, then appended; for an issuer without a path the
// first two at the root. A trailing '/' of the issuer's path is dropped first.
QList<QUrl> authServerMetadataUrls(const QString &issuer);

// MCP 2025-03-26 §Authorization Base URL: the server's origin, path discarded, as an issuer.
QList<QUrl> serverOriginMetadataUrls(const QUrl &serverUrl);

// MCP 2025-03-26 §Fallbacks for Servers without Metadata Discovery: a server that publishes no
// metadata at all has its authorization server at its origin, with /authorize, /token and
// /register there; PKCE S256 is assumed, as OAuth 2.1 requires it. Nothing for an origin
// Tether may not sign in at (isSecureEnough).
std::optional<AuthServerMetadata> defaultEndpointsAtOrigin(const QUrl &serverUrl);

// Whether the document's `resource` names this server: identical to its canonical url (RFC
// 9728 §3.3), or of the same origin with a path that is a whole-segment prefix of the
// server's (as the MCP SDKs accept).
bool resourceNamesServer(const QString &resource, const QUrl &serverUrl);

// Reads a Protected Resource Metadata document fetched from `documentUrl` for `serverUrl`.
// Nothing, and `*refusal` empty: not a JSON object. Nothing with a refusal: a document Tether
// does not use, and why.
std::optional<ProtectedResourceMetadata> readProtectedResourceMetadata(QByteArrayView body, const QUrl &documentUrl,
                                                                       const QUrl &serverUrl, QString *refusal);

// Reads an authorization server's metadata fetched from `documentUrl`, expected for `issuer`
// (empty: metadata at the server's origin, any issuer). Nothing, and `*refusal` empty: not a
// JSON object. Nothing with a refusal: a document Tether does not use (another issuer, no
// S256, endpoints missing or not over https), and why.
std::optional<AuthServerMetadata> readAuthServerMetadata(QByteArrayView body, const QUrl &documentUrl,
                                                         const QString &issuer, QString *refusal);

// Whether Tether may talk to an authorization server at `url`: https, or http to this machine.
bool isSecureEnough(const QUrl &url);

// The scopes to ask for (MCP 2025-11-25 §Scope Selection Strategy): the challenge's, else all
// the resource's scopes_supported, else none (no `scope` parameter).
QStringList scopesToRequest(const BearerChallenge &challenge, const std::optional<ProtectedResourceMetadata> &resource);

// One url discovery fetched, and how it answered ("HTTP 404", "HTTP 200, not JSON").
struct TriedUrl
{
    QUrl url;
    QString outcome;
};

QString triedList(const QList<TriedUrl> &tried); // "URL (HTTP 404), URL (HTTP 404)"

// The failures of discovery, for the server at `serverUrl` (as messages show it).
namespace DiscoveryErrors {

QString noSignInMetadata(const QUrl &serverUrl, int status, const QList<TriedUrl> &tried);
QString noAuthServerMetadata(const QString &issuer, const QList<TriedUrl> &tried);
QString authServerNotHttps(const QUrl &serverUrl, const QString &issuer);

} // namespace DiscoveryErrors

} // namespace Tether
