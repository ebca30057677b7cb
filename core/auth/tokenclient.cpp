#include "tokenclient.h"

#include "authserverpost.h"

#include "common/displaytext.h"

#include <QNetworkAccessManager>

using namespace Qt::StringLiterals;

namespace Tether {

static const QByteArray FormContentType = "application/x-www-form-urlencoded";

TokenClient::TokenClient(QNetworkAccessManager *network, const QUrl &tokenEndpoint, const ClientIdentity &client,
                         QObject *parent)
    : QObject(parent)
    , m_network(network)
    , m_tokenEndpoint(tokenEndpoint)
    , m_client(client)
{
}

TokenClient::~TokenClient() = default;

void TokenClient::exchangeCode(const QString &code, const QUrl &redirectUri, const QString &codeVerifier,
                               const QString &resource, const QStringList &scopes, Done done)
{
    FormFields fields{{u"grant_type"_s, u"authorization_code"_s},
                      {u"code"_s, code},
                      {u"redirect_uri"_s, redirectUri.toString(QUrl::FullyEncoded)},
                      {u"code_verifier"_s, codeVerifier}};
    if (!resource.isEmpty())
        fields.append({u"resource"_s, resource});
    requestTokens(fields, scopes, {code, codeVerifier}, std::move(done));
}

void TokenClient::refresh(const QString &refreshToken, const QString &resource, const QStringList &scopes, Done done)
{
    FormFields fields{{u"grant_type"_s, u"refresh_token"_s}, {u"refresh_token"_s, refreshToken}};
    if (!resource.isEmpty())
        fields.append({u"resource"_s, resource});
    requestTokens(fields, scopes, {refreshToken},
                  [refreshToken, done = std::move(done)](const TokenResponse &response) {
                      TokenResponse kept = response;
                      if (kept.tokens && kept.tokens->refreshToken.isEmpty())
                          kept.tokens->refreshToken = refreshToken;
                      done(kept);
                  });
}

void TokenClient::revoke(const QUrl &revocationEndpoint, const QString &token, const QString &tokenTypeHint,
                         std::function<void(const QString &error)> done)
{
    const ClientIdentity::Credentials credentials = m_client.credentials();
    FormFields fields{{u"token"_s, token}, {u"token_type_hint"_s, tokenTypeHint}};
    fields.append(credentials.fields);
    const SecretScrubber secrets({token, m_client.clientSecret});
    postToAuthorizationServer(m_network, {revocationEndpoint, FormContentType, formEncoded(fields), credentials.authorizationHeader},
                              this, [revocationEndpoint, secrets, done = std::move(done)](const AuthServerAnswer &answer) {
                                  if (!answer.networkError.isEmpty())
                                      return done(secrets.scrub(answer.networkError));
                                  if (answer.httpStatus != 200)
                                      return done(secrets.scrub(u"the revocation endpoint %1 answered %2"_s.arg(
                                          redactedUrl(revocationEndpoint.toString()),
                                          oauthErrorText(answer.httpStatus, answer.body))));
                                  done({});
                              });
}

void TokenClient::requestTokens(FormFields fields, const QStringList &scopes, const QStringList &secrets, Done done)
{
    const ClientIdentity::Credentials credentials = m_client.credentials();
    fields.append(credentials.fields);
    // Should a server echo what it was sent in an error, the message still shows none of it.
    const SecretScrubber scrubber(secrets + QStringList{m_client.clientSecret});
    postToAuthorizationServer(
        m_network, {m_tokenEndpoint, FormContentType, formEncoded(fields), credentials.authorizationHeader}, this,
        [endpoint = m_tokenEndpoint, scopes, scrubber, done = std::move(done)](const AuthServerAnswer &answer) {
            if (!answer.networkError.isEmpty())
                return done(TokenResponse::failure(scrubber.scrub(answer.networkError)));
            TokenResponse response = TokenResponse::parse(answer.httpStatus, answer.body, endpoint, scopes, answer.receivedAt);
            response.error = scrubber.scrub(response.error);
            done(response);
        });
}

} // namespace Tether
