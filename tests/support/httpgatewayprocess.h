#pragma once

#include "support/testfiles.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTest>
#include <QUrl>

namespace Tether::Testing {

// What `tetherctl serve --http` says on stderr: with -v (its servers' stderr among it), or only
// what a user sees without asking for more.
enum class GatewayLog { Verbose, Plain };

// `tetherctl serve --http` of `configPath` on a free port, its instance record and relay socket in
// `runtimeDir`, and what it said on stderr (printed when the test failed). Going away it ends with
// SIGTERM, which stops its servers and waits for them.
class HttpGatewayProcess final
{
public:
    HttpGatewayProcess(const QString &configPath, const QString &runtimeDir, GatewayLog log = GatewayLog::Verbose)
    {
        using namespace Qt::StringLiterals;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"XDG_RUNTIME_DIR"_s, runtimeDir);
        m_process.setProcessEnvironment(environment);
        QObject::connect(&m_process, &QProcess::readyReadStandardError, &m_process,
                         [this] { m_stderr += m_process.readAllStandardError(); });
        QStringList arguments{u"serve"_s, u"--http"_s, u"--port"_s, u"0"_s, u"--config"_s, configPath};
        if (log == GatewayLog::Verbose)
            arguments.append(u"-v"_s);
        m_process.start(QStringLiteral(TETHERCTL), arguments);
        static const QRegularExpression serving(u"Serving MCP at (\\S+); hosts send the bearer token in (\\S+)\\n"_s);
        QRegularExpressionMatch match;
        (void)QTest::qWaitFor([&] {
            match = serving.match(QString::fromUtf8(m_stderr));
            return match.hasMatch() || m_process.state() == QProcess::NotRunning;
        }, 30000);
        if (!match.hasMatch())
            return;
        url = match.captured(1);
        token = readFile(match.captured(2)).trimmed();
    }
    ~HttpGatewayProcess()
    {
        if (QTest::currentTestFailed())
            qInfo("tetherctl serve --http said:\n%s", m_stderr.right(20000).constData());
        if (m_process.state() == QProcess::NotRunning)
            return;
        m_process.terminate();
        if (!m_process.waitForFinished(15000)) {
            m_process.kill();
            m_process.waitForFinished(10000);
        }
    }
    Q_DISABLE_COPY_MOVE(HttpGatewayProcess)

    bool isServing() const { return !url.isEmpty(); }
    quint16 port() const { return quint16(QUrl(url).port()); }
    bool stderrContains(const QString &text) const { return QString::fromUtf8(m_stderr).contains(text); }
    qsizetype stderrCount(const QString &text) const { return QString::fromUtf8(m_stderr).count(text); }
    const QByteArray &stderrText() const { return m_stderr; }
    // The lines of stderr that contain `part`.
    QStringList stderrLinesWith(const QString &part) const
    {
        QStringList found;
        for (const QString &line : QString::fromUtf8(m_stderr).split(u'\n'))
            if (line.contains(part))
                found.append(line);
        return found;
    }
    QProcess &process() { return m_process; }

    QString url;
    QByteArray token;

private:
    QProcess m_process;
    QByteArray m_stderr;
};

} // namespace Tether::Testing
