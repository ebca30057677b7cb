#pragma once

#include "transport/stdiotransport.h"

#include <QFile>
#include <QStandardPaths>
#include <QTest>

#include <csignal>
#include <sys/types.h>

namespace Tether::Testing {

inline StdioServerCommand demoServer(const QStringList &arguments = {})
{
    return {QStringLiteral(TETHER_DEMO_SERVER), arguments, {}, {}, {}};
}

inline QString serverEverythingScript()
{
    return QStringLiteral(TETHER_NODE_MODULES "/@modelcontextprotocol/server-everything/dist/index.js");
}

// The official reference server, installed by scripts/test.sh from package-lock.json.
inline StdioServerCommand serverEverything()
{
    return {QStandardPaths::findExecutable(QStringLiteral("node")), {serverEverythingScript(), QStringLiteral("stdio")}, {}, {}, {}};
}

// True while the process exists and is not a zombie waiting to be reaped.
inline bool processAlive(qint64 pid)
{
    if (pid <= 0 || ::kill(pid_t(pid), 0) != 0)
        return false;
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray line = stat.readAll();
    const qsizetype afterName = line.lastIndexOf(')');
    return afterName < 0 || line.mid(afterName + 2, 1) != "Z";
}

inline qint64 readPidFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    return file.readAll().trimmed().toLongLong();
}

} // namespace Tether::Testing
