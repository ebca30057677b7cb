#include "jsonrpc.h"

#include "common/displaytext.h"
#include "common/jsontext.h"

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
    // Latin-1 keys: a parsed object keeps its keys so, and like compares with like fastest.
    Message message;
    if (object.value("jsonrpc"_L1).toString() != u"2.0") {
        message.invalidReason = QStringLiteral("missing \"jsonrpc\": \"2.0\"");
        return message;
    }
    const QJsonValue method = object.value("method"_L1);
    const QJsonValue id = object.value("id"_L1);
    const bool hasId = !id.isUndefined();
    const QJsonValue params = object.value("params"_L1);
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
    if (const QJsonValue result = object.value("result"_L1); !result.isUndefined()) {
        message.kind = MessageKind::Response;
        message.result = result;
        return message;
    }
    const QJsonValue error = object.value("error"_L1);
    if (error.isObject()) {
        const QJsonObject errorObject = error.toObject();
        message.kind = MessageKind::ErrorResponse;
        message.error.code = errorObject.value("code"_L1).toInt(InternalError);
        message.error.message = errorObject.value("message"_L1).toString();
        message.error.data = errorObject.value("data"_L1);
        return message;
    }
    message.invalidReason = QStringLiteral("a response with neither \"result\" nor an \"error\" object");
    return message;
}

static bool isJsonSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static qsizetype skipSpaces(QByteArrayView text, qsizetype from)
{
    while (from < text.size() && isJsonSpace(text[from]))
        ++from;
    return from;
}

// The index of the quote that ends the string whose opening quote is at `quote`; size() when
// it never ends.
static qsizetype endOfString(QByteArrayView text, qsizetype quote)
{
    for (qsizetype i = quote + 1; i < text.size(); ++i) {
        if (text[i] == '\\')
            ++i;
        else if (text[i] == '"')
            return i;
    }
    return text.size();
}

// An id as a response carries it: an integer or a string, starting at `from`; `end` gets the
// index of its last byte.
static QJsonValue idAt(QByteArrayView text, qsizetype from, qsizetype *end)
{
    if (from >= text.size())
        return QJsonValue::Undefined;
    if (text[from] == '"') {
        *end = endOfString(text, from);
        if (*end >= text.size())
            return QJsonValue::Undefined;
        // Parsed on its own, so an id that is itself damaged is no id.
        const QByteArray wrapped = '[' + text.sliced(from, *end - from + 1).toByteArray() + ']';
        return QJsonDocument::fromJson(wrapped).array().at(0);
    }
    qsizetype i = from + (text[from] == '-' ? 1 : 0);
    while (i < text.size() && text[i] >= '0' && text[i] <= '9')
        ++i;
    const bool integer = i > from && text[i - 1] != '-'
                         && (i == text.size() || (text[i] != '.' && text[i] != 'e' && text[i] != 'E'));
    bool ok = false;
    const qint64 number = integer ? text.sliced(from, i - from).toLongLong(&ok) : 0;
    *end = i - 1;
    return ok ? QJsonValue(number) : QJsonValue(QJsonValue::Undefined);
}

// The top-level "id" of an object that failed to parse somewhere, when it has no top-level
// "method" (a response, not a request of the server). One linear pass that skips strings with
// their escapes and counts nesting without following it, so a damaged value (bad UTF-8, a NUL,
// nesting too deep) hides none of the keys around it.
static QJsonValue damagedReplyId(QByteArrayView text)
{
    qsizetype i = skipSpaces(text, 0);
    if (i == text.size() || text[i] != '{')
        return QJsonValue::Undefined;
    QJsonValue id = QJsonValue::Undefined;
    bool hasMethod = false;
    int depth = 0;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (--depth == 0)
                break;
        } else if (c == '"') {
            const qsizetype start = i;
            i = endOfString(text, start);
            const qsizetype colon = skipSpaces(text, i + 1);
            if (depth != 1 || colon >= text.size() || text[colon] != ':')
                continue;
            const QByteArrayView key = text.sliced(start + 1, i - start - 1);
            if (key == "method") {
                hasMethod = true;
            } else if (key == "id") {
                if (!id.isUndefined())
                    return QJsonValue::Undefined; // twice: which one would be meant?
                id = idAt(text, skipSpaces(text, colon + 1), &i);
            }
        }
    }
    return hasMethod ? QJsonValue(QJsonValue::Undefined) : id;
}

DecodedPayload decodePayload(QByteArrayView payload)
{
    DecodedPayload decoded;
    QJsonParseError parseError;
    const QByteArray text = payload.toByteArray();
    const QJsonDocument document = QJsonDocument::fromJson(text, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        decoded.error = QStringLiteral("not JSON (%1 at offset %2): %3")
                            .arg(parseError.errorString())
                            .arg(parseError.offset)
                            .arg(excerpt(payload));
        decoded.damagedReplyId = damagedReplyId(payload);
        return decoded;
    }
    if (document.isObject()) {
        decoded.messages.append(document.object());
        decoded.text = text;
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

QJsonObject makeDamagedReplyError(const QJsonValue &id, const QString &damage)
{
    return makeError(id, InvalidReply,
                     u"the server answered with %1; this is a fault of the server (update it or report it to its "
                     "authors)"_s.arg(damage));
}

QByteArray serialize(const QJsonObject &message)
{
    return QJsonDocument(message).toJson(QJsonDocument::Compact);
}

QByteArray serializeRequest(qint64 id, const QString &method, const QByteArray &params)
{
    // Members in the order Qt's writer puts them: by name. Written into one buffer: every call
    // through the gateway passes here.
    QByteArray request;
    request.reserve(64 + method.size() + params.size());
    request += "{\"id\":";
    appendInteger(request, id);
    request += ",\"jsonrpc\":\"2.0\",\"method\":";
    appendJsonString(request, method);
    if (!params.isEmpty()) {
        request += ",\"params\":";
        request += params;
    }
    request += '}';
    return request;
}

} // namespace Tether::JsonRpc
