#pragma once

#include "supervisor/servercatalog.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <utility>
#include <vector>

namespace Tether {

// A resource as MCP hosts see it through the gateway: the server's own entry, its URI unchanged.
struct ExposedResource
{
    QString uri;
    QString serverName;
    QByteArray json; // the server's entry, compact
};

struct ExposedResourceTemplate
{
    QString uriTemplate;
    QString serverName;
    QByteArray json;
};

// Whether `uri` is one of the URIs the RFC 6570 template `uriTemplate` expands to (its
// expressions matching any value their operator allows).
bool uriTemplateMatches(const QString &uriTemplate, const QString &uri);

// The resources and resource templates the gateway exposes, each as its server wrote it, sorted by
// URI (template), with a fingerprint that changes whenever anything a host would see does. URIs
// stay as the servers wrote them, so that a resource_link in a tool's result still reads. Two
// servers listing the same URI (or template): the one first in the config serves it, and the
// other's entry is left out.
class ResourceCatalog final
{
public:
    ResourceCatalog() = default;
    // `servers`: each server's name and catalog, in the config's order.
    explicit ResourceCatalog(const QList<std::pair<QString, ServerCatalog>> &servers);

    const std::vector<ExposedResource> &resources() const { return m_resources; }
    const std::vector<ExposedResourceTemplate> &templates() const { return m_templates; }
    const QByteArray &fingerprint() const { return m_fingerprint; }

    // The server a read (or subscription) of `uri` goes to: the one that lists it; else the first
    // in the config with a template that matches it; else the only server that offers resources
    // at all. Empty when none can be told.
    QString serverFor(const QString &uri) const;
    // The server that lists the template `uriTemplate` (completion/complete of its arguments).
    QString serverForTemplate(const QString &uriTemplate) const;
    // "demo://x is listed by 'a' and 'b'; 'a' serves it": the URIs (and templates) left out.
    const QStringList &shadowed() const { return m_shadowed; }

private:
    std::vector<ExposedResource> m_resources;
    std::vector<ExposedResourceTemplate> m_templates;
    std::vector<ExposedResourceTemplate> m_templateOrder; // in the config's order: the first match serves
    QStringList m_serverOrder;    // servers that offer resources, in the config's order
    QByteArray m_fingerprint;
    QStringList m_shadowed;
};

} // namespace Tether
