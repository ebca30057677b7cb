#include "serverconfig.h"

#include "common/closenames.h"
#include "common/displaytext.h"
#include "common/jsontext.h"
#include "httpheader.h"

#include <QJsonArray>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Tether {

QString transportName(TransportKind kind)
{
    switch (kind) {
    case TransportKind::Stdio:
        return u"stdio"_s;
    case TransportKind::StreamableHttp:
        return u"http"_s;
    case TransportKind::Sse:
        return u"sse"_s;
    }
    return u"stdio"_s;
}

namespace {

const QString Hidden = u"••••••"_s;

QJsonValue writtenOr(const QJsonObject &source, const QString &key, const QString &resolved)
{
    const QJsonValue written = source.value(key);
    return written.isUndefined() ? QJsonValue(resolved) : written;
}

QJsonObject hiddenValues(const QJsonValue &written, const QList<std::pair<QString, QString>> &resolved)
{
    QJsonObject hidden;
    const QJsonObject object = written.toObject();
    for (auto it = object.constBegin(); it != object.constEnd(); ++it)
        hidden.insert(it.key(), Hidden);
    for (const auto &entry : resolved)
        hidden.insert(entry.first, Hidden);
    return hidden;
}

QJsonObject redactedOAuth(const OAuthSettings &oauth)
{
    if (!oauth.enabled)
        return {{u"enabled"_s, false}};
    QJsonObject json{{u"enabled"_s, true},
                     {u"browserTimeoutMs"_s, qint64(oauth.browserTimeout.count())},
                     {u"tokenStore"_s, tokenStoreChoiceName(oauth.tokenStore)}};
    if (!oauth.clientId.isEmpty())
        json.insert(u"clientId"_s, oauth.clientId);
    if (!oauth.clientSecret.isEmpty())
        json.insert(u"clientSecret"_s, Hidden);
    if (!oauth.scopes.isEmpty())
        json.insert(u"scopes"_s, QJsonArray::fromStringList(oauth.scopes));
    if (oauth.redirectPort != 0)
        json.insert(u"redirectPort"_s, oauth.redirectPort);
    if (!oauth.clientMetadataUrl.isEmpty())
        json.insert(u"clientMetadataUrl"_s, oauth.clientMetadataUrl);
    return json;
}

template<typename List>
List sorted(List list)
{
    std::sort(list.begin(), list.end());
    return list;
}

} // namespace

bool ServerConfig::sameSettings(const ServerConfig &other) const
{
    // Order of env and headers does not change what the server gets; `source` is not compared,
    // so reformatting the file restarts nothing.
    return name == other.name && enabled == other.enabled && transport == other.transport
           && command.program == other.command.program && command.arguments == other.command.arguments
           && sorted(command.environment) == sorted(other.command.environment)
           && command.workingDirectory == other.command.workingDirectory && url == other.url
           && sorted(headers) == sorted(other.headers) && oauth == other.oauth && reconnect == other.reconnect
           && heartbeat == other.heartbeat && pool == other.pool && poolConfigured == other.poolConfigured
           && requestTimeout == other.requestTimeout && clientFeatures == other.clientFeatures
           && perHost == other.perHost && roots == other.roots && protocol == other.protocol && errors == other.errors;
}

QJsonObject ServerConfig::redacted() const
{
    // Text fields as written, so that ${env:NAME} shows as the reference and never as its value.
    QJsonObject json{{u"name"_s, name}, {u"enabled"_s, enabled}, {u"type"_s, transportName(transport)}};
    if (transport == TransportKind::Stdio) {
        json.insert(u"command"_s, writtenOr(source, u"command"_s, command.program));
        const QJsonValue args = source.value(u"args"_s);
        json.insert(u"args"_s, args.isUndefined() ? QJsonValue(QJsonArray::fromStringList(command.arguments)) : args);
        json.insert(u"env"_s, hiddenValues(source.value(u"env"_s), command.environment));
        if (source.contains(u"envFile"_s))
            json.insert(u"envFile"_s, source.value(u"envFile"_s));
        if (source.contains(u"cwd"_s) || !command.workingDirectory.isEmpty())
            json.insert(u"cwd"_s, writtenOr(source, u"cwd"_s, command.workingDirectory));
    } else {
        const QJsonValue writtenUrl = writtenOr(source, u"url"_s, url);
        json.insert(u"url"_s, writtenUrl.isString() ? QJsonValue(redactedUrl(writtenUrl.toString())) : writtenUrl);
        json.insert(u"headers"_s, hiddenValues(source.value(u"headers"_s), headers));
        json.insert(u"oauth"_s, redactedOAuth(oauth));
    }
    json.insert(u"reconnect"_s, toJson(reconnect));
    json.insert(u"heartbeat"_s, toJson(heartbeat));
    json.insert(u"pool"_s, QJsonObject{{u"min"_s, pool.min}, {u"max"_s, pool.max}, {u"maxQueue"_s, pool.maxQueue}});
    json.insert(u"timeoutMs"_s, qint64(requestTimeout.count()));
    return json;
}

QJsonObject ServerConfig::redactedSource() const
{
    QJsonObject json = source;
    for (const QString &key : {u"env"_s, u"headers"_s}) {
        if (json.value(key).isObject())
            json.insert(key, hiddenValues(json.value(key), {}));
    }
    if (json.value(u"url"_s).isString())
        json.insert(u"url"_s, redactedUrl(json.value(u"url"_s).toString()));
    if (QJsonObject written = json.value(u"oauth"_s).toObject(); written.contains(u"clientSecret"_s)) {
        written.insert(u"clientSecret"_s, Hidden);
        json.insert(u"oauth"_s, written);
    }
    return json;
}

bool ServerConfig::usesSignIn() const
{
    return transport != TransportKind::Stdio && oauth.enabled && !holdsAuthorization(headers);
}

QString ServerConfig::describe() const
{
    const auto written = [this](const QString &key, const QString &resolved) {
        const QJsonValue value = source.value(key);
        return value.isString() ? value.toString() : resolved;
    };
    if (transport != TransportKind::Stdio)
        return transportName(transport) + u": "_s + shownUrl();
    StdioServerCommand shown;
    shown.program = written(u"command"_s, command.program);
    const QJsonValue args = source.value(u"args"_s);
    if (args.isArray()) {
        for (const QJsonValue &arg : args.toArray())
            shown.arguments.append(arg.isString() ? arg.toString() : quotedJson(arg));
    } else {
        shown.arguments = command.arguments;
    }
    return u"stdio: "_s + shown.commandLine();
}

QString ServerConfig::shownUrl() const
{
    return redactedUrl(urlAsWritten.isEmpty() ? url : urlAsWritten);
}

const ServerConfig *ConfigDocument::server(const QString &name) const
{
    for (const ServerConfig &candidate : servers) {
        if (candidate.name == name)
            return &candidate;
    }
    return nullptr;
}

QStringList ConfigDocument::serverNames() const
{
    QStringList names;
    for (const ServerConfig &config : servers)
        names.append(config.name);
    return names;
}

QString noServerNamedText(const QString &configPath, const QString &name, const QStringList &serverNames)
{
    const QString text = u"the config %1 has no server named '%2'"_s.arg(configPath, name);
    const QStringList close = closeNames(name, serverNames);
    if (!close.isEmpty())
        return text + didYouMean(close);
    return text + (serverNames.isEmpty() ? u" (it has none)"_s : u" (servers: %1)"_s.arg(serverNames.join(u", "_s)));
}

} // namespace Tether
