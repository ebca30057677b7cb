#include "toolcatalog.h"

#include "gatewayprotocol.h"

#include "manager/serversource.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QSet>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Tether {

ToolCatalog::ToolCatalog(const QList<RegisteredTool> &tools, const QHash<QString, QStringList> &hiddenTools,
                         GatewayNames names)
{
    m_tools.reserve(size_t(tools.size()));
    QHash<QString, QSet<QString>> offered;
    QList<const RegisteredTool *> shown;
    QList<NamedEntry> named;
    for (const RegisteredTool &tool : tools) {
        offered[tool.serverName].insert(tool.definition.name);
        if (hiddenTools.value(tool.serverName).contains(tool.definition.name))
            continue;
        shown.append(&tool);
        named.append({tool.definition.name, tool.publicName});
    }
    const QStringList exposed = exposedNames(names, named);
    for (qsizetype i = 0; i < shown.size(); ++i) {
        const RegisteredTool &tool = *shown.at(i);
        QJsonObject definition = tool.definition.raw();
        definition.insert(u"name"_s, exposed.at(i));
        m_tools.push_back({exposed.at(i), tool.serverName, tool.definition.name,
                           QJsonDocument(definition).toJson(QJsonDocument::Compact)});
    }
    // The registry lists by public name already; sorting keeps the lookups right whatever it gives.
    std::sort(m_tools.begin(), m_tools.end(),
              [](const ExposedTool &a, const ExposedTool &b) { return a.publicName < b.publicName; });
    QCryptographicHash hash(QCryptographicHash::Sha1);
    for (const ExposedTool &tool : m_tools) {
        hash.addData(tool.publicName.toUtf8());
        hash.addData(QByteArrayView("\0", 1));
        hash.addData(tool.json);
        hash.addData(QByteArrayView("\0", 1));
    }
    m_fingerprint = hash.result();

    for (auto it = hiddenTools.cbegin(); it != hiddenTools.cend(); ++it) {
        const auto server = offered.constFind(it.key());
        if (server == offered.cend())
            continue; // no tools yet: nothing to tell
        for (const QString &name : it.value()) {
            if (!server->contains(name))
                m_hiddenButNotOffered[it.key()].append(name);
        }
    }
}

const ExposedTool *ToolCatalog::find(const QString &publicName) const
{
    const auto it = std::lower_bound(m_tools.cbegin(), m_tools.cend(), publicName,
                                     [](const ExposedTool &tool, const QString &name) { return tool.publicName < name; });
    return it != m_tools.cend() && it->publicName == publicName ? &*it : nullptr;
}

qsizetype ToolCatalog::indexAfter(const QString &publicName) const
{
    const auto it = std::upper_bound(m_tools.cbegin(), m_tools.cend(), publicName,
                                     [](const QString &name, const ExposedTool &tool) { return name < tool.publicName; });
    return it - m_tools.cbegin();
}

ToolCatalog exposedTools(ServerSource &servers, GatewayNames names)
{
    QHash<QString, QStringList> hidden;
    for (const QString &name : servers.serverNames()) {
        if (const ServerConfig *config = servers.serverConfig(name); config && !config->hiddenTools.isEmpty())
            hidden.insert(name, config->hiddenTools);
    }
    return ToolCatalog(servers.registry().tools(), hidden, names);
}

} // namespace Tether
