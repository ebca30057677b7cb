// How a client reaches the gateway: tetherctl serve with the config it needs, or the URL with the
// token; and, while the config serves no HTTP, what else the URL takes.
#include "gateway/gatewayreach.h"
#include "gateway/gatewaytoken.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;

class TestGatewayReach final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_dir.filePath(u"home-config"_s)));
        QCOMPARE(defaultConfigPath(), m_dir.filePath(u"home-config/tether/servers.json"_s));
    }

    void reach_data()
    {
        QTest::addColumn<bool>("usual"); // the user's usual config file
        QTest::addColumn<bool>("http");
        QTest::addColumn<bool>("enabled");
        QTest::addColumn<QString>("notice"); // %1: the config file
        const QString turnOn = u"\"gateway\": {\"http\": {\"enabled\": true}} in %1"_s;
        QTest::newRow("stdio, served by the window") << false << false << true << QString();
        // tetherctl serve relays to the window, HTTP or not.
        QTest::newRow("stdio, no HTTP") << false << false << false << QString();
        QTest::newRow("http, served by the window") << false << true << true << QString();
        QTest::newRow("http, not served") << false << true << false
                                          << u"Nothing serves http://127.0.0.1:27413/mcp until a Tether serves the gateway over HTTP: "
                                             "set "_s + turnOn + u" for the window to serve it while it runs, or run tetherctl "
                                             "serve --http --config %1."_s;
        // The user unit serves the usual config; tetherctl serve needs no --config for it.
        QTest::newRow("http, usual config, not served")
            << true << true << false
            << u"Nothing serves http://127.0.0.1:27413/mcp until a Tether serves the gateway over HTTP: set "_s + turnOn
                   + u" for the window to serve it while it runs, or run tetherctl serve --http (systemctl --user enable "
                     "--now tether-gateway runs it without the window)."_s;
        QTest::newRow("stdio, usual config, no HTTP") << true << false << false << QString();
    }

    void reach()
    {
        QFETCH(bool, usual);
        QFETCH(bool, http);
        QFETCH(bool, enabled);
        QFETCH(QString, notice);
        const QString configFile = usual ? defaultConfigPath() : m_dir.filePath(u"servers.json"_s);
        GatewayHttpConfig gatewayHttp;
        gatewayHttp.enabled = enabled;
        QString error;
        // No token is made for a preview.
        const std::optional<GatewayReach> reach =
            gatewayReach(http, u"/usr/bin/tetherctl"_s, ConfigSource{configFile, false}, gatewayHttp, false, &error);
        QVERIFY2(reach, qPrintable(error));
        QCOMPARE(reach->http, http);
        QCOMPARE(reach->notice, notice.isEmpty() ? QString() : notice.arg(configFile));
        if (http) {
            QCOMPARE(reach->url, u"http://127.0.0.1:27413/mcp"_s);
            QCOMPARE(reach->token, u"TOKEN"_s);
            QVERIFY(!QFile::exists(gatewayTokenPath(configFile)));
        } else {
            QCOMPARE(reach->tetherctl, u"/usr/bin/tetherctl"_s);
            QCOMPARE(reach->serveArguments,
                     usual ? QStringList{u"serve"_s} : (QStringList{u"serve"_s, u"--config"_s, configFile}));
        }
    }
};

QTEST_GUILESS_MAIN(TestGatewayReach)
#include "tst_gatewayreach.moc"
