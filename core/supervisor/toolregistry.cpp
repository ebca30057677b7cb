#include "toolregistry.h"

#include <QCryptographicHash>
#include <QSet>

using namespace Qt::StringLiterals;

namespace Tether {

static constexpr qsizetype MaxPublicNameLength = 64;
static constexpr qsizetype HashSuffixLength = 9; // '_' and 8 hex digits

static QString sanitize(const QString &name)
{
    QString sanitized = name;
    for (QChar &c : sanitized) {
        const bool allowed = (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9')
                             || c == u'_' || c == u'-';
        if (!allowed)
            c = u'_';
    }
    return sanitized;
}

// A suffix that depends only on the original names, so a tool keeps its name whatever else changes.
static QString hashSuffix(const QString &serverName, const QString &toolName)
{
    const QByteArray digest = QCryptographicHash::hash((serverName + u'\0' + toolName).toUtf8(), QCryptographicHash::Sha1);
    return u'_' + QString::fromLatin1(digest.toHex().left(8));
}

static QString withSuffix(const QString &name, const QString &suffix)
{
    return name.left(MaxPublicNameLength - suffix.size()) + suffix;
}

QString publicToolName(const QString &serverName, const QString &toolName)
{
    const QString name = sanitize(serverName) + u"__"_s + sanitize(toolName);
    if (name.size() <= MaxPublicNameLength)
        return name;
    return withSuffix(name, hashSuffix(serverName, toolName));
}

ToolRegistry::ToolRegistry(QObject *parent)
    : QObject(parent)
{}

ToolChange ToolRegistry::replaceServerTools(const QString &serverName, const QList<ToolDefinition> &tools)
{
    const QList<RegisteredTool> previous = m_byServer.value(serverName);
    const bool available = previous.isEmpty() || previous.first().available;

    const auto takenElsewhere = [&](const QString &name) {
        const auto owner = m_byPublicName.constFind(name);
        return owner != m_byPublicName.cend() && *owner != serverName;
    };
    // Names this set would give twice.
    QHash<QString, int> plainCount;
    for (const ToolDefinition &tool : tools)
        ++plainCount[publicToolName(serverName, tool.name)];

    QList<RegisteredTool> next;
    QSet<QString> used;
    QSet<QString> originalNames;
    for (const ToolDefinition &tool : tools) {
        if (originalNames.contains(tool.name))
            continue; // a server listing a tool twice: the first one counts
        originalNames.insert(tool.name);
        QString name = publicToolName(serverName, tool.name);
        // On a collision, the tool whose name needed no sanitising keeps the plain name;
        // the others get a suffix from a hash of their own original names.
        const bool keepsPlain = plainCount.value(name) == 1 || sanitize(tool.name) == tool.name;
        if (!keepsPlain || used.contains(name) || takenElsewhere(name))
            name = withSuffix(name, hashSuffix(serverName, tool.name));
        used.insert(name);
        next.append(RegisteredTool{name, serverName, tool, available});
    }

    ToolChange change;
    change.serverName = serverName;
    QHash<QString, const RegisteredTool *> previousByName;
    for (const RegisteredTool &tool : previous)
        previousByName.insert(tool.publicName, &tool);
    for (const RegisteredTool &tool : std::as_const(next)) {
        const RegisteredTool *old = previousByName.take(tool.publicName);
        if (!old)
            change.added.append(tool.publicName);
        else if (!(old->definition == tool.definition))
            change.changed.append(tool.publicName);
    }
    for (const RegisteredTool &tool : previous) {
        if (previousByName.contains(tool.publicName))
            change.removed.append(tool.publicName);
    }

    const bool orderChanged = change.isEmpty() && previous != next;
    if (change.isEmpty() && !orderChanged)
        return change;

    for (const RegisteredTool &tool : previous)
        m_byPublicName.remove(tool.publicName);
    for (const RegisteredTool &tool : std::as_const(next))
        m_byPublicName.insert(tool.publicName, serverName);
    if (next.isEmpty())
        m_byServer.remove(serverName);
    else
        m_byServer.insert(serverName, next);
    if (!change.isEmpty())
        emit toolsChanged(change);
    return change;
}

ToolChange ToolRegistry::unregisterServer(const QString &serverName)
{
    return replaceServerTools(serverName, {});
}

void ToolRegistry::setServerAvailable(const QString &serverName, bool available)
{
    auto it = m_byServer.find(serverName);
    if (it == m_byServer.end() || it->isEmpty() || it->first().available == available)
        return;
    for (RegisteredTool &tool : *it)
        tool.available = available;
    emit availabilityChanged(serverName, available);
}

QList<RegisteredTool> ToolRegistry::tools() const
{
    QList<RegisteredTool> all;
    for (const QList<RegisteredTool> &serverTools : m_byServer)
        all += serverTools;
    std::sort(all.begin(), all.end(),
              [](const RegisteredTool &a, const RegisteredTool &b) { return a.publicName < b.publicName; });
    return all;
}

QList<RegisteredTool> ToolRegistry::serverTools(const QString &serverName) const
{
    return m_byServer.value(serverName);
}

std::optional<RegisteredTool> ToolRegistry::find(const QString &publicName) const
{
    const auto server = m_byPublicName.constFind(publicName);
    if (server == m_byPublicName.cend())
        return std::nullopt;
    for (const RegisteredTool &tool : m_byServer.value(*server)) {
        if (tool.publicName == publicName)
            return tool;
    }
    return std::nullopt;
}

} // namespace Tether
