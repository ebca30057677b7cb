#pragma once

#include "protocol/mcptypes.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QStringList>

#include <optional>

namespace Tether {

struct RegisteredTool
{
    QString publicName; // <server>__<tool>, sanitised, at most 64 characters
    QString serverName;
    ToolDefinition definition;
    bool available = true; // false while its server is in an outage

    bool operator==(const RegisteredTool &) const = default;
};

struct ToolChange
{
    QString serverName;
    QStringList added;   // public names
    QStringList removed;
    QStringList changed; // same public name, different definition

    bool isEmpty() const { return added.isEmpty() && removed.isEmpty() && changed.isEmpty(); }
};

// The public name of a server's tool: "<server>__<tool>" with every character outside
// [A-Za-z0-9_-] replaced by '_', cut to 64 characters with a stable hash suffix when longer.
QString publicToolName(const QString &serverName, const QString &toolName);

// Every tool of every server under its public name. A server's set is swapped atomically: an
// identical set changes nothing and signals nothing.
class ToolRegistry final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ToolRegistry)

public:
    explicit ToolRegistry(QObject *parent = nullptr);

    ToolChange replaceServerTools(const QString &serverName, const QList<ToolDefinition> &tools);
    ToolChange unregisterServer(const QString &serverName);
    // During an outage the tools stay registered but calls fail fast.
    void setServerAvailable(const QString &serverName, bool available);

    QList<RegisteredTool> tools() const;                         // sorted by public name
    QList<RegisteredTool> serverTools(const QString &serverName) const; // in the server's order
    std::optional<RegisteredTool> find(const QString &publicName) const;
    int count() const { return int(m_byPublicName.size()); }

signals:
    void toolsChanged(const Tether::ToolChange &change);
    void availabilityChanged(const QString &serverName, bool available);

private:
    QHash<QString, QList<RegisteredTool>> m_byServer;
    QHash<QString, QString> m_byPublicName; // public name -> server
};

} // namespace Tether
