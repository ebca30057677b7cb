#pragma once

#include "toolnaming.h"

#include <QHash>
#include <QList>
#include <QMap>
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QTimer>

#include <deque>
#include <functional>
#include <optional>

namespace Tether {

struct ToolChange
{
    QString serverName;
    QStringList added;   // public names
    QStringList removed;
    QStringList changed; // same public name, different definition

    bool isEmpty() const { return added.isEmpty() && removed.isEmpty() && changed.isEmpty(); }
};

using ToolChangeHandler = std::function<void(const ToolChange &change)>;

// Every tool of every server under its public name (ToolNaming gives them). A server's set is
// swapped atomically: an identical set changes nothing and signals nothing.
class ToolRegistry final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ToolRegistry)

public:
    // How much of a set replaceServerToolsInTurns names in one event-loop turn (ToolNaming's
    // steps, two a tool): a few milliseconds of work.
    static constexpr qsizetype DefaultNamingStepsPerTurn = 4000;

    explicit ToolRegistry(QObject *parent = nullptr);
    explicit ToolRegistry(qsizetype namingStepsPerTurn, QObject *parent = nullptr);

    ToolChange replaceServerTools(const QString &serverName, const QList<ToolDefinition> &tools);
    // The same for a set of any size without holding the event loop: a set that takes more than
    // one turn's steps is named over several turns and swapped in, at once, in a turn of its own,
    // with the names it would get then; `done` gets the change (at once for a small set) unless
    // `context` is gone by then. A server's replacements finish in the order they were asked
    // for; replaceServerTools and unregisterServer drop those still under way.
    void replaceServerToolsInTurns(const QString &serverName, QList<ToolDefinition> tools, QObject *context,
                                   ToolChangeHandler done);
    // Drops the server's replacements still under way; their `done` is not called.
    void dropReplacements(const QString &serverName);
    ToolChange unregisterServer(const QString &serverName);
    // During an outage the tools stay registered but calls fail fast.
    void setServerAvailable(const QString &serverName, bool available);

    QList<RegisteredTool> tools() const;                         // sorted by public name
    QList<RegisteredTool> serverTools(const QString &serverName) const; // in the server's order
    std::optional<RegisteredTool> find(const QString &publicName) const;
    int count() const { return m_count; }

signals:
    void toolsChanged(const Tether::ToolChange &change);
    void availabilityChanged(const QString &serverName, bool available);

private:
    struct ServerTools
    {
        QList<RegisteredTool> tools;         // in the server's order
        QHash<QString, qsizetype> positions; // public name -> index in tools
    };
    struct Replacement
    {
        ToolNaming naming;
        QPointer<QObject> context;
        ToolChangeHandler done;
    };

    ToolNaming::NameTaken takenElsewhere(const QString &serverName) const;
    const RegisteredTool *findOf(const QString &publicName, const QString *exceptServer) const; // none: of any server
    QStringList serversWithNamesNear(const QString &serverName) const;
    ToolChange swapIn(const ToolNaming &naming);
    void nameNextTurn();

    qsizetype m_namingStepsPerTurn;
    QHash<QString, ServerTools> m_byServer;
    // The servers with tools by publicNameStart: where a public name can be looked up, and which
    // servers' names can meet.
    QMap<QString, QStringList> m_serversByStart;
    int m_count = 0;
    std::deque<Replacement> m_replacements; // the first is being named
    QTimer m_turns;
};

} // namespace Tether
