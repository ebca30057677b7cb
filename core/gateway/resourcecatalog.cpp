#include "resourcecatalog.h"

#include <QCryptographicHash>
#include <QHash>
#include <QJsonDocument>
#include <QRegularExpression>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// The pattern an RFC 6570 expression's expansion matches, by its operator.
QString expressionPattern(QChar op)
{
    switch (op.unicode()) {
    case '+':
        return u".*"_s; // reserved expansion: '/', '?' and '#' too
    case '#':
        return u"(?:#.*)?"_s;
    case '/':
        return u"(?:/[^/?#]*)*"_s;
    case '.':
        return u"(?:\\.[^/?#.]*)*"_s;
    case ';':
        return u"(?:;[^/?#]*)*"_s;
    case '?':
    case '&':
        return u"(?:[?&][^#]*)?"_s;
    default:
        return u"[^/?#]*"_s;
    }
}

QRegularExpression templatePattern(const QString &uriTemplate)
{
    QString pattern = u"\\A"_s;
    qsizetype at = 0;
    while (at < uriTemplate.size()) {
        const qsizetype open = uriTemplate.indexOf(u'{', at);
        const qsizetype close = open < 0 ? -1 : uriTemplate.indexOf(u'}', open);
        if (open < 0 || close < 0) {
            pattern += QRegularExpression::escape(uriTemplate.mid(at));
            break;
        }
        pattern += QRegularExpression::escape(uriTemplate.mid(at, open - at));
        const QString expression = uriTemplate.mid(open + 1, close - open - 1);
        const QChar op = expression.isEmpty() ? QChar() : expression.front();
        pattern += expressionPattern(u"+#/.;?&"_s.contains(op) ? op : QChar());
        at = close + 1;
    }
    return QRegularExpression(pattern + u"\\z"_s);
}

template<typename Entry>
void hashEntries(QCryptographicHash &hash, const std::vector<Entry> &entries)
{
    for (const Entry &entry : entries) {
        hash.addData(entry.serverName.toUtf8());
        hash.addData(QByteArrayView("\0", 1));
        hash.addData(entry.json);
        hash.addData(QByteArrayView("\0", 1));
    }
}

} // namespace

bool uriTemplateMatches(const QString &uriTemplate, const QString &uri)
{
    return templatePattern(uriTemplate).match(uri).hasMatch();
}

ResourceCatalog::ResourceCatalog(const QList<std::pair<QString, ServerCatalog>> &servers)
{
    QHash<QString, QString> uriServer;
    QHash<QString, QString> templateServer;
    for (const auto &[server, catalog] : servers) {
        if (catalog.offersResources)
            m_serverOrder.append(server);
        for (const ResourceDefinition &resource : catalog.resources) {
            if (const auto first = uriServer.constFind(resource.uri); first != uriServer.cend()) {
                m_shadowed.append(u"the resource %1 is listed by '%2' and '%3'; '%2' serves it"_s.arg(resource.uri,
                                                                                                      *first, server));
                continue;
            }
            uriServer.insert(resource.uri, server);
            m_resources.push_back({resource.uri, server, QJsonDocument(resource.raw).toJson(QJsonDocument::Compact)});
        }
        for (const ResourceTemplate &entry : catalog.templates) {
            if (const auto first = templateServer.constFind(entry.uriTemplate); first != templateServer.cend()) {
                m_shadowed.append(u"the resource template %1 is listed by '%2' and '%3'; '%2' serves it"_s.arg(
                    entry.uriTemplate, *first, server));
                continue;
            }
            templateServer.insert(entry.uriTemplate, server);
            m_templates.push_back(
                {entry.uriTemplate, server, QJsonDocument(entry.raw).toJson(QJsonDocument::Compact)});
        }
    }
    // The templates stay in config order for matching (templateOrder); the lists go out sorted.
    std::sort(m_resources.begin(), m_resources.end(),
              [](const ExposedResource &a, const ExposedResource &b) { return a.uri < b.uri; });
    m_templateOrder = m_templates;
    std::sort(m_templates.begin(), m_templates.end(), [](const ExposedResourceTemplate &a, const ExposedResourceTemplate &b) {
        return a.uriTemplate < b.uriTemplate;
    });
    QCryptographicHash hash(QCryptographicHash::Sha1);
    hashEntries(hash, m_resources);
    hashEntries(hash, m_templates);
    m_fingerprint = hash.result();
}

QString ResourceCatalog::serverFor(const QString &uri) const
{
    const auto listed = std::lower_bound(m_resources.cbegin(), m_resources.cend(), uri,
                                         [](const ExposedResource &resource, const QString &key) { return resource.uri < key; });
    if (listed != m_resources.cend() && listed->uri == uri)
        return listed->serverName;
    for (const ExposedResourceTemplate &entry : m_templateOrder) {
        if (uriTemplateMatches(entry.uriTemplate, uri))
            return entry.serverName;
    }
    return m_serverOrder.size() == 1 ? m_serverOrder.first() : QString();
}

QString ResourceCatalog::serverForTemplate(const QString &uriTemplate) const
{
    for (const ExposedResourceTemplate &entry : m_templateOrder) {
        if (entry.uriTemplate == uriTemplate)
            return entry.serverName;
    }
    return {};
}

} // namespace Tether
