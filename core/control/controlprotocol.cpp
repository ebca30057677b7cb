#include "controlprotocol.h"

#include "manager/eventlogtext.h"

using namespace Qt::StringLiterals;

namespace Tether::Control {

namespace {

QString timeText(const QDateTime &time)
{
    return time.isValid() ? time.toUTC().toString(Qt::ISODateWithMs) : QString();
}

QDateTime timeOf(const QJsonValue &value)
{
    return value.isString() ? QDateTime::fromString(value.toString(), Qt::ISODateWithMs) : QDateTime();
}

QJsonValue optionalNumber(const std::optional<qint64> &value)
{
    return value ? QJsonValue(double(*value)) : QJsonValue(QJsonValue::Null);
}

QJsonValue optionalNumber(const std::optional<int> &value)
{
    return value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null);
}

template<typename Number>
std::optional<Number> optionalOf(const QJsonValue &value)
{
    return value.isDouble() ? std::optional<Number>(Number(value.toDouble())) : std::nullopt;
}

QStringList stringsOf(const QJsonValue &value)
{
    QStringList strings;
    for (const QJsonValue &item : value.toArray())
        strings.append(item.toString());
    return strings;
}

} // namespace

QJsonObject toJson(const InstanceInfo &info)
{
    return {{u"id"_s, info.id},
            {u"pid"_s, double(info.pid)},
            {u"kind"_s, info.kind},
            {u"configPath"_s, info.configPath},
            {u"version"_s, info.version},
            {u"startedAt"_s, timeText(info.startedAt)}};
}

InstanceInfo instanceInfoFromJson(const QJsonObject &object)
{
    InstanceInfo info;
    info.id = object.value(u"id").toString();
    info.pid = qint64(object.value(u"pid").toDouble());
    info.kind = object.value(u"kind").toString();
    info.configPath = object.value(u"configPath").toString();
    info.version = object.value(u"version").toString();
    info.startedAt = timeOf(object.value(u"startedAt"));
    return info;
}

QJsonObject toJson(const ServerStatus &status)
{
    return {
        {u"name"_s, status.name},
        {u"transport"_s, status.transport},
        {u"state"_s, stateName(status.state)},
        {u"enabled"_s, status.enabled},
        {u"reason"_s, status.reason},
        {u"attempt"_s, status.attempt},
        {u"maxAttempts"_s, status.maxAttempts},
        {u"nextDelayMs"_s, optionalNumber(status.nextDelayMs)},
        {u"nextRetryAt"_s, timeText(status.nextRetryAt)},
        {u"generation"_s, double(status.generation)},
        {u"outages"_s, double(status.outages)},
        {u"connectedMsTotal"_s, double(status.connectedMsTotal)},
        {u"pid"_s, double(status.pid)},
        {u"toolCount"_s, status.toolCount},
        {u"connectedSince"_s, timeText(status.connectedSince)},
        {u"heartbeatMisses"_s, status.heartbeatMisses},
        {u"lastError"_s, status.lastError},
        {u"cause"_s, status.cause},
        {u"lastExitCode"_s, optionalNumber(status.lastExitCode)},
        {u"lastExitSignal"_s, optionalNumber(status.lastExitSignal)},
        {u"lastStderrTail"_s, QJsonArray::fromStringList(status.lastStderrTail)},
        {u"lastExitGeneration"_s, double(status.lastExitGeneration)},
        {u"signInScope"_s, status.signInScope},
        {u"scopeRefused"_s, status.scopeRefused},
        {u"configErrors"_s, QJsonArray::fromStringList(status.configErrors)},
        {u"sessions"_s, status.sessions},
        {u"protocolVersion"_s, status.protocolVersion},
    };
}

ServerStatus serverStatusFromJson(const QJsonObject &object)
{
    ServerStatus status;
    status.name = object.value(u"name").toString();
    status.transport = object.value(u"transport").toString();
    stateFromName(object.value(u"state").toString(), &status.state);
    status.enabled = object.value(u"enabled").toBool(true);
    status.reason = object.value(u"reason").toString();
    status.attempt = object.value(u"attempt").toInt();
    status.maxAttempts = object.value(u"maxAttempts").toInt();
    status.nextDelayMs = optionalOf<qint64>(object.value(u"nextDelayMs"));
    status.nextRetryAt = timeOf(object.value(u"nextRetryAt"));
    status.generation = quint64(object.value(u"generation").toDouble());
    status.outages = quint64(object.value(u"outages").toDouble());
    status.connectedMsTotal = qint64(object.value(u"connectedMsTotal").toDouble());
    status.pid = qint64(object.value(u"pid").toDouble());
    status.toolCount = object.value(u"toolCount").toInt();
    status.connectedSince = timeOf(object.value(u"connectedSince"));
    status.heartbeatMisses = object.value(u"heartbeatMisses").toInt();
    status.lastError = object.value(u"lastError").toString();
    status.cause = object.value(u"cause").toString();
    status.lastExitCode = optionalOf<int>(object.value(u"lastExitCode"));
    status.lastExitSignal = optionalOf<int>(object.value(u"lastExitSignal"));
    status.lastStderrTail = stringsOf(object.value(u"lastStderrTail"));
    status.lastExitGeneration = quint64(object.value(u"lastExitGeneration").toDouble());
    status.signInScope = object.value(u"signInScope").toString();
    status.scopeRefused = object.value(u"scopeRefused").toBool();
    status.configErrors = stringsOf(object.value(u"configErrors"));
    status.sessions = object.value(u"sessions").toInt();
    status.protocolVersion = object.value(u"protocolVersion").toString();
    return status;
}

QJsonObject toJson(const ServerView &view)
{
    return {{u"status"_s, toJson(view.status)}, {u"warnings"_s, QJsonArray::fromStringList(view.warnings)}};
}

ServerView serverViewFromJson(const QJsonObject &object)
{
    return {serverStatusFromJson(object.value(u"status").toObject()), stringsOf(object.value(u"warnings"))};
}

QList<ServerView> serverViewsFromJson(const QJsonArray &array)
{
    QList<ServerView> views;
    views.reserve(array.size());
    for (const QJsonValue &item : array)
        views.append(serverViewFromJson(item.toObject()));
    return views;
}

QJsonObject toJson(const RegisteredTool &tool)
{
    return {{u"server"_s, tool.serverName},
            {u"publicName"_s, tool.publicName},
            {u"available"_s, tool.available},
            {u"tool"_s, tool.definition.raw()}};
}

std::optional<RegisteredTool> registeredToolFromJson(const QJsonObject &object)
{
    QString ignored;
    std::optional<ToolDefinition> definition = parseToolDefinition(object.value(u"tool"), &ignored);
    if (!definition)
        return std::nullopt;
    return RegisteredTool{object.value(u"publicName").toString(), object.value(u"server").toString(),
                          std::move(*definition), object.value(u"available").toBool(true)};
}

QJsonObject toJson(const QString &server, const ServerCatalog &catalog)
{
    QJsonArray resources;
    for (const ResourceDefinition &resource : catalog.resources)
        resources.append(resource.raw);
    QJsonArray templates;
    for (const ResourceTemplate &resourceTemplate : catalog.templates)
        templates.append(resourceTemplate.raw);
    QJsonArray prompts;
    for (const PromptDefinition &prompt : catalog.prompts)
        prompts.append(prompt.raw);
    return {{u"server"_s, server},
            {u"offersResources"_s, catalog.offersResources},
            {u"offersPrompts"_s, catalog.offersPrompts},
            {u"capabilities"_s, catalog.capabilities},
            {u"resources"_s, resources},
            {u"resourceTemplates"_s, templates},
            {u"prompts"_s, prompts},
            {u"resourcesError"_s, catalog.resourcesError},
            {u"promptsError"_s, catalog.promptsError},
            {u"resourcesListed"_s, catalog.resourcesListed},
            {u"promptsListed"_s, catalog.promptsListed}};
}

ServerCatalog serverCatalogFromJson(const QJsonObject &object, QString *server)
{
    *server = object.value(u"server").toString();
    ServerCatalog catalog;
    catalog.offersResources = object.value(u"offersResources").toBool();
    catalog.offersPrompts = object.value(u"offersPrompts").toBool();
    catalog.capabilities = object.value(u"capabilities").toObject();
    QString ignored;
    for (const QJsonValue &item : object.value(u"resources").toArray()) {
        if (std::optional<ResourceDefinition> resource = parseResource(item, &ignored))
            catalog.resources.append(*resource);
    }
    for (const QJsonValue &item : object.value(u"resourceTemplates").toArray()) {
        if (std::optional<ResourceTemplate> resourceTemplate = parseResourceTemplate(item, &ignored))
            catalog.templates.append(*resourceTemplate);
    }
    for (const QJsonValue &item : object.value(u"prompts").toArray()) {
        if (std::optional<PromptDefinition> prompt = parsePrompt(item, &ignored))
            catalog.prompts.append(*prompt);
    }
    catalog.resourcesError = object.value(u"resourcesError").toString();
    catalog.promptsError = object.value(u"promptsError").toString();
    catalog.resourcesListed = object.value(u"resourcesListed").toBool();
    catalog.promptsListed = object.value(u"promptsListed").toBool();
    return catalog;
}

QJsonObject toJson(const ServerEvent &event)
{
    QJsonObject object{{u"time"_s, timeText(event.time)},
                       {u"server"_s, event.server},
                       {u"level"_s, event.level},
                       {u"text"_s, event.text},
                       {u"kind"_s, eventKindName(event)}};
    if (event.kind == ServerEvent::Kind::StateChange || event.kind == ServerEvent::Kind::ConfigChange)
        object.insert(u"status"_s, toJson(event.status));
    return object;
}

ServerEvent serverEventFromJson(const QJsonObject &object)
{
    ServerEvent event;
    event.time = timeOf(object.value(u"time"));
    event.server = object.value(u"server").toString();
    event.level = object.value(u"level").toString();
    event.text = object.value(u"text").toString();
    event.kind = eventKindFromName(object.value(u"kind").toString()).value_or(ServerEvent::Kind::ServerLog);
    if (object.contains(u"status"))
        event.status = serverStatusFromJson(object.value(u"status").toObject());
    return event;
}

QJsonObject askParams(const ServerRequest &request)
{
    return {{u"server"_s, request.serverName}, {u"method"_s, request.method}, {u"params"_s, request.params}};
}

ServerRequest askedRequest(const QJsonObject &params)
{
    return {params.value(u"server").toString(), params.value(u"method").toString(), params.value(u"params").toObject(), {}};
}

QJsonObject helloParams(const QString &clientName)
{
    return {{u"protocolVersion"_s, ProtocolVersion},
            {u"client"_s, QJsonObject{{u"name"_s, clientName}, {u"version"_s, QStringLiteral(TETHER_VERSION)}}}};
}

std::optional<QString> helloRefusal(const QJsonObject &result)
{
    const int version = result.value(u"protocolVersion").toInt();
    if (version == ProtocolVersion)
        return std::nullopt;
    const QString theirs = result.value(u"instance").toObject().value(u"version").toString();
    return u"the running Tether (version %1) speaks control protocol %2 and this program (version %3) speaks %4; "
           "run the same version of Tether and tetherctl"_s.arg(theirs.isEmpty() ? u"unknown"_s : theirs)
        .arg(version)
        .arg(QStringLiteral(TETHER_VERSION))
        .arg(ProtocolVersion);
}

} // namespace Tether::Control
