#include "configedit.h"

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

} // namespace Tether
