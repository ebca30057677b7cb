#pragma once

#include "config/gatewayconfig.h"
#include "supervisor/servercatalog.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <utility>
#include <vector>

namespace Tether {

// One prompt as MCP hosts see it through the gateway.
struct ExposedPrompt
{
    QString publicName; // <server>__<prompt>, or the prompt's own name (GatewayNames::Plain)
    QString serverName;
    QString promptName; // the server's own name
    QByteArray json;    // the server's definition, compact, with "name" replaced by the public name
};

// The prompts the gateway exposes: every prompt of every server, named like the tools, sorted by
// public name, with the JSON hosts get already written and a fingerprint that changes whenever
// anything a host would see does.
class PromptCatalog final
{
public:
    PromptCatalog() = default;
    // `servers`: each server's name and catalog, in the config's order.
    PromptCatalog(const QList<std::pair<QString, ServerCatalog>> &servers, GatewayNames names);

    const std::vector<ExposedPrompt> &prompts() const { return m_prompts; }
    const ExposedPrompt *find(const QString &publicName) const;
    const QByteArray &fingerprint() const { return m_fingerprint; }

private:
    std::vector<ExposedPrompt> m_prompts;
    QByteArray m_fingerprint;
};

} // namespace Tether
