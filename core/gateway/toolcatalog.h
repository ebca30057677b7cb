#pragma once

#include "config/gatewayconfig.h"
#include "supervisor/toolregistry.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <vector>

namespace Tether {

class ServerSource;

// One tool as MCP hosts see it through the gateway.
struct ExposedTool
{
    QString publicName; // <server>__<tool>, as the registry names it, or the tool's own (GatewayNames::Plain)
    QString serverName;
    QString toolName;   // the server's own name
    QByteArray json;    // the server's definition, compact, with "name" replaced by the public name
};

// The tools the gateway exposes: every registered tool but those its server's config hides,
// sorted by public name, each with the JSON hosts get already written, and a fingerprint that
// changes whenever anything a host would see does.
class ToolCatalog final
{
public:
    ToolCatalog() = default;
    // `hiddenTools`: per server, the tools (by the server's own names) not to expose.
    ToolCatalog(const QList<RegisteredTool> &tools, const QHash<QString, QStringList> &hiddenTools,
                GatewayNames names = GatewayNames::Prefixed);

    const std::vector<ExposedTool> &tools() const { return m_tools; }
    int size() const { return int(m_tools.size()); }
    const ExposedTool *find(const QString &publicName) const;
    // The index of the first tool whose public name sorts after `publicName`.
    qsizetype indexAfter(const QString &publicName) const;
    const QByteArray &fingerprint() const { return m_fingerprint; }
    // Per server that offers tools, the names its config hides that it does not offer: most
    // likely misspelt, so the tool meant is not hidden.
    const QHash<QString, QStringList> &hiddenButNotOffered() const { return m_hiddenButNotOffered; }

private:
    std::vector<ExposedTool> m_tools;
    QByteArray m_fingerprint;
    QHash<QString, QStringList> m_hiddenButNotOffered;
};

// The tools a gateway over `servers` exposes now: its servers' tools less those their configs
// hide, named as `names` says.
ToolCatalog exposedTools(ServerSource &servers, GatewayNames names);

} // namespace Tether
