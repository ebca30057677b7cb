#include "clientregistrationdocument.h"

#include "tokenresponse.h"

#include "common/displaytext.h"
#include "common/jsontext.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace Tether {

QByteArray ClientRegistrationDocument::request(const QUrl &redirectUri)
{
    const QJsonObject metadata{
        {u"client_name"_s, u"Tether"_s},
        {u"application_type"_s, u"native"_s},
        {u"redirect_uris"_s, QJsonArray{redirectUri.toString(QUrl::FullyEncoded)}},
        {u"grant_types"_s, QJsonArray{u"authorization_code"_s, u"refresh_token"_s}},
        {u"response_types"_s, QJsonArray{u"code"_s}},
        {u"token_endpoint_auth_method"_s, u"none"_s},
    };
    return QJsonDocument(metadata).toJson(QJsonDocument::Compact);
}

ClientRegistrationDocument ClientRegistrationDocument::parse(int httpStatus, QByteArrayView body, const QUrl &endpoint,
                                                             const QUrl &redirectUri)
{
    const QString shown = redactedUrl(endpoint.toString());
    if (httpStatus < 200 || httpStatus > 299)
        return {std::nullopt, u"registration at %1 was refused: %2"_s.arg(shown, oauthErrorText(httpStatus, body))};
    // The answer may hold a secret: never quoted in a message.
    const QJsonObject object = QJsonDocument::fromJson(body.toByteArray()).object();
    const QJsonValue clientId = object.value(u"client_id"_s);
    if (clientId.toString().isEmpty())
        return {std::nullopt, u"registration at %1 answered HTTP %2 without a client_id (%3 instead of a string); "
                              "the authorization server is at fault"_s.arg(shown).arg(httpStatus).arg(jsonKind(clientId))};
    return {RegisteredClient{clientId.toString(), object.value(u"client_secret"_s).toString(),
                             object.value(u"token_endpoint_auth_method"_s).toString(),
                             object.value(u"registration_access_token"_s).toString(), redirectUri},
            {}};
}

} // namespace Tether
