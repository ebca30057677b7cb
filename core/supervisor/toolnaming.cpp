#include "toolnaming.h"

#include <QCryptographicHash>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

constexpr qsizetype MaxPublicNameLength = 64;
constexpr qsizetype HashSuffixLength = 9; // '_' and 8 hex digits
// What is left of a name cut for its suffix; every public name begins with this much of its server's part.
constexpr qsizetype CutNameLength = MaxPublicNameLength - HashSuffixLength;

bool isAllowed(QChar c)
{
    return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9') || c == u'_' || c == u'-';
}

// Replaces every character from `from` on that a public name cannot hold.
void sanitizeFrom(QString &name, qsizetype from)
{
    QChar *characters = name.data();
    for (qsizetype i = from; i < name.size(); ++i) {
        if (!isAllowed(characters[i]))
            characters[i] = u'_';
    }
}

bool needsSanitizing(const QString &name)
{
    return !std::all_of(name.cbegin(), name.cend(), isAllowed);
}

// "<server>__", sanitised: the server's part of its public names.
QString publicNamePrefix(const QString &serverName)
{
    QString prefix = serverName + u"__"_s;
    sanitizeFrom(prefix, 0);
    return prefix;
}

// A suffix that depends only on the original names, so a tool keeps its name whatever else changes.
QString hashSuffix(const QString &serverName, const QString &toolName)
{
    const QByteArray digest = QCryptographicHash::hash((serverName + u'\0' + toolName).toUtf8(), QCryptographicHash::Sha1);
    return u'_' + QString::fromLatin1(digest.toHex().left(HashSuffixLength - 1));
}

QString withSuffix(const QString &name, const QString &suffix)
{
    return name.left(MaxPublicNameLength - suffix.size()) + suffix;
}

// publicToolName with the server's part worked out once for all its tools.
QString publicToolName(const QString &prefix, const QString &serverName, const QString &toolName)
{
    QString name = prefix + toolName;
    sanitizeFrom(name, prefix.size());
    if (name.size() <= MaxPublicNameLength)
        return name;
    return withSuffix(name, hashSuffix(serverName, toolName));
}

} // namespace

QString publicToolName(const QString &serverName, const QString &toolName)
{
    return publicToolName(publicNamePrefix(serverName), serverName, toolName);
}

QString publicNameStart(const QString &serverName)
{
    return publicNamePrefix(serverName).left(CutNameLength);
}

QStringList possibleNameStarts(const QString &publicName)
{
    // A start is a whole "<server>__" or one cut to its first 55 characters.
    QStringList starts;
    for (qsizetype end = 2; end <= std::min(publicName.size(), CutNameLength); ++end) {
        if (publicName.at(end - 2) == u'_' && publicName.at(end - 1) == u'_')
            starts.append(publicName.left(end));
    }
    if (publicName.size() >= CutNameLength && !starts.contains(publicName.left(CutNameLength)))
        starts.append(publicName.left(CutNameLength));
    return starts;
}

ToolNaming::ToolNaming(QString serverName, QList<ToolDefinition> tools)
    : m_serverName(std::move(serverName))
    , m_prefix(publicNamePrefix(m_serverName))
    , m_tools(std::move(tools))
{
    m_plainNames.reserve(m_tools.size());
    m_plainCount.reserve(m_tools.size());
    m_named.reserve(m_tools.size());
    m_positions.reserve(m_tools.size());
}

bool ToolNaming::advance(qsizetype budget, const NameTaken &takenElsewhere)
{
    if (isDone())
        return true;
    for (; budget > 0 && m_plainNames.size() < m_tools.size(); --budget)
        planNext();
    for (; budget > 0 && m_nextToName < m_tools.size(); --budget)
        nameNext(takenElsewhere);
    if (!isDone())
        return false;
    // Freed in the turn that named the last tools rather than in the one that swaps the set in.
    m_plainNames = {};
    m_plainCount = {};
    m_sharedOriginals = {};
    return true;
}

bool ToolNaming::isDone() const
{
    return m_nextToName == m_tools.size();
}

void ToolNaming::renameAll(const NameTaken &takenElsewhere)
{
    m_plainNames.clear();
    m_plainCount.clear();
    m_named.clear();
    m_positions.clear();
    m_nextToName = 0;
    m_sharedOriginals.clear();
    advance(2 * m_tools.size(), takenElsewhere);
}

void ToolNaming::planNext()
{
    m_plainNames.append(publicToolName(m_prefix, m_serverName, m_tools.at(m_plainNames.size()).name));
    ++m_plainCount[m_plainNames.last()];
}

void ToolNaming::nameNext(const NameTaken &takenElsewhere)
{
    const ToolDefinition &tool = m_tools.at(m_nextToName);
    const QString &plain = m_plainNames.at(m_nextToName);
    ++m_nextToName;
    // Tools with the same original name have the same plain name: only a shared one can be listed twice.
    const bool shared = m_plainCount.value(plain) > 1;
    if (shared) {
        if (m_sharedOriginals.contains(tool.name))
            return; // listed twice: the first one counts
        m_sharedOriginals.insert(tool.name);
    }
    const bool keepsPlain = !shared || !needsSanitizing(tool.name);
    QString name = plain;
    if (!keepsPlain || m_positions.contains(name) || (takenElsewhere && takenElsewhere(name)))
        name = withSuffix(name, hashSuffix(m_serverName, tool.name));
    m_positions.insert(name, m_named.size());
    m_named.append(RegisteredTool{name, m_serverName, tool, true});
}

} // namespace Tether
