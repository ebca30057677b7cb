#include "discoveryrules.h"

#include "canonicalurl.h"

#include "common/displaytext.h"
#include "transport/bearerchallenge.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace Tether {

static QString shown(const QUrl &url)
{
    return redactedUrl(url.toString());
}

static QUrl originOf(const QUrl &url)
{
    return url.adjusted(QUrl::RemoveUserInfo | QUrl::RemovePath | QUrl::RemoveQuery | QUrl::RemoveFragment);
}

static QUrl withPath(const QUrl &origin, const QString &encodedPath)
{
    QUrl url = origin;
    url.setPath(encodedPath, QUrl::TolerantMode);
    return url;
}

// The path as RFC 8414 §3.1 and RFC 9728 §3.1 insert it: percent-encoded, without a trailing '/'.
static QString insertablePath(const QUrl &url)
{
    QString path = url.path(QUrl::FullyEncoded);
    while (path.endsWith(u'/'))
        path.chop(1);
    return path;
}

QList<QUrl> protectedResourceMetadataUrls(const QUrl &serverUrl, const BearerChallenge &challenge)
{
    const QUrl origin = originOf(serverUrl);
    const QString path = insertablePath(serverUrl);
    QList<QUrl> urls;
    const auto add = [&urls](const QUrl &url) {
        if (!url.isEmpty() && !urls.contains(url))
            urls.append(url);
    };
    add(challenge.resourceMetadata);
    if (!path.isEmpty())
        add(withPath(origin, u"/.well-known/oauth-protected-resource"_s + path));
    add(withPath(origin, u"/.well-known/oauth-protected-resource"_s));
    return urls;
}

QList<QUrl> authServerMetadataUrls(const QString &issuer)
{
    const QUrl url(issuer);
    const QUrl origin = originOf(url);
    const QString path = insertablePath(url);
    if (path.isEmpty())
        return {withPath(origin, u"/.well-known/oauth-authorization-server"_s),
                withPath(origin, u"/.well-known/openid-configuration"_s)};
    return {withPath(origin, u"/.well-known/oauth-authorization-server"_s + path),
            withPath(origin, u"/.well-known/openid-configuration"_s + path),
            withPath(origin, path + u"/.well-known/openid-configuration"_s)};
}

QList<QUrl> serverOriginMetadataUrls(const QUrl &serverUrl)
{
    return authServerMetadataUrls(originOf(serverUrl).toString(QUrl::FullyEncoded));
}

std::optional<AuthServerMetadata> defaultEndpointsAtOrigin(const QUrl &serverUrl)
{
    const QUrl origin = originOf(serverUrl);
    if (!isSecureEnough(origin))
        return std::nullopt;
    AuthServerMetadata metadata;
    metadata.issuer = origin.toString(QUrl::FullyEncoded);
    metadata.authorizationEndpoint = withPath(origin, u"/authorize"_s);
    metadata.tokenEndpoint = withPath(origin, u"/token"_s);
    metadata.registrationEndpoint = withPath(origin, u"/register"_s);
    metadata.codeChallengeMethodsSupported = {u"S256"_s};
    return metadata;
}

bool resourceNamesServer(const QString &resource, const QUrl &serverUrl)
{
    const QUrl named(canonicalResourceUrl(QUrl(resource)));
    const QUrl server(canonicalResourceUrl(serverUrl));
    if (named.isEmpty() || !named.isValid())
        return false;
    if (named == server)
        return true;
    QString prefix = named.path();
    if (!prefix.endsWith(u'/'))
        prefix += u'/';
    return named.scheme() == server.scheme() && named.host() == server.host() && named.port() == server.port()
           && QString(server.path() + u'/').startsWith(prefix);
}

static QStringList stringsOf(const QJsonValue &value)
{
    QStringList strings;
    for (const QJsonValue &item : value.toArray()) {
        if (item.isString())
            strings.append(item.toString());
    }
    return strings;
}

std::optional<ProtectedResourceMetadata> readProtectedResourceMetadata(QByteArrayView body, const QUrl &documentUrl,
                                                                       const QUrl &serverUrl, QString *refusal)
{
    refusal->clear();
    const QJsonDocument document = QJsonDocument::fromJson(body.toByteArray());
    if (!document.isObject())
        return std::nullopt;
    const QJsonObject object = document.object();
    ProtectedResourceMetadata metadata{object.value(u"resource").toString(),
                                       stringsOf(object.value(u"authorization_servers")),
                                       stringsOf(object.value(u"scopes_supported")), documentUrl};
    if (!resourceNamesServer(metadata.resource, serverUrl)) {
        *refusal = u"%1 describes %2, not %3; Tether does not use it (RFC 9728 §3.3)"_s.arg(
            shown(documentUrl), metadata.resource.isEmpty() ? u"no resource"_s : metadata.resource, shown(serverUrl));
        return std::nullopt;
    }
    if (metadata.authorizationServers.isEmpty()) {
        *refusal = u"%1 names no authorization server (authorization_servers); Tether cannot sign in to %2 without one"_s
                       .arg(shown(documentUrl), shown(serverUrl));
        return std::nullopt;
    }
    return metadata;
}

bool isSecureEnough(const QUrl &url)
{
    // MCP 2025-11-25 §Communication Security wants https for every authorization server url.
    // Loopback http never leaves this machine, so there is nothing for TLS to protect; a server
    // run locally (and every test peer, on http://127.0.0.1) may use it, as the MCP SDKs allow.
    return url.isValid() && !url.host().isEmpty()
           && (url.scheme() == u"https"_s || (url.scheme() == u"http"_s && isLoopbackUrl(url)));
}

std::optional<AuthServerMetadata> readAuthServerMetadata(QByteArrayView body, const QUrl &documentUrl,
                                                         const QString &issuer, QString *refusal)
{
    refusal->clear();
    const QJsonDocument document = QJsonDocument::fromJson(body.toByteArray());
    if (!document.isObject())
        return std::nullopt;
    const QJsonObject object = document.object();
    const auto urlOf = [&object](QStringView key) { return QUrl(object.value(key).toString(), QUrl::StrictMode); };
    AuthServerMetadata metadata{object.value(u"issuer").toString(),
                                urlOf(u"authorization_endpoint"),
                                urlOf(u"token_endpoint"),
                                urlOf(u"registration_endpoint"),
                                urlOf(u"revocation_endpoint"),
                                stringsOf(object.value(u"code_challenge_methods_supported")),
                                stringsOf(object.value(u"token_endpoint_auth_methods_supported")),
                                stringsOf(object.value(u"scopes_supported")),
                                object.value(u"authorization_response_iss_parameter_supported").toBool(),
                                object.value(u"client_id_metadata_document_supported").toBool(),
                                documentUrl};
    // RFC 8414 §3.3, OpenID Connect Discovery §4.3.
    if (!issuer.isEmpty() && metadata.issuer != issuer) {
        *refusal = u"%1 says its issuer is %2, not %3; Tether does not use it"_s.arg(
            shown(documentUrl), metadata.issuer.isEmpty() ? u"nothing"_s : metadata.issuer, issuer);
        return std::nullopt;
    }
    const QString server = !issuer.isEmpty()               ? issuer
                           : !metadata.issuer.isEmpty()    ? metadata.issuer
                                                           : originOf(documentUrl).toString();
    const std::pair<QStringView, QUrl> endpoints[] = {{u"authorization_endpoint", metadata.authorizationEndpoint},
                                                      {u"token_endpoint", metadata.tokenEndpoint},
                                                      {u"registration_endpoint", metadata.registrationEndpoint},
                                                      {u"revocation_endpoint", metadata.revocationEndpoint}};
    for (const auto &[name, url] : endpoints) {
        const bool required = name == u"authorization_endpoint" || name == u"token_endpoint";
        if (url.isEmpty() && !required)
            continue;
        if (!url.isValid() || url.isRelative() || url.host().isEmpty()) {
            *refusal = u"the authorization server %1 gives no usable %2 in %3; Tether cannot sign in there"_s.arg(
                server, name, shown(documentUrl));
            return std::nullopt;
        }
        if (!isSecureEnough(url)) {
            *refusal = u"the authorization server %1 gives its %2 over %3:// (%4); Tether signs in only over https"_s.arg(
                server, name, url.scheme(), shown(url));
            return std::nullopt;
        }
    }
    // RFC 8414 §2 makes response_types_supported required; a server that leaves it out is
    // taken at its word of being an OAuth 2.1 server, where the code flow is the only one.
    const QStringList responseTypes = stringsOf(object.value(u"response_types_supported"));
    if (object.contains(u"response_types_supported") && !responseTypes.contains(u"code"_s)) {
        *refusal = u"the authorization server %1 does not offer the authorization code flow (response_types_supported: "
                   "%2); Tether signs in only with it"_s.arg(server, responseTypes.join(u", "_s));
        return std::nullopt;
    }
    // MCP 2025-11-25 §Authorization Code Protection: without S256 announced, refuse.
    if (!metadata.codeChallengeMethodsSupported.contains(u"S256"_s)) {
        const QString offered = object.contains(u"code_challenge_methods_supported")
                                    ? metadata.codeChallengeMethodsSupported.join(u", "_s)
                                    : u"not given"_s;
        *refusal = u"the authorization server %1 offers no PKCE S256 (code_challenge_methods_supported: %2); Tether signs "
                   "in only with S256"_s.arg(server, offered);
        return std::nullopt;
    }
    return metadata;
}

QStringList scopesToRequest(const BearerChallenge &challenge, const std::optional<ProtectedResourceMetadata> &resource)
{
    const QStringList challenged = challenge.scope.split(u' ', Qt::SkipEmptyParts);
    if (!challenged.isEmpty() || !resource)
        return challenged;
    return resource->scopesSupported;
}

QString triedList(const QList<TriedUrl> &tried)
{
    QStringList items;
    for (const TriedUrl &url : tried)
        items.append(u"%1 (%2)"_s.arg(shown(url.url), url.outcome));
    return items.join(u", "_s);
}

namespace DiscoveryErrors {

QString noSignInMetadata(const QUrl &serverUrl, int status, const QList<TriedUrl> &tried)
{
    return u"%1 asks for sign-in (HTTP %2) but publishes no sign-in metadata: tried %3. Tether cannot sign in here; "
           "give a token in this server's \"headers\" instead"_s.arg(shown(serverUrl), QString::number(status),
                                                                     triedList(tried));
}

QString noAuthServerMetadata(const QString &issuer, const QList<TriedUrl> &tried)
{
    return u"the authorization server %1 publishes no metadata: tried %2"_s.arg(issuer, triedList(tried));
}

QString authServerNotHttps(const QUrl &serverUrl, const QString &issuer)
{
    const QString scheme = QUrl(issuer).scheme();
    return u"%1 names an authorization server %2 (%3); Tether signs in only over https"_s.arg(
        shown(serverUrl), scheme.isEmpty() ? u"that is no https url"_s : u"over "_s + scheme + u"://"_s, issuer);
}

} // namespace DiscoveryErrors

} // namespace Tether
