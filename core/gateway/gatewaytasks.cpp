#include "gatewaytasks.h"

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

QString serverKey(const QString &serverName, const QString &serverTaskId)
{
    return serverName + QChar(0) + serverTaskId;
}

const auto RelatedTaskKey = "io.modelcontextprotocol/related-task"_L1;

} // namespace

QString GatewayTasks::add(const QString &serverName, const QString &serverTaskId, const void *host)
{
    const QString key = serverKey(serverName, serverTaskId);
    if (const Task *known = findByServer(serverName, serverTaskId, host))
        return known->id;
    // Readable, and unique however servers choose their ids.
    QString id = serverName + u"__"_s + serverTaskId;
    for (int n = 2; m_tasks.contains(id); ++n)
        id = serverName + u"__"_s + serverTaskId + u'#' + QString::number(n);
    m_tasks.insert(id, {id, serverName, serverTaskId, host});
    m_byServer.insert(key, id);
    std::deque<QString> &hostTasks = m_byHost[host];
    hostTasks.push_back(id);
    if (int(hostTasks.size()) > MaxTasksPerHost) {
        const QString oldest = hostTasks.front();
        forget(oldest);
    }
    return id;
}

const GatewayTasks::Task *GatewayTasks::find(const QString &id) const
{
    const auto it = m_tasks.constFind(id);
    return it == m_tasks.cend() ? nullptr : &*it;
}

const GatewayTasks::Task *GatewayTasks::findByServer(const QString &serverName, const QString &serverTaskId,
                                                     const void *host) const
{
    const QString key = serverKey(serverName, serverTaskId);
    for (auto it = m_byServer.constFind(key); it != m_byServer.cend() && it.key() == key; ++it) {
        const Task *task = find(*it);
        if (task && (!host || task->host == host))
            return task;
    }
    return nullptr;
}

QList<GatewayTasks::Task> GatewayTasks::ofHost(const void *host) const
{
    QList<Task> tasks;
    for (const QString &id : m_byHost.value(host))
        tasks.append(m_tasks.value(id));
    return tasks;
}

void GatewayTasks::forget(const QString &id)
{
    const Task task = m_tasks.take(id);
    m_byServer.remove(serverKey(task.serverName, task.serverTaskId), id);
    const auto host = m_byHost.find(task.host);
    if (host == m_byHost.end())
        return;
    std::erase(*host, id);
    if (host->empty())
        m_byHost.erase(host);
}

void GatewayTasks::forgetHost(const void *host)
{
    for (const QString &id : m_byHost.take(host)) {
        const Task task = m_tasks.take(id);
        m_byServer.remove(serverKey(task.serverName, task.serverTaskId), id);
    }
}

QJsonObject withTaskId(QJsonObject object, const QString &id)
{
    object.insert(u"taskId"_s, id);
    return object;
}

QJsonObject withRelatedTaskId(QJsonObject params, const QString &id)
{
    QJsonObject meta = params.value(u"_meta"_s).toObject();
    if (!meta.contains(RelatedTaskKey))
        return params;
    meta.insert(RelatedTaskKey, QJsonObject{{u"taskId"_s, id}});
    params.insert(u"_meta"_s, meta);
    return params;
}

} // namespace Tether
