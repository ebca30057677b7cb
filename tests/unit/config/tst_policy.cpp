#include "config/policy.h"
#include "support/policyprinters.h"

#include <QJsonDocument>
#include <QTest>

#include <climits>

using namespace Qt::StringLiterals;
using namespace Tether;


Q_DECLARE_METATYPE(Tether::ReconnectPolicy)
Q_DECLARE_METATYPE(Tether::HeartbeatPolicy)

static const QString Server = u"alpha-server"_s;

static QJsonObject parse(const QByteArray &json)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        qFatal("bad test JSON: %s", json.constData());
    return document.object();
}

static ReconnectPolicy reconnect(bool enabled, int initialDelayMs, int maxDelayMs, int maxAttempts, double jitter)
{
    ReconnectPolicy policy;
    policy.enabled = enabled;
    policy.initialDelayMs = initialDelayMs;
    policy.maxDelayMs = maxDelayMs;
    policy.maxAttempts = maxAttempts;
    policy.jitter = jitter;
    return policy;
}

static HeartbeatPolicy heartbeat(bool enabled, int intervalMs, int timeoutMs, int maxFailures)
{
    HeartbeatPolicy policy;
    policy.enabled = enabled;
    policy.intervalMs = intervalMs;
    policy.timeoutMs = timeoutMs;
    policy.maxFailures = maxFailures;
    return policy;
}

static QString whole(int minimum, int maximum)
{
    return u"it must be a whole number from %1 to %2"_s.arg(minimum).arg(maximum);
}

class TestPolicy final : public QObject
{
    Q_OBJECT

private slots:
    void defaults()
    {
        const ReconnectPolicy r;
        QCOMPARE(r.enabled, true);
        QCOMPARE(r.initialDelayMs, 500);
        QCOMPARE(r.maxDelayMs, 30000);
        QCOMPARE(r.maxAttempts, 10);
        QCOMPARE(r.jitter, 0.2);

        const HeartbeatPolicy h;
        QCOMPARE(h.enabled, true);
        QCOMPARE(h.intervalMs, 30000);
        QCOMPARE(h.timeoutMs, 10000);
        QCOMPARE(h.maxFailures, 3);

        const auto resolvedReconnect = resolveReconnectPolicy(Server, {});
        QVERIFY2(resolvedReconnect.isValid(), qPrintable(resolvedReconnect.errors.join(u'\n')));
        QCOMPARE(resolvedReconnect.policy, ReconnectPolicy{});
        const auto resolvedHeartbeat = resolveHeartbeatPolicy(Server, {});
        QVERIFY2(resolvedHeartbeat.isValid(), qPrintable(resolvedHeartbeat.errors.join(u'\n')));
        QCOMPARE(resolvedHeartbeat.policy, HeartbeatPolicy{});
    }

    void appliesReconnect_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<ReconnectPolicy>("expected");

        QTest::newRow("empty") << QByteArray("{}") << reconnect(true, 500, 30000, 10, 0.2);
        QTest::newRow("enabled false") << QByteArray(R"({"enabled":false})") << reconnect(false, 500, 30000, 10, 0.2);
        QTest::newRow("enabled true") << QByteArray(R"({"enabled":true})") << reconnect(true, 500, 30000, 10, 0.2);
        QTest::newRow("initialDelayMs") << QByteArray(R"({"initialDelayMs":1000})") << reconnect(true, 1000, 30000, 10, 0.2);
        QTest::newRow("initialDelayMs min 0") << QByteArray(R"({"initialDelayMs":0})") << reconnect(true, 0, 30000, 10, 0.2);
        QTest::newRow("initialDelayMs max") << QByteArray(R"({"initialDelayMs":3600000,"maxDelayMs":3600000})")
                                            << reconnect(true, 3600000, 3600000, 10, 0.2);
        QTest::newRow("initialDelayMs written 1.0e3") << QByteArray(R"({"initialDelayMs":1.0e3})")
                                                      << reconnect(true, 1000, 30000, 10, 0.2);
        QTest::newRow("maxDelayMs") << QByteArray(R"({"maxDelayMs":60000})") << reconnect(true, 500, 60000, 10, 0.2);
        QTest::newRow("maxDelayMs equal to initial") << QByteArray(R"({"maxDelayMs":500})") << reconnect(true, 500, 500, 10, 0.2);
        QTest::newRow("maxDelayMs max") << QByteArray(R"({"maxDelayMs":86400000})") << reconnect(true, 500, 86400000, 10, 0.2);
        QTest::newRow("maxAttempts") << QByteArray(R"({"maxAttempts":5})") << reconnect(true, 500, 30000, 5, 0.2);
        QTest::newRow("maxAttempts min 1") << QByteArray(R"({"maxAttempts":1})") << reconnect(true, 500, 30000, 1, 0.2);
        QTest::newRow("maxAttempts max 1000") << QByteArray(R"({"maxAttempts":1000})") << reconnect(true, 500, 30000, 1000, 0.2);
        QTest::newRow("jitter") << QByteArray(R"({"jitter":0.35})") << reconnect(true, 500, 30000, 10, 0.35);
        QTest::newRow("jitter min 0") << QByteArray(R"({"jitter":0})") << reconnect(true, 500, 30000, 10, 0.0);
        QTest::newRow("jitter max 1") << QByteArray(R"({"jitter":1})") << reconnect(true, 500, 30000, 10, 1.0);
        QTest::newRow("every field") << QByteArray(R"({"enabled":false,"initialDelayMs":250,"maxDelayMs":8000,"maxAttempts":7,"jitter":0.5})")
                                     << reconnect(false, 250, 8000, 7, 0.5);
        QTest::newRow("alias maxRetries") << QByteArray(R"({"maxRetries":4})") << reconnect(true, 500, 30000, 4, 0.2);
        QTest::newRow("alias baseDelay") << QByteArray(R"({"baseDelay":1500})") << reconnect(true, 1500, 30000, 10, 0.2);
        QTest::newRow("alias maxDelay") << QByteArray(R"({"maxDelay":45000})") << reconnect(true, 500, 45000, 10, 0.2);
        QTest::newRow("every alias") << QByteArray(R"({"maxRetries":3,"baseDelay":100,"maxDelay":900})")
                                     << reconnect(true, 100, 900, 3, 0.2);
        QTest::newRow("alias agreeing with canonical") << QByteArray(R"({"maxRetries":6,"maxAttempts":6,"baseDelay":700,"initialDelayMs":700})")
                                                       << reconnect(true, 700, 30000, 6, 0.2);
    }

    void appliesReconnect()
    {
        QFETCH(QByteArray, input);
        QFETCH(ReconnectPolicy, expected);
        const auto resolution = resolveReconnectPolicy(Server, parse(input));
        QVERIFY2(resolution.isValid(), qPrintable(resolution.errors.join(u'\n')));
        QCOMPARE(resolution.policy, expected);
    }

    void appliesHeartbeat_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<HeartbeatPolicy>("expected");

        QTest::newRow("empty") << QByteArray("{}") << heartbeat(true, 30000, 10000, 3);
        QTest::newRow("enabled false") << QByteArray(R"({"enabled":false})") << heartbeat(false, 30000, 10000, 3);
        QTest::newRow("intervalMs") << QByteArray(R"({"intervalMs":60000})") << heartbeat(true, 60000, 10000, 3);
        QTest::newRow("intervalMs min 100") << QByteArray(R"({"intervalMs":100,"timeoutMs":100})") << heartbeat(true, 100, 100, 3);
        QTest::newRow("intervalMs max") << QByteArray(R"({"intervalMs":86400000})") << heartbeat(true, 86400000, 10000, 3);
        QTest::newRow("timeoutMs") << QByteArray(R"({"timeoutMs":5000})") << heartbeat(true, 30000, 5000, 3);
        QTest::newRow("timeoutMs min 10") << QByteArray(R"({"timeoutMs":10})") << heartbeat(true, 30000, 10, 3);
        QTest::newRow("timeoutMs max") << QByteArray(R"({"intervalMs":3600000,"timeoutMs":3600000})")
                                       << heartbeat(true, 3600000, 3600000, 3);
        QTest::newRow("timeoutMs equal to interval") << QByteArray(R"({"timeoutMs":30000})") << heartbeat(true, 30000, 30000, 3);
        QTest::newRow("maxFailures") << QByteArray(R"({"maxFailures":5})") << heartbeat(true, 30000, 10000, 5);
        QTest::newRow("maxFailures min 1") << QByteArray(R"({"maxFailures":1})") << heartbeat(true, 30000, 10000, 1);
        QTest::newRow("maxFailures max 100") << QByteArray(R"({"maxFailures":100})") << heartbeat(true, 30000, 10000, 100);
        QTest::newRow("every field") << QByteArray(R"({"enabled":false,"intervalMs":2000,"timeoutMs":1500,"maxFailures":2})")
                                     << heartbeat(false, 2000, 1500, 2);
        QTest::newRow("alias interval") << QByteArray(R"({"interval":20000})") << heartbeat(true, 20000, 10000, 3);
        QTest::newRow("alias agreeing with canonical") << QByteArray(R"({"interval":20000,"intervalMs":20000})")
                                                       << heartbeat(true, 20000, 10000, 3);
    }

    void appliesHeartbeat()
    {
        QFETCH(QByteArray, input);
        QFETCH(HeartbeatPolicy, expected);
        const auto resolution = resolveHeartbeatPolicy(Server, parse(input));
        QVERIFY2(resolution.isValid(), qPrintable(resolution.errors.join(u'\n')));
        QCOMPARE(resolution.policy, expected);
    }

    void rejectsInvalidField_data()
    {
        QTest::addColumn<QString>("section");
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QString>("field"); // the path the message must name
        QTest::addColumn<QString>("value"); // the value as the message must render it
        QTest::addColumn<QString>("rule");

        const QString boolRule = u"it must be true or false"_s;
        const QString r = u"reconnect"_s;
        const QString h = u"heartbeat"_s;

        QTest::newRow("reconnect.enabled string") << r << QByteArray(R"({"enabled":"yes"})") << u"reconnect.enabled"_s << u"\"yes\""_s << boolRule;
        QTest::newRow("reconnect.enabled number") << r << QByteArray(R"({"enabled":1})") << u"reconnect.enabled"_s << u"1"_s << boolRule;
        QTest::newRow("reconnect.enabled null") << r << QByteArray(R"({"enabled":null})") << u"reconnect.enabled"_s << u"null"_s << boolRule;

        const QString initial = u"reconnect.initialDelayMs"_s;
        const QString initialRule = whole(0, 3600000);
        QTest::newRow("initialDelayMs below min") << r << QByteArray(R"({"initialDelayMs":-1})") << initial << u"-1"_s << initialRule;
        QTest::newRow("initialDelayMs above max") << r << QByteArray(R"({"initialDelayMs":3600001,"maxDelayMs":86400000})") << initial << u"3600001"_s << initialRule;
        QTest::newRow("initialDelayMs string") << r << QByteArray(R"({"initialDelayMs":"500"})") << initial << u"\"500\""_s << initialRule;
        QTest::newRow("initialDelayMs bool") << r << QByteArray(R"({"initialDelayMs":true})") << initial << u"true"_s << initialRule;
        QTest::newRow("initialDelayMs fraction") << r << QByteArray(R"({"initialDelayMs":500.5})") << initial << u"500.5"_s << initialRule;
        QTest::newRow("initialDelayMs null") << r << QByteArray(R"({"initialDelayMs":null})") << initial << u"null"_s << initialRule;
        QTest::newRow("initialDelayMs array") << r << QByteArray(R"({"initialDelayMs":[500]})") << initial << u"[500]"_s << initialRule;

        const QString maxDelay = u"reconnect.maxDelayMs"_s;
        const QString maxDelayRule = whole(0, 86400000);
        QTest::newRow("maxDelayMs below min") << r << QByteArray(R"({"maxDelayMs":-1})") << maxDelay << u"-1"_s << maxDelayRule;
        QTest::newRow("maxDelayMs above max") << r << QByteArray(R"({"maxDelayMs":86400001})") << maxDelay << u"86400001"_s << maxDelayRule;
        QTest::newRow("maxDelayMs huge") << r << QByteArray(R"({"maxDelayMs":1e300})") << maxDelay << u"1e+300"_s << maxDelayRule;
        QTest::newRow("maxDelayMs string") << r << QByteArray(R"({"maxDelayMs":"30s"})") << maxDelay << u"\"30s\""_s << maxDelayRule;
        QTest::newRow("maxDelayMs bool") << r << QByteArray(R"({"maxDelayMs":false})") << maxDelay << u"false"_s << maxDelayRule;
        QTest::newRow("maxDelayMs fraction") << r << QByteArray(R"({"maxDelayMs":30000.25})") << maxDelay << u"30000.25"_s << maxDelayRule;

        const QString attempts = u"reconnect.maxAttempts"_s;
        const QString attemptsRule = whole(1, 1000);
        QTest::newRow("maxAttempts below min") << r << QByteArray(R"({"maxAttempts":0})") << attempts << u"0"_s << attemptsRule;
        QTest::newRow("maxAttempts negative") << r << QByteArray(R"({"maxAttempts":-3})") << attempts << u"-3"_s << attemptsRule;
        QTest::newRow("maxAttempts above max") << r << QByteArray(R"({"maxAttempts":1001})") << attempts << u"1001"_s << attemptsRule;
        QTest::newRow("maxAttempts string") << r << QByteArray(R"({"maxAttempts":"10"})") << attempts << u"\"10\""_s << attemptsRule;
        QTest::newRow("maxAttempts bool") << r << QByteArray(R"({"maxAttempts":true})") << attempts << u"true"_s << attemptsRule;
        QTest::newRow("maxAttempts fraction") << r << QByteArray(R"({"maxAttempts":2.5})") << attempts << u"2.5"_s << attemptsRule;

        const QString jitter = u"reconnect.jitter"_s;
        const QString jitterRule = u"it must be a number from 0 to 1"_s;
        QTest::newRow("jitter below min") << r << QByteArray(R"({"jitter":-0.1})") << jitter << u"-0.1"_s << jitterRule;
        QTest::newRow("jitter above max") << r << QByteArray(R"({"jitter":1.5})") << jitter << u"1.5"_s << jitterRule;
        QTest::newRow("jitter string") << r << QByteArray(R"({"jitter":"0.2"})") << jitter << u"\"0.2\""_s << jitterRule;
        QTest::newRow("jitter bool") << r << QByteArray(R"({"jitter":true})") << jitter << u"true"_s << jitterRule;
        QTest::newRow("jitter object") << r << QByteArray(R"({"jitter":{"a":1}})") << jitter << u"{\"a\":1}"_s << jitterRule;

        // An invalid alias is reported under the name that was written.
        QTest::newRow("alias maxRetries below min") << r << QByteArray(R"({"maxRetries":0})") << u"reconnect.maxRetries"_s << u"0"_s << attemptsRule;
        QTest::newRow("alias baseDelay below min") << r << QByteArray(R"({"baseDelay":-5})") << u"reconnect.baseDelay"_s << u"-5"_s << initialRule;
        QTest::newRow("alias baseDelay string") << r << QByteArray(R"({"baseDelay":"1s"})") << u"reconnect.baseDelay"_s << u"\"1s\""_s << initialRule;
        QTest::newRow("alias maxDelay above max") << r << QByteArray(R"({"maxDelay":86400001})") << u"reconnect.maxDelay"_s << u"86400001"_s << maxDelayRule;

        QTest::newRow("heartbeat.enabled string") << h << QByteArray(R"({"enabled":"false"})") << u"heartbeat.enabled"_s << u"\"false\""_s << boolRule;
        QTest::newRow("heartbeat.enabled number") << h << QByteArray(R"({"enabled":0})") << u"heartbeat.enabled"_s << u"0"_s << boolRule;

        const QString interval = u"heartbeat.intervalMs"_s;
        const QString intervalRule = whole(100, 86400000);
        QTest::newRow("intervalMs below min") << h << QByteArray(R"({"intervalMs":99,"timeoutMs":10})") << interval << u"99"_s << intervalRule;
        QTest::newRow("intervalMs above max") << h << QByteArray(R"({"intervalMs":86400001})") << interval << u"86400001"_s << intervalRule;
        QTest::newRow("intervalMs string") << h << QByteArray(R"({"intervalMs":"30000"})") << interval << u"\"30000\""_s << intervalRule;
        QTest::newRow("intervalMs bool") << h << QByteArray(R"({"intervalMs":true})") << interval << u"true"_s << intervalRule;
        QTest::newRow("intervalMs fraction") << h << QByteArray(R"({"intervalMs":30000.5})") << interval << u"30000.5"_s << intervalRule;
        QTest::newRow("alias interval below min") << h << QByteArray(R"({"interval":50})") << u"heartbeat.interval"_s << u"50"_s << intervalRule;

        const QString timeout = u"heartbeat.timeoutMs"_s;
        const QString timeoutRule = whole(10, 3600000);
        QTest::newRow("timeoutMs below min") << h << QByteArray(R"({"timeoutMs":9})") << timeout << u"9"_s << timeoutRule;
        QTest::newRow("timeoutMs above max") << h << QByteArray(R"({"intervalMs":86400000,"timeoutMs":3600001})") << timeout << u"3600001"_s << timeoutRule;
        QTest::newRow("timeoutMs string") << h << QByteArray(R"({"timeoutMs":"10s"})") << timeout << u"\"10s\""_s << timeoutRule;
        QTest::newRow("timeoutMs bool") << h << QByteArray(R"({"timeoutMs":false})") << timeout << u"false"_s << timeoutRule;
        QTest::newRow("timeoutMs fraction") << h << QByteArray(R"({"timeoutMs":10.5})") << timeout << u"10.5"_s << timeoutRule;

        const QString failures = u"heartbeat.maxFailures"_s;
        const QString failuresRule = whole(1, 100);
        QTest::newRow("maxFailures below min") << h << QByteArray(R"({"maxFailures":0})") << failures << u"0"_s << failuresRule;
        QTest::newRow("maxFailures above max") << h << QByteArray(R"({"maxFailures":101})") << failures << u"101"_s << failuresRule;
        QTest::newRow("maxFailures string") << h << QByteArray(R"({"maxFailures":"3"})") << failures << u"\"3\""_s << failuresRule;
        QTest::newRow("maxFailures bool") << h << QByteArray(R"({"maxFailures":true})") << failures << u"true"_s << failuresRule;
        QTest::newRow("maxFailures fraction") << h << QByteArray(R"({"maxFailures":1.5})") << failures << u"1.5"_s << failuresRule;
    }

    void rejectsInvalidField()
    {
        QFETCH(QString, section);
        QFETCH(QByteArray, input);
        QFETCH(QString, field);
        QFETCH(QString, value);
        QFETCH(QString, rule);

        const QJsonObject object = parse(input);
        QStringList errors;
        if (section == u"reconnect") {
            const auto resolution = resolveReconnectPolicy(Server, object);
            errors = resolution.errors;
            // The rejected field keeps its default (and a valid companion in the input is applied).
            const ReconnectPolicy defaults;
            if (field.endsWith(u"enabled"))
                QCOMPARE(resolution.policy.enabled, defaults.enabled);
            if (field.endsWith(u"initialDelayMs") || field.endsWith(u"baseDelay"))
                QCOMPARE(resolution.policy.initialDelayMs, defaults.initialDelayMs);
            if (field.endsWith(u"maxDelayMs") || field.endsWith(u"maxDelay"))
                QCOMPARE(resolution.policy.maxDelayMs, defaults.maxDelayMs);
            if (field.endsWith(u"maxAttempts") || field.endsWith(u"maxRetries"))
                QCOMPARE(resolution.policy.maxAttempts, defaults.maxAttempts);
            if (field.endsWith(u"jitter"))
                QCOMPARE(resolution.policy.jitter, defaults.jitter);
        } else {
            const auto resolution = resolveHeartbeatPolicy(Server, object);
            errors = resolution.errors;
            const HeartbeatPolicy defaults;
            if (field.endsWith(u"enabled"))
                QCOMPARE(resolution.policy.enabled, defaults.enabled);
            if (field.endsWith(u"intervalMs") || field.endsWith(u"interval"))
                QCOMPARE(resolution.policy.intervalMs, defaults.intervalMs);
            if (field.endsWith(u"timeoutMs"))
                QCOMPARE(resolution.policy.timeoutMs, defaults.timeoutMs);
            if (field.endsWith(u"maxFailures"))
                QCOMPARE(resolution.policy.maxFailures, defaults.maxFailures);
        }

        // Exactly one message: no cross-field rule is judged against a rejected value.
        QVERIFY2(errors.size() == 1, qPrintable(errors.join(u'\n')));
        const QString message = errors.first();
        QVERIFY2(message.contains(u"'"_s + Server + u"'"_s), qPrintable(message));
        QVERIFY2(message.contains(field + u" = "_s + value), qPrintable(message));
        // The kind of rule and its lower bound.
        const qsizetype to = rule.lastIndexOf(u" to "_s);
        QVERIFY2(message.contains(to < 0 ? rule : rule.left(to)), qPrintable(message));
        // The whole rule, upper bound included.
        QVERIFY2(message.contains(rule), qPrintable(message));
    }

    void collectsEveryError()
    {
        const auto reconnectResolution = resolveReconnectPolicy(
            Server, parse(R"({"enabled":"no","initialDelayMs":-1,"maxAttempts":0,"jitter":2,"bogus":1})"));
        QCOMPARE(reconnectResolution.errors.size(), 5);
        QCOMPARE(reconnectResolution.policy, ReconnectPolicy{});
        for (const QString &message : reconnectResolution.errors)
            QVERIFY2(message.contains(Server), qPrintable(message));

        const auto heartbeatResolution
            = resolveHeartbeatPolicy(Server, parse(R"({"intervalMs":1,"timeoutMs":1,"maxFailures":0})"));
        QCOMPARE(heartbeatResolution.errors.size(), 3);
        QCOMPARE(heartbeatResolution.policy, HeartbeatPolicy{});
    }

    void reconnectCrossField_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<int>("baseInitial");
        QTest::addColumn<int>("baseMax");
        QTest::addColumn<int>("initial"); // as judged
        QTest::addColumn<int>("max");
        QTest::addColumn<bool>("valid");

        QTest::newRow("both given, max < initial") << QByteArray(R"({"initialDelayMs":2000,"maxDelayMs":1000})") << 500 << 30000 << 2000 << 1000 << false;
        QTest::newRow("both given, equal") << QByteArray(R"({"initialDelayMs":2000,"maxDelayMs":2000})") << 500 << 30000 << 2000 << 2000 << true;
        QTest::newRow("both zero") << QByteArray(R"({"initialDelayMs":0,"maxDelayMs":0})") << 500 << 30000 << 0 << 0 << true;
        QTest::newRow("only initial, above base max") << QByteArray(R"({"initialDelayMs":40000})") << 500 << 30000 << 40000 << 30000 << false;
        QTest::newRow("only initial, within base max") << QByteArray(R"({"initialDelayMs":30000})") << 500 << 30000 << 30000 << 30000 << true;
        QTest::newRow("only max, below base initial") << QByteArray(R"({"maxDelayMs":100})") << 500 << 30000 << 500 << 100 << false;
        QTest::newRow("only max, below custom base initial") << QByteArray(R"({"maxDelayMs":1500})") << 2000 << 60000 << 2000 << 1500 << false;
        QTest::newRow("only max, above custom base initial") << QByteArray(R"({"maxDelayMs":2500})") << 2000 << 60000 << 2000 << 2500 << true;
        QTest::newRow("only initial, above custom base max") << QByteArray(R"({"initialDelayMs":5000})") << 100 << 4000 << 5000 << 4000 << false;
        QTest::newRow("aliases, maxDelay < baseDelay") << QByteArray(R"({"baseDelay":2000,"maxDelay":1000})") << 500 << 30000 << 2000 << 1000 << false;
        QTest::newRow("alias maxDelay below base initial") << QByteArray(R"({"maxDelay":400})") << 500 << 30000 << 500 << 400 << false;
    }

    void reconnectCrossField()
    {
        QFETCH(QByteArray, input);
        QFETCH(int, baseInitial);
        QFETCH(int, baseMax);
        QFETCH(int, initial);
        QFETCH(int, max);
        QFETCH(bool, valid);

        ReconnectPolicy base;
        base.initialDelayMs = baseInitial;
        base.maxDelayMs = baseMax;
        const auto resolution = resolveReconnectPolicy(Server, parse(input), base);
        QCOMPARE(resolution.isValid(), valid);
        QCOMPARE(resolution.policy.initialDelayMs, initial);
        QCOMPARE(resolution.policy.maxDelayMs, max);
        if (valid)
            return;
        QCOMPARE(resolution.errors.size(), 1);
        const QString message = resolution.errors.first();
        QVERIFY2(message.contains(Server), qPrintable(message));
        QVERIFY2(message.contains(u"reconnect.maxDelayMs = %1"_s.arg(max)), qPrintable(message));
        QVERIFY2(message.contains(u"reconnect.initialDelayMs = %1"_s.arg(initial)), qPrintable(message));
        QVERIFY2(message.contains(u"the longest delay must be at least the first one"_s), qPrintable(message));
    }

    void heartbeatCrossField_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<int>("baseInterval");
        QTest::addColumn<int>("baseTimeout");
        QTest::addColumn<int>("interval");
        QTest::addColumn<int>("timeout");
        QTest::addColumn<bool>("valid");

        QTest::newRow("both given, timeout > interval") << QByteArray(R"({"intervalMs":1000,"timeoutMs":2000})") << 30000 << 10000 << 1000 << 2000 << false;
        QTest::newRow("both given, equal") << QByteArray(R"({"intervalMs":1000,"timeoutMs":1000})") << 30000 << 10000 << 1000 << 1000 << true;
        QTest::newRow("only timeout, above base interval") << QByteArray(R"({"timeoutMs":40000})") << 30000 << 10000 << 30000 << 40000 << false;
        QTest::newRow("only interval, below base timeout") << QByteArray(R"({"intervalMs":5000})") << 30000 << 10000 << 5000 << 10000 << false;
        QTest::newRow("only interval, equal to base timeout") << QByteArray(R"({"intervalMs":10000})") << 30000 << 10000 << 10000 << 10000 << true;
        QTest::newRow("only timeout, custom base") << QByteArray(R"({"timeoutMs":600})") << 500 << 100 << 500 << 600 << false;
        QTest::newRow("alias interval below base timeout") << QByteArray(R"({"interval":5000})") << 30000 << 10000 << 5000 << 10000 << false;
    }

    void heartbeatCrossField()
    {
        QFETCH(QByteArray, input);
        QFETCH(int, baseInterval);
        QFETCH(int, baseTimeout);
        QFETCH(int, interval);
        QFETCH(int, timeout);
        QFETCH(bool, valid);

        HeartbeatPolicy base;
        base.intervalMs = baseInterval;
        base.timeoutMs = baseTimeout;
        const auto resolution = resolveHeartbeatPolicy(Server, parse(input), base);
        QCOMPARE(resolution.isValid(), valid);
        QCOMPARE(resolution.policy.intervalMs, interval);
        QCOMPARE(resolution.policy.timeoutMs, timeout);
        if (valid)
            return;
        QCOMPARE(resolution.errors.size(), 1);
        const QString message = resolution.errors.first();
        QVERIFY2(message.contains(Server), qPrintable(message));
        QVERIFY2(message.contains(u"heartbeat.timeoutMs = %1"_s.arg(timeout)), qPrintable(message));
        QVERIFY2(message.contains(u"heartbeat.intervalMs = %1"_s.arg(interval)), qPrintable(message));
        QVERIFY2(message.contains(u"a ping must time out before the next one is due"_s), qPrintable(message));
    }

    void crossFieldSkippedWhenOneSideRejected()
    {
        // The rejected side is not compared with the other: one message, about the bad value.
        const auto r = resolveReconnectPolicy(Server, parse(R"({"initialDelayMs":"x","maxDelayMs":100})"));
        QVERIFY2(r.errors.size() == 1, qPrintable(r.errors.join(u'\n')));
        QVERIFY(r.errors.first().contains(u"reconnect.initialDelayMs"_s));
        const auto r2 = resolveReconnectPolicy(Server, parse(R"({"maxDelayMs":-1})"));
        QVERIFY2(r2.errors.size() == 1, qPrintable(r2.errors.join(u'\n')));
        const auto h = resolveHeartbeatPolicy(Server, parse(R"({"intervalMs":1000,"timeoutMs":"x"})"));
        QVERIFY2(h.errors.size() == 1, qPrintable(h.errors.join(u'\n')));
        QVERIFY(h.errors.first().contains(u"heartbeat.timeoutMs"_s));
    }

    void aliasDisagreesWithCanonical_data()
    {
        QTest::addColumn<QString>("section");
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QString>("aliasPart");
        QTest::addColumn<QString>("canonicalPart");

        QTest::newRow("maxRetries/maxAttempts") << u"reconnect"_s << QByteArray(R"({"maxRetries":5,"maxAttempts":6})")
                                                << u"reconnect.maxRetries = 5"_s << u"reconnect.maxAttempts = 6"_s;
        QTest::newRow("baseDelay/initialDelayMs") << u"reconnect"_s << QByteArray(R"({"baseDelay":1000,"initialDelayMs":2000})")
                                                  << u"reconnect.baseDelay = 1000"_s << u"reconnect.initialDelayMs = 2000"_s;
        QTest::newRow("maxDelay/maxDelayMs") << u"reconnect"_s << QByteArray(R"({"maxDelay":1000,"maxDelayMs":2000})")
                                             << u"reconnect.maxDelay = 1000"_s << u"reconnect.maxDelayMs = 2000"_s;
        QTest::newRow("interval/intervalMs") << u"heartbeat"_s << QByteArray(R"({"interval":20000,"intervalMs":25000})")
                                             << u"heartbeat.interval = 20000"_s << u"heartbeat.intervalMs = 25000"_s;
        QTest::newRow("alias of another type") << u"reconnect"_s << QByteArray(R"({"maxRetries":"5","maxAttempts":5})")
                                               << u"reconnect.maxRetries = \"5\""_s << u"reconnect.maxAttempts = 5"_s;
    }

    void aliasDisagreesWithCanonical()
    {
        QFETCH(QString, section);
        QFETCH(QByteArray, input);
        QFETCH(QString, aliasPart);
        QFETCH(QString, canonicalPart);

        QStringList errors;
        if (section == u"reconnect") {
            const auto resolution = resolveReconnectPolicy(Server, parse(input));
            errors = resolution.errors;
            QCOMPARE(resolution.policy, ReconnectPolicy{}); // neither value is applied
        } else {
            const auto resolution = resolveHeartbeatPolicy(Server, parse(input));
            errors = resolution.errors;
            QCOMPARE(resolution.policy, HeartbeatPolicy{});
        }
        QVERIFY2(errors.size() == 1, qPrintable(errors.join(u'\n')));
        const QString message = errors.first();
        QVERIFY2(message.contains(Server), qPrintable(message));
        QVERIFY2(message.contains(aliasPart), qPrintable(message));
        QVERIFY2(message.contains(canonicalPart), qPrintable(message));
        QVERIFY2(message.contains(u"disagree"_s), qPrintable(message));
    }

    void rejectsUnknownFields_data()
    {
        QTest::addColumn<QString>("section");
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QString>("field");

        QTest::newRow("typo") << u"reconnect"_s << QByteArray(R"({"maxAttempt":3})") << u"reconnect.maxAttempt"_s;
        QTest::newRow("wrong case") << u"reconnect"_s << QByteArray(R"({"Jitter":0.1})") << u"reconnect.Jitter"_s;
        QTest::newRow("heartbeat field in reconnect") << u"reconnect"_s << QByteArray(R"({"intervalMs":1000})") << u"reconnect.intervalMs"_s;
        QTest::newRow("heartbeat alias in reconnect") << u"reconnect"_s << QByteArray(R"({"interval":1000})") << u"reconnect.interval"_s;
        QTest::newRow("reconnect alias in heartbeat") << u"heartbeat"_s << QByteArray(R"({"maxRetries":3})") << u"heartbeat.maxRetries"_s;
        QTest::newRow("heartbeat typo") << u"heartbeat"_s << QByteArray(R"({"timeout":500})") << u"heartbeat.timeout"_s;
        QTest::newRow("stability window is derived") << u"reconnect"_s << QByteArray(R"({"stabilityWindowMs":1000})") << u"reconnect.stabilityWindowMs"_s;
    }

    void rejectsUnknownFields()
    {
        QFETCH(QString, section);
        QFETCH(QByteArray, input);
        QFETCH(QString, field);

        const QStringList errors = section == u"reconnect" ? resolveReconnectPolicy(Server, parse(input)).errors
                                                           : resolveHeartbeatPolicy(Server, parse(input)).errors;
        QVERIFY2(errors.size() == 1, qPrintable(errors.join(u'\n')));
        const QString message = errors.first();
        QVERIFY2(message.contains(Server), qPrintable(message));
        QVERIFY2(message.contains(field + u" = "_s + QString::number(parse(input).begin().value().toDouble())
                                  + u" is not a "_s + section + u" setting"_s),
                 qPrintable(message));
        QVERIFY2(message.contains(u"known: "_s), qPrintable(message));
        QVERIFY2(message.contains(section == u"reconnect" ? u"maxAttempts"_s : u"maxFailures"_s), qPrintable(message));
    }

    void keepsBaseForFieldsNotGiven()
    {
        const ReconnectPolicy base = reconnect(false, 100, 5000, 7, 0.5);
        QCOMPARE(resolveReconnectPolicy(Server, {}, base).policy, base);
        QCOMPARE(resolveReconnectPolicy(Server, parse(R"({"maxAttempts":3})"), base).policy, reconnect(false, 100, 5000, 3, 0.5));
        QCOMPARE(resolveReconnectPolicy(Server, parse(R"({"enabled":true,"jitter":0})"), base).policy,
                 reconnect(true, 100, 5000, 7, 0.0));
        // A rejected field keeps the base value, not the default.
        const auto rejected = resolveReconnectPolicy(Server, parse(R"({"maxAttempts":0,"initialDelayMs":200})"), base);
        QCOMPARE(rejected.errors.size(), 1);
        QCOMPARE(rejected.policy, reconnect(false, 200, 5000, 7, 0.5));

        const HeartbeatPolicy hbase = heartbeat(false, 5000, 1000, 9);
        QCOMPARE(resolveHeartbeatPolicy(Server, {}, hbase).policy, hbase);
        QCOMPARE(resolveHeartbeatPolicy(Server, parse(R"({"maxFailures":2})"), hbase).policy, heartbeat(false, 5000, 1000, 2));
        QCOMPARE(resolveHeartbeatPolicy(Server, parse(R"({"timeoutMs":4000})"), hbase).policy, heartbeat(false, 5000, 4000, 9));
    }

    void baseDelay_data()
    {
        QTest::addColumn<int>("initial");
        QTest::addColumn<int>("max");
        QTest::addColumn<int>("retry");
        QTest::addColumn<qint64>("expected");

        const qint64 defaults[] = {500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000};
        for (int k = 1; k <= 10; ++k)
            QTest::addRow("defaults, retry %d", k) << 500 << 30000 << k << defaults[k - 1];
        QTest::newRow("retry 0 is treated as 1") << 500 << 30000 << 0 << qint64(500);
        QTest::newRow("negative retry is treated as 1") << 500 << 30000 << -5 << qint64(500);
        QTest::newRow("retry 31") << 500 << 30000 << 31 << qint64(30000);
        QTest::newRow("retry 64") << 500 << 30000 << 64 << qint64(30000);
        QTest::newRow("retry 1000") << 500 << 30000 << 1000 << qint64(30000);
        QTest::newRow("retry 2000 (2^1999 is infinite)") << 500 << 30000 << 2000 << qint64(30000);
        QTest::newRow("retry INT_MAX") << 500 << 30000 << INT_MAX << qint64(30000);
        QTest::newRow("largest bounds, retry 1000") << 3600000 << 86400000 << 1000 << qint64(86400000);
        QTest::newRow("largest bounds, retry 5") << 3600000 << 86400000 << 5 << qint64(57600000);
        QTest::newRow("initial = max") << 1000 << 1000 << 7 << qint64(1000);
        QTest::newRow("zero delays") << 0 << 0 << 10 << qint64(0);
        QTest::newRow("initial 0, retry 1000") << 0 << 30000 << 1000 << qint64(0);
        QTest::newRow("initial 0, retry 2000") << 0 << 30000 << 2000 << qint64(0);
        QTest::newRow("initial 0, retry INT_MAX") << 0 << 30000 << INT_MAX << qint64(0);
    }

    void baseDelay()
    {
        QFETCH(int, initial);
        QFETCH(int, max);
        QFETCH(int, retry);
        QFETCH(qint64, expected);

        ReconnectPolicy policy;
        policy.initialDelayMs = initial;
        policy.maxDelayMs = max;
        QCOMPARE(policy.baseDelay(retry).count(), expected);
    }

    void totalRetryTime_data()
    {
        QTest::addColumn<int>("initial");
        QTest::addColumn<int>("max");
        QTest::addColumn<int>("attempts");
        QTest::addColumn<qint64>("expected");

        // 0.5 + 1 + 2 + 4 + 8 + 16 + 30 + 30 + 30 + 30 s
        QTest::newRow("defaults") << 500 << 30000 << 10 << qint64(151500);
        QTest::newRow("one attempt") << 500 << 30000 << 1 << qint64(500);
        QTest::newRow("six attempts, below the cap") << 500 << 30000 << 6 << qint64(31500);
        QTest::newRow("flat") << 1000 << 1000 << 1000 << qint64(1000000);
        QTest::newRow("largest") << 3600000 << 86400000 << 1000
                                 << qint64(3600000LL + 7200000 + 14400000 + 28800000 + 57600000 + 995LL * 86400000);
        QTest::newRow("zero") << 0 << 0 << 1000 << qint64(0);
    }

    void totalRetryTime()
    {
        QFETCH(int, initial);
        QFETCH(int, max);
        QFETCH(int, attempts);
        QFETCH(qint64, expected);

        ReconnectPolicy policy;
        policy.initialDelayMs = initial;
        policy.maxDelayMs = max;
        policy.maxAttempts = attempts;
        QCOMPARE(policy.totalRetryTime().count(), expected);
    }

    void stabilityWindowIsMaxDelay_data()
    {
        QTest::addColumn<int>("max");
        QTest::newRow("default") << 30000;
        QTest::newRow("zero") << 0;
        QTest::newRow("small") << 1234;
        QTest::newRow("largest") << 86400000;
    }

    void stabilityWindowIsMaxDelay()
    {
        QFETCH(int, max);
        ReconnectPolicy policy;
        policy.maxDelayMs = max;
        QCOMPARE(policy.stabilityWindow(), std::chrono::milliseconds(max));
        QCOMPARE(ReconnectPolicy{}.stabilityWindow(), std::chrono::milliseconds(30000));
    }

    void toJsonRoundTrips_data()
    {
        QTest::addColumn<ReconnectPolicy>("r");
        QTest::addColumn<HeartbeatPolicy>("h");

        QTest::newRow("defaults") << ReconnectPolicy{} << HeartbeatPolicy{};
        QTest::newRow("disabled") << reconnect(false, 500, 30000, 10, 0.2) << heartbeat(false, 30000, 10000, 3);
        QTest::newRow("custom") << reconnect(true, 123, 4567, 89, 0.123456789) << heartbeat(true, 777, 555, 42);
        QTest::newRow("lower bounds") << reconnect(true, 0, 0, 1, 0.0) << heartbeat(true, 100, 10, 1);
        QTest::newRow("upper bounds") << reconnect(true, 3600000, 86400000, 1000, 1.0) << heartbeat(true, 86400000, 3600000, 100);
    }

    void toJsonRoundTrips()
    {
        QFETCH(ReconnectPolicy, r);
        QFETCH(HeartbeatPolicy, h);

        const QJsonObject rj = toJson(r);
        QCOMPARE(rj.keys(), (QStringList{u"enabled"_s, u"initialDelayMs"_s, u"jitter"_s, u"maxAttempts"_s, u"maxDelayMs"_s}));
        // Resolve from a base that differs in every field, so nothing passes through untouched.
        const auto rr = resolveReconnectPolicy(Server, rj, reconnect(!r.enabled, 1, 2, 3, 0.9));
        QVERIFY2(rr.isValid(), qPrintable(rr.errors.join(u'\n')));
        QCOMPARE(rr.policy, r);
        // Through text, as a config file would carry it.
        const QJsonObject rText = QJsonDocument::fromJson(QJsonDocument(rj).toJson()).object();
        QCOMPARE(resolveReconnectPolicy(Server, rText).policy, r);

        const QJsonObject hj = toJson(h);
        QCOMPARE(hj.keys(), (QStringList{u"enabled"_s, u"intervalMs"_s, u"maxFailures"_s, u"timeoutMs"_s}));
        const auto hr = resolveHeartbeatPolicy(Server, hj, heartbeat(!h.enabled, 200, 20, 50));
        QVERIFY2(hr.isValid(), qPrintable(hr.errors.join(u'\n')));
        QCOMPARE(hr.policy, h);
        const QJsonObject hText = QJsonDocument::fromJson(QJsonDocument(hj).toJson()).object();
        QCOMPARE(resolveHeartbeatPolicy(Server, hText).policy, h);
    }
};

QTEST_APPLESS_MAIN(TestPolicy)
#include "tst_policy.moc"
