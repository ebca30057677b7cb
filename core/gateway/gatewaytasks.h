#pragma once

#include <QHash>
#include <QMultiHash>
#include <QJsonObject>
#include <QString>

#include <deque>

namespace Tether {

// The tasks hosts created through the gateway (MCP 2025-11-25 tasks): each server's own task id
// under an id of the gateway's, unique across servers, and the host it belongs to, which alone
// sees and uses it. Each host keeps its newest tasks, at most MaxTasksPerHost.
class GatewayTasks final
{
public:
    static constexpr int MaxTasksPerHost = 1000;

    struct Task
    {
        QString id;           // as hosts know it
        QString serverName;
        QString serverTaskId; // as the server knows it
        const void *host = nullptr;
    };

    // Records a task a server created for `host`; returns the id hosts know it by.
    QString add(const QString &serverName, const QString &serverTaskId, const void *host);
    const Task *find(const QString &id) const;
    // The task a server knows as `serverTaskId`: of `host`, when given (each host's session of a
    // perHost server numbers its tasks on its own); else the first, which on a shared session is
    // the only one.
    const Task *findByServer(const QString &serverName, const QString &serverTaskId, const void *host = nullptr) const;
    // The host's tasks, oldest first.
    QList<Task> ofHost(const void *host) const;
    void forgetHost(const void *host);

private:
    void forget(const QString &id);

    QHash<QString, Task> m_tasks;            // by id
    QMultiHash<QString, QString> m_byServer; // "<server>\0<server's id>" -> ids
    QHash<const void *, std::deque<QString>> m_byHost;
};

// `object` with its "taskId" set to `id`.
QJsonObject withTaskId(QJsonObject object, const QString &id);
// `params` whose _meta names a related task with `id` instead.
QJsonObject withRelatedTaskId(QJsonObject params, const QString &id);

} // namespace Tether
