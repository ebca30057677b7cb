#include "toolregistry.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Tether {

// What turns `previous` into `next`: added and changed in the order of `next`, removed in the
// order of `previous`. A server lists its tools in the same order each time, so the common
// beginning is compared in place and only the rest is looked up by name.
static ToolChange compareTools(const QList<RegisteredTool> &previous, const QList<RegisteredTool> &next)
{
    ToolChange change;
    qsizetype same = 0;
    for (; same < previous.size() && same < next.size() && previous.at(same).publicName == next.at(same).publicName; ++same) {
        if (!(previous.at(same).definition == next.at(same).definition))
            change.changed.append(next.at(same).publicName);
    }
    if (same == previous.size()) {
        for (qsizetype i = same; i < next.size(); ++i)
            change.added.append(next.at(i).publicName);
        return change;
    }
    if (same == next.size()) {
        for (qsizetype i = same; i < previous.size(); ++i)
            change.removed.append(previous.at(i).publicName);
        return change;
    }
    QHash<QString, const RegisteredTool *> previousByName;
    previousByName.reserve(previous.size() - same);
    for (qsizetype i = same; i < previous.size(); ++i)
        previousByName.insert(previous.at(i).publicName, &previous.at(i));
    for (qsizetype i = same; i < next.size(); ++i) {
        const RegisteredTool &tool = next.at(i);
        const RegisteredTool *old = previousByName.take(tool.publicName);
        if (!old)
            change.added.append(tool.publicName);
        else if (!(old->definition == tool.definition))
            change.changed.append(tool.publicName);
    }
    for (qsizetype i = same; i < previous.size(); ++i) {
        if (previousByName.contains(previous.at(i).publicName))
            change.removed.append(previous.at(i).publicName);
    }
    return change;
}

ToolRegistry::ToolRegistry(QObject *parent)
    : ToolRegistry(DefaultNamingStepsPerTurn, parent)
{}

ToolRegistry::ToolRegistry(qsizetype namingStepsPerTurn, QObject *parent)
    : QObject(parent)
    , m_namingStepsPerTurn(std::max<qsizetype>(1, namingStepsPerTurn))
{
    m_turns.setSingleShot(true);
    m_turns.setInterval(0);
    connect(&m_turns, &QTimer::timeout, this, &ToolRegistry::nameNextTurn);
}

ToolNaming::NameTaken ToolRegistry::takenElsewhere(const QString &serverName) const
{
    return [this, serverName](const QString &name) { return findOf(name, &serverName) != nullptr; };
}

const RegisteredTool *ToolRegistry::findOf(const QString &publicName, const QString *exceptServer) const
{
    for (const QString &start : possibleNameStarts(publicName)) {
        for (const QString &server : m_serversByStart.value(start)) {
            if (exceptServer && server == *exceptServer)
                continue;
            const ServerTools &own = *m_byServer.constFind(server);
            if (const auto position = own.positions.constFind(publicName); position != own.positions.cend())
                return &own.tools.at(*position);
        }
    }
    return nullptr;
}

QStringList ToolRegistry::serversWithNamesNear(const QString &serverName) const
{
    const QString start = publicNameStart(serverName);
    QStringList servers;
    for (const QString &shorter : possibleNameStarts(start))
        servers += m_serversByStart.value(shorter);
    for (auto it = m_serversByStart.upperBound(start); it != m_serversByStart.cend() && it.key().startsWith(start); ++it)
        servers += it.value();
    servers.removeAll(serverName);
    return servers;
}

ToolChange ToolRegistry::replaceServerTools(const QString &serverName, const QList<ToolDefinition> &tools)
{
    dropReplacements(serverName);
    ToolNaming naming(serverName, tools);
    naming.renameAll(takenElsewhere(serverName));
    return swapIn(naming);
}

void ToolRegistry::replaceServerToolsInTurns(const QString &serverName, QList<ToolDefinition> tools, QObject *context,
                                             ToolChangeHandler done)
{
    Q_ASSERT(context);
    const bool othersWaiting = std::any_of(m_replacements.cbegin(), m_replacements.cend(), [&](const Replacement &waiting) {
        return waiting.naming.serverName() == serverName;
    });
    if (!othersWaiting && 2 * tools.size() <= m_namingStepsPerTurn) {
        done(replaceServerTools(serverName, tools));
        return;
    }
    m_replacements.push_back({ToolNaming(serverName, std::move(tools)), context, std::move(done)});
    if (!m_turns.isActive())
        m_turns.start();
}

void ToolRegistry::nameNextTurn()
{
    if (m_replacements.empty())
        return;
    if (!m_replacements.front().naming.isDone()) {
        m_replacements.front().naming.advance(m_namingStepsPerTurn);
        m_turns.start(); // the swap gets a turn of its own
        return;
    }
    Replacement replacement = std::move(m_replacements.front());
    m_replacements.pop_front();
    if (!m_replacements.empty())
        m_turns.start();
    // Named without other servers' names in view. When one of them has a name given here (servers
    // whose names meet, such as "x" with a tool "y__z" and "x__y" with a tool "z"), the set is
    // named again against them, as replaceServerTools would name it now.
    const QString &serverName = replacement.naming.serverName();
    const QStringList near = serversWithNamesNear(serverName);
    const QList<RegisteredTool> &named = replacement.naming.tools();
    const bool meets = std::any_of(near.cbegin(), near.cend(), [&](const QString &server) {
        const ServerTools &other = *m_byServer.constFind(server);
        return std::any_of(named.cbegin(), named.cend(), [&](const RegisteredTool &tool) {
            return other.positions.contains(tool.publicName);
        });
    });
    if (meets)
        replacement.naming.renameAll(takenElsewhere(serverName));
    const ToolChange change = swapIn(replacement.naming);
    if (replacement.context)
        replacement.done(change);
}

void ToolRegistry::dropReplacements(const QString &serverName)
{
    std::erase_if(m_replacements, [&](const Replacement &replacement) { return replacement.naming.serverName() == serverName; });
}

ToolChange ToolRegistry::swapIn(const ToolNaming &naming)
{
    const QString &serverName = naming.serverName();
    const QList<RegisteredTool> previous = m_byServer.value(serverName).tools;
    ServerTools next{naming.tools(), naming.positions()};
    if (!previous.isEmpty() && !previous.constFirst().available) {
        for (RegisteredTool &tool : next.tools)
            tool.available = false;
    }

    ToolChange change = compareTools(previous, next.tools);
    change.serverName = serverName;
    const bool orderChanged = change.isEmpty() && previous != next.tools;
    if (change.isEmpty() && !orderChanged)
        return change;

    m_count += int(next.tools.size() - previous.size());
    QStringList &sameStart = m_serversByStart[publicNameStart(serverName)];
    if (next.tools.isEmpty()) {
        m_byServer.remove(serverName);
        sameStart.removeOne(serverName);
        if (sameStart.isEmpty())
            m_serversByStart.remove(publicNameStart(serverName));
    } else {
        if (previous.isEmpty())
            sameStart.append(serverName);
        m_byServer.insert(serverName, std::move(next));
    }
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
    if (it == m_byServer.end() || it->tools.isEmpty() || it->tools.constFirst().available == available)
        return;
    for (RegisteredTool &tool : it->tools)
        tool.available = available;
    emit availabilityChanged(serverName, available);
}

QList<RegisteredTool> ToolRegistry::tools() const
{
    QList<RegisteredTool> all;
    all.reserve(m_count);
    for (const ServerTools &server : m_byServer)
        all += server.tools;
    std::sort(all.begin(), all.end(),
              [](const RegisteredTool &a, const RegisteredTool &b) { return a.publicName < b.publicName; });
    return all;
}

QList<RegisteredTool> ToolRegistry::serverTools(const QString &serverName) const
{
    return m_byServer.value(serverName).tools;
}

std::optional<RegisteredTool> ToolRegistry::find(const QString &publicName) const
{
    if (const RegisteredTool *tool = findOf(publicName, nullptr))
        return *tool;
    return std::nullopt;
}

} // namespace Tether
