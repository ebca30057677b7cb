// /metrics of a gateway over a demo server that really runs: calls that end in each way, a crash
// and the reconnection are counted, and promtool (Debian's prometheus package, extracted into
// build/tools/ by scripts/test.sh) accepts the text.
#include "gateway/gateway.h"
#include "gateway/gatewaysession.h"
#include "gateway/metrics.h"
#include "support/demoserverconfig.h"
#include "support/fakehostchannel.h"
#include "support/promtool.h"
#include "support/stopallandwait.h"
#include "support/testprocess.h"

#include <QProcess>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

QJsonObject callRequest(const QJsonValue &id, const QString &tool, const QJsonObject &arguments)
{
    return hostRequest(id, u"tools/call"_s,
                       {{u"name"_s, tool}, {u"arguments"_s, arguments}, {u"_meta"_s, QJsonObject{{u"progressToken"_s, id}}}});
}

// The value of the sample named exactly `series` (name and labels); NaN when there is none.
double valueOf(const QByteArray &text, const QString &series)
{
    const QByteArray prefix = series.toUtf8() + ' ';
    for (const QByteArray &line : text.split('\n')) {
        if (line.startsWith(prefix))
            return line.mid(prefix.size()).toDouble();
    }
    return qQNaN();
}

} // namespace

class TestMetricsScrape final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        ServerConfig demo = demoServerConfig(u"demo"_s);
        demo.reconnect = resolveReconnectPolicy(u"demo"_s, {{u"initialDelayMs"_s, 50}, {u"jitter"_s, 0}}).policy;
        m_manager.applyConfig(configDocument({demo}));
        m_gateway = std::make_unique<Gateway>(m_manager);
        const auto connected = [&] { return m_manager.status(u"demo"_s)->state == ServerState::Connected; };
        QTRY_VERIFY_WITH_TIMEOUT(connected(), 10000);
        const qint64 firstPid = m_manager.status(u"demo"_s)->pid;

        GatewaySession *session = m_gateway->openSession(&m_channel);
        session->receiveMessage(initializeRequest());
        session->receiveMessage(callRequest(1, u"demo__echo"_s, {{u"message"_s, u"hello"_s}}));
        session->receiveMessage(callRequest(2, u"demo__fail"_s, {}));
        session->receiveMessage(callRequest(3, u"demo__sleep"_s, {{u"ms"_s, 30000}}));
        QTRY_VERIFY_WITH_TIMEOUT(m_channel.response(1) && m_channel.response(2)
                                     && !m_channel.notifications(u"notifications/progress"_s).isEmpty(),
                                 10000);
        session->receiveMessage(JsonRpc::makeNotification(u"notifications/cancelled"_s, {{u"requestId"_s, 3}}));
        // Not read-only: lost with its connection, and not sent again.
        session->receiveMessage(callRequest(4, u"demo__crash"_s, {}));
        QTRY_VERIFY_WITH_TIMEOUT(m_channel.response(4).has_value(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(connected() && m_manager.status(u"demo"_s)->pid != firstPid, 10000);
        m_text = renderMetrics(metricsSnapshot(m_manager, *m_gateway));
    }

    void cleanupTestCase()
    {
        m_gateway.reset();
        QVERIFY(stopAllAndWait(m_manager));
    }

    void callsAndTheOutageAreCounted_data()
    {
        QTest::addColumn<QString>("series");
        QTest::addColumn<double>("value");
        QTest::newRow("up again") << u"tether_server_up{server=\"demo\"}"_s << 1.0;
        QTest::newRow("state") << u"tether_server_state{server=\"demo\",state=\"connected\"}"_s << 1.0;
        QTest::newRow("the crash began an outage") << u"tether_server_outages_total{server=\"demo\"}"_s << 1.0;
        QTest::newRow("and cost a restart") << u"tether_server_restarts_total{server=\"demo\"}"_s << 1.0;
        QTest::newRow("tools") << u"tether_server_tools{server=\"demo\"}"_s << 12.0;
        QTest::newRow("ok") << u"tether_tool_calls_total{server=\"demo\",outcome=\"ok\"}"_s << 1.0;
        QTest::newRow("tool error") << u"tether_tool_calls_total{server=\"demo\",outcome=\"tool_error\"}"_s << 1.0;
        QTest::newRow("cancelled") << u"tether_tool_calls_total{server=\"demo\",outcome=\"cancelled\"}"_s << 1.0;
        QTest::newRow("lost in the crash") << u"tether_tool_calls_total{server=\"demo\",outcome=\"lost\"}"_s << 1.0;
        QTest::newRow("nothing unavailable") << u"tether_tool_calls_total{server=\"demo\",outcome=\"unavailable\"}"_s << 0.0;
        QTest::newRow("durations counted") << u"tether_tool_call_duration_seconds_count{server=\"demo\"}"_s << 4.0;
        QTest::newRow("all within a minute") << u"tether_tool_call_duration_seconds_bucket{server=\"demo\",le=\"60\"}"_s << 4.0;
        QTest::newRow("the host") << u"tether_gateway_sessions{transport=\"test\"}"_s << 1.0;
        QTest::newRow("opened") << u"tether_gateway_sessions_total{transport=\"test\"}"_s << 1.0;
        QTest::newRow("no stdio host") << u"tether_gateway_sessions{transport=\"stdio\"}"_s << 0.0;
    }

    void callsAndTheOutageAreCounted()
    {
        QFETCH(QString, series);
        QFETCH(double, value);
        QCOMPARE(valueOf(m_text, series), value);
    }

    void timesAreCounted()
    {
        const double connected = valueOf(m_text, u"tether_server_connected_seconds_total{server=\"demo\"}"_s);
        QVERIFY2(connected > 0 && connected < 60, qPrintable(QString::number(connected)));
        const double sum = valueOf(m_text, u"tether_tool_call_duration_seconds_sum{server=\"demo\"}"_s);
        QVERIFY2(sum > 0 && sum < 60, qPrintable(QString::number(sum)));
    }

    void promtoolAcceptsTheText()
    {
        TETHER_FIND_PROMTOOL(program)
        QProcess check;
        check.start(program, {u"check"_s, u"metrics"_s});
        QVERIFY(check.waitForStarted(10000));
        check.write(m_text);
        check.closeWriteChannel();
        QVERIFY(check.waitForFinished(30000));
        const QString says = QString::fromUtf8(check.readAllStandardOutput() + check.readAllStandardError());
        QVERIFY2(check.exitStatus() == QProcess::NormalExit && check.exitCode() == 0,
                 qPrintable(u"promtool check metrics exited with %1: %2\n%3"_s.arg(check.exitCode()).arg(says,
                                                                                         QString::fromUtf8(m_text))));
    }

private:
    ServerManager m_manager;
    std::unique_ptr<Gateway> m_gateway;
    FakeHostChannel m_channel;
    QByteArray m_text;
};

QTEST_GUILESS_MAIN(TestMetricsScrape)
#include "tst_metricsscrape.moc"
