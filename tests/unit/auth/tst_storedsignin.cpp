// A sign-in as the secret store keeps it: what goes in comes out, an entry that cannot refresh
// is refused, and the account a token names is read without trusting it.
#include "auth/storedsignin.h"

#include <QJsonDocument>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;

namespace {

QString jwtWith(const QJsonObject &claims)
{
    const auto part = [](const QByteArray &bytes) {
        return QString::fromLatin1(bytes.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
    };
    return part("{\"alg\":\"RS256\"}") + u'.' + part(QJsonDocument(claims).toJson(QJsonDocument::Compact)) + u".c2ln";
}

StoredSignIn sample()
{
    StoredSignIn stored;
    stored.tokens = {u"access-1"_s, u"refresh-1"_s, QDateTime::fromString(u"2026-12-01T13:00:00.250Z"_s, Qt::ISODateWithMs),
                     {u"mcp:read"_s, u"mcp:admin"_s}};
    stored.issuer = u"https://auth.example.com"_s;
    stored.tokenEndpoint = QUrl(u"https://auth.example.com/token"_s);
    stored.revocationEndpoint = QUrl(u"https://auth.example.com/revoke"_s);
    stored.resource = u"https://mcp.example.com/mcp"_s;
    stored.client = {u"tether-desktop"_s, u"secret"_s, ClientIdentity::Authentication::SecretPost};
    return stored;
}

} // namespace

class TestStoredSignIn final : public QObject
{
    Q_OBJECT

private slots:
    void keepsEverythingARefreshNeeds()
    {
        const StoredSignIn stored = sample();
        const std::optional<StoredSignIn> back = StoredSignIn::fromJson(stored.toJson());
        QVERIFY(back);
        QCOMPARE(back->tokens.accessToken, stored.tokens.accessToken);
        QCOMPARE(back->tokens.refreshToken, stored.tokens.refreshToken);
        QCOMPARE(back->tokens.expiresAt, stored.tokens.expiresAt);
        QCOMPARE(back->tokens.scopes, stored.tokens.scopes);
        QCOMPARE(back->issuer, stored.issuer);
        QCOMPARE(back->tokenEndpoint, stored.tokenEndpoint);
        QCOMPARE(back->revocationEndpoint, stored.revocationEndpoint);
        QCOMPARE(back->resource, stored.resource);
        QCOMPARE(back->client.clientId, stored.client.clientId);
        QCOMPARE(back->client.clientSecret, stored.client.clientSecret);
        QCOMPARE(back->client.authentication, ClientIdentity::Authentication::SecretPost);
        QCOMPARE(back->authorization(), QByteArray("Bearer access-1"));
    }

    void anUnsaidExpiryStaysUnsaid()
    {
        StoredSignIn stored = sample();
        stored.tokens.expiresAt = {};
        stored.tokens.refreshToken.clear();
        const std::optional<StoredSignIn> back = StoredSignIn::fromJson(stored.toJson());
        QVERIFY(back);
        QVERIFY(!back->tokens.expiresAt.isValid());
        QVERIFY(back->tokens.refreshToken.isEmpty());
    }

    void refusesAnEntryThatCannotBeUsed_data()
    {
        QTest::addColumn<QString>("missing");
        QTest::newRow("no access token") << u"accessToken"_s;
        QTest::newRow("no token endpoint") << u"tokenEndpoint"_s;
        QTest::newRow("no client id") << u"clientId"_s;
    }

    void refusesAnEntryThatCannotBeUsed()
    {
        QFETCH(QString, missing);
        QJsonObject json = sample().toJson();
        json.remove(missing);
        QVERIFY(!StoredSignIn::fromJson(json));
        QVERIFY(!StoredSignIn::fromJson({}));
    }

    void keepsARegisteredClient()
    {
        const RegisteredClient client{u"abc"_s, u"s"_s, u"client_secret_basic"_s, u"rat"_s,
                                      QUrl(u"http://127.0.0.1:4711/callback"_s)};
        const std::optional<RegisteredClient> back = registeredClientFromJson(registeredClientToJson(client));
        QVERIFY(back);
        QCOMPARE(back->clientId, client.clientId);
        QCOMPARE(back->clientSecret, client.clientSecret);
        QCOMPARE(back->tokenEndpointAuthMethod, client.tokenEndpointAuthMethod);
        QCOMPARE(back->registrationAccessToken, client.registrationAccessToken);
        QCOMPARE(back->redirectUri, client.redirectUri);
        QVERIFY(!registeredClientFromJson({{u"clientSecret"_s, u"s"_s}}));
    }

    void readsTheAccountATokenNames_data()
    {
        QTest::addColumn<QString>("token");
        QTest::addColumn<QString>("account");
        QTest::newRow("email first") << jwtWith({{u"sub"_s, u"u-1"_s}, {u"email"_s, u"ada@example.com"_s}})
                                     << u"ada@example.com"_s;
        QTest::newRow("preferred_username") << jwtWith({{u"sub"_s, u"u-1"_s}, {u"preferred_username"_s, u"ada"_s}})
                                            << u"ada"_s;
        QTest::newRow("sub") << jwtWith({{u"sub"_s, u"alice"_s}}) << u"alice"_s;
        QTest::newRow("no claim") << jwtWith({{u"aud"_s, u"x"_s}}) << QString();
        QTest::newRow("opaque") << u"2YotnFZFEjr1zCsicMWpAA"_s << QString();
        QTest::newRow("three parts, not JSON") << u"a.b.c"_s << QString();
    }

    void readsTheAccountATokenNames()
    {
        QFETCH(QString, token);
        QFETCH(QString, account);
        QCOMPARE(tokenAccount(token), account);
    }
};

QTEST_GUILESS_MAIN(TestStoredSignIn)
#include "tst_storedsignin.moc"
