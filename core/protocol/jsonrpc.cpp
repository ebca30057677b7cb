#include "jsonrpc.h"

#include "common/displaytext.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

using namespace Qt::StringLiterals;

namespace Tether::JsonRpc {

static bool isValidId(const QJsonValue &id)
{
    return id.isString() || (id.isDouble() && id.toDouble() == double(id.toInteger()));
}

Message classify(const QJsonObject &object)
{
    Message message;
    if (object.value(u"jsonrpc").toString() != u"2.0") {
        message.invalidReason = QStringLiteral("missing \"jsonrpc\": \"2.0\"");
        return message;
    }
    const QJsonValue method = object.value(u"method");
    const bool hasId = object.contains(u"id");
    const QJsonValue id = object.value(u"id");
    const QJsonValue params = object.value(u"params");
    if (!params.isUndefined() && !params.isObject() && method.isString()) {
        message.invalidReason = QStringLiteral("\"params\" of '%1' is not an object").arg(method.toString());
        return message;
    }

    if (method.isString()) {
        message.method = method.toString();
        message.params = params.toObject();
        if (!hasId) {
            message.kind = MessageKind::Notification;
            return message;
        }
        if (!isValidId(id)) {
            message.invalidReason = QStringLiteral("request '%1' has an id that is neither a string nor an integer").arg(message.method);
            return message;
        }
        message.kind = MessageKind::Request;
        message.id = id;
        return message;
    }
    if (!method.isUndefined()) {
        message.invalidReason = QStringLiteral("\"method\" is not a string");
        return message;
    }
    if (!hasId || !(isValidId(id) || id.isNull())) {
        message.invalidReason = QStringLiteral("neither a request, a notification nor a response");
        return message;
    }
    message.id = id;
    if (object.contains(u"result")) {
        message.kind = MessageKind::Response;
        message.result = object.value(u"result");
        return message;
    }
    const QJsonValue error = object.value(u"error");
    if (error.isObject()) {
        const QJsonObject errorObject = error.toObject();
        message.kind = MessageKind::ErrorResponse;
        message.error.code = errorObject.value(u"code").toInt(InternalError);
        message.error.message = errorObject.value(u"message").toString();
        message.error.data = errorObject.value(u"data");
        return message;
    }
    message.invalidReason = QStringLiteral("a response with neither \"result\" nor an \"error\" object");
    return message;
}

DecodedPayload decodePayload(QByteArrayView payload)
{
    DecodedPayload decoded;
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(payload.toByteArray(), &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        decoded.error = QStringLiteral("not JSON (%1 at offset %2): %3")
                            .arg(parseError.errorString())
                            .arg(parseError.offset)
                            .arg(excerpt(payload));
        return decoded;
    }
    if (document.isObject()) {
        decoded.messages.append(document.object());
        return decoded;
    }
    for (const QJsonValue &element : document.array()) {
        if (element.isObject())
            decoded.messages.append(element.toObject());
    }
    if (decoded.messages.isEmpty())
        decoded.error = QStringLiteral("JSON that holds no message object: %1").arg(excerpt(payload));
    return decoded;
}

QJsonObject makeRequest(const QJsonValue &id, const QString &method, const QJsonObject &params)
{
    QJsonObject request{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, id}, {u"method"_s, method}};
    if (!params.isEmpty())
        request.insert(u"params", params);
    return request;
}

QJsonObject makeNotification(const QString &method, const QJsonObject &params)
{
    QJsonObject notification{{u"jsonrpc"_s, u"2.0"_s}, {u"method"_s, method}};
    if (!params.isEmpty())
        notification.insert(u"params", params);
    return notification;
}

QJsonObject makeResult(const QJsonValue &id, const QJsonValue &result)
{
    return {{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, id}, {u"result"_s, result}};
}

QJsonObject makeError(const QJsonValue &id, int code, const QString &message)
{
    return {{u"jsonrpc"_s, u"2.0"_s},
            {u"id"_s, id},
            {u"error"_s, QJsonObject{{u"code"_s, code}, {u"message"_s, message}}}};
}

QByteArray serialize(const QJsonObject &message)
{
    return QJsonDocument(message).toJson(QJsonDocument::Compact);
}

} // namespace Tether::JsonRpc
