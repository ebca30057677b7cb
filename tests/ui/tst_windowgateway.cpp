// The window, as the `tether` program, serves the gateway over HTTP while it runs when the config
// enables it: its instance record is written, /healthz answers, and a client's `tetherctl serve`
// is relayed to the window's servers rather than starting its own. An edit of gateway.http is
// followed at once: HTTP starts, moves to another port and stops without a restart. A port in use
// is logged, and the window goes on without the gateway.
#include "gateway/gatewayinstance.h"
#include "support/gatewayfixtures.h"
#include "support/rawhttpclient.h"
#include "support/sdkhost.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;
using namespace Tether::Testing;

class TestWindowGateway final : public QObject
{
    Q_OBJECT

private:
    QProcessEnvironment environment() const
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"QT_QPA_PLATFORM"_s, u"offscreen"_s);
        environment.insert(u"XDG_DATA_HOME"_s, m_home.filePath(u"data"_s));
        environment.insert(u"XDG_STATE_HOME"_s, m_home.filePath(u"state"_s));
        environment.insert(u"XDG_CONFIG_HOME"_s, m_home.filePath(u"config"_s));
        environment.insert(u"XDG_RUNTIME_DIR"_s, m_home.path());
        return environment;
    }

    QString writeConfig(quint16 port, bool enabled = true)
    {
        return writeServersFile(m_home, configText({{u"demo"_s, demoEntry()}},
                                                   {{u"http"_s, QJsonObject{{u"enabled"_s, enabled}, {u"port"_s, port}}}}));
    }

    // The HTTP endpoint the instance record of `config` names; empty while none is served.
    QString recordedUrl(const QString &config) const
    {
        const QString record = m_home.filePath(u"tether/"_s + Tether::gatewayInstanceRecordName(config));
        return QJsonDocument::fromJson(readFile(record)).object().value(u"url").toString();
    }

    // The status of GET /healthz at `port`, with the token of the config; -1 when nothing answers.
    int healthAt(quint16 port) const
    {
        RawHttpClient raw;
        if (!raw.connectTo(port))
            return -1;
        raw.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                 + readFile(m_home.filePath(u"gateway-token"_s)).trimmed() + "\r\n\r\n");
        const auto health = raw.nextResponse();
        return health ? health->status : -1;
    }

    // Whether a connection to `port` is refused: nothing listens there.
    static bool refused(quint16 port)
    {
        QTcpSocket probe;
        QSignalSpy failed(&probe, &QTcpSocket::errorOccurred);
        probe.connectToHost(QHostAddress::LocalHost, port);
        return failed.wait() && probe.error() == QAbstractSocket::ConnectionRefusedError;
    }

    QTemporaryDir m_home;

private slots:
    void theWindowServesTheGatewayItsClientsAreRelayedTo()
    {
        const quint16 port = freeLoopbackPort();
        const QString config = writeConfig(port);
        QProcess window;
        window.setProcessEnvironment(environment());
        window.start(QStringLiteral(TETHER_APP), {u"--config"_s, config});
        QVERIFY(window.waitForStarted());
        const QString record = m_home.filePath(u"tether/"_s + Tether::gatewayInstanceRecordName(config));
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(record), 15000);
        QCOMPARE(QJsonDocument::fromJson(readFile(record)).object().value(u"url").toString(),
                 u"http://127.0.0.1:%1/mcp"_s.arg(port));

        RawHttpClient raw;
        QVERIFY(raw.connectTo(port));
        raw.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                 + readFile(m_home.filePath(u"gateway-token"_s)).trimmed() + "\r\n\r\n");
        const auto health = raw.nextResponse();
        QVERIFY(health);
        QCOMPARE(health->status, 200);
        QCOMPARE(QJsonDocument::fromJson(health->body).object().value(u"pid").toInteger(), window.processId());

        // A client's tetherctl serve uses the window's servers.
        SdkHost host(QStringLiteral(TETHERCTL), {u"serve"_s, u"--config"_s, config}, environment());
        const auto connected = host.waitForEvent(u"connected"_s);
        QVERIFY2(connected, host.nodeStderr().constData());
        QVERIFY(childrenOf(connected->value(u"pid").toInteger()).isEmpty());
        QVERIFY(host.listToolNames(u"tools"_s).contains(u"demo__echo"_s));
        host.send(call(u"echo"_s, u"demo__echo"_s, {{u"message"_s, u"through the window"_s}}));
        const auto echoed = host.waitForAnswer(u"echo"_s);
        QVERIFY(echoed);
        QCOMPARE(resultText(*echoed), u"through the window"_s);
        // The client leaves: its session at the window ends, and so does its tetherctl.
        host.send({{u"op"_s, u"close"_s}});
        QVERIFY(host.waitForEvent(u"closed"_s, {}, 15000));
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(connected->value(u"pid").toInteger()), 10000);
        raw.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                 + readFile(m_home.filePath(u"gateway-token"_s)).trimmed() + "\r\n\r\n");
        QTRY_VERIFY_WITH_TIMEOUT(raw.received.contains("\"sessions\":0"), 10000);

        ::kill(pid_t(window.processId()), SIGTERM);
        QVERIFY(window.waitForFinished(15000));
        QCOMPARE(window.exitCode(), 0);
        QVERIFY(!QFile::exists(record));
    }

    void anEditOfGatewayHttpIsFollowedAtOnce()
    {
        const quint16 first = freeLoopbackPort();
        const QString config = writeConfig(first, false);
        QProcess window;
        window.setProcessEnvironment(environment());
        window.start(QStringLiteral(TETHER_APP), {u"--config"_s, config});
        QVERIFY(window.waitForStarted());
        const QString record = m_home.filePath(u"tether/"_s + Tether::gatewayInstanceRecordName(config));
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(record), 15000);
        QCOMPARE(recordedUrl(config), QString());

        // Turned on: served at once, and the record names it.
        writeConfig(first);
        QTRY_COMPARE_WITH_TIMEOUT(recordedUrl(config), u"http://127.0.0.1:%1/mcp"_s.arg(first), 15000);
        QCOMPARE(healthAt(first), 200);

        // Another port: served there, no longer on the first.
        const quint16 second = freeLoopbackPort();
        writeConfig(second);
        QTRY_COMPARE_WITH_TIMEOUT(recordedUrl(config), u"http://127.0.0.1:%1/mcp"_s.arg(second), 15000);
        QCOMPARE(healthAt(second), 200);
        QVERIFY(refused(first));

        // Turned off: nothing listens, and the record says so; the window goes on.
        writeConfig(second, false);
        QTRY_COMPARE_WITH_TIMEOUT(recordedUrl(config), QString(), 15000);
        QVERIFY(refused(second));
        QCOMPARE(window.state(), QProcess::Running);
        ::kill(pid_t(window.processId()), SIGTERM);
        QVERIFY(window.waitForFinished(15000));
        QCOMPARE(window.exitCode(), 0);
    }

    void aPortInUseIsLoggedAndTheWindowGoesOn()
    {
        QTcpServer taken;
        QVERIFY(taken.listen(QHostAddress::LocalHost));
        QProcess window;
        window.setProcessEnvironment(environment());
        window.start(QStringLiteral(TETHER_APP), {u"--config"_s, writeConfig(taken.serverPort())});
        QVERIFY(window.waitForStarted());
        const QByteArray refusal = "gateway: not serving over HTTP: Cannot listen on 127.0.0.1 port "
                                   + QByteArray::number(taken.serverPort());
        QByteArray log;
        QTRY_VERIFY_WITH_TIMEOUT((log += window.readAllStandardError() + window.readAllStandardOutput(),
                                  log.contains(refusal)),
                                 15000);
        QVERIFY2(log.contains("set gateway.http.port to a free port"), log.constData());
        QCOMPARE(window.state(), QProcess::Running);
        ::kill(pid_t(window.processId()), SIGTERM);
        QVERIFY(window.waitForFinished(15000));
        QCOMPARE(window.exitCode(), 0);
    }
};

QTEST_GUILESS_MAIN(TestWindowGateway)
#include "tst_windowgateway.moc"
