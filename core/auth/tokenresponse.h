#pragma once

#include <QByteArrayView>
#include <QDateTime>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <optional>

namespace Tether {

// What a sign-in or a refresh yields. The tokens are never shown, logged or put in a message.
struct TokenSet
{
    QString accessToken;
    QString refreshToken; // empty: none issued
    QDateTime expiresAt;  // invalid: the server did not say (expires_in absent)
    QStringList scopes;   // as granted; as requested when the server did not say (RFC 6749 §5.1)
};

// A token endpoint's answer (RFC 6749 §5.1 success, §5.2 error), judged.
struct TokenResponse
{
    std::optional<TokenSet> tokens;
    QString errorCode; // the §5.2 `error` (invalid_grant …) when the server sent one
    QString error;     // for people, naming the endpoint; empty with tokens

    // `receivedAt`: when the answer came, the start of expires_in.
    static TokenResponse parse(int httpStatus, QByteArrayView body, const QUrl &endpoint,
                               const QStringList &requestedScopes, const QDateTime &receivedAt);
    static TokenResponse failure(const QString &error) { return {std::nullopt, {}, error}; }
};

// An OAuth error answer (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 7009 §2.2.1) as a message tail:
// "HTTP 400 invalid_grant: <error_description>", or the status and an excerpt of a body
// without `error`. `errorCode` gets the `error` when there is one.
QString oauthErrorText(int httpStatus, QByteArrayView body, QString *errorCode = nullptr);

} // namespace Tether
