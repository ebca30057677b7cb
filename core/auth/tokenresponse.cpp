#include "tokenresponse.h"

#include "common/displaytext.h"
#include "common/jsontext.h"

#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace Tether {

QString oauthErrorText(int httpStatus, QByteArrayView body, QString *errorCode)
{
    const QJsonObject object = QJsonDocument::fromJson(body.toByteArray()).object();
    const QString error = object.value(u"error"_s).toString();
    if (error.isEmpty())
        return body.isEmpty() ? u"HTTP %1"_s.arg(httpStatus)
                              : u"HTTP %1 without an OAuth error: %2"_s.arg(httpStatus).arg(excerpt(body));
    if (errorCode)
        *errorCode = error;
    const QString description = object.value(u"error_description"_s).toString();
    QString text = u"HTTP %1 %2"_s.arg(httpStatus).arg(withVisibleControls(error.left(100)));
    if (!description.isEmpty())
        text += u": "_s + withVisibleControls(description.left(300));
    return text;
}

TokenResponse TokenResponse::parse(int httpStatus, QByteArrayView body, const QUrl &endpoint,
                                   const QStringList &requestedScopes, const QDateTime &receivedAt)
{
    const QString shown = redactedUrl(endpoint.toString());
    if (httpStatus < 200 || httpStatus > 299) {
        TokenResponse response;
        response.error = u"the token endpoint %1 answered %2"_s.arg(shown, oauthErrorText(httpStatus, body, &response.errorCode));
        return response;
    }
    // A success body holds tokens: never quoted in a message.
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(body.toByteArray(), &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject())
        return failure(u"the token endpoint %1 answered HTTP %2 with a body that is not a JSON object; "
                       "sign in again, and if it stays so, the authorization server is at fault"_s.arg(shown).arg(httpStatus));
    const QJsonObject object = document.object();
    TokenSet tokens;
    tokens.accessToken = object.value(u"access_token"_s).toString();
    if (tokens.accessToken.isEmpty())
        return failure(u"the token endpoint %1 answered without an access_token (%2 instead of a string); "
                       "the authorization server is at fault"_s.arg(shown, jsonKind(object.value(u"access_token"_s))));
    const QString tokenType = object.value(u"token_type"_s).toString();
    if (tokenType.compare(u"Bearer"_s, Qt::CaseInsensitive) != 0)
        return failure(u"the token endpoint %1 issued a token of type %2; Tether sends only Bearer tokens"_s.arg(
            shown, tokenType.isEmpty() ? jsonKind(object.value(u"token_type"_s)) : quotedJson(tokenType.left(40))));
    tokens.refreshToken = object.value(u"refresh_token"_s).toString();
    const QJsonValue expiresIn = object.value(u"expires_in"_s);
    // A number by RFC 6749; some servers send it as a string of digits.
    bool isNumber = expiresIn.isDouble();
    const double seconds = isNumber ? expiresIn.toDouble() : expiresIn.toString().toDouble(&isNumber);
    if (isNumber && seconds >= 0)
        tokens.expiresAt = receivedAt.addMSecs(qint64(seconds * 1000));
    const QString scope = object.value(u"scope"_s).toString();
    tokens.scopes = scope.isEmpty() ? requestedScopes : scope.split(u' ', Qt::SkipEmptyParts);
    return {tokens, {}, {}};
}

} // namespace Tether
