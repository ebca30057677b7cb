#pragma once

#include "protocol/mcptypes.h"

#include <QHash>
#include <QList>
#include <QSet>
#include <QStringList>

#include <functional>

namespace Tether {

struct RegisteredTool
{
    QString publicName; // <server>__<tool>, sanitised, at most 64 characters
    QString serverName;
    ToolDefinition definition;
    bool available = true; // false while its server is in an outage

    bool operator==(const RegisteredTool &) const = default;
};

// The public name of a server's tool: "<server>__<tool>" with every character outside
// [A-Za-z0-9_-] replaced by '_', cut to 64 characters with a stable hash suffix when longer.
QString publicToolName(const QString &serverName, const QString &toolName);
// How every public name of a server's tools begins: "<server>__", sanitised, at most its first
// 55 characters. Two servers' tools can share a public name only when one start begins the other.
QString publicNameStart(const QString &serverName);
// The beginnings of `publicName` that could be a server's publicNameStart.
QStringList possibleNameStarts(const QString &publicName);

// Gives the tools of one server their public names, a bounded amount of work at a time, so that
// a server with tens of thousands of tools can be named over several event-loop turns.
// A server listing a name twice: the first one counts. When tools would share a public name, the
// one whose name needed no sanitising keeps it; the others, and a tool whose name another
// server's tool already has, get a suffix from a hash of their own original names.
class ToolNaming final
{
public:
    // Whether another server's tool has this public name.
    using NameTaken = std::function<bool(const QString &publicName)>;

    ToolNaming(QString serverName, QList<ToolDefinition> tools);

    // Does up to `budget` more steps (two a tool); true once every tool is named. Without
    // `takenElsewhere`, no name counts as another server's.
    bool advance(qsizetype budget, const NameTaken &takenElsewhere = {});
    bool isDone() const;
    // Names every tool again, in one go (what `takenElsewhere` says has changed).
    void renameAll(const NameTaken &takenElsewhere);

    const QString &serverName() const { return m_serverName; }
    // Once isDone(): the tools in the server's order, available, and where each public name is.
    const QList<RegisteredTool> &tools() const { return m_named; }
    const QHash<QString, qsizetype> &positions() const { return m_positions; }

private:
    void planNext();
    void nameNext(const NameTaken &takenElsewhere);

    QString m_serverName;
    QString m_prefix; // "<server>__", sanitised
    QList<ToolDefinition> m_tools;
    // First each tool's plain public name and how many tools of the set would get it ...
    QStringList m_plainNames;
    QHash<QString, int> m_plainCount;
    // ... then its final name, in order.
    QList<RegisteredTool> m_named;
    QHash<QString, qsizetype> m_positions; // every name given so far
    qsizetype m_nextToName = 0;
    QSet<QString> m_sharedOriginals; // original names whose plain name is shared
};

} // namespace Tether
