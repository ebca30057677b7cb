#include "mcptypes.h"

#include "common/jsonscan.h"
#include "common/jsontext.h"

#include <QCborMap>
#include <QCborValue>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace Tether {

const QStringList &supportedProtocolVersions()
{
    static const QStringList versions{u"2025-11-25"_s, u"2025-06-18"_s, u"2025-03-26"_s, u"2024-11-05"_s};
    return versions;
}

std::optional<ToolDefinition> parseToolDefinition(const QJsonValue &value, QString *error)
{
    if (!value.isObject()) {
        *error = u"a tool entry is not a JSON object"_s;
        return std::nullopt;
    }
    const QJsonObject object = value.toObject();
    ToolDefinition tool;
    tool.name = object.value(u"name").toString();
    if (tool.name.isEmpty()) {
        *error = u"a tool entry has no \"name\""_s;
        return std::nullopt;
    }
    tool.title = object.value(u"title").toString();
    if (tool.title.isEmpty())
        tool.title = object.value(u"annotations").toObject().value(u"title").toString();
    tool.description = object.value(u"description").toString();
    tool.cbor = QCborMap::fromJsonObject(object).toCborValue().toCbor();
    return tool;
}

QJsonObject ToolDefinition::raw() const
{
    return QCborValue::fromCbor(cbor).toMap().toJsonObject();
}

// False, with `error` set, when `object` has no `key` of type `expected`; one that may be
// left out is judged only when present.
static bool hasField(const QJsonObject &object, QStringView key, QJsonValue::Type expected, bool required,
                     QString *error)
{
    const QJsonValue value = object.value(key);
    if (value.type() == expected || (!required && value.isUndefined()))
        return true;
    *error = value.isUndefined() ? u"\"%1\" is missing"_s.arg(key)
                                 : u"\"%1\" is %2, not %3"_s.arg(key, jsonKind(value),
                                                                  jsonKind(QJsonValue(expected)));
    return false;
}

static bool isObject(const QJsonValue &result, QString *error)
{
    if (result.isObject())
        return true;
    *error = u"the result is %1, not an object"_s.arg(jsonKind(result));
    return false;
}

std::optional<ServerIdentity> parseInitializeResult(const QJsonValue &result, QString *error)
{
    if (!isObject(result, error))
        return std::nullopt;
    const QJsonObject object = result.toObject();
    if (!hasField(object, u"protocolVersion", QJsonValue::String, true, error)
        || !hasField(object, u"capabilities", QJsonValue::Object, true, error)
        || !hasField(object, u"serverInfo", QJsonValue::Object, true, error)
        || !hasField(object, u"instructions", QJsonValue::String, false, error))
        return std::nullopt;
    return serverIdentityOf(object.value(u"protocolVersion").toString(), object.value(u"serverInfo").toObject(), object);
}

ServerIdentity serverIdentityOf(const QString &protocolVersion, const QJsonObject &serverInfo, const QJsonObject &result)
{
    ServerIdentity identity;
    identity.protocolVersion = protocolVersion;
    identity.name = serverInfo.value(u"name").toString();
    identity.version = serverInfo.value(u"version").toString();
    identity.title = serverInfo.value(u"title").toString();
    identity.instructions = result.value(u"instructions").toString();
    identity.capabilities = result.value(u"capabilities").toObject();
    return identity;
}

QJsonObject withoutMetaMembers(QJsonObject params, std::initializer_list<QStringView> keys)
{
    QJsonObject meta = params.value(u"_meta").toObject();
    for (const QStringView key : keys)
        meta.remove(key.toString());
    if (meta.isEmpty())
        params.remove(u"_meta"_s);
    else
        params.insert(u"_meta"_s, meta);
    return params;
}

std::optional<ListPage> parseListPage(const QJsonValue &result, QStringView key, QString *error)
{
    if (!isObject(result, error))
        return std::nullopt;
    const QJsonObject object = result.toObject();
    // A null cursor says "no next page" as plainly as a missing one.
    if (!hasField(object, key, QJsonValue::Array, true, error)
        || (!object.value(u"nextCursor").isNull() && !hasField(object, u"nextCursor", QJsonValue::String, false, error)))
        return std::nullopt;
    return ListPage{object.value(key).toArray(), object.value(u"nextCursor").toString()};
}

// An entry of a list: an object whose `key` is a non-empty string, and whose optional text
// fields are strings when present; `what` names it in the error ("a resource entry").
static std::optional<QJsonObject> listEntry(const QJsonValue &value, QStringView key, QStringView what,
                                            QString *error)
{
    if (!value.isObject()) {
        *error = u"%1 is %2, not an object"_s.arg(what, jsonKind(value));
        return std::nullopt;
    }
    const QJsonObject object = value.toObject();
    QString wrong;
    if (!hasField(object, key, QJsonValue::String, true, &wrong) || object.value(key).toString().isEmpty()) {
        *error = u"%1 has no \"%2\"%3"_s.arg(what, key, 
                     object.contains(key) ? u" ("_s + (wrong.isEmpty() ? u"it is empty"_s : wrong) + u')' : QString());
        return std::nullopt;
    }
    for (QStringView field : {u"name", u"title", u"description", u"mimeType"}) {
        if (!hasField(object, field, QJsonValue::String, false, &wrong)) {
            *error = u"%1 '%2' is unusable: %3"_s.arg(what, object.value(key).toString(), wrong);
            return std::nullopt;
        }
    }
    return object;
}

std::optional<ResourceDefinition> parseResource(const QJsonValue &value, QString *error)
{
    const std::optional<QJsonObject> object = listEntry(value, u"uri", u"a resource entry", error);
    if (!object)
        return std::nullopt;
    return ResourceDefinition{object->value(u"uri").toString(), object->value(u"name").toString(),
                              object->value(u"title").toString(), object->value(u"description").toString(),
                              object->value(u"mimeType").toString(), *object};
}

std::optional<ResourceTemplate> parseResourceTemplate(const QJsonValue &value, QString *error)
{
    const std::optional<QJsonObject> object = listEntry(value, u"uriTemplate", u"a resource template entry", error);
    if (!object)
        return std::nullopt;
    return ResourceTemplate{object->value(u"uriTemplate").toString(), object->value(u"name").toString(),
                            object->value(u"title").toString(), object->value(u"description").toString(),
                            object->value(u"mimeType").toString(), *object};
}

std::optional<QList<ResourceContents>> parseResourceReadResult(const QJsonValue &result, QString *error)
{
    if (!isObject(result, error))
        return std::nullopt;
    const QJsonObject object = result.toObject();
    if (!hasField(object, u"contents", QJsonValue::Array, true, error))
        return std::nullopt;
    QList<ResourceContents> contents;
    const QJsonArray entries = object.value(u"contents").toArray();
    for (qsizetype i = 0; i < entries.size(); ++i) {
        const QJsonObject entry = entries.at(i).toObject();
        QString wrong;
        if (!entries.at(i).isObject())
            wrong = u" is %1, not an object"_s.arg(jsonKind(entries.at(i)));
        else if (!hasField(entry, u"uri", QJsonValue::String, true, &wrong)
                 || !hasField(entry, u"mimeType", QJsonValue::String, false, &wrong)
                 || !hasField(entry, u"text", QJsonValue::String, false, &wrong)
                 || !hasField(entry, u"blob", QJsonValue::String, false, &wrong))
            wrong.prepend(u": "_s);
        else if (entry.contains(u"text") == entry.contains(u"blob"))
            wrong = entry.contains(u"text") ? u" has both \"text\" and \"blob\""_s : u" has neither \"text\" nor \"blob\""_s;
        ResourceContents part{entry.value(u"uri").toString(), entry.value(u"mimeType").toString(), {}, {}};
        if (wrong.isEmpty() && entry.contains(u"text")) {
            part.text = entry.value(u"text").toString();
        } else if (wrong.isEmpty()) {
            auto decoded = QByteArray::fromBase64Encoding(entry.value(u"blob").toString().toLatin1(),
                                                          QByteArray::AbortOnBase64DecodingErrors);
            if (decoded)
                part.blob = std::move(*decoded);
            else
                wrong = u" has a \"blob\" that is not base64"_s;
        }
        if (!wrong.isEmpty()) {
            *error = u"contents[%1]%2"_s.arg(i).arg(wrong);
            return std::nullopt;
        }
        contents.append(std::move(part));
    }
    return contents;
}

std::optional<PromptDefinition> parsePrompt(const QJsonValue &value, QString *error)
{
    const std::optional<QJsonObject> object = listEntry(value, u"name", u"a prompt entry", error);
    if (!object)
        return std::nullopt;
    PromptDefinition prompt{object->value(u"name").toString(), object->value(u"title").toString(),
                            object->value(u"description").toString(), {}, *object};
    QString wrong;
    if (!hasField(*object, u"arguments", QJsonValue::Array, false, &wrong)) {
        *error = u"the prompt '%1' is unusable: %2"_s.arg(prompt.name, wrong);
        return std::nullopt;
    }
    for (const QJsonValue &argumentValue : object->value(u"arguments").toArray()) {
        const QJsonObject argument = argumentValue.toObject();
        if (!argumentValue.isObject() || !hasField(argument, u"name", QJsonValue::String, true, &wrong)
            || !hasField(argument, u"required", QJsonValue::Bool, false, &wrong)) {
            *error = u"the prompt '%1' has an unusable argument: %2"_s.arg(
                prompt.name, argumentValue.isObject() ? wrong : u"an entry is not an object"_s);
            return std::nullopt;
        }
        prompt.arguments.append({argument.value(u"name").toString(), argument.value(u"title").toString(),
                                 argument.value(u"description").toString(), argument.value(u"required").toBool()});
    }
    return prompt;
}

std::optional<PromptResult> parsePromptResult(const QJsonValue &result, QString *error)
{
    if (!isObject(result, error))
        return std::nullopt;
    const QJsonObject object = result.toObject();
    if (!hasField(object, u"messages", QJsonValue::Array, true, error)
        || !hasField(object, u"description", QJsonValue::String, false, error))
        return std::nullopt;
    const QJsonArray messages = object.value(u"messages").toArray();
    for (qsizetype i = 0; i < messages.size(); ++i) {
        QString wrong;
        const QJsonObject message = messages.at(i).toObject();
        if (!messages.at(i).isObject())
            wrong = u" is %1, not an object"_s.arg(jsonKind(messages.at(i)));
        else if (!hasField(message, u"role", QJsonValue::String, true, &wrong)
                 || !hasField(message, u"content", QJsonValue::Object, true, &wrong))
            wrong.prepend(u": "_s);
        if (!wrong.isEmpty()) {
            *error = u"messages[%1]%2"_s.arg(i).arg(wrong);
            return std::nullopt;
        }
    }
    return PromptResult{object.value(u"description").toString(), messages, object};
}

ToolCallInput ToolCallInput::relayed(QByteArray argumentsJson)
{
    ToolCallInput input;
    input.argumentsJson = std::move(argumentsJson);
    input.resultAsText = true;
    return input;
}

QByteArray ToolCallInput::argumentsText() const
{
    return argumentsJson.isEmpty() ? QJsonDocument(arguments).toJson(QJsonDocument::Compact) : argumentsJson;
}

std::optional<bool> toolCallResultTextIsError(const JsonMembersText &resultMembers)
{
    const QByteArrayView content = memberValue(resultMembers, "content");
    const QByteArrayView isError = memberValue(resultMembers, "isError");
    const QByteArrayView structured = memberValue(resultMembers, "structuredContent");
    if (!content.startsWith('[') || !(isError.isEmpty() || isError == "true" || isError == "false")
        || !(structured.isEmpty() || structured.startsWith('{')))
        return std::nullopt;
    return isError == "true";
}

std::optional<ToolCallResult> parseToolCallResult(const QJsonValue &result, QString *error)
{
    if (!isObject(result, error))
        return std::nullopt;
    const QJsonObject object = result.toObject();
    if (!hasField(object, u"content", QJsonValue::Array, true, error)
        || !hasField(object, u"isError", QJsonValue::Bool, false, error)
        || !hasField(object, u"structuredContent", QJsonValue::Object, false, error))
        return std::nullopt;
    ToolCallResult parsed;
    parsed.raw = object;
    parsed.content = object.value(u"content").toArray();
    parsed.isError = object.value(u"isError").toBool(false);
    parsed.structuredContent = object.value(u"structuredContent");
    return parsed;
}

QList<ToolParameter> toolParameters(const QJsonObject &inputSchema)
{
    const QJsonObject properties = inputSchema.value(u"properties").toObject();
    QList<ToolParameter> parameters;
    QStringList required;
    for (const QJsonValue &value : inputSchema.value(u"required").toArray()) {
        const QString name = value.toString();
        if (properties.contains(name) && !required.contains(name)) {
            required.append(name);
            parameters.append({name, true, properties.value(name).toObject()});
        }
    }
    for (auto it = properties.constBegin(); it != properties.constEnd(); ++it) {
        if (!required.contains(it.key()))
            parameters.append({it.key(), false, it.value().toObject()});
    }
    return parameters;
}

QString renderContent(const QJsonArray &content)
{
    QStringList parts;
    for (const QJsonValue &itemValue : content) {
        const QJsonObject item = itemValue.toObject();
        const QString type = item.value(u"type").toString();
        if (type == u"text") {
            parts.append(item.value(u"text").toString());
        } else if (type == u"image" || type == u"audio") {
            const qsizetype bytes = item.value(u"data").toString().size() * 3 / 4;
            parts.append(u"[%1: %2, about %3 bytes]"_s.arg(type, item.value(u"mimeType").toString()).arg(bytes));
        } else if (type == u"resource") {
            const QJsonObject resource = item.value(u"resource").toObject();
            const QString text = resource.value(u"text").toString();
            parts.append(text.isEmpty() ? u"[resource: %1]"_s.arg(resource.value(u"uri").toString()) : text);
        } else if (type == u"resource_link") {
            parts.append(u"[resource link: %1]"_s.arg(item.value(u"uri").toString()));
        } else {
            parts.append(u"[%1 content]"_s.arg(type.isEmpty() ? u"untyped"_s : type));
        }
    }
    return parts.join(u'\n');
}

QString renderPromptMessages(const QJsonArray &messages)
{
    QStringList parts;
    for (const QJsonValue &message : messages) {
        const QJsonObject object = message.toObject();
        parts.append(object.value(u"role").toString() + u": "_s
                     + renderContent(QJsonArray{object.value(u"content")}));
    }
    return parts.join(u"\n\n"_s);
}

const QStringList &logLevels()
{
    static const QStringList levels{u"debug"_s,    u"info"_s,     u"notice"_s, u"warning"_s,
                                    u"error"_s,    u"critical"_s, u"alert"_s,  u"emergency"_s};
    return levels;
}

std::optional<int> logLevelRank(QStringView level)
{
    const qsizetype rank = logLevels().indexOf(level);
    return rank < 0 ? std::nullopt : std::optional<int>(int(rank));
}

} // namespace Tether
