#pragma once

#include "support/testfiles.h"
#include "support/testprocess.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

namespace Tether::Testing {

// A demo server that leaves processes behind, and where it says their pids are: a grandchild in
// its process group and a daemon that escaped with setsid(). Its log is kept in a file too.
struct LeavingServer
{
    QTemporaryDir dir;
    QString grandchildPidFile = dir.filePath(QStringLiteral("grandchild.pid"));
    QString daemonPidFile = dir.filePath(QStringLiteral("daemon.pid"));
    QString logFile = dir.filePath(QStringLiteral("demo.log"));

    QStringList arguments(const QStringList &more = {}) const
    {
        return QStringList{QStringLiteral("--spawn-grandchild"), QStringLiteral("--pid-file"), grandchildPidFile, QStringLiteral("--spawn-daemon"),
                           QStringLiteral("--daemon-pid-file"), daemonPidFile, QStringLiteral("--log-file"), logFile} + more;
    }
    QString stdioFlag(const QStringList &more = {}) const
    {
        return QStringLiteral(TETHER_DEMO_SERVER) + QLatin1Char(' ') + arguments(more).join(u' ');
    }
    // A config of one server named "leaving".
    QString config(const QStringList &more = {}) const
    {
        const QString path = dir.filePath(QStringLiteral("servers.json"));
        writeFile(path, QJsonDocument(QJsonObject{{QStringLiteral("mcpServers"), QJsonObject{
            {QStringLiteral("leaving"), QJsonObject{{QStringLiteral("command"), QStringLiteral(TETHER_DEMO_SERVER)},
                                       {QStringLiteral("args"), QJsonArray::fromStringList(arguments(more))}}},
        }}}).toJson());
        return path;
    }
    // The grandchild and the daemon, once both have been started.
    QList<qint64> leftPids() const
    {
        const qint64 grandchild = readPidFile(grandchildPidFile);
        const qint64 daemon = readPidFile(daemonPidFile);
        return grandchild > 0 && daemon > 0 ? QList<qint64>{grandchild, daemon} : QList<qint64>{};
    }
};

} // namespace Tether::Testing
