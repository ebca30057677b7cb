#include "configedit.h"

#include "common/commandline.h"
#include "common/jsontext.h"
#include "config/gatewayconfig.h"

#include <QJsonArray>

#include <cmath>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

const QString Defaults = u"defaults"_s;
const QString Connection = u"connection"_s;

QJsonObject setDefault(QJsonObject root, const QString &section, const QJsonObject &policy)
{
    QJsonObject defaults = root.value(Defaults).toObject();
    defaults.insert(section, policy);
    root.insert(Defaults, defaults);
    return root;
}

// Applies `edit` to the server's object; a server that is missing or not an object is left alone.
template<typename Edit>
QJsonObject editServer(QJsonObject root, const QString &serversKey, const QString &server, Edit edit)
{
    QJsonObject servers = root.value(serversKey).toObject();
    const QJsonValue entry = servers.value(server);
    if (!entry.isObject())
        return root;
    QJsonObject object = entry.toObject();
    edit(object);
    servers.insert(server, object);
    root.insert(serversKey, servers);
    return root;
}

// Drops connection.<section>, and `connection` itself once nothing is left in it.
void removeAliasedPolicy(QJsonObject &server, const QString &section)
{
    const QJsonValue connection = server.value(Connection);
    if (!connection.isObject())
        return;
    QJsonObject remaining = connection.toObject();
    remaining.remove(section);
    if (remaining.isEmpty())
        server.remove(Connection);
    else
        server.insert(Connection, remaining);
}

QJsonObject setServerPolicy(QJsonObject root, const QString &serversKey, const QString &server, const QString &section,
                            const QJsonObject &policy)
{
    return editServer(std::move(root), serversKey, server, [&](QJsonObject &object) {
        removeAliasedPolicy(object, section);
        object.insert(section, policy);
    });
}

QJsonObject clearServerPolicy(QJsonObject root, const QString &serversKey, const QString &server, const QString &section)
{
    return editServer(std::move(root), serversKey, server, [&](QJsonObject &object) {
        removeAliasedPolicy(object, section);
        object.remove(section);
    });
}

// Names to values as a JSON object, or no key at all when there are none. Returns the names
// given more than once, each once.
QStringList putNameValues(QJsonObject &entry, const QString &key, const QList<std::pair<QString, QString>> &rows)
{
    QJsonObject object;
    QStringList repeated;
    for (const auto &[name, value] : rows) {
        if (object.contains(name) && !repeated.contains(name))
            repeated.append(name);
        object.insert(name, value);
    }
    if (object.isEmpty())
        entry.remove(key);
    else
        entry.insert(key, object);
    return repeated;
}

QList<std::pair<QString, QString>> namesAndValues(const QJsonValue &value)
{
    QList<std::pair<QString, QString>> rows;
    const QJsonObject object = value.toObject();
    for (auto it = object.constBegin(); it != object.constEnd(); ++it)
        rows.append({it.key(), fieldText(it.value())});
    return rows;
}

} // namespace

QJsonObject setDefaultReconnectPolicy(QJsonObject root, const ReconnectPolicy &policy)
{
    return setDefault(std::move(root), u"reconnect"_s, toJson(policy));
}

QJsonObject setDefaultHeartbeatPolicy(QJsonObject root, const HeartbeatPolicy &policy)
{
    return setDefault(std::move(root), u"heartbeat"_s, toJson(policy));
}

QJsonObject setServerReconnectPolicy(QJsonObject root, const QString &serversKey, const QString &server,
                                     const ReconnectPolicy &policy)
{
    return setServerPolicy(std::move(root), serversKey, server, u"reconnect"_s, toJson(policy));
}

QJsonObject setServerHeartbeatPolicy(QJsonObject root, const QString &serversKey, const QString &server,
                                     const HeartbeatPolicy &policy)
{
    return setServerPolicy(std::move(root), serversKey, server, u"heartbeat"_s, toJson(policy));
}

QJsonObject clearServerReconnectPolicy(QJsonObject root, const QString &serversKey, const QString &server)
{
    return clearServerPolicy(std::move(root), serversKey, server, u"reconnect"_s);
}

QJsonObject clearServerHeartbeatPolicy(QJsonObject root, const QString &serversKey, const QString &server)
{
    return clearServerPolicy(std::move(root), serversKey, server, u"heartbeat"_s);
}

std::optional<QJsonObject> serverPolicyOverride(const QJsonObject &serverEntry, const QString &section)
{
    const QJsonValue aliased = serverEntry.value(Connection).toObject().value(section);
    const QJsonValue plain = serverEntry.value(section);
    if (!aliased.isObject() && !plain.isObject())
        return std::nullopt;
    QJsonObject merged = aliased.toObject();
    const QJsonObject overlay = plain.toObject();
    for (auto it = overlay.constBegin(); it != overlay.constEnd(); ++it)
        merged.insert(it.key(), it.value());
    return merged;
}

QJsonObject putServer(QJsonObject root, const QString &serversKey, const QString &previousName, const QString &name,
                      const QJsonObject &entry)
{
    QJsonObject servers = root.value(serversKey).toObject();
    if (!previousName.isEmpty())
        servers.remove(previousName);
    servers.insert(name, entry);
    root.insert(serversKey, servers);
    return root;
}

QJsonObject removeServer(QJsonObject root, const QString &serversKey, const QString &server)
{
    QJsonObject servers = root.value(serversKey).toObject();
    if (!servers.contains(server))
        return root;
    servers.remove(server);
    root.insert(serversKey, servers);
    return root;
}

QJsonObject setServerEnabled(QJsonObject root, const QString &serversKey, const QString &server, bool enabled)
{
    return editServer(std::move(root), serversKey, server, [enabled](QJsonObject &object) {
        if (object.contains(u"enabled"_s) || !enabled)
            object.insert(u"enabled"_s, enabled);
    });
}

QJsonObject setToolHidden(QJsonObject root, const QString &serversKey, const QString &server, const QString &tool,
                          bool hidden)
{
    return editServer(std::move(root), serversKey, server, [&](QJsonObject &object) {
        QJsonObject tools = object.value(u"tools"_s).toObject();
        QJsonArray disabled = tools.value(u"disabled"_s).toArray();
        const bool listed = disabled.contains(QJsonValue(tool));
        if (hidden == listed)
            return;
        if (hidden) {
            disabled.append(tool);
        } else {
            for (qsizetype i = disabled.size() - 1; i >= 0; --i) {
                if (disabled.at(i) == QJsonValue(tool))
                    disabled.removeAt(i);
            }
        }
        if (disabled.isEmpty())
            tools.remove(u"disabled"_s);
        else
            tools.insert(u"disabled"_s, disabled);
        if (tools.isEmpty())
            object.remove(u"tools"_s);
        else
            object.insert(u"tools"_s, tools);
    });
}

QJsonObject setGatewayHttpServed(QJsonObject root, bool enabled, quint16 port)
{
    QJsonObject gateway = root.value(u"gateway"_s).toObject();
    QJsonObject http = gateway.value(u"http"_s).toObject();
    http.insert(u"enabled"_s, enabled);
    if (http.value(u"port"_s).toInt(GatewayHttpConfig::DefaultPort) != port)
        http.insert(u"port"_s, int(port));
    gateway.insert(u"http"_s, http);
    root.insert(u"gateway"_s, gateway);
    return root;
}

ServerEntryFields serverEntryFields(const ServerConfig &server)
{
    const QJsonObject &entry = server.source;
    ServerEntryFields fields;
    fields.transport = server.transport;
    fields.enabled = server.enabled;
    fields.command = fieldText(entry.value(u"command"_s));
    const QJsonValue args = entry.value(u"args"_s);
    if (args.isArray()) {
        QStringList words;
        for (const QJsonValue &arg : args.toArray())
            words.append(fieldText(arg));
        fields.arguments = joinCommandLine(words);
    } else {
        fields.arguments = fieldText(args);
    }
    fields.environment = namesAndValues(entry.value(u"env"_s));
    fields.workingDirectory = fieldText(entry.value(u"cwd"_s));
    fields.url = fieldText(entry.value(u"url"_s));
    fields.headers = namesAndValues(entry.value(u"headers"_s));
    fields.timeoutMs = fieldText(entry.value(u"timeoutMs"_s));
    return fields;
}

BuiltServerEntry buildServerEntry(const ServerEntryFields &fields, const QJsonObject &existing,
                                  TransportKind existingTransport)
{
    BuiltServerEntry built;
    QJsonObject &entry = built.entry;
    entry = existing;

    if (!fields.enabled)
        entry.insert(u"enabled"_s, false);
    else if (existing.contains(u"enabled"_s))
        entry.insert(u"enabled"_s, true);

    // A type the entry's form already implies (a command, or a url without type) is not added.
    if (existing.contains(u"type"_s) || fields.transport != existingTransport) {
        const bool writtenAsStreamable = existing.value(u"type"_s).toString() == u"streamable-http";
        entry.insert(u"type"_s, fields.transport == TransportKind::StreamableHttp && writtenAsStreamable
                                    ? u"streamable-http"_s
                                    : transportName(fields.transport));
    }

    if (fields.transport == TransportKind::Stdio) {
        for (const QString &key : {u"url"_s, u"headers"_s, u"oauth"_s})
            entry.remove(key);
        // Written even when empty, so that the config's message names the command.
        entry.insert(u"command"_s, fields.command.trimmed());
        entry.remove(u"args"_s);
        if (!fields.arguments.trimmed().isEmpty()) {
            const SplitCommandLine split = splitCommandLine(fields.arguments);
            if (split.error.isEmpty())
                entry.insert(u"args"_s, QJsonArray::fromStringList(split.words));
            else
                built.argumentsError = split.error;
        }
        built.repeatedEnvironment = putNameValues(entry, u"env"_s, fields.environment);
        const QString workingDirectory = fields.workingDirectory.trimmed();
        if (workingDirectory.isEmpty())
            entry.remove(u"cwd"_s);
        else
            entry.insert(u"cwd"_s, workingDirectory);
    } else {
        for (const QString &key : {u"command"_s, u"args"_s, u"env"_s, u"envFile"_s, u"cwd"_s})
            entry.remove(key);
        entry.insert(u"url"_s, fields.url.trimmed());
        built.repeatedHeaders = putNameValues(entry, u"headers"_s, fields.headers);
    }

    // What is not a number goes in as text, and the config's rule for timeoutMs answers it.
    const QString timeout = fields.timeoutMs.trimmed();
    bool isNumber = false;
    const double milliseconds = timeout.toDouble(&isNumber);
    if (timeout.isEmpty())
        entry.remove(u"timeoutMs"_s);
    else if (isNumber && std::isfinite(milliseconds))
        entry.insert(u"timeoutMs"_s, milliseconds == std::floor(milliseconds) && std::abs(milliseconds) < 1e15
                                         ? QJsonValue(qint64(milliseconds))
                                         : QJsonValue(milliseconds));
    else
        entry.insert(u"timeoutMs"_s, timeout);
    return built;
}

} // namespace Tether
