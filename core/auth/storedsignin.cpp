#include "storedsignin.h"

#include <QJsonArray>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

QString authenticationName(ClientIdentity::Authentication authentication)
{
    switch (authentication) {
    case ClientIdentity::Authentication::None: return u"none"_s;
    case ClientIdentity::Authentication::SecretBasic: return u"client_secret_basic"_s;
    case ClientIdentity::Authentication::SecretPost: return u"client_secret_post"_s;
    }
    return u"none"_s;
}

ClientIdentity::Authentication authenticationFrom(const QString &name)
{
    if (name == u"client_secret_basic")
        return ClientIdentity::Authentication::SecretBasic;
    if (name == u"client_secret_post")
        return ClientIdentity::Authentication::SecretPost;
    return ClientIdentity::Authentication::None;
}

QString isoTime(const QDateTime &time)
{
    return time.isValid() ? time.toUTC().toString(Qt::ISODateWithMs) : QString();
}

} // namespace

QJsonObject StoredSignIn::toJson() const
{
    return {{u"accessToken"_s, tokens.accessToken},
            {u"refreshToken"_s, tokens.refreshToken},
            {u"expiresAt"_s, isoTime(tokens.expiresAt)},
            {u"scopes"_s, QJsonArray::fromStringList(tokens.scopes)},
            {u"issuer"_s, issuer},
            {u"tokenEndpoint"_s, tokenEndpoint.toString()},
            {u"revocationEndpoint"_s, revocationEndpoint.toString()},
            {u"resource"_s, resource},
            {u"clientId"_s, client.clientId},
            {u"clientSecret"_s, client.clientSecret},
            {u"clientAuthentication"_s, authenticationName(client.authentication)}};
}

std::optional<StoredSignIn> StoredSignIn::fromJson(const QJsonObject &json)
{
    StoredSignIn stored;
    stored.tokens.accessToken = json.value(u"accessToken"_s).toString();
    stored.tokens.refreshToken = json.value(u"refreshToken"_s).toString();
    stored.tokens.expiresAt = QDateTime::fromString(json.value(u"expiresAt"_s).toString(), Qt::ISODateWithMs);
    for (const QJsonValue &scope : json.value(u"scopes"_s).toArray())
        stored.tokens.scopes.append(scope.toString());
    stored.issuer = json.value(u"issuer"_s).toString();
    stored.tokenEndpoint = QUrl(json.value(u"tokenEndpoint"_s).toString());
    stored.revocationEndpoint = QUrl(json.value(u"revocationEndpoint"_s).toString());
    stored.resource = json.value(u"resource"_s).toString();
    stored.client.clientId = json.value(u"clientId"_s).toString();
    stored.client.clientSecret = json.value(u"clientSecret"_s).toString();
    stored.client.authentication = authenticationFrom(json.value(u"clientAuthentication"_s).toString());
    if (stored.tokens.accessToken.isEmpty() || !stored.tokenEndpoint.isValid() || stored.client.clientId.isEmpty())
        return std::nullopt;
    return stored;
}

QByteArray StoredSignIn::authorization() const
{
    return "Bearer " + tokens.accessToken.toUtf8();
}

QJsonObject registeredClientToJson(const RegisteredClient &client)
{
    return {{u"clientId"_s, client.clientId},
            {u"clientSecret"_s, client.clientSecret},
            {u"tokenEndpointAuthMethod"_s, client.tokenEndpointAuthMethod},
            {u"registrationAccessToken"_s, client.registrationAccessToken},
            {u"redirectUri"_s, client.redirectUri.toString()}};
}

std::optional<RegisteredClient> registeredClientFromJson(const QJsonObject &json)
{
    RegisteredClient client;
    client.clientId = json.value(u"clientId"_s).toString();
    client.clientSecret = json.value(u"clientSecret"_s).toString();
    client.tokenEndpointAuthMethod = json.value(u"tokenEndpointAuthMethod"_s).toString();
    client.registrationAccessToken = json.value(u"registrationAccessToken"_s).toString();
    client.redirectUri = QUrl(json.value(u"redirectUri"_s).toString());
    if (client.clientId.isEmpty())
        return std::nullopt;
    return client;
}

QString tokenAccount(const QString &accessToken)
{
    const QStringList parts = accessToken.split(u'.');
    if (parts.size() != 3)
        return {};
    const QJsonObject claims =
        QJsonDocument::fromJson(QByteArray::fromBase64(parts[1].toLatin1(), QByteArray::Base64UrlEncoding |
                                                                                 QByteArray::OmitTrailingEquals))
            .object();
    for (const QString &claim : {u"email"_s, u"preferred_username"_s, u"sub"_s}) {
        if (const QString value = claims.value(claim).toString().simplified(); !value.isEmpty())
            return value.left(200);
    }
    return {};
}

} // namespace Tether
