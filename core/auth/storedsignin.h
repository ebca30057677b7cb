#pragma once

#include "clientidentity.h"
#include "clientregistrationdocument.h"
#include "tokenresponse.h"

#include <QJsonObject>
#include <QString>
#include <QUrl>

#include <optional>

namespace Tether {

// One server's sign-in as the secret store keeps it: the tokens and what refreshing and revoking
// them needs without discovery (the endpoints, the client, the resource). Holds secrets.
struct StoredSignIn
{
    TokenSet tokens;
    QString issuer;
    QUrl tokenEndpoint;
    QUrl revocationEndpoint; // empty: the server revokes nothing (RFC 7009)
    QString resource;        // RFC 8707; empty: none
    ClientIdentity client;

    QJsonObject toJson() const;
    // Nothing when the entry lacks what a refresh needs (a token, the endpoint, the client id).
    static std::optional<StoredSignIn> fromJson(const QJsonObject &json);

    // "Bearer <access token>"; what the transports send.
    QByteArray authorization() const;
};

QJsonObject registeredClientToJson(const RegisteredClient &client);
std::optional<RegisteredClient> registeredClientFromJson(const QJsonObject &json);

// Who the access token says it was issued to, for people: its JWT payload's email,
// preferred_username or sub, unverified; empty for an opaque token.
QString tokenAccount(const QString &accessToken);

} // namespace Tether
