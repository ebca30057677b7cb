#pragma once

#include "transport/stdiotransport.h"

#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
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

// A loopback port nothing listens on right now.
inline quint16 freeLoopbackPort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost);
    return probe.serverPort();
}

// server-everything serving MCP over HTTP on a loopback port (it reads the port from $PORT):
// `mode` "streamableHttp" (endpoint /mcp) or "sse" (endpoint /sse). Killed when it goes out of
// scope; start() may be called again after kill(), on the same port.
class ServerEverythingHttp final
{
public:
    ServerEverythingHttp(QString mode, quint16 port)
        : m_mode(std::move(mode))
        , m_port(port)
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("PORT"), QString::number(m_port));
        m_process.setProcessEnvironment(environment);
        m_process.setProcessChannelMode(QProcess::SeparateChannels);
        QObject::connect(&m_process, &QProcess::readyReadStandardOutput, &m_process,
                         [this] { output += m_process.readAllStandardOutput(); });
        QObject::connect(&m_process, &QProcess::readyReadStandardError, &m_process,
                         [this] { output += m_process.readAllStandardError(); });
    }
    ~ServerEverythingHttp() { kill(); }
    Q_DISABLE_COPY_MOVE(ServerEverythingHttp)

    // Starts it and waits until it says it listens on its port and the port takes connections:
    // a port another process took meanwhile fails here instead of passing for this server.
    [[nodiscard]] bool start()
    {
        const qsizetype seenBefore = output.size();
        const QByteArray listening = "on port " + QByteArray::number(m_port);
        m_process.start(QStandardPaths::findExecutable(QStringLiteral("node")), {serverEverythingScript(), m_mode});
        return m_process.waitForStarted(10000)
               && QTest::qWaitFor([&] {
                      return (output.indexOf(listening, seenBefore) >= 0 && acceptsConnections())
                             || m_process.state() == QProcess::NotRunning;
                  }, 30000)
               && m_process.state() == QProcess::Running;
    }
    void kill()
    {
        if (m_process.state() == QProcess::NotRunning)
            return;
        m_process.kill();
        m_process.waitForFinished(10000);
    }

    QUrl url() const
    {
        return QUrl(QStringLiteral("http://127.0.0.1:%1/%2").arg(m_port).arg(m_mode == u"sse" ? u"sse" : u"mcp"));
    }
    quint16 port() const { return m_port; }

    QByteArray output; // stdout and stderr, as it logs every session it opens and ends

private:
    bool acceptsConnections() const
    {
        QTcpSocket probe;
        probe.connectToHost(QHostAddress::LocalHost, m_port);
        return probe.waitForConnected(200);
    }

    QString m_mode;
    quint16 m_port;
    QProcess m_process;
};

// The fields of /proc/PID/stat that follow the name (which may hold spaces and parentheses): the
// state first, then the parent's pid. Empty once the process is gone (reaped).
inline QList<QByteArray> procStatFields(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (pid <= 0 || !stat.open(QIODevice::ReadOnly))
        return {};
    const QByteArray line = stat.readAll();
    const qsizetype afterName = line.lastIndexOf(')');
    return afterName < 0 ? QList<QByteArray>{} : line.mid(afterName + 2).split(' ');
}

// 'R', 'S', 'Z' (a zombie waiting to be reaped) and so on; '?' once the process is gone.
inline char processState(qint64 pid)
{
    const QList<QByteArray> fields = procStatFields(pid);
    return fields.isEmpty() || fields.first().isEmpty() ? '?' : fields.first().at(0);
}

inline qint64 parentPid(qint64 pid)
{
    const QList<QByteArray> fields = procStatFields(pid);
    return fields.size() < 2 ? 0 : fields.at(1).toLongLong();
}

// True while the process exists and is not a zombie waiting to be reaped.
inline bool processAlive(qint64 pid)
{
    if (pid <= 0 || ::kill(pid_t(pid), 0) != 0)
        return false;
    const char state = processState(pid);
    return state != '?' && state != 'Z';
}

inline qint64 readPidFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    return file.readAll().trimmed().toLongLong();
}

} // namespace Tether::Testing
