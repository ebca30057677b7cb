#pragma once

#include "support/testfiles.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTest>
#include <QUrl>

namespace Tether::Testing {

// `tetherctl serve --http -v` of `configPath` on a free port, its instance record and relay socket
// in `runtimeDir`, and what it said on stderr (its servers' stderr among it, printed when the test
// failed). Going away it ends with SIGTERM, which stops its servers and waits for them.
class HttpGatewayProcess final
{
public:
    HttpGatewayProcess(const QString &configPath, const QString &runtimeDir)
    {
        using namespace Qt::StringLiterals;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"XDG_RUNTIME_DIR"_s, runtimeDir);
        m_process.setProcessEnvironment(environment);
        QObject::connect(&m_process, &QProcess::readyReadStandardError, &m_process,
                         [this] { m_stderr += m_process.readAllStandardError(); });
        m_process.start(QStringLiteral(TETHERCTL), {u"serve"_s, u"--http"_s, u"--port"_s, u"0"_s, u"-v"_s,
                                                     u"--config"_s, configPath});
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
    QProcess &process() { return m_process; }

    QString url;
    QByteArray token;

private:
    QProcess m_process;
    QByteArray m_stderr;
};

} // namespace Tether::Testing
