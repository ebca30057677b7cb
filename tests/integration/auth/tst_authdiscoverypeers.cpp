#include "auth/authdiscovery.h"
#include "transport/bearerchallenge.h"

#include "support/authpeers.h"
#include "support/httpfixture.h"

#include <QJsonArray>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTest>

using namespace Tether;
using namespace Tether::Testing;
using namespace Qt::StringLiterals;

// Discovery against the real peers: oidc-provider as the authorization server, the MCP SDK's
// bearer middleware in front of the resource server, each serving metadata only where asked.
class TestAuthDiscoveryPeers final : public QObject
{
    Q_OBJECT

    struct Outcome
    {
        std::optional<SignInTarget> target;
        QString failure;
    };

private slots:
    void init()
    {
        m_authServer.reset();
        m_resourceServer.reset();
    }

    void cleanup()
    {
        m_resourceServer.reset();
        m_authServer.reset();
    }

    // Each discovery location, as the authorization server (AS) and resource server (RS) flags
    // place the metadata: the AS's discovery paths requested, in order, and where it was found.
    void findsMetadata_data()
    {
        QTest::addColumn<QStringList>("authServerFlags");
        QTest::addColumn<QStringList>("resourceServerFlags");
        QTest::addColumn<QStringList>("asked");        // of the AS, in order
        QTest::addColumn<QString>("metadataPath");     // where the AS metadata was found
        QTest::addColumn<QStringList>("scopes");

        const QString b1 = u"/.well-known/oauth-authorization-server/tenant1"_s;
        const QString b2 = u"/.well-known/openid-configuration/tenant1"_s;
        const QString b3 = u"/tenant1/.well-known/openid-configuration"_s;
        const QStringList tenant{u"--issuer-path"_s, u"/tenant1"_s};
        QTest::newRow("challenge's resource_metadata, B1")
            << tenant + QStringList{u"--discovery"_s, u"oauth-insert"_s} << QStringList() << QStringList{b1} << b1
            << QStringList{u"mcp:read"_s};
        QTest::newRow("path-aware PRM without challenge metadata, B2")
            << tenant + QStringList{u"--discovery"_s, u"oidc-insert"_s}
            << QStringList{u"--no-challenge-metadata"_s, u"--prm"_s, u"path"_s} << QStringList{b1, b2} << b2
            << QStringList{u"mcp:read"_s};
        QTest::newRow("root PRM without challenge metadata, B3")
            << tenant + QStringList{u"--discovery"_s, u"oidc-append"_s}
            << QStringList{u"--no-challenge-metadata"_s, u"--prm"_s, u"root"_s} << QStringList{b1, b2, b3} << b3
            << QStringList{u"mcp:read"_s};
        QTest::newRow("root issuer, RFC 8414 at the root")
            << QStringList{u"--discovery"_s, u"oauth-insert"_s} << QStringList()
            << QStringList{u"/.well-known/oauth-authorization-server"_s} << u"/.well-known/oauth-authorization-server"_s
            << QStringList{u"mcp:read"_s};
        QTest::newRow("root issuer, OpenID at the root")
            << QStringList{u"--discovery"_s, u"oidc-append"_s} << QStringList()
            << QStringList{u"/.well-known/oauth-authorization-server"_s, u"/.well-known/openid-configuration"_s}
            << u"/.well-known/openid-configuration"_s << QStringList{u"mcp:read"_s};
        QTest::newRow("challenge's scope over scopes_supported")
            << QStringList() << QStringList{u"--scope"_s, u"mcp:read mcp:admin"_s}
            << QStringList{u"/.well-known/oauth-authorization-server"_s} << u"/.well-known/oauth-authorization-server"_s
            << QStringList{u"mcp:read"_s, u"mcp:admin"_s};
    }

    void findsMetadata()
    {
        QFETCH(QStringList, authServerFlags);
        QFETCH(QStringList, resourceServerFlags);
        QFETCH(QStringList, asked);
        QFETCH(QString, metadataPath);
        QFETCH(QStringList, scopes);
        const QUrl server = startPeers(authServerFlags, resourceServerFlags);
        QVERIFY(!server.isEmpty());

        const BearerChallenge challenge = challengeOf(server);
        QCOMPARE(challenge.status, 401);
        QCOMPARE(challenge.error, u"invalid_token"_s);
        const bool challengeNamesMetadata = !resourceServerFlags.contains(u"--no-challenge-metadata"_s);
        QCOMPARE(challenge.resourceMetadata.isEmpty(), !challengeNamesMetadata);

        const Outcome outcome = discover(server, challenge);
        QVERIFY2(outcome.target, qPrintable(outcome.failure));
        const SignInTarget &target = *outcome.target;
        QCOMPARE(askedOfAuthServer(), asked);
        QCOMPARE(target.resource, server.toString());
        QCOMPARE(target.scopes, scopes);
        QVERIFY(!target.fromServerOrigin);
        const AuthServerMetadata &metadata = target.authServer;
        QCOMPARE(metadata.issuer, m_issuer);
        QCOMPARE(metadata.documentUrl.path(), metadataPath);
        QCOMPARE(metadata.authorizationEndpoint, QUrl(m_issuer + u"/auth"_s));
        QCOMPARE(metadata.tokenEndpoint, QUrl(m_issuer + u"/token"_s));
        QCOMPARE(metadata.registrationEndpoint, QUrl(m_issuer + u"/reg"_s));
        QCOMPARE(metadata.revocationEndpoint, QUrl(m_issuer + u"/token/revocation"_s));
        QCOMPARE(metadata.codeChallengeMethodsSupported, QStringList{u"S256"_s});
        QVERIFY(metadata.tokenEndpointAuthMethodsSupported.contains(u"none"_s));
        QVERIFY(metadata.authorizationResponseIssParameterSupported);
        QVERIFY(!metadata.clientIdMetadataDocumentSupported);
    }

    // MCP 2025-03-26: no Protected Resource Metadata; the AS metadata at the server's origin.
    void findsMetadataAtServerOrigin()
    {
        const QUrl server = startPeers({u"--discovery"_s, u"oauth-insert"_s},
                                       {u"--prm"_s, u"none"_s, u"--as-metadata-at-origin"_s});
        QVERIFY(!server.isEmpty());
        const BearerChallenge challenge = challengeOf(server);
        QVERIFY(challenge.resourceMetadata.isEmpty());
        const Outcome outcome = discover(server, challenge);
        QVERIFY2(outcome.target, qPrintable(outcome.failure));
        QVERIFY(outcome.target->fromServerOrigin);
        QCOMPARE(outcome.target->resource, server.toString());
        QCOMPARE(outcome.target->scopes, QStringList{u"mcp:read"_s});
        QCOMPARE(outcome.target->authServer.issuer, m_issuer);
        QCOMPARE(outcome.target->authServer.documentUrl,
                 server.resolved(QUrl(u"/.well-known/oauth-authorization-server"_s)));
        QCOMPARE(askedOfAuthServer(), QStringList());
    }

    // MCP 2025-03-26 §Fallbacks for Servers without Metadata Discovery: the default endpoints at
    // the server's origin.
    void noMetadataAnywhere()
    {
        const QUrl server = startPeers({u"--discovery"_s, u"oauth-insert"_s}, {u"--prm"_s, u"none"_s});
        QVERIFY(!server.isEmpty());
        const Outcome outcome = discover(server, challengeOf(server));
        QVERIFY2(outcome.target, qPrintable(outcome.failure));
        QVERIFY(outcome.target->fromServerOrigin);
        const QString origin = server.adjusted(QUrl::RemovePath).toString();
        QCOMPARE(outcome.target->authServer.issuer, origin);
        QCOMPARE(outcome.target->authServer.authorizationEndpoint, QUrl(origin + u"/authorize"_s));
        QCOMPARE(outcome.target->authServer.tokenEndpoint, QUrl(origin + u"/token"_s));
        QCOMPARE(outcome.target->authServer.registrationEndpoint, QUrl(origin + u"/register"_s));
        QVERIFY(outcome.target->authServer.documentUrl.isEmpty());
    }

    void refusesPlainPkce()
    {
        const QUrl server = startPeers({u"--pkce-methods"_s, u"plain"_s, u"--discovery"_s, u"oauth-insert"_s}, {});
        QVERIFY(!server.isEmpty());
        const Outcome outcome = discover(server, challengeOf(server));
        QVERIFY(!outcome.target);
        QCOMPARE(outcome.failure, u"the authorization server %1 offers no PKCE S256 (code_challenge_methods_supported: "
                                  "plain); Tether signs in only with S256"_s.arg(m_issuer));
    }

    // Qt joins a reply's WWW-Authenticate headers into one list; the Bearer challenge is still
    // found in it, with the reply's status.
    void challengeOfSeveralHeaders()
    {
        HttpFixture server;
        server.setHandler([](const FixtureRequest &) -> FixtureReply {
            return {401,
                    {{"WWW-Authenticate", "Basic realm=\"a, b\""},
                     {"WWW-Authenticate", "Bearer scope=\"files:read\", resource_metadata=\"http://127.0.0.1:9/prm\""}},
                    {}};
        });
        const BearerChallenge challenge = challengeOf(server.url());
        QCOMPARE(challenge.status, 401);
        QCOMPARE(challenge.scope, u"files:read"_s);
        QCOMPARE(challenge.resourceMetadata, QUrl(u"http://127.0.0.1:9/prm"_s));

        server.setHandler([](const FixtureRequest &) -> FixtureReply { return {401, {}, {}}; });
        QCOMPARE(challengeOf(server.url()), (BearerChallenge{401, {}, {}, {}, {}}));
    }

    // What the peers cannot show: the header on the server's own origin only, redirects and
    // the bound on each request, against the scripted fixture.
    void protocolVersionOnlyToServerOrigin()
    {
        HttpFixture server;
        HttpFixture authServer;
        const QString issuer = authServer.url(u""_s).toString();
        server.setHandler([&](const FixtureRequest &request) -> FixtureReply {
            if (request.path == "/.well-known/oauth-protected-resource/mcp")
                return {200, {{"Content-Type", "application/json"}}, resourceDocument(server.url().toString(), issuer)};
            return {404, {}, {}};
        });
        authServer.setHandler([&](const FixtureRequest &) -> FixtureReply {
            return {200, {{"Content-Type", "application/json"}}, authServerDocument(issuer)};
        });
        const Outcome outcome = discover(server.url(), {401, {}, {}, {}, {}});
        QVERIFY2(outcome.target, qPrintable(outcome.failure));
        QCOMPARE(server.requests.size(), 1);
        QCOMPARE(server.requests.first().header("MCP-Protocol-Version"), "2025-11-25");
        QCOMPARE(server.requests.first().header("Accept"), "application/json");
        QCOMPARE(authServer.requests.size(), 1);
        QCOMPARE(authServer.requests.first().header("MCP-Protocol-Version"), QByteArray());
    }

    void redirectsOnlyWithinOrigin()
    {
        HttpFixture server;
        HttpFixture elsewhere;
        const QString issuer = elsewhere.url(u""_s).toString();
        server.setHandler([&](const FixtureRequest &request) -> FixtureReply {
            if (request.path == "/.well-known/oauth-protected-resource/mcp")
                return {302, {{"Location", "/moved"}}, {}};
            if (request.path == "/moved")
                return {200, {{"Content-Type", "application/json"}}, resourceDocument(server.url().toString(), issuer)};
            if (request.path == "/.well-known/oauth-authorization-server")
                return {302, {{"Location", elsewhere.url(u"/as"_s).toEncoded()}}, {}};
            return {404, {}, {}};
        });
        elsewhere.setHandler([&](const FixtureRequest &) -> FixtureReply {
            return {404, {}, {}};
        });
        const Outcome outcome = discover(server.url(), {401, {}, {}, {}, {}});
        // The PRM followed to /moved; the AS (elsewhere) has no metadata.
        QVERIFY(!outcome.target);
        QVERIFY2(outcome.failure.startsWith(u"the authorization server %1 publishes no metadata"_s.arg(issuer)),
                 qPrintable(outcome.failure));
        QCOMPARE(server.requests.size(), 2);
        QCOMPARE(server.requests.at(1).path, "/moved");

        // A redirect to another origin is not followed; it counts as a url tried.
        elsewhere.requests.clear();
        server.setHandler([&](const FixtureRequest &request) -> FixtureReply {
            if (request.path.startsWith("/.well-known/"))
                return {302, {{"Location", elsewhere.url(u"/x"_s).toEncoded()}}, {}};
            return {404, {}, {}};
        });
        const Outcome refused = discover(server.url(), {401, {}, {}, {}, {}});
        QVERIFY(!refused.target);
        QVERIFY2(refused.failure.contains(u"/.well-known/oauth-protected-resource/mcp (HTTP 302, a redirect Tether does "
                                          "not follow)"_s),
                 qPrintable(refused.failure));
        QVERIFY(elsewhere.requests.isEmpty());
    }

    void boundedTimePerRequest()
    {
        HttpFixture server;
        server.setHandler([](const FixtureRequest &) -> FixtureReply {
            return {200, {{"Content-Type", "application/json"}}, "{", FixtureReply::Delivery::Stream};
        });
        QNetworkAccessManager network;
        AuthDiscovery discovery(&network, AuthDiscovery::Options{std::chrono::milliseconds(300), 1024 * 1024});
        const Outcome outcome = run(discovery, server.url(), {401, {}, {}, {}, {}});
        QVERIFY(!outcome.target);
        QCOMPARE(outcome.failure, u"%1 did not answer in time while looking for sign-in metadata"_s.arg(
                                      server.url(u"/.well-known/oauth-protected-resource/mcp"_s).toString()));
    }

private:
    static QByteArray resourceDocument(const QString &resource, const QString &issuer)
    {
        return QJsonDocument(QJsonObject{{u"resource"_s, resource},
                                         {u"authorization_servers"_s, QJsonArray{issuer}}})
            .toJson();
    }

    static QByteArray authServerDocument(const QString &issuer)
    {
        return QJsonDocument(QJsonObject{{u"issuer"_s, issuer},
                                         {u"authorization_endpoint"_s, QString(issuer + u"/auth"_s)},
                                         {u"token_endpoint"_s, QString(issuer + u"/token"_s)},
                                         {u"code_challenge_methods_supported"_s, QJsonArray{u"S256"_s}}})
            .toJson();
    }

    // Starts the AS, then the RS in front of it; the RS's Streamable HTTP url, empty on failure.
    QUrl startPeers(const QStringList &authServerFlags, const QStringList &resourceServerFlags)
    {
        m_authServer = std::make_unique<AuthPeer>(u"oauth-server.mjs"_s,
                                                  QStringList{u"--resource"_s, u"loopback"_s} + authServerFlags);
        m_issuer = m_authServer->ready().value(u"issuer"_s).toString();
        if (m_issuer.isEmpty()) {
            qWarning().noquote() << "the authorization server did not start:" << m_authServer->stderrText;
            return {};
        }
        m_resourceServer = std::make_unique<AuthPeer>(u"mcp-resource-server.mjs"_s,
                                                      QStringList{u"--issuer"_s, m_issuer} + resourceServerFlags);
        const QUrl url(m_resourceServer->ready().value(u"mcp"_s).toString());
        if (url.isEmpty())
            qWarning().noquote() << "the resource server did not start:" << m_resourceServer->stderrText;
        return url;
    }

    // The challenge of the server's answer to an initialize without a token.
    static BearerChallenge challengeOf(const QUrl &server)
    {
        QNetworkAccessManager network;
        QNetworkRequest request(server);
        request.setHeader(QNetworkRequest::ContentTypeHeader, u"application/json"_s);
        request.setRawHeader("Accept", "application/json, text/event-stream");
        QNetworkReply *reply = network.post(request, R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})");
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!finished.wait(10000))
            return {};
        const BearerChallenge challenge = bearerChallengeOf(*reply);
        reply->deleteLater();
        return challenge;
    }

    static Outcome run(AuthDiscovery &discovery, const QUrl &server, const BearerChallenge &challenge)
    {
        QSignalSpy found(&discovery, &AuthDiscovery::found);
        QSignalSpy failed(&discovery, &AuthDiscovery::failed);
        discovery.start(server, challenge);
        if (!QTest::qWaitFor([&] { return found.size() + failed.size() > 0; }, 20000))
            return {std::nullopt, u"discovery did not end within 20 s"_s};
        if (found.size() + failed.size() != 1)
            return {std::nullopt, u"discovery ended more than once"_s};
        if (!found.isEmpty())
            return {found.first().first().value<SignInTarget>(), {}};
        return {std::nullopt, failed.first().first().toString()};
    }

    static Outcome discover(const QUrl &server, const BearerChallenge &challenge)
    {
        QNetworkAccessManager network;
        AuthDiscovery discovery(&network);
        return run(discovery, server, challenge);
    }

    // The discovery paths the AS was asked for, from its event lines.
    QStringList askedOfAuthServer() const
    {
        QStringList paths;
        for (const QJsonObject &line : m_authServer->lines) {
            if (line.value(u"event"_s) == u"discovery"_s)
                paths.append(line.value(u"path"_s).toString());
        }
        return paths;
    }

    std::unique_ptr<AuthPeer> m_authServer;
    std::unique_ptr<AuthPeer> m_resourceServer;
    QString m_issuer;
};

QTEST_GUILESS_MAIN(TestAuthDiscoveryPeers)
#include "tst_authdiscoverypeers.moc"
