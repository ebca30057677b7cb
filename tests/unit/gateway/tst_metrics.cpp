// The Prometheus text of /metrics, rendered from value snapshots: label escaping, the families
// and their samples. (tst_metricsscrape has promtool judge the text of real servers.)
#include "gateway/metrics.h"

#include <QRegularExpression>
#include <QSet>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;
using namespace Tether;

namespace {

ServerMetrics server(const QString &name, ServerState state)
{
    ServerMetrics metrics;
    metrics.status.name = name;
    metrics.status.state = state;
    return metrics;
}

GatewayHost host(const QString &transport)
{
    return {u"a host"_s, u"1.0"_s, transport, {}, 0};
}

MetricsSnapshot sampleSnapshot()
{
    ServerMetrics demo = server(u"demo"_s, ServerState::Connected);
    demo.status.maxAttempts = 10;
    demo.status.generation = 3;
    demo.status.outages = 2;
    demo.status.connectedMsTotal = 61500;
    demo.status.toolCount = 8;
    demo.calls.record(CallOutcome::Ok, 2ms);
    demo.calls.record(CallOutcome::Ok, 2ms);
    demo.calls.record(CallOutcome::ToolError, 30ms);
    ServerMetrics odd = server(u"we\"ird\\name\n"_s, ServerState::Reconnecting);
    odd.status.attempt = 4;
    odd.status.maxAttempts = 10;
    odd.status.generation = 1;

    MetricsSnapshot snapshot;
    snapshot.servers = {demo, odd};
    snapshot.gateway.hosts = {host(u"stdio"_s), host(u"stdio"_s), host(u"http"_s)};
    snapshot.gateway.sessionsOpened = {{u"http"_s, 1}, {u"stdio"_s, 5}};
    snapshot.httpRefusals = {{401, 3}, {403, 1}};
    return snapshot;
}

QStringList linesOf(const QByteArray &text)
{
    return QString::fromUtf8(text).split(u'\n', Qt::SkipEmptyParts);
}

} // namespace

class TestMetrics final : public QObject
{
    Q_OBJECT

private slots:
    void labelEscaping_data()
    {
        QTest::addColumn<QString>("value");
        QTest::addColumn<QByteArray>("escaped");
        QTest::newRow("plain") << u"github"_s << "github"_ba;
        QTest::newRow("double quote") << u"say \"hi\""_s << R"(say \"hi\")"_ba;
        QTest::newRow("backslash") << u"C:\\servers"_s << R"(C:\\servers)"_ba;
        QTest::newRow("line feed") << u"two\nlines"_s << R"(two\nlines)"_ba;
        QTest::newRow("an escape sequence as text") << u"\\n"_s << R"(\\n)"_ba;
        QTest::newRow("tab and carriage return stay") << u"a\tb\rc"_s << "a\tb\rc"_ba;
        QTest::newRow("UTF-8") << u"café ☕"_s << "caf\xc3\xa9 \xe2\x98\x95"_ba;
        QTest::newRow("empty") << QString() << QByteArray();
    }

    void labelEscaping()
    {
        QFETCH(QString, value);
        QFETCH(QByteArray, escaped);
        QCOMPARE(escapeMetricLabel(value), escaped);
    }

    void samples_data()
    {
        QTest::addColumn<QString>("line");
        QTest::newRow("up") << u"tether_server_up{server=\"demo\"} 1"_s;
        QTest::newRow("down") << u"tether_server_up{server=\"we\\\"ird\\\\name\\n\"} 0"_s;
        QTest::newRow("state now") << u"tether_server_state{server=\"demo\",state=\"connected\"} 1"_s;
        QTest::newRow("another state") << u"tether_server_state{server=\"demo\",state=\"reconnecting\"} 0"_s;
        QTest::newRow("state of the other server") << u"tether_server_state{server=\"we\\\"ird\\\\name\\n\",state=\"reconnecting\"} 1"_s;
        QTest::newRow("attempt") << u"tether_server_attempt{server=\"we\\\"ird\\\\name\\n\"} 4"_s;
        QTest::newRow("max attempts") << u"tether_server_max_attempts{server=\"demo\"} 10"_s;
        QTest::newRow("restarts: attempts after the first") << u"tether_server_restarts_total{server=\"demo\"} 2"_s;
        QTest::newRow("no restart yet") << u"tether_server_restarts_total{server=\"we\\\"ird\\\\name\\n\"} 0"_s;
        QTest::newRow("outages") << u"tether_server_outages_total{server=\"demo\"} 2"_s;
        QTest::newRow("connected time in seconds") << u"tether_server_connected_seconds_total{server=\"demo\"} 61.5"_s;
        QTest::newRow("tools") << u"tether_server_tools{server=\"demo\"} 8"_s;
        QTest::newRow("ok calls") << u"tether_tool_calls_total{server=\"demo\",outcome=\"ok\"} 2"_s;
        QTest::newRow("tool errors") << u"tether_tool_calls_total{server=\"demo\",outcome=\"tool_error\"} 1"_s;
        QTest::newRow("no lost call") << u"tether_tool_calls_total{server=\"demo\",outcome=\"lost\"} 0"_s;
        QTest::newRow("fastest bucket") << u"tether_tool_call_duration_seconds_bucket{server=\"demo\",le=\"0.005\"} 2"_s;
        QTest::newRow("below the slow call") << u"tether_tool_call_duration_seconds_bucket{server=\"demo\",le=\"0.025\"} 2"_s;
        QTest::newRow("above the slow call") << u"tether_tool_call_duration_seconds_bucket{server=\"demo\",le=\"0.05\"} 3"_s;
        QTest::newRow("whole-second bound") << u"tether_tool_call_duration_seconds_bucket{server=\"demo\",le=\"1\"} 3"_s;
        QTest::newRow("last bound") << u"tether_tool_call_duration_seconds_bucket{server=\"demo\",le=\"120\"} 3"_s;
        QTest::newRow("+Inf") << u"tether_tool_call_duration_seconds_bucket{server=\"demo\",le=\"+Inf\"} 3"_s;
        QTest::newRow("sum") << u"tether_tool_call_duration_seconds_sum{server=\"demo\"} 0.034"_s;
        QTest::newRow("count") << u"tether_tool_call_duration_seconds_count{server=\"demo\"} 3"_s;
        QTest::newRow("no calls: +Inf") << u"tether_tool_call_duration_seconds_bucket{server=\"we\\\"ird\\\\name\\n\",le=\"+Inf\"} 0"_s;
        QTest::newRow("stdio hosts now") << u"tether_gateway_sessions{transport=\"stdio\"} 2"_s;
        QTest::newRow("http hosts now") << u"tether_gateway_sessions{transport=\"http\"} 1"_s;
        QTest::newRow("stdio sessions opened") << u"tether_gateway_sessions_total{transport=\"stdio\"} 5"_s;
        QTest::newRow("http sessions opened") << u"tether_gateway_sessions_total{transport=\"http\"} 1"_s;
        QTest::newRow("refusals") << u"tether_gateway_http_refusals_total{status=\"401\"} 3"_s;
        QTest::newRow("build") << u"tether_build_info{version=\"%1\"} 1"_s.arg(QStringLiteral(TETHER_VERSION));
    }

    void samples()
    {
        QFETCH(QString, line);
        const QStringList lines = linesOf(renderMetrics(sampleSnapshot()));
        QCOMPARE(lines.count(line), 1);
    }

    // What promtool and Prometheus require of the text, checked on every line.
    void shape()
    {
        const QByteArray text = renderMetrics(sampleSnapshot());
        QVERIFY(text.endsWith('\n'));
        static const QRegularExpression help(u"^# HELP ([a-z_]+) \\S.*$"_s);
        static const QRegularExpression type(u"^# TYPE ([a-z_]+) (gauge|counter|histogram)$"_s);
        static const QRegularExpression sample(u"^([a-z_]+)\\{((?:[a-z]+=\"(?:[^\"\\\\\\n]|\\\\.)*\",?)+)\\} (\\S+)$"_s);
        QString family;
        QString familyType;
        QString helped;
        QSet<QString> families;
        QSet<QString> series;
        for (const QString &line : linesOf(text)) {
            if (const auto match = help.match(line); match.hasMatch()) {
                helped = match.captured(1);
                continue;
            }
            if (const auto match = type.match(line); match.hasMatch()) {
                family = match.captured(1);
                familyType = match.captured(2);
                QCOMPARE(helped, family); // HELP right before TYPE
                QVERIFY2(!families.contains(family), qPrintable(family));
                families.insert(family);
                QCOMPARE(family.endsWith(u"_total"_s), familyType == u"counter"_s);
                continue;
            }
            const auto match = sample.match(line);
            QVERIFY2(match.hasMatch(), qPrintable(line));
            const QString name = match.captured(1);
            if (familyType == u"histogram"_s) {
                QVERIFY2(name == family + u"_bucket"_s || name == family + u"_sum"_s || name == family + u"_count"_s,
                         qPrintable(line));
            } else {
                QCOMPARE(name, family);
            }
            bool isNumber = false;
            match.captured(3).toDouble(&isNumber);
            QVERIFY2(isNumber, qPrintable(line));
            const QString key = line.left(line.lastIndexOf(u' '));
            QVERIFY2(!series.contains(key), qPrintable(line));
            series.insert(key);
        }
        QCOMPARE(families.size(), 14);
    }

    void everyStateAndOutcomeIsWrittenPerServer()
    {
        const QStringList lines = linesOf(renderMetrics(sampleSnapshot()));
        const auto countOf = [&](const QString &prefix) {
            return std::count_if(lines.cbegin(), lines.cend(), [&](const QString &line) { return line.startsWith(prefix); });
        };
        QCOMPARE(countOf(u"tether_server_state{server=\"demo\","_s), 9);
        QCOMPARE(countOf(u"tether_tool_calls_total{server=\"demo\","_s), 8);
        QCOMPARE(countOf(u"tether_tool_call_duration_seconds_bucket{server=\"demo\","_s), 15);
        // One state at 1 per server.
        QCOMPARE(countOf(u"tether_server_state{"_s) - lines.filter(QRegularExpression(u"^tether_server_state\\{.* 0$"_s)).size(), 2);
    }

    void withoutServersOrHostsOnlyTheGatewaySeriesRemain()
    {
        const QByteArray text = renderMetrics({});
        QVERIFY(!text.contains("server=\""));
        const QStringList lines = linesOf(text);
        QVERIFY(lines.contains(u"tether_gateway_sessions{transport=\"stdio\"} 0"_s));
        QVERIFY(lines.contains(u"tether_gateway_sessions{transport=\"http\"} 0"_s));
        QVERIFY(lines.contains(u"tether_gateway_sessions_total{transport=\"stdio\"} 0"_s));
        QVERIFY(lines.contains(u"# TYPE tether_server_up gauge"_s));
        QVERIFY(!text.contains("tether_gateway_http_refusals_total{"));
    }
};

QTEST_APPLESS_MAIN(TestMetrics)
#include "tst_metrics.moc"
