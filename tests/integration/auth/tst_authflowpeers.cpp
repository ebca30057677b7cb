// The authorization code flow and the token requests against a real authorization server:
// oidc-provider (tests/integration/auth/oauth-server.mjs) with its browser step driven by the
// scripted browser (oauth-browser.mjs). Registration, pre-registered clients, refresh with
// rotation, revoked grants, and each way the sign-in can fail with its message.
#include "auth/authorizationcodeflow.h"
#include "auth/discoveryrules.h"
#include "auth/tokenclient.h"

#include "support/authpeers.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <memory>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

constexpr int FlowTimeoutMs = 60000;
const QString Resource = u"http://127.0.0.1:9/mcp"_s; // any loopback resource: the server runs with --resource loopback

QJsonObject jwtPayload(const QString &token)
{
    const QStringList parts = token.split(u'.');
    if (parts.size() != 3)
        return {};
    return QJsonDocument::fromJson(QByteArray::fromBase64(parts[1].toLatin1(), QByteArray::Base64UrlEncoding)).object();
}

bool hasTokenEvent(const AuthPeer &server)
{
    return std::any_of(server.lines.begin(), server.lines.end(), [](const QJsonObject &line) {
        const QString event = line.value(u"event"_s).toString();
        return event == u"token"_s || event == u"token-error"_s;
    });
}

} // namespace

class TestAuthFlowPeers final : public QObject
{
    Q_OBJECT

private:
    QNetworkAccessManager m_network;
    std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> m_log = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(256);
    std::unique_ptr<AuthPeer> m_server;
    std::unique_ptr<AuthPeer> m_browser;
    AuthServerMetadata m_endpoints;
    QString m_browserMode;

    // Starts the authorization server and reads its metadata; false with the reason logged.
    bool startServer(const QStringList &arguments)
    {
        m_server = std::make_unique<AuthPeer>(u"oauth-server.mjs"_s, QStringList{u"--resource"_s, u"loopback"_s} + arguments);
        const QString issuer = m_server->ready().value(u"issuer"_s).toString();
        if (issuer.isEmpty()) {
            qWarning("the authorization server did not start: %s", qPrintable(m_server->stderrText));
            return false;
        }
        const QUrl documentUrl(issuer + u"/.well-known/openid-configuration"_s);
        QNetworkRequest request(documentUrl);
        request.setRawHeader("x-internal", "1");
        QString refusal;
        const std::optional<AuthServerMetadata> metadata =
            readAuthServerMetadata(send(m_network.get(request)), documentUrl, issuer, &refusal);
        if (!metadata) {
            qWarning("the authorization server's metadata was not read: %s", qPrintable(refusal));
            return false;
        }
        m_endpoints = *metadata;
        return true;
    }

    QByteArray send(QNetworkReply *reply)
    {
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!reply->isFinished())
            (void)finished.wait(10000);
        reply->deleteLater();
        return reply->readAll();
    }

    SignInRequest signInRequest()
    {
        SignInRequest request;
        request.serverName = u"docs"_s;
        request.server = m_endpoints;
        request.scopes = {u"mcp:read"_s};
        request.resource = Resource;
        request.openBrowser = [this](const QUrl &url) {
            QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
            environment.insert(u"TETHER_TEST_BROWSER"_s, m_browserMode);
            m_browser = std::make_unique<AuthPeer>(u"oauth-browser.mjs"_s, QStringList{url.toString(QUrl::FullyEncoded)},
                                                   environment);
        };
        return request;
    }

    SignInOutcome signIn(SignInRequest request)
    {
        AuthorizationCodeFlow flow(&m_network, std::move(request));
        QSignalSpy finished(&flow, &AuthorizationCodeFlow::finished);
        flow.start();
        if (finished.isEmpty() && !finished.wait(FlowTimeoutMs))
            return {{}, {}, {}, u"the flow did not finish"_s};
        return finished.at(0).at(0).value<SignInOutcome>();
    }

    // What the browser showed at the callback (it prints "browser: <status> <page>" and exits).
    QString browserPage()
    {
        if (!m_browser || !QTest::qWaitFor([this] { return m_browser->stderrText.contains(u"browser: "_s); }, 10000))
            return {};
        return m_browser->stderrText;
    }

    TokenResponse refresh(const ClientIdentity &client, const QString &refreshToken)
    {
        TokenClient tokens(&m_network, m_endpoints.tokenEndpoint, client);
        std::optional<TokenResponse> response;
        tokens.refresh(refreshToken, Resource, {u"mcp:read"_s}, [&response](const TokenResponse &r) { response = r; });
        if (!QTest::qWaitFor([&response] { return response.has_value(); }, FlowTimeoutMs))
            return TokenResponse::failure(u"no answer"_s);
        return *response;
    }

    // Everything logged since the test began, for the secrecy checks.
    QString logged() const
    {
        QString text;
        for (const std::string &line : m_log->last_formatted())
            text += QString::fromStdString(line);
        return text;
    }

    void verifyNotLogged(const QStringList &secrets)
    {
        const QString log = logged();
        for (const QString &secret : secrets)
            QVERIFY2(secret.isEmpty() || !log.contains(secret), "a token or secret was logged");
    }

    static ClientIdentity clientOf(const SignInOutcome &outcome)
    {
        const RegisteredClient &client = *outcome.newRegistration;
        return ClientIdentity::registered(client.clientId, client.clientSecret, client.tokenEndpointAuthMethod);
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QDir(QStringLiteral(TETHER_NODE_MODULES "/oidc-provider")).exists(),
                 "oidc-provider is not installed: run npm ci in the source folder");
        QVERIFY2(!QStandardPaths::findExecutable(u"node"_s).isEmpty(), "node is not on PATH");
        spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", m_log));
        m_log->set_level(spdlog::level::debug);
        spdlog::set_level(spdlog::level::debug);
    }

    void init()
    {
        m_browserMode = u"approve"_s;
    }

    void cleanup()
    {
        m_browser.reset();
        m_server.reset();
    }

    void registersAndSignsIn()
    {
        QVERIFY(startServer({}));
        const SignInOutcome outcome = signIn(signInRequest());
        QVERIFY2(outcome.tokens, qPrintable(outcome.error));
        QVERIFY(outcome.newRegistration && !outcome.newRegistration->clientId.isEmpty());
        QCOMPARE(outcome.newRegistration->redirectUri.host(), u"127.0.0.1"_s);
        const QJsonObject claims = jwtPayload(outcome.tokens->accessToken);
        QCOMPARE(claims.value(u"aud"_s).toString(), Resource);
        QCOMPARE(claims.value(u"sub"_s).toString(), u"alice"_s);
        QCOMPARE(claims.value(u"iss"_s).toString(), m_endpoints.issuer);
        QVERIFY(!outcome.tokens->refreshToken.isEmpty());
        const qint64 lifetime = QDateTime::currentDateTimeUtc().secsTo(outcome.tokens->expiresAt);
        QVERIFY2(lifetime > 3500 && lifetime <= 3600, qPrintable(QString::number(lifetime)));
        QCOMPARE(outcome.tokens->scopes, QStringList{u"mcp:read"_s});
        QVERIFY2(browserPage().contains(u"browser: 200 "_s) && browserPage().contains(u"Signed in to docs. You can close this page."_s),
                 qPrintable(browserPage()));
        QVERIFY2(logged().contains(u"docs: registered as a client at %1"_s.arg(m_endpoints.registrationEndpoint.toString())),
                 qPrintable(logged()));
        verifyNotLogged({outcome.tokens->accessToken, outcome.tokens->refreshToken});
    }

    // A client Tether registered is used again on its redirect URI's port; with that port taken,
    // Tether registers anew on another.
    void keptRegistration_data()
    {
        QTest::addColumn<bool>("portTaken");
        QTest::newRow("port free") << false;
        QTest::newRow("port taken") << true;
    }

    void keptRegistration()
    {
        QFETCH(bool, portTaken);
        QVERIFY(startServer({}));
        const SignInOutcome first = signIn(signInRequest());
        QVERIFY2(first.tokens && first.newRegistration, qPrintable(first.error));
        QTcpServer squatter;
        if (portTaken)
            QVERIFY(squatter.listen(QHostAddress::LocalHost, quint16(first.newRegistration->redirectUri.port())));
        SignInRequest request = signInRequest();
        request.registered = first.newRegistration;
        const SignInOutcome second = signIn(request);
        QVERIFY2(second.tokens, qPrintable(second.error));
        const QString clientId = jwtPayload(second.tokens->accessToken).value(u"client_id"_s).toString();
        if (portTaken) {
            QVERIFY(second.newRegistration);
            QVERIFY(second.newRegistration->redirectUri != first.newRegistration->redirectUri);
            QCOMPARE(clientId, second.newRegistration->clientId);
            QVERIFY(clientId != first.newRegistration->clientId);
        } else {
            QVERIFY(!second.newRegistration);
            QCOMPARE(clientId, first.newRegistration->clientId);
        }
    }

    void refreshRotatesTheRefreshToken()
    {
        QVERIFY(startServer({}));
        const SignInOutcome outcome = signIn(signInRequest());
        QVERIFY2(outcome.tokens, qPrintable(outcome.error));
        const TokenResponse refreshed = refresh(clientOf(outcome), outcome.tokens->refreshToken);
        QVERIFY2(refreshed.tokens, qPrintable(refreshed.error));
        QVERIFY(refreshed.tokens->accessToken != outcome.tokens->accessToken);
        QCOMPARE(jwtPayload(refreshed.tokens->accessToken).value(u"aud"_s).toString(), Resource);
        QVERIFY(!refreshed.tokens->refreshToken.isEmpty());
        QVERIFY(refreshed.tokens->refreshToken != outcome.tokens->refreshToken);
        QVERIFY(refreshed.tokens->expiresAt.isValid());
        // The old one is spent.
        const TokenResponse reused = refresh(clientOf(outcome), outcome.tokens->refreshToken);
        QVERIFY(!reused.tokens);
        QCOMPARE(reused.errorCode, u"invalid_grant"_s);
        QVERIFY2(reused.error.startsWith(u"the token endpoint %1 answered HTTP 400 invalid_grant"_s.arg(
                     m_endpoints.tokenEndpoint.toString())),
                 qPrintable(reused.error));
        QVERIFY(!reused.error.contains(outcome.tokens->refreshToken));
        verifyNotLogged({outcome.tokens->refreshToken, refreshed.tokens->accessToken, refreshed.tokens->refreshToken});
    }

    void revokedAtTheRevocationEndpoint()
    {
        QVERIFY(startServer({}));
        QVERIFY(m_endpoints.revocationEndpoint.isValid());
        const SignInOutcome outcome = signIn(signInRequest());
        QVERIFY2(outcome.tokens, qPrintable(outcome.error));
        TokenClient tokens(&m_network, m_endpoints.tokenEndpoint, clientOf(outcome));
        std::optional<QString> revokeError;
        tokens.revoke(m_endpoints.revocationEndpoint, outcome.tokens->refreshToken, u"refresh_token"_s,
                      [&revokeError](const QString &error) { revokeError = error; });
        QTRY_VERIFY_WITH_TIMEOUT(revokeError.has_value(), FlowTimeoutMs);
        QVERIFY2(revokeError->isEmpty(), qPrintable(*revokeError));
        const TokenResponse refreshed = refresh(clientOf(outcome), outcome.tokens->refreshToken);
        QCOMPARE(refreshed.errorCode, u"invalid_grant"_s);
    }

    void revokedRefreshTokenIsRefused()
    {
        QVERIFY(startServer({}));
        const SignInOutcome outcome = signIn(signInRequest());
        QVERIFY2(outcome.tokens, qPrintable(outcome.error));
        QNetworkReply *revoke = m_network.post(QNetworkRequest(QUrl(m_endpoints.issuer + u"/__test/revoke-refresh-tokens"_s)),
                                               QByteArray());
        send(revoke);
        QCOMPARE(revoke->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 204);
        const TokenResponse refreshed = refresh(clientOf(outcome), outcome.tokens->refreshToken);
        QVERIFY(!refreshed.tokens);
        QCOMPARE(refreshed.errorCode, u"invalid_grant"_s);
        QCOMPARE(refreshed.error, u"the token endpoint %1 answered HTTP 400 invalid_grant: grant request is invalid"_s.arg(
                                      m_endpoints.tokenEndpoint.toString()));
    }

    void preRegisteredClient_data()
    {
        QTest::addColumn<QString>("clientId");
        QTest::addColumn<QString>("clientSecret");
        QTest::newRow("confidential") << u"tether-test"_s << u"s3cret+/="_s;
        QTest::newRow("public") << u"tether-public"_s << QString();
    }

    void preRegisteredClient()
    {
        QFETCH(QString, clientId);
        QFETCH(QString, clientSecret);
        const QString client = clientSecret.isEmpty() ? clientId : clientId + u':' + clientSecret;
        QVERIFY(startServer({u"--no-registration"_s, u"--client"_s, client}));
        QVERIFY(m_endpoints.registrationEndpoint.isEmpty());
        SignInRequest request = signInRequest();
        const ClientIdentity identity = ClientIdentity::preRegistered(clientId, clientSecret, m_endpoints.tokenEndpointAuthMethodsSupported);
        request.preRegistered = identity;
        const SignInOutcome outcome = signIn(request);
        QVERIFY2(outcome.tokens, qPrintable(outcome.error));
        QVERIFY(!outcome.newRegistration);
        QCOMPARE(jwtPayload(outcome.tokens->accessToken).value(u"client_id"_s).toString(), clientId);
        // Refresh authenticates the same way.
        const TokenResponse refreshed = refresh(identity, outcome.tokens->refreshToken);
        QVERIFY2(refreshed.tokens, qPrintable(refreshed.error));
        verifyNotLogged({clientSecret, outcome.tokens->accessToken, refreshed.tokens->accessToken});
    }

    void abandoned()
    {
        QVERIFY(startServer({}));
        SignInRequest request = signInRequest();
        QUrl opened;
        request.openBrowser = [&opened](const QUrl &url) { opened = url; };
        AuthorizationCodeFlow flow(&m_network, request);
        QSignalSpy finished(&flow, &AuthorizationCodeFlow::finished);
        flow.start();
        QTRY_VERIFY_WITH_TIMEOUT(opened.isValid(), FlowTimeoutMs);
        flow.abandon(u"the browser command 'firefox' exited with code 1"_s);
        QCOMPARE(finished.size(), 1);
        const SignInOutcome outcome = finished.at(0).at(0).value<SignInOutcome>();
        QVERIFY(!outcome.tokens);
        QCOMPARE(outcome.error, u"the browser command 'firefox' exited with code 1"_s);
        // A callback that comes now changes nothing.
        m_browser = std::make_unique<AuthPeer>(u"oauth-browser.mjs"_s, QStringList{opened.toString(QUrl::FullyEncoded)});
        QVERIFY(QTest::qWaitFor([this] { return m_browser->stderrText.contains(u"fetch failed"_s); }, 20000));
        QCOMPARE(finished.size(), 1);
    }

    void noRegistrationAndNoClient()
    {
        QVERIFY(startServer({u"--no-registration"_s}));
        const SignInOutcome outcome = signIn(signInRequest());
        QVERIFY(!outcome.tokens);
        QCOMPARE(outcome.error,
                 u"the authorization server %1 does not let Tether register (no registration_endpoint) and no client id "
                 "is configured: register \"Tether\" there with redirect URI http://127.0.0.1/callback and add "
                 "\"oauth\": {\"clientId\": \"…\"} to this server in the config"_s.arg(m_endpoints.issuer));
        QVERIFY(!m_browser);
    }

    void registrationRefused()
    {
        QVERIFY(startServer({u"--reject-registration"_s, u"loopback redirect URIs are not allowed here"_s}));
        const SignInOutcome outcome = signIn(signInRequest());
        QVERIFY(!outcome.tokens);
        QCOMPARE(outcome.error, u"registration at %1 was refused: HTTP 400 invalid_client_metadata: loopback redirect "
                                "URIs are not allowed here"_s.arg(m_endpoints.registrationEndpoint.toString()));
        QVERIFY(!m_browser);
    }

    void userDenies()
    {
        QVERIFY(startServer({}));
        m_browserMode = u"deny"_s;
        const SignInOutcome outcome = signIn(signInRequest());
        QVERIFY(!outcome.tokens);
        QCOMPARE(outcome.error, u"the authorization server refused: access_denied (End-User aborted interaction)"_s);
        QVERIFY2(browserPage().contains(u"browser: 400 "_s)
                     && browserPage().contains(u"Sign-in to docs failed: the authorization server refused: access_denied"_s),
                 qPrintable(browserPage()));
    }

    void stateMismatchSendsNoTokenRequest()
    {
        QVERIFY(startServer({}));
        m_browserMode = u"state"_s;
        const SignInOutcome outcome = signIn(signInRequest());
        QVERIFY(!outcome.tokens);
        QCOMPARE(outcome.error, u"the sign-in callback carried a state Tether did not send (a stale or forged sign-in "
                                "link); nothing was done; sign in again"_s);
        QVERIFY2(browserPage().contains(u"browser: 400 "_s), qPrintable(browserPage()));
        QVERIFY(!hasTokenEvent(*m_server));
    }

    void browserStepTimesOut()
    {
        QVERIFY(startServer({}));
        m_browserMode = u"stall"_s;
        SignInRequest request = signInRequest();
        request.browserTimeout = std::chrono::milliseconds(2000);
        const SignInOutcome outcome = signIn(request);
        QVERIFY(!outcome.tokens);
        QCOMPARE(outcome.error, u"sign-in to docs was not completed within 2 s (oauth.browserTimeoutMs); run tetherctl "
                                "login docs or use Sign in again"_s);
        QVERIFY(!hasTokenEvent(*m_server));
    }

    void tokenEndpointError()
    {
        QVERIFY(startServer({u"--token-error"_s, u"invalid_grant"_s}));
        const SignInOutcome outcome = signIn(signInRequest());
        QVERIFY(!outcome.tokens);
        QCOMPARE(outcome.errorCode, u"invalid_grant"_s);
        QCOMPARE(outcome.error, u"the token endpoint %1 answered HTTP 400 invalid_grant: test says no"_s.arg(
                                    m_endpoints.tokenEndpoint.toString()));
        QVERIFY2(browserPage().contains(u"Sign-in to docs failed: the token endpoint"_s), qPrintable(browserPage()));
    }
};

QTEST_GUILESS_MAIN(TestAuthFlowPeers)
#include "tst_authflowpeers.moc"
