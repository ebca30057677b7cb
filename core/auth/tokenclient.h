#pragma once

#include "clientidentity.h"
#include "tokenresponse.h"

#include <QObject>
#include <QUrl>

#include <functional>

class QNetworkAccessManager;

namespace Tether {

// The token endpoint's three requests for one client: the code exchange (RFC 6749 §4.1.3 with
// the PKCE verifier), refresh (§6) and revocation (RFC 7009), each with `resource` where it
// belongs (RFC 8707). Tokens and secrets stay out of every message it gives.
class TokenClient final : public QObject
{
    Q_OBJECT

public:
    using Done = std::function<void(const TokenResponse &)>;

    TokenClient(QNetworkAccessManager *network, const QUrl &tokenEndpoint, const ClientIdentity &client,
                QObject *parent = nullptr);
    ~TokenClient() override;
    Q_DISABLE_COPY_MOVE(TokenClient)

    // `scopes`: those asked for, which the tokens have when the answer does not say.
    void exchangeCode(const QString &code, const QUrl &redirectUri, const QString &codeVerifier,
                      const QString &resource, const QStringList &scopes, Done done);
    // `scopes`: those the tokens had. A new refresh token replaces this one; without one, this
    // one stays (RFC 6749 §6).
    void refresh(const QString &refreshToken, const QString &resource, const QStringList &scopes, Done done);
    // Best effort (RFC 7009 §2): `done` gets why it failed, or nothing.
    void revoke(const QUrl &revocationEndpoint, const QString &token, const QString &tokenTypeHint,
                std::function<void(const QString &error)> done);

private:
    void requestTokens(FormFields fields, const QStringList &scopes, const QStringList &secrets, Done done);

    QNetworkAccessManager *m_network;
    QUrl m_tokenEndpoint;
    ClientIdentity m_client;
};

} // namespace Tether
