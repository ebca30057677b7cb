#pragma once

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTest>

namespace Tether::Testing {

// A test peer that is a node script: a server peer prints one JSON line when it listens
// (`ready()`), then one JSON line per event it reports (`lines`). Killed when it goes out of scope.
class NodePeer
{
public:
    NodePeer(const QString &scriptPath, const QStringList &arguments,
             const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment())
    {
        m_process.setProcessEnvironment(environment);
        QObject::connect(&m_process, &QProcess::readyReadStandardOutput, &m_process, [this] { readLines(); });
        QObject::connect(&m_process, &QProcess::readyReadStandardError, &m_process,
                         [this] { stderrText += QString::fromUtf8(m_process.readAllStandardError()); });
        m_process.start(QStandardPaths::findExecutable(QStringLiteral("node")),
                        QStringList{scriptPath} + arguments);
    }
    ~NodePeer()
    {
        if (m_process.state() == QProcess::NotRunning)
            return;
        m_process.kill();
        m_process.waitForFinished(10000);
    }
    Q_DISABLE_COPY_MOVE(NodePeer)

    // The first line the peer printed (its addresses), once it is listening; empty when it
    // exited or printed nothing within 20 s (stderrText then says why).
    QJsonObject ready()
    {
        if (!QTest::qWaitFor([this] { return !lines.isEmpty() || m_process.state() == QProcess::NotRunning; }, 20000))
            return {};
        return lines.value(0);
    }

    // Everything the peer printed, one object per line, the ready line first.
    QList<QJsonObject> lines;
    QString stderrText;

private:
    void readLines()
    {
        m_pending += m_process.readAllStandardOutput();
        qsizetype end = 0;
        while ((end = m_pending.indexOf('\n')) >= 0) {
            const QByteArray line = m_pending.left(end);
            m_pending.remove(0, end + 1);
            lines.append(QJsonDocument::fromJson(line).object());
        }
    }

    QProcess m_process;
    QByteArray m_pending;
};

} // namespace Tether::Testing
