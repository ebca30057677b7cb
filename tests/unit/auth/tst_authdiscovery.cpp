#include "auth/authdiscoverysteps.h"
#include "auth/canonicalurl.h"
#include "auth/discoveryrules.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Tether;
using namespace Qt::StringLiterals;

using Responses = QMap<QString, std::pair<int, QByteArray>>; // url → status, body; others answer 404

static QStringList strings(const QList<QUrl> &urls)
{
    QStringList strings;
    for (const QUrl &url : urls)
        strings.append(url.toString());
    return strings;
}

static BearerChallenge challengeWith(const QString &resourceMetadata, const QString &scope = {})
{
    return {401, u"invalid_token"_s, {}, scope, QUrl(resourceMetadata)};
}

static QByteArray json(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

static QByteArray resourceDocument(const QString &resource, const QStringList &servers,
                                   const QStringList &scopes = {u"mcp:read"_s})
{
    return json({{u"resource"_s, resource},
                 {u"authorization_servers"_s, QJsonArray::fromStringList(servers)},
                 {u"scopes_supported"_s, QJsonArray::fromStringList(scopes)}});
}

static QJsonObject authServerObject(const QString &issuer)
{
    return {{u"issuer"_s, issuer},
            {u"authorization_endpoint"_s, QString(issuer + u"/auth"_s)},
            {u"token_endpoint"_s, QString(issuer + u"/token"_s)},
            {u"registration_endpoint"_s, QString(issuer + u"/reg"_s)},
            {u"revocation_endpoint"_s, QString(issuer + u"/token/revocation"_s)},
            {u"response_types_supported"_s, QJsonArray{u"code"_s}},
            {u"code_challenge_methods_supported"_s, QJsonArray{u"S256"_s}},
            {u"token_endpoint_auth_methods_supported"_s, QJsonArray{u"none"_s, u"client_secret_basic"_s}},
            {u"authorization_response_iss_parameter_supported"_s, true}};
}

static QByteArray authServerDocument(const QString &issuer, const QJsonObject &changes = {})
{
    QJsonObject object = authServerObject(issuer);
    for (auto it = changes.begin(); it != changes.end(); ++it) {
        if (it.value().isNull())
            object.remove(it.key());
        else
            object.insert(it.key(), it.value());
    }
    return json(object);
}

static const QString Server = u"https://host/api/mcp"_s;
static const QString Issuer = u"https://auth.example.com/tenant1"_s;
static const QString A1 = u"https://host/.well-known/oauth-protected-resource/api/mcp"_s;
static const QString A2 = u"https://host/.well-known/oauth-protected-resource"_s;
static const QString B1 = u"https://auth.example.com/.well-known/oauth-authorization-server/tenant1"_s;
static const QString B2 = u"https://auth.example.com/.well-known/openid-configuration/tenant1"_s;
static const QString B3 = u"https://auth.example.com/tenant1/.well-known/openid-configuration"_s;
static const QString C1 = u"https://host/.well-known/oauth-authorization-server"_s;
static const QString C2 = u"https://host/.well-known/openid-configuration"_s;

class TestAuthDiscovery final : public QObject
{
    Q_OBJECT

private slots:
    void resourceMetadataUrls_data()
    {
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("resourceMetadata");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("at /api/mcp, challenge names one")
            << Server << u"https://host/prm"_s << QStringList{u"https://host/prm"_s, A1, A2};
        QTest::newRow("at /api/mcp, no challenge metadata") << Server << QString() << QStringList{A1, A2};
        QTest::newRow("challenge names the path-aware one") << Server << A1 << QStringList{A1, A2};
        QTest::newRow("at /") << u"https://host/"_s << QString() << QStringList{A2};
        QTest::newRow("no path") << u"https://host"_s << QString() << QStringList{A2};
        QTest::newRow("trailing slash, port, query and fragment dropped")
            << u"http://127.0.0.1:4000/api/mcp/?token=x#part"_s << QString()
            << QStringList{u"http://127.0.0.1:4000/.well-known/oauth-protected-resource/api/mcp"_s,
                           u"http://127.0.0.1:4000/.well-known/oauth-protected-resource"_s};
        QTest::newRow("user info dropped") << u"https://user:secret@host/mcp"_s << QString()
                                           << QStringList{u"https://host/.well-known/oauth-protected-resource/mcp"_s, A2};
    }

    void resourceMetadataUrls()
    {
        QFETCH(QString, server);
        QFETCH(QString, resourceMetadata);
        QFETCH(QStringList, expected);
        QCOMPARE(strings(protectedResourceMetadataUrls(QUrl(server), challengeWith(resourceMetadata))), expected);
    }

    void authServerMetadataUrls_data()
    {
        QTest::addColumn<QString>("issuer");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("issuer with a path") << Issuer << QStringList{B1, B2, B3};
        QTest::newRow("issuer with a path and a trailing slash") << Issuer + u'/' << QStringList{B1, B2, B3};
        QTest::newRow("issuer without a path")
            << u"https://auth.example.com"_s
            << QStringList{u"https://auth.example.com/.well-known/oauth-authorization-server"_s,
                           u"https://auth.example.com/.well-known/openid-configuration"_s};
        QTest::newRow("issuer at /, never .../oauth-authorization-server/")
            << u"https://auth.example.com/"_s
            << QStringList{u"https://auth.example.com/.well-known/oauth-authorization-server"_s,
                           u"https://auth.example.com/.well-known/openid-configuration"_s};
        QTest::newRow("loopback with port, two segments")
            << u"http://127.0.0.1:4100/a/b"_s
            << QStringList{u"http://127.0.0.1:4100/.well-known/oauth-authorization-server/a/b"_s,
                           u"http://127.0.0.1:4100/.well-known/openid-configuration/a/b"_s,
                           u"http://127.0.0.1:4100/a/b/.well-known/openid-configuration"_s};
    }

    void authServerMetadataUrls()
    {
        QFETCH(QString, issuer);
        QFETCH(QStringList, expected);
        QCOMPARE(strings(Tether::authServerMetadataUrls(issuer)), expected);
    }

    void serverOriginMetadataUrls()
    {
        QCOMPARE(strings(Tether::serverOriginMetadataUrls(QUrl(u"https://host/api/mcp?x=1"_s))), (QStringList{C1, C2}));
    }

    void canonicalResourceUrl_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("expected");
        QTest::newRow("as it is") << Server << Server;
        QTest::newRow("case, default port, slash, query, fragment")
            << u"HTTPS://Host.Example.COM:443/api/mcp/?q=1#f"_s << u"https://host.example.com/api/mcp"_s;
        QTest::newRow("http default port") << u"http://127.0.0.1:80/mcp"_s << u"http://127.0.0.1/mcp"_s;
        QTest::newRow("other port kept") << u"https://host:8443/mcp"_s << u"https://host:8443/mcp"_s;
        QTest::newRow("https port on http kept") << u"http://host:443/mcp"_s << u"http://host:443/mcp"_s;
        QTest::newRow("path / kept") << u"https://host/"_s << u"https://host/"_s;
        QTest::newRow("no path") << u"https://host"_s << u"https://host"_s;
        QTest::newRow("user info dropped") << u"https://user:pw@host/mcp"_s << u"https://host/mcp"_s;
    }

    void canonicalResourceUrl()
    {
        QFETCH(QString, url);
        QFETCH(QString, expected);
        QCOMPARE(Tether::canonicalResourceUrl(QUrl(url)), expected);
    }

    void resourceNamesServer_data()
    {
        QTest::addColumn<QString>("resource");
        QTest::addColumn<QString>("server");
        QTest::addColumn<bool>("names");
        QTest::newRow("identical") << Server << Server << true;
        QTest::newRow("canonically the same") << u"https://HOST:443/api/mcp/"_s << Server << true;
        QTest::newRow("origin") << u"https://host"_s << Server << true;
        QTest::newRow("path prefix") << u"https://host/api"_s << Server << true;
        QTest::newRow("not a whole segment") << u"https://host/ap"_s << Server << false;
        QTest::newRow("longer path") << u"https://host/api/mcp/x"_s << Server << false;
        QTest::newRow("other host") << u"https://other/api/mcp"_s << Server << false;
        QTest::newRow("other port") << u"https://host:8443/api/mcp"_s << Server << false;
        QTest::newRow("other scheme") << u"http://host/api/mcp"_s << Server << false;
        QTest::newRow("empty") << QString() << Server << false;
    }

    void resourceNamesServer()
    {
        QFETCH(QString, resource);
        QFETCH(QString, server);
        QFETCH(bool, names);
        QCOMPARE(Tether::resourceNamesServer(resource, QUrl(server)), names);
    }

    // What an authorization server's metadata must hold; refusals with their exact texts.
    void authServerMetadata_data()
    {
        QTest::addColumn<QString>("issuer");
        QTest::addColumn<QByteArray>("document");
        QTest::addColumn<QString>("refusal");
        QTest::newRow("usable") << Issuer << authServerDocument(Issuer) << QString();
        QTest::newRow("loopback http: test peers, local servers")
            << u"http://127.0.0.1:4100"_s << authServerDocument(u"http://127.0.0.1:4100"_s) << QString();
        QTest::newRow("no response_types_supported") << Issuer
            << authServerDocument(Issuer, {{u"response_types_supported"_s, QJsonValue::Null}}) << QString();
        QTest::newRow("any issuer at the server's origin") << QString() << authServerDocument(Issuer) << QString();
        QTest::newRow("another issuer")
            << Issuer << authServerDocument(u"https://x"_s)
            << u"%1 says its issuer is https://x, not %2; Tether does not use it"_s.arg(B1, Issuer);
        QTest::newRow("no issuer") << Issuer << authServerDocument(Issuer, {{u"issuer"_s, QJsonValue::Null}})
                                   << u"%1 says its issuer is nothing, not %2; Tether does not use it"_s.arg(B1, Issuer);
        QTest::newRow("plain only")
            << Issuer << authServerDocument(Issuer, {{u"code_challenge_methods_supported"_s, QJsonArray{u"plain"_s}}})
            << u"the authorization server %1 offers no PKCE S256 (code_challenge_methods_supported: plain); Tether "
               "signs in only with S256"_s.arg(Issuer);
        QTest::newRow("PKCE methods not said")
            << Issuer << authServerDocument(Issuer, {{u"code_challenge_methods_supported"_s, QJsonValue::Null}})
            << u"the authorization server %1 offers no PKCE S256 (code_challenge_methods_supported: not given); "
               "Tether signs in only with S256"_s.arg(Issuer);
        QTest::newRow("token endpoint over http")
            << Issuer << authServerDocument(Issuer, {{u"token_endpoint"_s, u"http://auth.example.com/token"_s}})
            << u"the authorization server %1 gives its token_endpoint over http:// (http://auth.example.com/token); "
               "Tether signs in only over https"_s.arg(Issuer);
        QTest::newRow("registration endpoint relative")
            << Issuer << authServerDocument(Issuer, {{u"registration_endpoint"_s, u"/reg"_s}})
            << u"the authorization server %1 gives no usable registration_endpoint in %2; Tether cannot sign in "
               "there"_s.arg(Issuer, B1);
        QTest::newRow("no authorization endpoint")
            << Issuer << authServerDocument(Issuer, {{u"authorization_endpoint"_s, QJsonValue::Null}})
            << u"the authorization server %1 gives no usable authorization_endpoint in %2; Tether cannot sign in "
               "there"_s.arg(Issuer, B1);
        QTest::newRow("no code flow")
            << Issuer << authServerDocument(Issuer, {{u"response_types_supported"_s, QJsonArray{u"token"_s}}})
            << u"the authorization server %1 does not offer the authorization code flow (response_types_supported: "
               "token); Tether signs in only with it"_s.arg(Issuer);
    }

    void authServerMetadata()
    {
        QFETCH(QString, issuer);
        QFETCH(QByteArray, document);
        QFETCH(QString, refusal);
        QString refused;
        const std::optional<AuthServerMetadata> metadata = readAuthServerMetadata(document, QUrl(B1), issuer, &refused);
        QCOMPARE(refused, refusal);
        QCOMPARE(metadata.has_value(), refusal.isEmpty());
        if (!metadata)
            return;
        const QString base = issuer.isEmpty() ? Issuer : issuer;
        QCOMPARE(metadata->issuer, base);
        QCOMPARE(metadata->authorizationEndpoint, QUrl(base + u"/auth"_s));
        QCOMPARE(metadata->tokenEndpoint, QUrl(base + u"/token"_s));
        QCOMPARE(metadata->registrationEndpoint, QUrl(base + u"/reg"_s));
        QCOMPARE(metadata->revocationEndpoint, QUrl(base + u"/token/revocation"_s));
        QCOMPARE(metadata->codeChallengeMethodsSupported, QStringList{u"S256"_s});
        QCOMPARE(metadata->tokenEndpointAuthMethodsSupported, (QStringList{u"none"_s, u"client_secret_basic"_s}));
        QVERIFY(metadata->authorizationResponseIssParameterSupported);
        QVERIFY(!metadata->clientIdMetadataDocumentSupported);
        QCOMPARE(metadata->documentUrl, QUrl(B1));
    }

    void resourceMetadata_data()
    {
        QTest::addColumn<QByteArray>("document");
        QTest::addColumn<QString>("refusal");
        QTest::newRow("usable") << resourceDocument(Server, {Issuer}) << QString();
        QTest::newRow("another resource")
            << resourceDocument(u"https://other/mcp"_s, {Issuer})
            << u"%1 describes https://other/mcp, not %2; Tether does not use it (RFC 9728 §3.3)"_s.arg(A1, Server);
        QTest::newRow("no authorization server")
            << resourceDocument(Server, {})
            << u"%1 names no authorization server (authorization_servers); Tether cannot sign in to %2 without one"_s.arg(
                   A1, Server);
    }

    void resourceMetadata()
    {
        QFETCH(QByteArray, document);
        QFETCH(QString, refusal);
        QString refused;
        const auto metadata = readProtectedResourceMetadata(document, QUrl(A1), QUrl(Server), &refused);
        QCOMPARE(refused, refusal);
        QCOMPARE(metadata.has_value(), refusal.isEmpty());
        QString notJson;
        QVERIFY(!readProtectedResourceMetadata("<html>", QUrl(A1), QUrl(Server), &notJson));
        QVERIFY(notJson.isEmpty());
    }

    // Discovery from the challenge to the outcome: the urls in the order fetched, and what came
    // of it ("found resource|issuer|scopes|origin?" or the failure's text).
    void steps_data()
    {
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("resourceMetadata");
        QTest::addColumn<QString>("scope");
        QTest::addColumn<Responses>("responses");
        QTest::addColumn<QStringList>("fetched");
        QTest::addColumn<QString>("outcome");

        const QString prm = u"https://host/prm"_s;
        QTest::newRow("challenge's metadata, first authorization server url")
            << Server << prm << u"mcp:read mcp:admin"_s
            << Responses{{prm, {200, resourceDocument(Server, {Issuer})}}, {B1, {200, authServerDocument(Issuer)}}}
            << QStringList{prm, B1} << u"found https://host/api/mcp|%1|mcp:read,mcp:admin|"_s.arg(Issuer);
        QTest::newRow("path-aware metadata, scopes_supported, OpenID appended")
            << Server << QString() << QString()
            << Responses{{A1, {200, resourceDocument(Server, {Issuer}, {u"a"_s, u"b"_s})}},
                         {B3, {200, authServerDocument(Issuer)}}}
            << QStringList{A1, B1, B2, B3} << u"found https://host/api/mcp|%1|a,b|"_s.arg(Issuer);
        QTest::newRow("root metadata naming the origin as resource, no scopes")
            << Server << QString() << QString()
            << Responses{{A2, {200, resourceDocument(u"https://host"_s, {Issuer}, {})}},
                         {B2, {200, authServerDocument(Issuer)}}}
            << QStringList{A1, A2, B1, B2} << u"found https://host|%1||"_s.arg(Issuer);
        QTest::newRow("challenge's metadata broken, path-aware one used")
            << Server << prm << QString()
            << Responses{{prm, {200, "not json"}}, {A1, {200, resourceDocument(Server, {Issuer})}},
                         {B1, {200, authServerDocument(Issuer)}}}
            << QStringList{prm, A1, B1} << u"found https://host/api/mcp|%1|mcp:read|"_s.arg(Issuer);
        QTest::newRow("issuer mismatch at B1, right at B2")
            << Server << QString() << QString()
            << Responses{{A1, {200, resourceDocument(Server, {Issuer})}},
                         {B1, {200, authServerDocument(u"https://x"_s)}}, {B2, {200, authServerDocument(Issuer)}}}
            << QStringList{A1, B1, B2} << u"found https://host/api/mcp|%1|mcp:read|"_s.arg(Issuer);
        const QString second = u"https://second.example.com"_s;
        QTest::newRow("first authorization server publishes nothing, second used")
            << Server << QString() << QString()
            << Responses{{A1, {200, resourceDocument(Server, {Issuer, second})}},
                         {second + u"/.well-known/oauth-authorization-server"_s, {200, authServerDocument(second)}}}
            << QStringList{A1, B1, B2, B3, second + u"/.well-known/oauth-authorization-server"_s}
            << u"found https://host/api/mcp|%1|mcp:read|"_s.arg(second);
        QTest::newRow("2025-03-26: metadata at the server's origin")
            << u"https://host/api/mcp/?k=v"_s << QString() << u"s1"_s
            << Responses{{C1, {200, authServerDocument(Issuer)}}}
            << QStringList{A1, A2, C1} << u"found https://host/api/mcp|%1|s1|origin"_s.arg(Issuer);

        // MCP 2025-03-26 §Fallbacks for Servers without Metadata Discovery.
        QTest::newRow("no metadata anywhere: the default endpoints at the origin")
            << Server << prm << QString() << Responses{} << QStringList{prm, A1, A2, C1, C2}
            << u"found https://host/api/mcp|https://host||origin defaults"_s;
        QTest::newRow("no metadata anywhere, on loopback http")
            << u"http://localhost:3000/mcp"_s << QString() << u"s1"_s << Responses{}
            << QStringList{u"http://localhost:3000/.well-known/oauth-protected-resource/mcp"_s,
                           u"http://localhost:3000/.well-known/oauth-protected-resource"_s,
                           u"http://localhost:3000/.well-known/oauth-authorization-server"_s,
                           u"http://localhost:3000/.well-known/openid-configuration"_s}
            << u"found http://localhost:3000/mcp|http://localhost:3000|s1|origin defaults"_s;
        QTest::newRow("no metadata anywhere, over plain http: no defaults")
            << u"http://mcp.example.com/mcp"_s << QString() << QString() << Responses{}
            << QStringList{u"http://mcp.example.com/.well-known/oauth-protected-resource/mcp"_s,
                           u"http://mcp.example.com/.well-known/oauth-protected-resource"_s,
                           u"http://mcp.example.com/.well-known/oauth-authorization-server"_s,
                           u"http://mcp.example.com/.well-known/openid-configuration"_s}
            << u"http://mcp.example.com/mcp asks for sign-in (HTTP 401) but publishes no sign-in metadata: tried "
               "http://mcp.example.com/.well-known/oauth-protected-resource/mcp (HTTP 404), "
               "http://mcp.example.com/.well-known/oauth-protected-resource (HTTP 404), "
               "http://mcp.example.com/.well-known/oauth-authorization-server (HTTP 404), "
               "http://mcp.example.com/.well-known/openid-configuration (HTTP 404). Tether cannot sign in here; give a "
               "token in this server's \"headers\" instead"_s;
        QTest::newRow("not JSON, a refused redirect, a 500")
            << Server << QString() << QString()
            << Responses{{A1, {200, "<html>"}}, {A2, {302, {}}}, {C1, {500, {}}}} << QStringList{A1, A2, C1, C2}
            << u"https://host/api/mcp asks for sign-in (HTTP 401) but publishes no sign-in metadata: tried "
               "%1 (HTTP 200, no JSON object), %2 (HTTP 302, a redirect Tether does not follow), %3 (HTTP 500), "
               "%4 (HTTP 404). Tether cannot sign in here; give a token in this server's \"headers\" instead"_s.arg(
                   A1, A2, C1, C2);
        QTest::newRow("metadata for another resource, no fallback")
            << Server << QString() << QString()
            << Responses{{A1, {200, resourceDocument(u"https://other/mcp"_s, {Issuer})}}} << QStringList{A1, A2}
            << u"%1 describes https://other/mcp, not %2; Tether does not use it (RFC 9728 §3.3)"_s.arg(A1, Server);
        QTest::newRow("no authorization server metadata")
            << Server << QString() << QString() << Responses{{A1, {200, resourceDocument(Server, {Issuer})}}}
            << QStringList{A1, B1, B2, B3}
            << u"the authorization server %1 publishes no metadata: tried %2 (HTTP 404), %3 (HTTP 404), %4 (HTTP 404)"_s
                   .arg(Issuer, B1, B2, B3);
        QTest::newRow("plain only, every location")
            << Server << QString() << QString()
            << Responses{{A1, {200, resourceDocument(Server, {Issuer})}},
                         {B1, {200, authServerDocument(Issuer, {{u"code_challenge_methods_supported"_s,
                                                                 QJsonArray{u"plain"_s}}})}}}
            << QStringList{A1, B1, B2, B3}
            << u"the authorization server %1 offers no PKCE S256 (code_challenge_methods_supported: plain); Tether "
               "signs in only with S256"_s.arg(Issuer);
        QTest::newRow("authorization server over http, never fetched")
            << Server << QString() << QString()
            << Responses{{A1, {200, resourceDocument(Server, {u"http://auth.example.com"_s})}}} << QStringList{A1}
            << u"https://host/api/mcp names an authorization server over http:// (http://auth.example.com); Tether "
               "signs in only over https"_s;
    }

    void steps()
    {
        QFETCH(QString, server);
        QFETCH(QString, resourceMetadata);
        QFETCH(QString, scope);
        QFETCH(Responses, responses);
        QFETCH(QStringList, fetched);
        QFETCH(QString, outcome);

        AuthDiscoverySteps steps(QUrl(server), challengeWith(resourceMetadata, scope));
        QStringList urls;
        while (!steps.isOver() && urls.size() < 20) {
            urls.append(steps.next().toString());
            const auto [status, body] = responses.value(urls.last(), {404, {}});
            steps.answered(status, body);
        }
        QCOMPARE(urls, fetched);
        QVERIFY(steps.next().isEmpty());
        if (const std::optional<SignInTarget> &target = steps.target()) {
            QVERIFY(steps.failure().isEmpty());
            QCOMPARE(target->serverUrl, QUrl(server));
            const bool defaults = target->authServer.documentUrl.isEmpty();
            const QString origin = target->fromServerOrigin ? (defaults ? u"origin defaults"_s : u"origin"_s) : QString();
            QCOMPARE(u"found "_s + target->resource + u'|' + target->authServer.issuer + u'|'
                         + target->scopes.join(u',') + u'|' + origin,
                     outcome);
            if (!defaults)
                QCOMPARE(target->authServer.documentUrl, QUrl(urls.last()));
        } else {
            QCOMPARE(steps.failure(), outcome);
        }
    }

    void defaultEndpointsAtOrigin()
    {
        const std::optional<AuthServerMetadata> metadata = Tether::defaultEndpointsAtOrigin(QUrl(u"https://user@host:8443/api/mcp?k=v"_s));
        QVERIFY(metadata);
        QCOMPARE(metadata->issuer, u"https://host:8443"_s);
        QCOMPARE(metadata->authorizationEndpoint, QUrl(u"https://host:8443/authorize"_s));
        QCOMPARE(metadata->tokenEndpoint, QUrl(u"https://host:8443/token"_s));
        QCOMPARE(metadata->registrationEndpoint, QUrl(u"https://host:8443/register"_s));
        QCOMPARE(metadata->codeChallengeMethodsSupported, QStringList{u"S256"_s});
        QVERIFY(!Tether::defaultEndpointsAtOrigin(QUrl(u"http://host/mcp"_s)));
    }

    void unreachableEndsDiscovery()
    {
        AuthDiscoverySteps steps(QUrl(Server), challengeWith({}));
        steps.unreachable(u"could not connect"_s);
        QVERIFY(steps.isOver());
        QCOMPARE(steps.failure(), u"could not connect"_s);
        QVERIFY(!steps.target());
    }
};

QTEST_GUILESS_MAIN(TestAuthDiscovery)
#include "tst_authdiscovery.moc"
