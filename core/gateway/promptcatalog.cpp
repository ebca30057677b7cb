#include "promptcatalog.h"

#include "gatewayprotocol.h"

#include "supervisor/toolnaming.h"

#include <QCryptographicHash>
#include <QJsonDocument>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Tether {

PromptCatalog::PromptCatalog(const QList<std::pair<QString, ServerCatalog>> &servers, GatewayNames names)
{
    QList<NamedEntry> named;
    QList<std::pair<QString, const PromptDefinition *>> entries;
    for (const auto &[server, catalog] : servers) {
        for (const PromptDefinition &prompt : catalog.prompts) {
            named.append({prompt.name, publicToolName(server, prompt.name)});
            entries.append({server, &prompt});
        }
    }
    const QStringList exposed = exposedNames(names, named);
    m_prompts.reserve(size_t(entries.size()));
    for (qsizetype i = 0; i < entries.size(); ++i) {
        QJsonObject definition = entries.at(i).second->raw;
        definition.insert(u"name"_s, exposed.at(i));
        m_prompts.push_back({exposed.at(i), entries.at(i).first, entries.at(i).second->name,
                             QJsonDocument(definition).toJson(QJsonDocument::Compact)});
    }
    // Two servers whose names sanitise alike could give a prompt the same public name: the
    // server first in the config keeps it (stable_sort keeps that order among equals).
    std::stable_sort(m_prompts.begin(), m_prompts.end(),
                     [](const ExposedPrompt &a, const ExposedPrompt &b) { return a.publicName < b.publicName; });
    m_prompts.erase(std::unique(m_prompts.begin(), m_prompts.end(),
                                [](const ExposedPrompt &a, const ExposedPrompt &b) { return a.publicName == b.publicName; }),
                    m_prompts.end());
    QCryptographicHash hash(QCryptographicHash::Sha1);
    for (const ExposedPrompt &prompt : m_prompts) {
        hash.addData(prompt.json);
        hash.addData(QByteArrayView("\0", 1));
    }
    m_fingerprint = hash.result();
}

const ExposedPrompt *PromptCatalog::find(const QString &publicName) const
{
    const auto it = std::lower_bound(m_prompts.cbegin(), m_prompts.cend(), publicName,
                                     [](const ExposedPrompt &prompt, const QString &name) { return prompt.publicName < name; });
    return it != m_prompts.cend() && it->publicName == publicName ? &*it : nullptr;
}

} // namespace Tether
