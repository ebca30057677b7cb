// The decisions of the authorization code flow, on values: PKCE against RFC 7636's example, the
// form encoding ('+' included), the authorization URL, the callback's checks, the token and
// registration answers with their messages, and how a client authenticates.
#include "auth/authorizationcallback.h"
#include "auth/authorizationrequest.h"
#include "auth/clientidentity.h"
#include "auth/clientregistrationdocument.h"
#include "auth/formencoding.h"
#include "auth/loopbackreceiver.h"
#include "auth/pkce.h"
#include "auth/scopestepup.h"
#include "auth/tokenresponse.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <QUrlQuery>

using namespace Qt::StringLiterals;
using namespace Tether;

Q_DECLARE_METATYPE(FormFields)
Q_DECLARE_METATYPE(ClientIdentity)

class TestAuthFlowParts final : public QObject
{
    Q_OBJECT

private slots:
    void pkceMatchesRfc7636AppendixB()
    {
        const Pkce pkce = Pkce::forVerifier(u"dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"_s);
        QCOMPARE(pkce.challenge, u"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"_s);
    }

    void pkceAndStateAreFreshBase64Url()
    {
        const Pkce first = Pkce::generate();
        const Pkce second = Pkce::generate();
        const QRegularExpression base64Url(u"^[A-Za-z0-9_-]{43}$"_s);
        QVERIFY(base64Url.match(first.verifier).hasMatch());
        QVERIFY(base64Url.match(first.challenge).hasMatch());
        QCOMPARE(first.challenge, Pkce::forVerifier(first.verifier).challenge);
        QVERIFY(first.verifier != second.verifier);
        const QString state = newAuthorizationState();
        QVERIFY(base64Url.match(state).hasMatch());
        QVERIFY(state != newAuthorizationState());
    }

    void formEncoding_data()
    {
        QTest::addColumn<FormFields>("fields");
        QTest::addColumn<QByteArray>("encoded");
        QTest::newRow("plus slash equals ampersand") << FormFields{{u"refresh_token"_s, u"a+b/c=d&e%f g"_s}}
                                                     << QByteArray("refresh_token=a%2Bb%2Fc%3Dd%26e%25f%20g");
        QTest::newRow("keys too") << FormFields{{u"a b+"_s, u"x"_s}, {u"c"_s, {}}} << QByteArray("a%20b%2B=x&c=");
        QTest::newRow("unreserved stay") << FormFields{{u"code_verifier"_s, u"Az09-._~"_s}}
                                         << QByteArray("code_verifier=Az09-._~");
        QTest::newRow("utf-8") << FormFields{{u"scope"_s, u"é"_s}} << QByteArray("scope=%C3%A9");
        QTest::newRow("url value") << FormFields{{u"redirect_uri"_s, u"http://127.0.0.1:8/callback"_s}}
                                   << QByteArray("redirect_uri=http%3A%2F%2F127.0.0.1%3A8%2Fcallback");
    }

    void formEncoding()
    {
        QFETCH(FormFields, fields);
        QFETCH(QByteArray, encoded);
        QCOMPARE(formEncoded(fields), encoded);
        QCOMPARE(formDecoded(encoded), fields);
    }

    void formDecodingReadsPlusAsSpace()
    {
        const FormFields fields = formDecoded("error_description=End-User+aborted%2Binteraction&flag&=x");
        QCOMPARE(fields, (FormFields{{u"error_description"_s, u"End-User aborted+interaction"_s},
                                     {u"flag"_s, {}},
                                     {{}, u"x"_s}}));
    }

    void authorizationUrl_data()
    {
        QTest::addColumn<QUrl>("endpoint");
        QTest::addColumn<QStringList>("scopes");
        QTest::addColumn<QString>("resource");
        QTest::addColumn<QString>("query");
        const QString common = u"response_type=code&client_id=c%2B1&redirect_uri=http%3A%2F%2F127.0.0.1%3A4711%2Fcallback"_s;
        const QString pkce = u"state=s%2Bt&code_challenge=ch&code_challenge_method=S256"_s;
        QTest::newRow("all") << QUrl(u"https://as.example/auth"_s) << QStringList{u"mcp:read"_s, u"mcp:admin"_s}
                             << u"https://mcp.example/api/mcp"_s
                             << common + u"&scope=mcp%3Aread%20mcp%3Aadmin&"_s + pkce
                                    + u"&resource=https%3A%2F%2Fmcp.example%2Fapi%2Fmcp"_s;
        QTest::newRow("no scope, no resource") << QUrl(u"https://as.example/auth"_s) << QStringList() << QString()
                                               << common + u'&' + pkce;
        QTest::newRow("endpoint query kept") << QUrl(u"https://as.example/auth?tenant=a%2Bb"_s) << QStringList()
                                             << QString() << u"tenant=a%2Bb&"_s + common + u'&' + pkce;
    }

    void authorizationUrl()
    {
        QFETCH(QUrl, endpoint);
        QFETCH(QStringList, scopes);
        QFETCH(QString, resource);
        QFETCH(QString, query);
        const AuthorizationRequest request{endpoint, u"c+1"_s, QUrl(u"http://127.0.0.1:4711/callback"_s), scopes,
                                           u"s+t"_s, u"ch"_s, resource};
        const QUrl url = request.url();
        QCOMPARE(url.query(QUrl::FullyEncoded), query);
        QCOMPARE(url.adjusted(QUrl::RemoveQuery), endpoint.adjusted(QUrl::RemoveQuery));
        // What the server reads back.
        const FormFields fields = formDecoded(url.query(QUrl::FullyEncoded).toLatin1());
        QCOMPARE(formValue(fields, u"client_id"_s), u"c+1"_s);
        QCOMPARE(formValue(fields, u"state"_s), u"s+t"_s);
    }

    void callback_data()
    {
        QTest::addColumn<QByteArray>("query");
        QTest::addColumn<bool>("issuerRequired");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("error");
        const QString stateError = u"the sign-in callback carried a state Tether did not send (a stale or forged "
                                   "sign-in link); nothing was done; sign in again"_s;
        QTest::newRow("code") << QByteArray("code=abc%2Bd&state=st8") << false << u"abc+d"_s << QString();
        QTest::newRow("code and issuer") << QByteArray("code=c&state=st8&iss=https%3A%2F%2Fas.example") << true
                                         << u"c"_s << QString();
        QTest::newRow("state wrong") << QByteArray("code=c&state=other") << false << QString() << stateError;
        QTest::newRow("state missing") << QByteArray("code=c") << false << QString() << stateError;
        QTest::newRow("state empty") << QByteArray("code=c&state=") << false << QString() << stateError;
        QTest::newRow("error with wrong state") << QByteArray("error=access_denied&state=x") << false << QString()
                                                << stateError;
        QTest::newRow("access denied")
            << QByteArray("error=access_denied&error_description=End-User+aborted+interaction&state=st8") << false
            << QString() << u"the authorization server refused: access_denied (End-User aborted interaction)"_s;
        QTest::newRow("error without description") << QByteArray("error=invalid_scope&state=st8") << false << QString()
                                                   << u"the authorization server refused: invalid_scope"_s;
        QTest::newRow("error with controls") << QByteArray("error=x%1B%5B2J&state=st8") << false << QString()
                                             << u"the authorization server refused: x\\x1b[2J"_s;
        QTest::newRow("issuer missing")
            << QByteArray("code=c&state=st8") << true << QString()
            << u"the sign-in callback did not say which authorization server sent it, though https://as.example says "
               "it always does (RFC 9207); nothing was done; sign in again"_s;
        QTest::newRow("issuer wrong, not announced")
            << QByteArray("code=c&state=st8&iss=https%3A%2F%2Fevil.example") << false << QString()
            << u"the sign-in callback came from the authorization server https://evil.example, not from "
               "https://as.example where Tether sent you (a mix-up or a forged sign-in link); nothing was done; "
               "sign in again"_s;
        QTest::newRow("issuer checked before the error")
            << QByteArray("error=access_denied&state=st8&iss=https%3A%2F%2Fevil.example") << true << QString()
            << u"the sign-in callback came from the authorization server https://evil.example, not from "
               "https://as.example where Tether sent you (a mix-up or a forged sign-in link); nothing was done; "
               "sign in again"_s;
        QTest::newRow("no code") << QByteArray("state=st8") << false << QString()
                                 << u"the sign-in callback carried no authorization code and no error; sign in again"_s;
    }

    void callback()
    {
        QFETCH(QByteArray, query);
        QFETCH(bool, issuerRequired);
        QFETCH(QString, code);
        QFETCH(QString, error);
        const AuthorizationCallback callback =
            AuthorizationCallback::parse(query, {u"st8"_s, u"https://as.example"_s, issuerRequired});
        QCOMPARE(callback.error, error);
        QCOMPARE(callback.code, code);
    }

    void tokenResponse_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("accessToken");
        QTest::addColumn<QString>("refreshToken");
        QTest::addColumn<qint64>("expiresInMs"); // -1: no expiry
        QTest::addColumn<QStringList>("scopes");
        QTest::addColumn<QString>("errorCode");
        QTest::addColumn<QString>("error");
        const QStringList requested{u"mcp:read"_s};
        QTest::newRow("full") << 200
                              << QByteArray(R"({"access_token":"AT","token_type":"Bearer","expires_in":5,)"
                                            R"("refresh_token":"RT","scope":"mcp:read mcp:admin"})")
                              << u"AT"_s << u"RT"_s << qint64(5000) << QStringList{u"mcp:read"_s, u"mcp:admin"_s}
                              << QString() << QString();
        QTest::newRow("bearer in any case, minimal") << 200
                                                     << QByteArray(R"({"access_token":"AT","token_type":"bEaReR"})")
                                                     << u"AT"_s << QString() << qint64(-1) << requested << QString()
                                                     << QString();
        QTest::newRow("expires_in as a string") << 201
                                                << QByteArray(R"({"access_token":"AT","token_type":"bearer","expires_in":"60"})")
                                                << u"AT"_s << QString() << qint64(60000) << requested << QString()
                                                << QString();
        QTest::newRow("no access token") << 200 << QByteArray(R"({"token_type":"Bearer","refresh_token":"RT"})")
                                         << QString() << QString() << qint64(-1) << QStringList() << QString()
                                         << u"the token endpoint https://as.example/token answered without an "
                                            "access_token (missing instead of a string); the authorization server "
                                            "is at fault"_s;
        QTest::newRow("not bearer") << 200 << QByteArray(R"({"access_token":"AT","token_type":"mac"})") << QString()
                                    << QString() << qint64(-1) << QStringList() << QString()
                                    << u"the token endpoint https://as.example/token issued a token of type \"mac\"; "
                                       "Tether sends only Bearer tokens"_s;
        QTest::newRow("no token type") << 200 << QByteArray(R"({"access_token":"AT"})") << QString() << QString()
                                       << qint64(-1) << QStringList() << QString()
                                       << u"the token endpoint https://as.example/token issued a token of type "
                                          "missing; Tether sends only Bearer tokens"_s;
        QTest::newRow("not json, token not quoted") << 200 << QByteArray(R"(access_token=AT-SECRET)") << QString()
                                                    << QString() << qint64(-1) << QStringList() << QString()
                                                    << u"the token endpoint https://as.example/token answered HTTP 200 "
                                                       "with a body that is not a JSON object; sign in again, and if "
                                                       "it stays so, the authorization server is at fault"_s;
        QTest::newRow("invalid_grant") << 400
                                       << QByteArray(R"({"error":"invalid_grant","error_description":"grant request is invalid"})")
                                       << QString() << QString() << qint64(-1) << QStringList() << u"invalid_grant"_s
                                       << u"the token endpoint https://as.example/token answered HTTP 400 invalid_grant: "
                                          "grant request is invalid"_s;
        QTest::newRow("error without description") << 401 << QByteArray(R"({"error":"invalid_client"})") << QString()
                                                   << QString() << qint64(-1) << QStringList() << u"invalid_client"_s
                                                   << u"the token endpoint https://as.example/token answered HTTP 401 "
                                                      "invalid_client"_s;
        QTest::newRow("not an oauth error") << 502 << QByteArray("<html>Bad gateway</html>") << QString() << QString()
                                            << qint64(-1) << QStringList() << QString()
                                            << u"the token endpoint https://as.example/token answered HTTP 502 without "
                                               "an OAuth error: '<html>Bad gateway</html>'"_s;
        QTest::newRow("empty error body") << 500 << QByteArray() << QString() << QString() << qint64(-1)
                                          << QStringList() << QString()
                                          << u"the token endpoint https://as.example/token answered HTTP 500"_s;
    }

    void tokenResponse()
    {
        QFETCH(int, status);
        QFETCH(QByteArray, body);
        QFETCH(QString, accessToken);
        QFETCH(QString, refreshToken);
        QFETCH(qint64, expiresInMs);
        QFETCH(QStringList, scopes);
        QFETCH(QString, errorCode);
        QFETCH(QString, error);
        const QDateTime received = QDateTime::fromMSecsSinceEpoch(1'700'000'000'000, Qt::UTC);
        const TokenResponse response = TokenResponse::parse(status, body, QUrl(u"https://as.example/token"_s),
                                                            {u"mcp:read"_s}, received);
        QCOMPARE(response.error, error);
        QCOMPARE(response.errorCode, errorCode);
        QCOMPARE(response.tokens.has_value(), error.isEmpty());
        QVERIFY(!response.error.contains(u"AT"_s));
        if (!response.tokens)
            return;
        QCOMPARE(response.tokens->accessToken, accessToken);
        QCOMPARE(response.tokens->refreshToken, refreshToken);
        QCOMPARE(response.tokens->expiresAt.isValid(), expiresInMs >= 0);
        if (expiresInMs >= 0)
            QCOMPARE(received.msecsTo(response.tokens->expiresAt), expiresInMs);
        QCOMPARE(response.tokens->scopes, scopes);
    }

    void registrationRequest()
    {
        const QJsonObject request =
            QJsonDocument::fromJson(ClientRegistrationDocument::request(QUrl(u"http://127.0.0.1:4711/callback"_s))).object();
        QCOMPARE(request, (QJsonObject{
                              {u"client_name"_s, u"Tether"_s},
                              {u"application_type"_s, u"native"_s},
                              {u"redirect_uris"_s, QJsonArray{u"http://127.0.0.1:4711/callback"_s}},
                              {u"grant_types"_s, QJsonArray{u"authorization_code"_s, u"refresh_token"_s}},
                              {u"response_types"_s, QJsonArray{u"code"_s}},
                              {u"token_endpoint_auth_method"_s, u"none"_s},
                          }));
    }

    void registrationResponse_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("clientId");
        QTest::addColumn<QString>("error");
        QTest::newRow("public client") << 201 << QByteArray(R"({"client_id":"abc","token_endpoint_auth_method":"none"})")
                                       << u"abc"_s << QString();
        QTest::newRow("refused") << 400
                                 << QByteArray(R"({"error":"invalid_client_metadata","error_description":"no loopback here"})")
                                 << QString()
                                 << u"registration at https://as.example/reg was refused: HTTP 400 "
                                    "invalid_client_metadata: no loopback here"_s;
        QTest::newRow("forbidden, no oauth error") << 403 << QByteArray("Forbidden") << QString()
                                                   << u"registration at https://as.example/reg was refused: HTTP 403 "
                                                      "without an OAuth error: 'Forbidden'"_s;
        QTest::newRow("no client id, secret not quoted")
            << 201 << QByteArray(R"({"client_secret":"S3CRET"})") << QString()
            << u"registration at https://as.example/reg answered HTTP 201 without a client_id (missing instead of a "
               "string); the authorization server is at fault"_s;
    }

    void registrationResponse()
    {
        QFETCH(int, status);
        QFETCH(QByteArray, body);
        QFETCH(QString, clientId);
        QFETCH(QString, error);
        const QUrl redirect(u"http://127.0.0.1:4711/callback"_s);
        const ClientRegistrationDocument document =
            ClientRegistrationDocument::parse(status, body, QUrl(u"https://as.example/reg"_s), redirect);
        QCOMPARE(document.error, error);
        QCOMPARE(document.client.has_value(), error.isEmpty());
        if (document.client) {
            QCOMPARE(document.client->clientId, clientId);
            QCOMPARE(document.client->redirectUri, redirect);
        }
    }

    void loopbackRequest_data()
    {
        QTest::addColumn<QByteArray>("received");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QByteArray>("query");
        using Kind = LoopbackReceiver::Request::Kind;
        QTest::newRow("callback") << QByteArray("GET /callback?code=c&state=s HTTP/1.1\r\nHost: x\r\n\r\n")
                                  << int(Kind::Callback) << QByteArray("code=c&state=s");
        QTest::newRow("callback without query") << QByteArray("GET /callback HTTP/1.0\r\n\r\n") << int(Kind::Callback)
                                                << QByteArray();
        QTest::newRow("head not ended") << QByteArray("GET /callback?code=c HTTP/1.1\r\nHost: x\r\n")
                                        << int(Kind::Incomplete) << QByteArray();
        QTest::newRow("other path") << QByteArray("GET /favicon.ico HTTP/1.1\r\n\r\n") << int(Kind::NotCallback)
                                    << QByteArray();
        QTest::newRow("path prefix") << QByteArray("GET /callback/x?code=c HTTP/1.1\r\n\r\n") << int(Kind::NotCallback)
                                     << QByteArray();
        QTest::newRow("other method") << QByteArray("POST /callback?code=c HTTP/1.1\r\n\r\n") << int(Kind::NotCallback)
                                      << QByteArray();
        QTest::newRow("no version") << QByteArray("GET /callback?code=c\r\n\r\n") << int(Kind::Malformed) << QByteArray();
        QTest::newRow("not http") << QByteArray("\x16\x03\x01 hello\r\n\r\n") << int(Kind::Malformed) << QByteArray();
        QTest::newRow("over the cap, unended") << QByteArray(LoopbackReceiver::MaxHeadBytes + 1, 'a') << int(Kind::TooLarge)
                                               << QByteArray();
        QTest::newRow("over the cap, ended")
            << "GET /callback HTTP/1.1\r\nX: " + QByteArray(LoopbackReceiver::MaxHeadBytes, 'a') + "\r\n\r\n"
            << int(Kind::TooLarge) << QByteArray();
        const QByteArray start = "GET /callback HTTP/1.1\r\nX: ";
        QTest::newRow("at the cap") << start + QByteArray(LoopbackReceiver::MaxHeadBytes - start.size() - 4, 'a') + "\r\n\r\n"
                                    << int(Kind::Callback) << QByteArray();
    }

    void loopbackRequest()
    {
        QFETCH(QByteArray, received);
        QFETCH(int, kind);
        QFETCH(QByteArray, query);
        const LoopbackReceiver::Request request = LoopbackReceiver::Request::read(received);
        QCOMPARE(int(request.kind), kind);
        QCOMPARE(request.query, query);
    }

    void clientAuthentication_data()
    {
        QTest::addColumn<ClientIdentity>("identity");
        QTest::addColumn<FormFields>("fields");
        QTest::addColumn<QByteArray>("authorization");
        const QStringList none;
        QTest::newRow("public") << ClientIdentity::preRegistered(u"tether"_s, {}, none)
                                << FormFields{{u"client_id"_s, u"tether"_s}} << QByteArray();
        // RFC 6749 §2.3.1: form-encoded before Base64; "a+b:c" / "s:e/c%" → "a%2Bb%3Ac:s%3Ae%2Fc%25".
        QTest::newRow("basic by default") << ClientIdentity::preRegistered(u"a+b:c"_s, u"s:e/c%"_s, none) << FormFields()
                                          << "Basic " + QByteArray("a%2Bb%3Ac:s%3Ae%2Fc%25").toBase64();
        QTest::newRow("basic when listed")
            << ClientIdentity::preRegistered(u"id"_s, u"sec"_s, {u"client_secret_post"_s, u"client_secret_basic"_s})
            << FormFields() << "Basic " + QByteArray("id:sec").toBase64();
        QTest::newRow("post when basic is not listed")
            << ClientIdentity::preRegistered(u"id"_s, u"sec"_s, {u"none"_s, u"client_secret_post"_s})
            << FormFields{{u"client_id"_s, u"id"_s}, {u"client_secret"_s, u"sec"_s}} << QByteArray();
        QTest::newRow("registered public") << ClientIdentity::registered(u"id"_s, {}, u"none"_s)
                                           << FormFields{{u"client_id"_s, u"id"_s}} << QByteArray();
        QTest::newRow("registered with a secret, method not said") << ClientIdentity::registered(u"id"_s, u"sec"_s, {})
                                                                   << FormFields() << "Basic " + QByteArray("id:sec").toBase64();
        QTest::newRow("registered for post") << ClientIdentity::registered(u"id"_s, u"sec"_s, u"client_secret_post"_s)
                                             << FormFields{{u"client_id"_s, u"id"_s}, {u"client_secret"_s, u"sec"_s}}
                                             << QByteArray();
    }

    void clientBeforeRegistration_data()
    {
        QTest::addColumn<QString>("clientId");
        QTest::addColumn<QString>("metadataUrl");
        QTest::addColumn<bool>("serverTakesMetadataDocuments");
        QTest::addColumn<QString>("chosen"); // empty: none, a registration follows
        const QString document = u"https://tether.example/client.json"_s;
        QTest::newRow("configured first") << u"tether-desktop"_s << document << true << u"tether-desktop"_s;
        QTest::newRow("metadata document") << QString() << document << true << document;
        QTest::newRow("document not taken") << QString() << document << false << QString();
        QTest::newRow("no document configured: the project's") << QString() << QString() << true
                                                                << defaultClientMetadataUrl();
        QTest::newRow("nothing configured, documents not taken") << QString() << QString() << false << QString();
    }

    void clientBeforeRegistration()
    {
        QFETCH(QString, clientId);
        QFETCH(QString, metadataUrl);
        QFETCH(bool, serverTakesMetadataDocuments);
        QFETCH(QString, chosen);
        OAuthSettings oauth;
        oauth.clientId = clientId;
        oauth.clientSecret = clientId.isEmpty() ? QString() : u"sec"_s;
        oauth.clientMetadataUrl = metadataUrl;
        AuthServerMetadata server;
        server.clientIdMetadataDocumentSupported = serverTakesMetadataDocuments;
        const std::optional<ClientIdentity> client = Tether::clientBeforeRegistration(oauth, server);
        QCOMPARE(client ? client->clientId : QString(), chosen);
        if (client && clientId.isEmpty()) {
            QVERIFY(client->clientSecret.isEmpty());
            QCOMPARE(client->authentication, ClientIdentity::Authentication::None);
        }
    }

    // The document the project publishes at the default url says what Tether does: the url is
    // its client_id, it returns to the loopback callback on any port (RFC 8252 §7.3) and it is a
    // public client, as Tether registers itself.
    void publishedClientMetadataDocument()
    {
        QFile file(QFileInfo(QStringLiteral(__FILE__)).dir().filePath(u"../../../resources/oauth/client-metadata.json"_s));
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.errorString()));
        QJsonParseError error;
        const QJsonObject published = QJsonDocument::fromJson(file.readAll(), &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(published.value(u"client_id"_s).toString(), defaultClientMetadataUrl());
        const QJsonObject registered =
            QJsonDocument::fromJson(ClientRegistrationDocument::request(QUrl(u"http://127.0.0.1/callback"_s))).object();
        for (auto it = registered.begin(); it != registered.end(); ++it)
            QCOMPARE(published.value(it.key()), it.value());
        const QUrl documentUrl(defaultClientMetadataUrl());
        QCOMPARE(documentUrl.scheme(), u"https"_s);
        QVERIFY(documentUrl.path().size() > 1);
    }

    // MCP 2025-11-25 §Step-Up Authorization Flow: the scopes held, plus those asked for.
    void stepUpScopes_data()
    {
        QTest::addColumn<QStringList>("held");
        QTest::addColumn<QStringList>("asked");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("adds the new one") << QStringList{u"mcp:basic"_s} << QStringList{u"mcp:basic"_s, u"mcp:write"_s}
                                          << QStringList{u"mcp:basic"_s, u"mcp:write"_s};
        QTest::newRow("keeps what the challenge leaves out")
            << QStringList{u"a"_s, u"b"_s} << QStringList{u"c"_s} << QStringList{u"a"_s, u"b"_s, u"c"_s};
        QTest::newRow("nothing held") << QStringList() << QStringList{u"c"_s} << QStringList{u"c"_s};
        QTest::newRow("no repeats") << QStringList{u"a"_s, u"a"_s} << QStringList{u"a"_s} << QStringList{u"a"_s};
    }

    void stepUpScopes()
    {
        QFETCH(QStringList, held);
        QFETCH(QStringList, asked);
        QFETCH(QStringList, expected);
        QCOMPARE(Tether::stepUpScopes(held, asked), expected);
    }

    // Bounded retries (§Scope Challenge Handling): a step-up only for a scope not asked for yet.
    void stepUpCanHelp_data()
    {
        QTest::addColumn<QStringList>("askedBefore");
        QTest::addColumn<QStringList>("asked");
        QTest::addColumn<bool>("helps");
        QTest::newRow("a new scope") << QStringList{u"mcp:basic"_s} << QStringList{u"mcp:basic"_s, u"mcp:write"_s} << true;
        QTest::newRow("asked for already: it would loop") << QStringList{u"mcp:admin"_s} << QStringList{u"mcp:admin"_s}
                                                          << false;
        QTest::newRow("fewer than asked before") << QStringList{u"a"_s, u"b"_s} << QStringList{u"b"_s} << false;
        QTest::newRow("no scope said") << QStringList{u"a"_s} << QStringList() << false;
        QTest::newRow("never signed in here") << QStringList() << QStringList{u"a"_s} << true;
    }

    void stepUpCanHelp()
    {
        QFETCH(QStringList, askedBefore);
        QFETCH(QStringList, asked);
        QFETCH(bool, helps);
        QCOMPARE(Tether::stepUpCanHelp(askedBefore, asked), helps);
    }

    void clientAuthentication()
    {
        QFETCH(ClientIdentity, identity);
        QFETCH(FormFields, fields);
        QFETCH(QByteArray, authorization);
        const ClientIdentity::Credentials credentials = identity.credentials();
        QCOMPARE(credentials.fields, fields);
        QCOMPARE(credentials.authorizationHeader, authorization);
    }
};

QTEST_GUILESS_MAIN(TestAuthFlowParts)
#include "tst_authflowparts.moc"
