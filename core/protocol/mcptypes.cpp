#include "mcptypes.h"

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
    const QJsonObject info = object.value(u"serverInfo").toObject();
    ServerIdentity identity;
    identity.protocolVersion = object.value(u"protocolVersion").toString();
    identity.name = info.value(u"name").toString();
    identity.version = info.value(u"version").toString();
    identity.title = info.value(u"title").toString();
    identity.instructions = object.value(u"instructions").toString();
    identity.capabilities = object.value(u"capabilities").toObject();
    return identity;
}

std::optional<ToolListPage> parseToolListPage(const QJsonValue &result, QString *error)
{
    if (!isObject(result, error))
        return std::nullopt;
    const QJsonObject object = result.toObject();
    // A null cursor says "no next page" as plainly as a missing one.
    if (!hasField(object, u"tools", QJsonValue::Array, true, error)
        || (!object.value(u"nextCursor").isNull() && !hasField(object, u"nextCursor", QJsonValue::String, false, error)))
        return std::nullopt;
    return ToolListPage{object.value(u"tools").toArray(), object.value(u"nextCursor").toString()};
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

} // namespace Tether
