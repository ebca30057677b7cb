#include "clientside.h"

using namespace Qt::StringLiterals;

namespace Tether {

QJsonObject clientFeatureCapabilities()
{
    return {{u"sampling"_s, QJsonObject{{u"tools"_s, QJsonObject{}}}},
            {u"elicitation"_s, QJsonObject{{u"form"_s, QJsonObject{}}, {u"url"_s, QJsonObject{}}}},
            {u"roots"_s, QJsonObject{{u"listChanged"_s, true}}}};
}

bool isClientFeatureRequest(QStringView method)
{
    return method == u"sampling/createMessage" || method == u"elicitation/create" || method == u"roots/list";
}

static bool isUrlElicitation(const QJsonObject &params)
{
    return params.value(u"mode").toString() == u"url";
}

bool declaresClientFeature(const QJsonObject &capabilities, QStringView method, const QJsonObject &params)
{
    if (method == u"sampling/createMessage")
        return capabilities.value(u"sampling").isObject();
    if (method == u"roots/list")
        return capabilities.value(u"roots").isObject();
    if (method != u"elicitation/create" || !capabilities.value(u"elicitation").isObject())
        return false;
    // An elicitation capability that names no mode is form mode's (2025-06-18).
    const QJsonObject elicitation = capabilities.value(u"elicitation").toObject();
    if (isUrlElicitation(params))
        return elicitation.contains(u"url");
    return elicitation.isEmpty() || elicitation.contains(u"form");
}

std::optional<QString> malformedServerRequest(QStringView method, const QJsonObject &params)
{
    if (method == u"sampling/createMessage") {
        if (!params.value(u"messages").isArray())
            return u"\"messages\" is missing or not an array"_s;
        if (!params.value(u"maxTokens").isDouble())
            return u"\"maxTokens\" is missing or not a number"_s;
        return std::nullopt;
    }
    if (method == u"elicitation/create") {
        if (!params.value(u"message").isString())
            return u"\"message\" is missing or not a string"_s;
        if (isUrlElicitation(params)) {
            if (!params.value(u"url").isString() || params.value(u"url").toString().isEmpty())
                return u"\"url\" is missing or not a string, as URL mode needs"_s;
            if (!params.value(u"elicitationId").isString())
                return u"\"elicitationId\" is missing or not a string, as URL mode needs"_s;
            return std::nullopt;
        }
        const QJsonValue mode = params.value(u"mode");
        if (!mode.isUndefined() && mode.toString() != u"form")
            return u"\"mode\" is %1; it is \"form\" or \"url\""_s.arg(mode.isString() ? u'"' + mode.toString() + u'"'
                                                                                      : u"not a string"_s);
        if (!params.value(u"requestedSchema").isObject())
            return u"\"requestedSchema\" is missing or not an object, as form mode needs"_s;
        return std::nullopt;
    }
    return std::nullopt;
}

QString relatedTaskId(const QJsonObject &params)
{
    return params.value(u"_meta")
        .toObject()
        .value(u"io.modelcontextprotocol/related-task")
        .toObject()
        .value(u"taskId")
        .toString();
}

} // namespace Tether
