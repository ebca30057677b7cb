#include "supervisor/supervisorcore.h"

#include <QTest>

#include <cmath>
#include <memory>
#include <random>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;
using namespace Tether;
using Action = SupervisorDecision::Action;
using std::chrono::milliseconds;

Q_DECLARE_METATYPE(Tether::ServerState)
Q_DECLARE_METATYPE(Tether::SupervisorDecision::Action)
Q_DECLARE_METATYPE(Tether::ReconnectPolicy)

namespace Tether {
char *toString(ServerState state)
{
    return qstrdup(qPrintable(stateName(state)));
}
} // namespace Tether

QT_BEGIN_NAMESPACE
namespace QTest {
template<>
char *toString(const SupervisorDecision::Action &action)
{
    switch (action) {
    case SupervisorDecision::Action::None: return qstrdup("None");
    case SupervisorDecision::Action::StartAttempt: return qstrdup("StartAttempt");
    case SupervisorDecision::Action::ScheduleRetry: return qstrdup("ScheduleRetry");
    case SupervisorDecision::Action::GiveUp: return qstrdup("GiveUp");
    case SupervisorDecision::Action::WaitForManual: return qstrdup("WaitForManual");
    case SupervisorDecision::Action::WaitForSignIn: return qstrdup("WaitForSignIn");
    }
    return qstrdup("?");
}
} // namespace QTest
QT_END_NAMESPACE

// A fixed origin: every time in these tests is an explicit offset from it.
static const SteadyClock::time_point T0{std::chrono::hours(1000)};

static RandomSource fixedRandom(double value)
{
    return [value] { return value; };
}

// Uniform in [0, 1) from a seeded Mersenne Twister: the same seed gives the same draws.
static RandomSource seededRandom(unsigned seed)
{
    auto engine = std::make_shared<std::mt19937>(seed);
    return [engine] { return std::generate_canonical<double, 53>(*engine); };
}

static ReconnectPolicy policy(int initialDelayMs = 500, int maxDelayMs = 30000, int maxAttempts = 10, double jitter = 0.0,
                              bool enabled = true)
{
    ReconnectPolicy p;
    p.enabled = enabled;
    p.initialDelayMs = initialDelayMs;
    p.maxDelayMs = maxDelayMs;
    p.maxAttempts = maxAttempts;
    p.jitter = jitter;
    return p;
}

static qint64 expectedBase(int initial, int max, int retry)
{
    return std::min<qint64>(qint64(initial) << std::min(retry - 1, 40), max);
}

// Applies one named event; used by the data-driven state tables.
static SupervisorDecision apply(SupervisorCore &core, const QString &event, SteadyClock::time_point now)
{
    if (event == u"start")
        return core.start(now);
    if (event == u"connect")
        return core.connected(now);
    if (event == u"fail")
        return core.attemptFailed(now);
    if (event == u"lose")
        return core.connectionLost(now);
    if (event == u"unfixable")
        return core.unfixableFailure(now);
    if (event == u"signIn")
        return core.signInNeeded(now);
    if (event == u"retryDue")
        return core.retryDue();
    if (event == u"stop")
        return core.stopRequested(now);
    if (event == u"stopFinished")
        return core.stopFinished();
    if (event == u"disable") {
        ReconnectPolicy p = core.policy();
        p.enabled = false;
        return core.setPolicy(p, now);
    }
    qFatal("unknown test event %s", qPrintable(event));
}

class TestSupervisorCore final : public QObject
{
    Q_OBJECT

private slots:
    void initialState()
    {
        const SupervisorCore core(policy(), fixedRandom(0.5));
        QCOMPARE(core.state(), ServerState::Stopped);
        QCOMPARE(core.attempt(), 0);
        QVERIFY(!core.inOutage());
        QVERIFY(!core.outageStartedAt());
        QVERIFY(!core.connectedAt());
        QVERIFY(!core.stableAt());
        QCOMPARE(core.policy(), policy());
    }

    void startThenConnect()
    {
        SupervisorCore core(policy(), fixedRandom(0.5));
        const SupervisorDecision started = core.start(T0);
        QCOMPARE(started.action, Action::StartAttempt);
        QCOMPARE(started.state, ServerState::Starting);
        QCOMPARE(started.delay, 0ms);
        QCOMPARE(core.state(), ServerState::Starting);

        const SupervisorDecision up = core.connected(T0 + 2s);
        QCOMPARE(up.action, Action::None);
        QCOMPARE(up.state, ServerState::Connected);
        QCOMPARE(core.state(), ServerState::Connected);
        QCOMPARE(core.connectedAt(), std::optional(T0 + 2s));
        QVERIFY(!core.inOutage());
        QCOMPARE(core.attempt(), 0);
        QVERIFY(!core.stableAt()); // no outage to end
        QVERIFY(!core.checkStability(T0 + 1h));
    }

    void failureKinds()
    {
        SupervisorCore failing(policy(), fixedRandom(0.5));
        failing.start(T0);
        const SupervisorDecision failed = failing.attemptFailed(T0 + 1s);
        QCOMPARE(failed.action, Action::ScheduleRetry);
        QCOMPARE(failed.state, ServerState::Retrying);
        QCOMPARE(failed.delay, 500ms);
        QCOMPARE(failing.state(), ServerState::Retrying);
        QCOMPARE(failing.attempt(), 1);
        QVERIFY(failing.inOutage());
        QCOMPARE(failing.outageStartedAt(), std::optional(T0 + 1s));

        SupervisorCore losing(policy(), fixedRandom(0.5));
        losing.start(T0);
        losing.connected(T0 + 1s);
        const SupervisorDecision lost = losing.connectionLost(T0 + 5min);
        QCOMPARE(lost.action, Action::ScheduleRetry);
        QCOMPARE(lost.state, ServerState::Reconnecting);
        QCOMPARE(lost.delay, 500ms);
        QCOMPARE(losing.attempt(), 1);
        QVERIFY(losing.inOutage());
        QCOMPARE(losing.outageStartedAt(), std::optional(T0 + 5min));
        QVERIFY(!losing.connectedAt());

        const SupervisorDecision due = losing.retryDue();
        QCOMPARE(due.action, Action::StartAttempt);
        QCOMPARE(due.state, ServerState::Starting);
        QCOMPARE(losing.attempt(), 1); // still retry 1 until it fails
    }

    void neverStartsRunsOnePlusMaxAttempts_data()
    {
        QTest::addColumn<int>("initial");
        QTest::addColumn<int>("max");
        QTest::addColumn<int>("maxAttempts");

        QTest::newRow("defaults") << 500 << 30000 << 10;
        QTest::newRow("one attempt") << 500 << 30000 << 1;
        QTest::newRow("three attempts") << 100 << 1000 << 3;
        QTest::newRow("flat delays") << 2000 << 2000 << 5;
        QTest::newRow("zero delays") << 0 << 0 << 4;
        QTest::newRow("1000 attempts") << 500 << 30000 << 1000;
    }

    void neverStartsRunsOnePlusMaxAttempts()
    {
        QFETCH(int, initial);
        QFETCH(int, max);
        QFETCH(int, maxAttempts);

        SupervisorCore core(policy(initial, max, maxAttempts), fixedRandom(0.0));
        SteadyClock::time_point now = T0;
        int starts = 0;
        SupervisorDecision decision = core.start(now);
        QCOMPARE(decision.action, Action::StartAttempt);
        ++starts;
        const SteadyClock::time_point firstFailure = now + 1s;
        for (;;) {
            now += 1s;
            decision = core.attemptFailed(now);
            if (decision.action == Action::GiveUp)
                break;
            QCOMPARE(decision.action, Action::ScheduleRetry);
            QCOMPARE(decision.state, ServerState::Retrying);
            const int k = core.attempt();
            QCOMPARE(k, starts);
            QCOMPARE(decision.delay.count(), expectedBase(initial, max, k));
            QCOMPARE(core.outageStartedAt(), std::optional(firstFailure));
            now += decision.delay;
            decision = core.retryDue();
            QCOMPARE(decision.action, Action::StartAttempt);
            QCOMPARE(decision.state, ServerState::Starting);
            ++starts;
            QVERIFY(starts <= maxAttempts + 1);
        }
        QCOMPARE(starts, 1 + maxAttempts);
        QCOMPARE(decision.state, ServerState::Failed);
        QCOMPARE(core.state(), ServerState::Failed);
        QCOMPARE(core.attempt(), maxAttempts);

        // Nothing restarts on its own.
        QCOMPARE(core.retryDue().action, Action::None);
        QCOMPARE(core.attemptFailed(now).action, Action::None);
        QCOMPARE(core.connected(now).action, Action::None);
        QCOMPARE(core.state(), ServerState::Failed);
    }

    void retryDelayWithoutJitter_data()
    {
        QTest::addColumn<int>("initial");
        QTest::addColumn<int>("max");
        QTest::addColumn<int>("retry");

        for (int k = 1; k <= 12; ++k)
            QTest::addRow("defaults, retry %d", k) << 500 << 30000 << k;
        QTest::newRow("retry 7 just below the cap") << 500 << 32000 << 7;
        QTest::newRow("retry 8 above a 32000 cap") << 500 << 32000 << 8;
        QTest::newRow("odd bounds, retry 3") << 333 << 1000 << 3;
        QTest::newRow("odd bounds, retry 2") << 333 << 1000 << 2;
        QTest::newRow("initial = max") << 700 << 700 << 9;
        QTest::newRow("largest bounds, retry 6") << 3600000 << 86400000 << 6;
        QTest::newRow("retry 1000") << 500 << 30000 << 1000;
    }

    void retryDelayWithoutJitter()
    {
        QFETCH(int, initial);
        QFETCH(int, max);
        QFETCH(int, retry);

        SupervisorCore core(policy(initial, max, 1000, 0.0), seededRandom(7));
        const qint64 expected = expectedBase(initial, max, retry);
        QCOMPARE(core.retryDelay(retry).count(), expected);
        QCOMPARE(core.policy().baseDelay(retry).count(), expected);
    }

    void scheduledDelaysFollowTheBackoff()
    {
        // The delays the decisions carry, not only retryDelay(): 500, 1000, ..., 16000, 30000 x4.
        SupervisorCore core(policy(), fixedRandom(0.5)); // jitter 0 in policy()
        core.start(T0);
        QList<qint64> delays;
        SteadyClock::time_point now = T0;
        for (int i = 0; i < 10; ++i) {
            now += 1s;
            const SupervisorDecision decision = core.attemptFailed(now);
            QCOMPARE(decision.action, Action::ScheduleRetry);
            delays.append(decision.delay.count());
            core.retryDue();
        }
        QCOMPARE(delays, (QList<qint64>{500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000}));
        qint64 sum = 0;
        for (qint64 d : std::as_const(delays))
            sum += d;
        QCOMPARE(sum, qint64(151500));
        QCOMPARE(sum, core.policy().totalRetryTime().count());
    }

    void stabilityWindow_data()
    {
        QTest::addColumn<int>("maxDelay");
        QTest::addColumn<qint64>("uptimeMs");
        QTest::addColumn<bool>("freshOutage");

        QTest::newRow("lost well before the window") << 30000 << qint64(1000) << false;
        QTest::newRow("lost 1 ms before the window") << 30000 << qint64(29999) << false;
        QTest::newRow("lost exactly at the window") << 30000 << qint64(30000) << true;
        QTest::newRow("lost after the window") << 30000 << qint64(31000) << true;
        QTest::newRow("lost long after the window") << 30000 << qint64(86400000) << true;
        QTest::newRow("small window, before") << 2000 << qint64(1999) << false;
        QTest::newRow("small window, at") << 2000 << qint64(2000) << true;
    }

    void stabilityWindow()
    {
        QFETCH(int, maxDelay);
        QFETCH(qint64, uptimeMs);
        QFETCH(bool, freshOutage);

        SupervisorCore core(policy(100, maxDelay, 10), fixedRandom(0.0));
        core.start(T0);
        core.attemptFailed(T0 + 1s); // the outage begins: retry 1
        core.retryDue();
        core.attemptFailed(T0 + 2s); // retry 2
        core.retryDue();
        QCOMPARE(core.attempt(), 2);
        const SteadyClock::time_point up = T0 + 3s;
        core.connected(up);
        QCOMPARE(core.stableAt(), std::optional(up + milliseconds(maxDelay)));

        const SteadyClock::time_point lostAt = up + milliseconds(uptimeMs);
        const SupervisorDecision decision = core.connectionLost(lostAt);
        QCOMPARE(decision.action, Action::ScheduleRetry);
        QCOMPARE(decision.state, ServerState::Reconnecting);
        if (freshOutage) {
            QCOMPARE(core.attempt(), 1);
            QCOMPARE(core.outageStartedAt(), std::optional(lostAt));
            QCOMPARE(decision.delay, 100ms);
        } else {
            QCOMPARE(core.attempt(), 3);
            QCOMPARE(core.outageStartedAt(), std::optional(T0 + 1s));
            QCOMPARE(decision.delay.count(), expectedBase(100, maxDelay, 3));
        }
    }

    void occasionallyCrashingServerRecoversForever()
    {
        SupervisorCore core(policy(), fixedRandom(0.0)); // defaults with jitter 0
        SteadyClock::time_point now = T0;
        core.start(now);
        now += 1s;
        core.connected(now);
        for (int i = 0; i < 1000; ++i) {
            // Up for at least the stability window, then a crash.
            now += core.policy().stabilityWindow() + milliseconds(i % 7);
            SupervisorDecision decision = core.connectionLost(now);
            QCOMPARE(decision.action, Action::ScheduleRetry);
            QCOMPARE(decision.state, ServerState::Reconnecting);
            QCOMPARE(core.attempt(), 1);
            QCOMPARE(decision.delay, 500ms);
            QCOMPARE(core.outageStartedAt(), std::optional(now));
            // Every third crash, the first retry fails too: still well inside the budget.
            if (i % 3 == 0) {
                now += decision.delay;
                QCOMPARE(core.retryDue().action, Action::StartAttempt);
                now += 200ms;
                decision = core.attemptFailed(now);
                QCOMPARE(decision.action, Action::ScheduleRetry);
                QCOMPARE(decision.state, ServerState::Retrying);
                QCOMPARE(core.attempt(), 2);
                QCOMPARE(decision.delay, 1000ms);
            }
            now += decision.delay;
            QCOMPARE(core.retryDue().action, Action::StartAttempt);
            now += 100ms;
            QCOMPARE(core.connected(now).state, ServerState::Connected);
        }
        QCOMPARE(core.state(), ServerState::Connected);
    }

    void crashLoopExhaustsBudget_data()
    {
        QTest::addColumn<int>("maxAttempts");
        QTest::addColumn<qint64>("uptimeMs");

        QTest::newRow("defaults, up 1 s") << 10 << qint64(1000);
        QTest::newRow("defaults, up just under the window") << 10 << qint64(29999);
        QTest::newRow("defaults, up 0 ms") << 10 << qint64(0);
        QTest::newRow("3 attempts, up 5 s") << 3 << qint64(5000);
        QTest::newRow("1 attempt, up 10 s") << 1 << qint64(10000);
    }

    void crashLoopExhaustsBudget()
    {
        QFETCH(int, maxAttempts);
        QFETCH(qint64, uptimeMs);

        SupervisorCore core(policy(500, 30000, maxAttempts), fixedRandom(0.0));
        SteadyClock::time_point now = T0;
        int starts = 0;
        SupervisorDecision decision = core.start(now);
        for (;;) {
            QCOMPARE(decision.action, Action::StartAttempt);
            ++starts;
            QVERIFY(starts <= maxAttempts + 1);
            now += 300ms;
            QCOMPARE(core.connected(now).state, ServerState::Connected);
            now += milliseconds(uptimeMs);
            QVERIFY(!core.checkStability(now));
            decision = core.connectionLost(now);
            if (decision.action == Action::GiveUp)
                break;
            QCOMPARE(decision.action, Action::ScheduleRetry);
            QCOMPARE(decision.state, ServerState::Reconnecting);
            QCOMPARE(core.attempt(), starts);
            QCOMPARE(decision.delay.count(), expectedBase(500, 30000, starts));
            now += decision.delay;
            decision = core.retryDue();
        }
        QCOMPARE(starts, 1 + maxAttempts);
        QCOMPARE(decision.state, ServerState::Failed);
        QCOMPARE(core.state(), ServerState::Failed);
        QCOMPARE(core.attempt(), maxAttempts);
    }

    void checkStability()
    {
        SupervisorCore core(policy(500, 30000, 10), fixedRandom(0.0));
        QVERIFY(!core.checkStability(T0)); // Stopped
        core.start(T0);
        QVERIFY(!core.checkStability(T0 + 1h)); // Starting
        core.attemptFailed(T0 + 1s);
        QVERIFY(!core.stableAt());
        QVERIFY(!core.checkStability(T0 + 1h)); // Retrying: the outage goes on
        QCOMPARE(core.attempt(), 1);
        core.retryDue();
        QVERIFY(!core.stableAt()); // Starting
        const SteadyClock::time_point up = T0 + 2s;
        core.connected(up);
        QCOMPARE(core.stableAt(), std::optional(up + 30s));

        QVERIFY(!core.checkStability(up));
        QVERIFY(!core.checkStability(up + 29999ms));
        QCOMPARE(core.attempt(), 1);
        QVERIFY(core.inOutage());
        QCOMPARE(core.outageStartedAt(), std::optional(T0 + 1s));

        QVERIFY(core.checkStability(up + 30s));
        QCOMPARE(core.attempt(), 0);
        QVERIFY(!core.inOutage());
        QVERIFY(!core.outageStartedAt());
        QVERIFY(!core.stableAt());
        QCOMPARE(core.state(), ServerState::Connected);
        QCOMPARE(core.connectedAt(), std::optional(up));
        QVERIFY(!core.checkStability(up + 1h)); // already ended

        // The next loss is a fresh outage.
        const SupervisorDecision lost = core.connectionLost(up + 31s);
        QCOMPARE(core.attempt(), 1);
        QCOMPARE(lost.delay, 500ms);
        QCOMPARE(core.outageStartedAt(), std::optional(up + 31s));
    }

    void checkStabilityLateStillEndsOutage()
    {
        // checkStability is not required to be called on time: a late call still ends the outage.
        SupervisorCore core(policy(), fixedRandom(0.0));
        core.start(T0);
        core.attemptFailed(T0);
        core.retryDue();
        core.connected(T0 + 1s);
        QVERIFY(core.checkStability(T0 + 24h));
        QCOMPARE(core.attempt(), 0);
    }

    void jitter_data()
    {
        QTest::addColumn<double>("jitter");
        QTest::addColumn<double>("random");
        QTest::addColumn<int>("retry");
        QTest::addColumn<qint64>("expected");

        const double justBelowOne = std::nextafter(1.0, 0.0);
        QTest::newRow("random 0: factor 1 - j") << 0.2 << 0.0 << 1 << qint64(400);
        QTest::newRow("random 0.5: factor 1") << 0.2 << 0.5 << 1 << qint64(500);
        QTest::newRow("random ~1: factor 1 + j") << 0.2 << justBelowOne << 1 << qint64(600);
        QTest::newRow("random 1: factor 1 + j") << 0.2 << 1.0 << 1 << qint64(600);
        QTest::newRow("random 0.25") << 0.2 << 0.25 << 1 << qint64(450);
        QTest::newRow("retry 4, random 0") << 0.2 << 0.0 << 4 << qint64(3200);
        QTest::newRow("retry 4, random ~1") << 0.2 << justBelowOne << 4 << qint64(4800);
        QTest::newRow("retry 6 (16000), random ~1: 19200 is below the cap") << 0.2 << justBelowOne << 6 << qint64(19200);
        QTest::newRow("capped base, random 0") << 0.2 << 0.0 << 7 << qint64(24000);
        QTest::newRow("capped base, random 0.5") << 0.2 << 0.5 << 7 << qint64(30000);
        QTest::newRow("capped base, random ~1: capped at max") << 0.2 << justBelowOne << 7 << qint64(30000);
        QTest::newRow("capped base, random 0.75: capped at max") << 0.2 << 0.75 << 10 << qint64(30000);
        QTest::newRow("jitter 0, random 0") << 0.0 << 0.0 << 1 << qint64(500);
        QTest::newRow("jitter 0, random ~1") << 0.0 << justBelowOne << 3 << qint64(2000);
        QTest::newRow("jitter 1, random 0: no delay") << 1.0 << 0.0 << 2 << qint64(0);
        QTest::newRow("jitter 1, random ~1: doubled") << 1.0 << justBelowOne << 2 << qint64(2000);
        QTest::newRow("jitter 1, capped base, random ~1") << 1.0 << justBelowOne << 9 << qint64(30000);
        QTest::newRow("jitter 0.5, random 0.1") << 0.5 << 0.1 << 3 << qint64(1200);
    }

    void jitter()
    {
        QFETCH(double, jitter);
        QFETCH(double, random);
        QFETCH(int, retry);
        QFETCH(qint64, expected);

        SupervisorCore core(policy(500, 30000, 10, jitter), fixedRandom(random));
        QCOMPARE(core.retryDelay(retry).count(), expected);
    }

    void jitterAppliesToScheduledRetries()
    {
        SupervisorCore low(policy(500, 30000, 10, 0.2), fixedRandom(0.0));
        low.start(T0);
        QCOMPARE(low.attemptFailed(T0).delay, 400ms);
        SupervisorCore high(policy(500, 30000, 10, 0.2), fixedRandom(std::nextafter(1.0, 0.0)));
        high.start(T0);
        high.connected(T0);
        QCOMPARE(high.connectionLost(T0 + 1s).delay, 600ms);
    }

    void jitterStaysInBoundsAndIsReproducible_data()
    {
        QTest::addColumn<double>("jitter");
        QTest::addColumn<int>("initial");
        QTest::addColumn<int>("max");

        QTest::newRow("defaults") << 0.2 << 500 << 30000;
        QTest::newRow("jitter 0.5") << 0.5 << 100 << 10000;
        QTest::newRow("jitter 1") << 1.0 << 1000 << 60000;
        QTest::newRow("tiny delays") << 0.2 << 1 << 7;
    }

    void jitterStaysInBoundsAndIsReproducible()
    {
        QFETCH(double, jitter);
        QFETCH(int, initial);
        QFETCH(int, max);

        const ReconnectPolicy p = policy(initial, max, 1000, jitter);
        SupervisorCore a(p, seededRandom(12345));
        SupervisorCore b(p, seededRandom(12345));
        SupervisorCore c(p, seededRandom(54321));
        int differences = 0;
        int belowBase = 0;
        int aboveBase = 0;
        for (int draw = 0; draw < 20000; ++draw) {
            const int retry = 1 + draw % 12;
            const qint64 base = expectedBase(initial, max, retry);
            const qint64 lower = qint64(std::floor(double(base) * (1.0 - jitter)));
            const qint64 upper = std::min<qint64>(qint64(std::ceil(double(base) * (1.0 + jitter))), max);
            const qint64 delay = a.retryDelay(retry).count();
            if (delay < lower || delay > upper)
                QFAIL(qPrintable(u"draw %1, retry %2: delay %3 outside [%4, %5]"_s.arg(draw).arg(retry).arg(delay).arg(lower).arg(upper)));
            QCOMPARE(b.retryDelay(retry).count(), delay);
            if (c.retryDelay(retry).count() != delay)
                ++differences;
            belowBase += delay < base;
            aboveBase += delay > base;
        }
        // Another seed draws differently, and the spread goes both ways.
        QVERIFY(differences > 0);
        QVERIFY(belowBase > 0);
        if (initial < max)
            QVERIFY(aboveBase > 0);
    }

    void defaultRandomSourceStaysInBounds()
    {
        SupervisorCore core(policy(500, 30000, 10, 0.2)); // QRandomGenerator
        for (int i = 0; i < 1000; ++i) {
            const qint64 delay = core.retryDelay(1).count();
            QVERIFY2(delay >= 400 && delay <= 600, qPrintable(QString::number(delay)));
            const qint64 capped = core.retryDelay(8).count();
            QVERIFY2(capped >= 24000 && capped <= 30000, qPrintable(QString::number(capped)));
        }
    }

    // A cause no retry can fix: Failed at once from Starting or Connected, with the whole budget
    // left for the next start; with reconnect off, Disconnected as any failure.
    void unfixableFailureGivesUpAtOnce_data()
    {
        QTest::addColumn<QString>("setup");
        QTest::addColumn<bool>("reconnect");
        QTest::addColumn<ServerState>("state");
        QTest::addColumn<Action>("action");
        QTest::newRow("first attempt") << u"start"_s << true << ServerState::Failed << Action::GiveUp;
        QTest::newRow("a retry") << u"start fail retryDue"_s << true << ServerState::Failed << Action::GiveUp;
        QTest::newRow("connected") << u"start connect"_s << true << ServerState::Failed << Action::GiveUp;
        QTest::newRow("reconnect off") << u"start"_s << false << ServerState::Disconnected << Action::WaitForManual;
        QTest::newRow("reconnect off, connected") << u"start connect"_s << false << ServerState::Disconnected
                                                  << Action::WaitForManual;
    }

    void unfixableFailureGivesUpAtOnce()
    {
        QFETCH(QString, setup);
        QFETCH(bool, reconnect);
        QFETCH(ServerState, state);
        QFETCH(Action, action);
        SupervisorCore core(policy(500, 30000, 10, 0.2, reconnect), fixedRandom(0.5));
        SteadyClock::time_point now = T0;
        for (const QString &step : setup.split(u' ')) {
            now += 1s;
            apply(core, step, now);
        }
        const int attempt = core.attempt();
        const SupervisorDecision decision = core.unfixableFailure(now + 1s);
        QCOMPARE(decision.action, action);
        QCOMPARE(decision.state, state);
        QCOMPARE(decision.delay, 0ms);
        QCOMPARE(core.state(), state);
        QCOMPARE(core.attempt(), attempt); // no retry spent
        QVERIFY(core.inOutage());
        QVERIFY(!core.connectedAt());
        // A start afterwards has the whole budget.
        QCOMPARE(core.start(now + 2s).action, Action::StartAttempt);
        QCOMPARE(core.attempt(), 0);
        QVERIFY(!core.inOutage());
    }

    // A server that asks for a sign-in: Sign-in needed from Starting or Connected, whatever the
    // policy, with the outage ended and no retry spent or scheduled; a start leaves it.
    void signInNeededWaitsForTheUser_data()
    {
        QTest::addColumn<QString>("setup");
        QTest::addColumn<bool>("reconnect");
        QTest::newRow("first attempt") << u"start"_s << true;
        QTest::newRow("a retry") << u"start fail retryDue"_s << true;
        QTest::newRow("connected") << u"start connect"_s << true;
        QTest::newRow("reconnected within the stability window") << u"start connect lose retryDue connect"_s << true;
        QTest::newRow("reconnect off") << u"start"_s << false;
        QTest::newRow("reconnect off, connected") << u"start connect"_s << false;
    }

    void signInNeededWaitsForTheUser()
    {
        QFETCH(QString, setup);
        QFETCH(bool, reconnect);
        SupervisorCore core(policy(500, 30000, 10, 0.2, reconnect), fixedRandom(0.5));
        SteadyClock::time_point now = T0;
        for (const QString &step : setup.split(u' ')) {
            now += 1s;
            apply(core, step, now);
        }
        const quint64 outages = core.outages();
        const SupervisorDecision decision = core.signInNeeded(now + 1s);
        QCOMPARE(decision.action, Action::WaitForSignIn);
        QCOMPARE(decision.state, ServerState::SignInNeeded);
        QCOMPARE(decision.delay, 0ms);
        QCOMPARE(core.state(), ServerState::SignInNeeded);
        QCOMPARE(core.attempt(), 0);
        QVERIFY(!core.inOutage());
        QVERIFY(!core.outageStartedAt());
        QVERIFY(!core.connectedAt());
        QCOMPARE(core.outages(), outages); // waiting for a person is no outage
        QCOMPARE(core.retryDue().action, Action::None);
        QCOMPARE(core.state(), ServerState::SignInNeeded);

        const SupervisorDecision restarted = core.start(now + 1h);
        QCOMPARE(restarted.action, Action::StartAttempt);
        QCOMPARE(restarted.state, ServerState::Starting);
        QCOMPARE(core.attempt(), 0);
    }

    void disabledPolicyWaitsForManual()
    {
        const ReconnectPolicy disabled = policy(500, 30000, 10, 0.2, false);

        SupervisorCore failing(disabled, fixedRandom(0.5));
        failing.start(T0);
        const SupervisorDecision failed = failing.attemptFailed(T0 + 1s);
        QCOMPARE(failed.action, Action::WaitForManual);
        QCOMPARE(failed.state, ServerState::Disconnected);
        QCOMPARE(failing.state(), ServerState::Disconnected);
        QCOMPARE(failing.attempt(), 0);
        QCOMPARE(failing.retryDue().action, Action::None);
        QCOMPARE(failing.state(), ServerState::Disconnected);

        SupervisorCore losing(disabled, fixedRandom(0.5));
        losing.start(T0);
        losing.connected(T0 + 1s);
        const SupervisorDecision lost = losing.connectionLost(T0 + 1h);
        QCOMPARE(lost.action, Action::WaitForManual);
        QCOMPARE(lost.state, ServerState::Disconnected);
        QCOMPARE(losing.retryDue().action, Action::None);
        QCOMPARE(losing.connectionLost(T0 + 2h).action, Action::None);
        QCOMPARE(losing.state(), ServerState::Disconnected);

        // Manual recovery.
        const SupervisorDecision restarted = losing.start(T0 + 3h);
        QCOMPARE(restarted.action, Action::StartAttempt);
        QCOMPARE(restarted.state, ServerState::Starting);
        QCOMPARE(losing.attempt(), 0);
        QVERIFY(!losing.inOutage());
    }

    void startAfterFailedGivesFreshBudget()
    {
        SupervisorCore core(policy(500, 30000, 2), fixedRandom(0.0));
        core.start(T0);
        core.attemptFailed(T0 + 1s);
        core.retryDue();
        core.attemptFailed(T0 + 2s);
        core.retryDue();
        QCOMPARE(core.attemptFailed(T0 + 3s).action, Action::GiveUp);
        QCOMPARE(core.state(), ServerState::Failed);

        const SupervisorDecision restarted = core.start(T0 + 1h);
        QCOMPARE(restarted.action, Action::StartAttempt);
        QCOMPARE(restarted.state, ServerState::Starting);
        QCOMPARE(core.attempt(), 0);
        QVERIFY(!core.inOutage());
        QVERIFY(!core.outageStartedAt());

        // A whole new budget: two retries again, from the first delay.
        SupervisorDecision decision = core.attemptFailed(T0 + 1h + 1s);
        QCOMPARE(decision.action, Action::ScheduleRetry);
        QCOMPARE(decision.delay, 500ms);
        QCOMPARE(core.attempt(), 1);
        QCOMPARE(core.outageStartedAt(), std::optional(T0 + 1h + 1s));
        core.retryDue();
        decision = core.attemptFailed(T0 + 1h + 2s);
        QCOMPARE(decision.action, Action::ScheduleRetry);
        QCOMPARE(decision.delay, 1000ms);
        core.retryDue();
        QCOMPARE(core.attemptFailed(T0 + 1h + 3s).action, Action::GiveUp);
    }

    void startAfterDisconnectedGivesFreshBudget()
    {
        SupervisorCore core(policy(500, 30000, 3, 0.0, false), fixedRandom(0.0));
        core.start(T0);
        QCOMPARE(core.attemptFailed(T0 + 1s).action, Action::WaitForManual);
        // Turning reconnect on again waits for the manual start, as before.
        QCOMPARE(core.setPolicy(policy(500, 30000, 3, 0.0, true), T0 + 2s).action, Action::None);
        QCOMPARE(core.state(), ServerState::Disconnected);
        QCOMPARE(core.start(T0 + 1min).action, Action::StartAttempt);
        QCOMPARE(core.attempt(), 0);
        QVERIFY(!core.inOutage());
        for (int k = 1; k <= 3; ++k) {
            const SupervisorDecision decision = core.attemptFailed(T0 + 1min + std::chrono::seconds(k));
            QCOMPARE(decision.action, Action::ScheduleRetry);
            QCOMPARE(core.attempt(), k);
            core.retryDue();
        }
        QCOMPARE(core.attemptFailed(T0 + 2min).action, Action::GiveUp);
    }

    void startWhileConnectedIsAManualReconnect()
    {
        SupervisorCore core(policy(), fixedRandom(0.0));
        core.start(T0);
        core.attemptFailed(T0 + 1s);
        core.retryDue();
        core.connected(T0 + 2s);
        QCOMPARE(core.attempt(), 1);
        const SupervisorDecision decision = core.start(T0 + 3s);
        QCOMPARE(decision.action, Action::StartAttempt);
        QCOMPARE(core.state(), ServerState::Starting);
        QCOMPARE(core.attempt(), 0);
        QVERIFY(!core.inOutage());
        QVERIFY(!core.connectedAt());
    }

    void inertEvents_data()
    {
        QTest::addColumn<QString>("setup");
        QTest::addColumn<QString>("event");
        QTest::addColumn<ServerState>("state");

        QTest::newRow("attemptFailed while Connected") << u"start connect"_s << u"fail"_s << ServerState::Connected;
        QTest::newRow("retryDue while Connected") << u"start connect"_s << u"retryDue"_s << ServerState::Connected;
        QTest::newRow("connected while Connected") << u"start connect"_s << u"connect"_s << ServerState::Connected;
        QTest::newRow("connectionLost while Starting") << u"start"_s << u"lose"_s << ServerState::Starting;
        QTest::newRow("retryDue while Starting") << u"start"_s << u"retryDue"_s << ServerState::Starting;
        QTest::newRow("retryDue while retry attempt Starting") << u"start fail retryDue"_s << u"retryDue"_s << ServerState::Starting;
        QTest::newRow("second attemptFailed") << u"start fail"_s << u"fail"_s << ServerState::Retrying;
        QTest::newRow("connectionLost after attemptFailed") << u"start fail"_s << u"lose"_s << ServerState::Retrying;
        QTest::newRow("connected while Retrying") << u"start fail"_s << u"connect"_s << ServerState::Retrying;
        QTest::newRow("second connectionLost") << u"start connect lose"_s << u"lose"_s << ServerState::Reconnecting;
        QTest::newRow("attemptFailed after connectionLost") << u"start connect lose"_s << u"fail"_s << ServerState::Reconnecting;
        QTest::newRow("connected while Reconnecting") << u"start connect lose"_s << u"connect"_s << ServerState::Reconnecting;
        QTest::newRow("retryDue while Stopped") << QString() << u"retryDue"_s << ServerState::Stopped;
        QTest::newRow("connected while Stopped") << QString() << u"connect"_s << ServerState::Stopped;
        QTest::newRow("attemptFailed while Stopped") << QString() << u"fail"_s << ServerState::Stopped;
        QTest::newRow("connectionLost while Stopped") << QString() << u"lose"_s << ServerState::Stopped;
        QTest::newRow("stopRequested while Stopped") << QString() << u"stop"_s << ServerState::Stopped;
        QTest::newRow("retryDue while Failed") << u"start fail retryDue fail"_s << u"retryDue"_s << ServerState::Failed;
        QTest::newRow("attemptFailed while Failed") << u"start fail retryDue fail"_s << u"fail"_s << ServerState::Failed;
        QTest::newRow("connectionLost while Failed") << u"start fail retryDue fail"_s << u"lose"_s << ServerState::Failed;
        QTest::newRow("connected while Failed") << u"start fail retryDue fail"_s << u"connect"_s << ServerState::Failed;
        QTest::newRow("retryDue while Disconnected") << u"disable start fail"_s << u"retryDue"_s << ServerState::Disconnected;
        QTest::newRow("attemptFailed while Disconnected") << u"disable start fail"_s << u"fail"_s << ServerState::Disconnected;
        QTest::newRow("connected while Disconnected") << u"disable start connect lose"_s << u"connect"_s << ServerState::Disconnected;
        QTest::newRow("retryDue while Stopping (backoff fires after stop)") << u"start fail stop"_s << u"retryDue"_s << ServerState::Stopping;
        QTest::newRow("connected while Stopping") << u"start stop"_s << u"connect"_s << ServerState::Stopping;
        QTest::newRow("attemptFailed while Stopping") << u"start stop"_s << u"fail"_s << ServerState::Stopping;
        QTest::newRow("connectionLost while Stopping") << u"start connect stop"_s << u"lose"_s << ServerState::Stopping;
        QTest::newRow("second stopRequested") << u"start connect stop"_s << u"stop"_s << ServerState::Stopping;
        QTest::newRow("unfixable while Stopped") << QString() << u"unfixable"_s << ServerState::Stopped;
        QTest::newRow("unfixable while Retrying") << u"start fail"_s << u"unfixable"_s << ServerState::Retrying;
        QTest::newRow("unfixable while Failed") << u"start unfixable"_s << u"unfixable"_s << ServerState::Failed;
        QTest::newRow("unfixable while Stopping") << u"start stop"_s << u"unfixable"_s << ServerState::Stopping;
        QTest::newRow("signInNeeded while Stopped") << QString() << u"signIn"_s << ServerState::Stopped;
        QTest::newRow("signInNeeded while Retrying") << u"start fail"_s << u"signIn"_s << ServerState::Retrying;
        QTest::newRow("signInNeeded while Failed") << u"start unfixable"_s << u"signIn"_s << ServerState::Failed;
        QTest::newRow("signInNeeded while Stopping") << u"start stop"_s << u"signIn"_s << ServerState::Stopping;
        QTest::newRow("second signInNeeded") << u"start signIn"_s << u"signIn"_s << ServerState::SignInNeeded;
        QTest::newRow("retryDue while Sign-in needed") << u"start signIn"_s << u"retryDue"_s << ServerState::SignInNeeded;
        QTest::newRow("attemptFailed while Sign-in needed") << u"start signIn"_s << u"fail"_s << ServerState::SignInNeeded;
        QTest::newRow("connectionLost while Sign-in needed") << u"start connect signIn"_s << u"lose"_s << ServerState::SignInNeeded;
        QTest::newRow("connected while Sign-in needed") << u"start signIn"_s << u"connect"_s << ServerState::SignInNeeded;
        QTest::newRow("unfixable while Sign-in needed") << u"start signIn"_s << u"unfixable"_s << ServerState::SignInNeeded;
        QTest::newRow("retryDue after stopFinished") << u"start fail stop stopFinished"_s << u"retryDue"_s << ServerState::Stopped;
    }

    void inertEvents()
    {
        QFETCH(QString, setup);
        QFETCH(QString, event);
        QFETCH(ServerState, state);

        SupervisorCore core(policy(500, 30000, 1), fixedRandom(0.0));
        SteadyClock::time_point now = T0;
        const QStringList steps = setup.split(u' ', Qt::SkipEmptyParts);
        for (const QString &step : steps) {
            now += 1s;
            apply(core, step, now);
        }
        QCOMPARE(core.state(), state);
        const int attempt = core.attempt();
        const bool inOutage = core.inOutage();
        const auto outageStartedAt = core.outageStartedAt();
        const auto connectedAt = core.connectedAt();

        now += 1s;
        const SupervisorDecision decision = apply(core, event, now);
        QCOMPARE(decision.action, Action::None);
        QCOMPARE(decision.state, state);
        QCOMPARE(decision.delay, 0ms);
        QCOMPARE(core.state(), state);
        QCOMPARE(core.attempt(), attempt);
        QCOMPARE(core.inOutage(), inOutage);
        QCOMPARE(core.outageStartedAt(), outageStartedAt);
        if (event != u"stop") // a repeated stop request may drop the connection time
            QCOMPARE(core.connectedAt(), connectedAt);
    }

    void stop_data()
    {
        QTest::addColumn<QString>("setup");
        QTest::newRow("from Starting") << u"start"_s;
        QTest::newRow("from Connected") << u"start connect"_s;
        QTest::newRow("from Retrying") << u"start fail"_s;
        QTest::newRow("from Reconnecting") << u"start connect lose"_s;
        QTest::newRow("from Failed") << u"start fail retryDue fail"_s;
        QTest::newRow("from Disconnected") << u"disable start fail"_s;
        QTest::newRow("from Sign-in needed") << u"start signIn"_s;
    }

    void stop()
    {
        QFETCH(QString, setup);
        SupervisorCore core(policy(500, 30000, 1), fixedRandom(0.0));
        SteadyClock::time_point now = T0;
        for (const QString &step : setup.split(u' ', Qt::SkipEmptyParts)) {
            now += 1s;
            apply(core, step, now);
        }
        const SupervisorDecision stopping = core.stopRequested(now);
        QCOMPARE(stopping.action, Action::None);
        QCOMPARE(stopping.state, ServerState::Stopping);
        QCOMPARE(core.state(), ServerState::Stopping);
        QVERIFY(!core.connectedAt());
        QVERIFY(!core.stableAt());

        const SupervisorDecision stopped = core.stopFinished();
        QCOMPARE(stopped.action, Action::None);
        QCOMPARE(stopped.state, ServerState::Stopped);
        QCOMPARE(core.state(), ServerState::Stopped);
        QCOMPARE(core.attempt(), 0);
        QVERIFY(!core.inOutage());
        QVERIFY(!core.outageStartedAt());
        QVERIFY(!core.connectedAt());

        // Start from Stopped.
        QCOMPARE(core.start(now + 1s).action, Action::StartAttempt);
        QCOMPARE(core.state(), ServerState::Starting);
    }

    void stopFinishedOutsideStoppingIsInert_data()
    {
        QTest::addColumn<QString>("setup");
        QTest::addColumn<ServerState>("state");
        QTest::newRow("while Connected") << u"start connect"_s << ServerState::Connected;
        QTest::newRow("while Retrying") << u"start fail"_s << ServerState::Retrying;
        QTest::newRow("late, after a start that followed the stop request") << u"start connect stop start"_s
                                                                             << ServerState::Starting;
    }

    void stopFinishedOutsideStoppingIsInert()
    {
        QFETCH(QString, setup);
        QFETCH(ServerState, state);
        SupervisorCore core(policy(), fixedRandom(0.0));
        SteadyClock::time_point now = T0;
        for (const QString &step : setup.split(u' ', Qt::SkipEmptyParts)) {
            now += 1s;
            apply(core, step, now);
        }
        QCOMPARE(core.state(), state);
        const SupervisorDecision decision = core.stopFinished();
        QCOMPARE(decision.action, Action::None);
        QCOMPARE(core.state(), state);
    }

    // Events one second apart, each named with the seconds since T0 ("connect@3"); the totals
    // are read at `readAt` seconds.
    void outagesAndConnectedTime_data()
    {
        QTest::addColumn<QString>("events");
        QTest::addColumn<int>("readAt");
        QTest::addColumn<quint64>("outages");
        QTest::addColumn<qint64>("connectedMs");

        QTest::newRow("never started") << QString() << 10 << quint64(0) << qint64(0);
        QTest::newRow("connected now") << u"start@0 connect@1"_s << 11 << quint64(0) << qint64(10000);
        QTest::newRow("lost: one outage, the time before it kept")
            << u"start@0 connect@1 lose@4"_s << 20 << quint64(1) << qint64(3000);
        QTest::newRow("retries within one outage count once")
            << u"start@0 fail@1 retryDue@2 fail@3 retryDue@4 connect@5"_s << 7 << quint64(1) << qint64(2000);
        QTest::newRow("a connection lost within the stability window is the same outage")
            << u"start@0 connect@1 lose@2 retryDue@3 connect@4 lose@5"_s << 9 << quint64(1) << qint64(2000);
        QTest::newRow("a connection that stayed up ended the outage: the next loss begins another")
            << u"start@0 connect@1 lose@2 retryDue@3 connect@4 lose@600"_s << 700 << quint64(2) << qint64(597000);
        QTest::newRow("a manual reconnect is no outage, and keeps the time")
            << u"start@0 connect@1 start@3 connect@4"_s << 6 << quint64(0) << qint64(4000);
        QTest::newRow("stopped: the time up to the stop request")
            << u"start@0 connect@1 stop@5 stopFinished@6"_s << 9 << quint64(0) << qint64(4000);
        QTest::newRow("given up")
            << u"start@0 connect@1 lose@3 retryDue@4 fail@5 retryDue@6 fail@7"_s << 8 << quint64(1) << qint64(2000);
        QTest::newRow("kept after a stop and a fresh start")
            << u"start@0 fail@1 stop@2 stopFinished@3 start@4 connect@5 lose@8"_s << 9 << quint64(2) << qint64(3000);
    }

    void outagesAndConnectedTime()
    {
        QFETCH(QString, events);
        QFETCH(int, readAt);
        QFETCH(quint64, outages);
        QFETCH(qint64, connectedMs);

        SupervisorCore core(policy(500, 30000, 2), fixedRandom(0.0));
        for (const QString &event : events.split(u' ', Qt::SkipEmptyParts)) {
            const QStringList parts = event.split(u'@');
            apply(core, parts.at(0), T0 + std::chrono::seconds(parts.at(1).toInt()));
        }
        QCOMPARE(core.outages(), outages);
        QCOMPARE(core.connectedTime(T0 + std::chrono::seconds(readAt)).count(), connectedMs);
    }

    // A new policy while a retry is scheduled takes effect at once: the retries used are judged
    // against the new budget, and the pending retry waits the new curve's delay for its number,
    // counted from when it was scheduled. Retries k of 1000 ms * 2^(k-1), scheduled at T0 + 1min.
    void policyChangeWhileARetryIsScheduled_data()
    {
        QTest::addColumn<int>("scheduled");      // the k of the retry waiting: "k/10"
        QTest::addColumn<bool>("lost");          // Reconnecting (a lost connection) instead of Retrying
        QTest::addColumn<ReconnectPolicy>("next");
        QTest::addColumn<int>("elapsedMs");      // since the retry was scheduled
        QTest::addColumn<Action>("action");
        QTest::addColumn<ServerState>("state");
        QTest::addColumn<int>("attempt");
        QTest::addColumn<int>("delayMs");        // from the change

        const ReconnectPolicy now = policy(1000, 60000, 10);
        // Budget: retries that already ran (k - 1) spend a budget of k - 1 or less.
        QTest::newRow("6/10 -> 3: spent") << 6 << false << policy(1000, 60000, 3) << 2000 << Action::GiveUp
                                          << ServerState::Failed << 5 << 0;
        QTest::newRow("4/10 -> 3: spent") << 4 << false << policy(1000, 60000, 3) << 0 << Action::GiveUp
                                          << ServerState::Failed << 3 << 0;
        QTest::newRow("3/10 -> 3: the last retry still runs, on time")
            << 3 << false << policy(1000, 60000, 3) << 1000 << Action::None << ServerState::Retrying << 3 << 0;
        QTest::newRow("6/10 -> 20: on time") << 6 << false << policy(1000, 60000, 20) << 1000 << Action::None
                                             << ServerState::Retrying << 6 << 0;
        QTest::newRow("1/10 -> 0: spent") << 1 << false << policy(1000, 60000, 0) << 0 << Action::GiveUp
                                          << ServerState::Failed << 0 << 0;
        QTest::newRow("lost, 2/10 -> 1: spent") << 2 << true << policy(1000, 60000, 1) << 0 << Action::GiveUp
                                                << ServerState::Failed << 1 << 0;
        QTest::newRow("reconnect off") << 3 << false << policy(1000, 60000, 10, 0.0, false) << 500
                                       << Action::WaitForManual << ServerState::Disconnected << 2 << 0;
        QTest::newRow("lost, reconnect off") << 1 << true << policy(1000, 60000, 10, 0.0, false) << 500
                                             << Action::WaitForManual << ServerState::Disconnected << 0 << 0;
        QTest::newRow("the same policy") << 3 << false << now << 500 << Action::None << ServerState::Retrying << 3 << 0;
        // Delay: retry 3 waited 4000 ms; it now waits the new curve's, from when it was scheduled.
        QTest::newRow("shorter, not yet due") << 3 << false << policy(500, 60000, 10) << 500 << Action::ScheduleRetry
                                              << ServerState::Retrying << 3 << 1500;
        QTest::newRow("shorter, already due") << 3 << false << policy(500, 60000, 10) << 3000 << Action::ScheduleRetry
                                              << ServerState::Retrying << 3 << 0;
        QTest::newRow("longer") << 3 << false << policy(2000, 60000, 10) << 1000 << Action::ScheduleRetry
                                << ServerState::Retrying << 3 << 7000;
        QTest::newRow("capped by the new maxDelayMs") << 3 << false << policy(1000, 2500, 10) << 1000
                                                      << Action::ScheduleRetry << ServerState::Retrying << 3 << 1500;
        QTest::newRow("jitter (the lowest draw)") << 3 << false << policy(1000, 60000, 10, 0.5) << 0
                                                  << Action::ScheduleRetry << ServerState::Retrying << 3 << 2000;
        QTest::newRow("lost, shorter and fewer") << 2 << true << policy(250, 60000, 2) << 100 << Action::ScheduleRetry
                                                 << ServerState::Reconnecting << 2 << 400;
    }

    void policyChangeWhileARetryIsScheduled()
    {
        QFETCH(int, scheduled);
        QFETCH(bool, lost);
        QFETCH(ReconnectPolicy, next);
        QFETCH(int, elapsedMs);
        QFETCH(Action, action);
        QFETCH(ServerState, state);
        QFETCH(int, attempt);
        QFETCH(int, delayMs);

        SupervisorCore core(policy(1000, 60000, 10), fixedRandom(0.0));
        core.start(T0);
        for (int k = 1; k <= scheduled; ++k) {
            const SteadyClock::time_point at = k == scheduled ? T0 + 1min : T0 + std::chrono::seconds(k);
            if (k > 1)
                core.retryDue();
            if (lost) {
                core.connected(at - 1ms); // up for less than the stability window: the same outage
                QCOMPARE(core.connectionLost(at).action, Action::ScheduleRetry);
            } else {
                QCOMPARE(core.attemptFailed(at).action, Action::ScheduleRetry);
            }
        }
        QCOMPARE(core.attempt(), scheduled);
        QCOMPARE(core.retryScheduledAt(), std::optional(T0 + 1min));

        const SupervisorDecision decision = core.setPolicy(next, T0 + 1min + milliseconds(elapsedMs));
        QCOMPARE(decision.action, action);
        QCOMPARE(decision.state, state);
        QCOMPARE(decision.delay, milliseconds(delayMs));
        QCOMPARE(core.state(), state);
        QCOMPARE(core.attempt(), attempt);
        QCOMPARE(core.policy(), next);

        if (action == Action::GiveUp || action == Action::WaitForManual) {
            QVERIFY(!core.retryScheduledAt());
            QCOMPARE(core.retryDue().action, Action::None); // a timer that fired anyway starts nothing
            QCOMPARE(core.state(), state);
            QCOMPARE(core.start(T0 + 1h).action, Action::StartAttempt); // a manual start has a fresh budget
            QCOMPARE(core.attempt(), 0);
            return;
        }
        QCOMPARE(core.retryScheduledAt(), std::optional(T0 + 1min)); // the schedule's origin stays
        // The retry runs, and its failure is judged by the new policy too.
        QCOMPARE(core.retryDue().action, Action::StartAttempt);
        const SupervisorDecision afterwards = core.attemptFailed(T0 + 2min);
        if (attempt >= next.maxAttempts) {
            QCOMPARE(afterwards.action, Action::GiveUp);
        } else {
            QCOMPARE(afterwards.action, Action::ScheduleRetry);
            QCOMPARE(core.attempt(), attempt + 1);
        }
    }

    // Two changes in a row both count from when the retry was scheduled, not from the last change.
    void repeatedPolicyChangesCountFromTheSchedule()
    {
        SupervisorCore core(policy(1000, 60000, 10), fixedRandom(0.0));
        core.start(T0);
        core.attemptFailed(T0 + 1s); // retry 1 in 1000 ms
        const SupervisorDecision longer = core.setPolicy(policy(5000, 60000, 10), T0 + 1s + 800ms);
        QCOMPARE(longer.action, Action::ScheduleRetry);
        QCOMPARE(longer.delay, 4200ms);
        const SupervisorDecision shorter = core.setPolicy(policy(2000, 60000, 10), T0 + 1s + 1500ms);
        QCOMPARE(shorter.action, Action::ScheduleRetry);
        QCOMPARE(shorter.delay, 500ms);
        // Only the budget changes: the retry keeps its time.
        QCOMPARE(core.setPolicy(policy(2000, 60000, 4), T0 + 1s + 1600ms).action, Action::None);
        QCOMPARE(core.attempt(), 1);
        QCOMPARE(core.retryScheduledAt(), std::optional(T0 + 1s));
    }

    // Outside a scheduled retry a new policy changes nothing visible; the next decision uses it.
    void policyChangeElsewhereWaitsForTheNextDecision_data()
    {
        QTest::addColumn<QString>("setup");
        QTest::addColumn<ServerState>("state");

        QTest::newRow("Stopped") << QString() << ServerState::Stopped;
        QTest::newRow("Starting") << u"start"_s << ServerState::Starting;
        QTest::newRow("Starting a retry") << u"start fail fail retryDue"_s << ServerState::Starting;
        QTest::newRow("Connected") << u"start connect"_s << ServerState::Connected;
        QTest::newRow("Connected after an outage") << u"start fail fail retryDue connect"_s << ServerState::Connected;
        QTest::newRow("Failed") << u"start fail fail retryDue fail retryDue fail"_s << ServerState::Failed;
        QTest::newRow("Disconnected") << u"disable start fail"_s << ServerState::Disconnected;
        QTest::newRow("Sign-in needed") << u"start signIn"_s << ServerState::SignInNeeded;
        QTest::newRow("Stopping") << u"start fail stop"_s << ServerState::Stopping;
    }

    void policyChangeElsewhereWaitsForTheNextDecision()
    {
        QFETCH(QString, setup);
        QFETCH(ServerState, state);

        SupervisorCore core(policy(500, 30000, 2), fixedRandom(0.0));
        SteadyClock::time_point now = T0;
        for (const QString &step : setup.split(u' ', Qt::SkipEmptyParts)) {
            now += 1s;
            apply(core, step, now);
        }
        QCOMPARE(core.state(), state);
        const int attempt = core.attempt();
        // Reconnect turned on for a Disconnected server, off for the others: still nothing at once.
        const SupervisorDecision decision = core.setPolicy(policy(100, 200, 0, 0.0, state == ServerState::Disconnected),
                                                           now + 1h);
        QCOMPARE(decision.action, Action::None);
        QCOMPARE(decision.state, state);
        QCOMPARE(core.state(), state);
        QCOMPARE(core.attempt(), attempt);
        QVERIFY(!core.retryScheduledAt());
        QCOMPARE(core.policy().maxAttempts, 0);
    }

    // Outside a scheduled retry a new policy changes nothing at once.
    void setPolicyTakesEffectAtTheNextDecision()
    {
        SupervisorCore core(policy(500, 30000, 10), fixedRandom(0.0));
        core.start(T0);
        QCOMPARE(core.attemptFailed(T0 + 1s).delay, 500ms); // retry 1
        core.retryDue();

        // New delays from the next failure: retry 2 of the new curve.
        QCOMPARE(core.setPolicy(policy(1000, 60000, 10), T0 + 1500ms).action, Action::None);
        QCOMPARE(core.policy(), policy(1000, 60000, 10));
        QCOMPARE(core.state(), ServerState::Starting); // nothing changes until an event
        QCOMPARE(core.attemptFailed(T0 + 2s).delay, 2000ms);
        QCOMPARE(core.attempt(), 2);
        core.retryDue();

        // The stability window follows the new maxDelayMs.
        core.connected(T0 + 3s);
        QCOMPARE(core.stableAt(), std::optional(T0 + 3s + 60s));
        QCOMPARE(core.setPolicy(policy(1000, 5000, 10), T0 + 4s).action, Action::None);
        QCOMPARE(core.stableAt(), std::optional(T0 + 3s + 5s));
        QCOMPARE(core.connectionLost(T0 + 3s + 4s).delay, 4000ms); // still the same outage: retry 3
        QCOMPARE(core.attempt(), 3);
        core.retryDue();

        // A smaller budget ends the outage at the next failure.
        QCOMPARE(core.setPolicy(policy(1000, 5000, 3), T0 + 9s).action, Action::None); // retry 3 is under way
        QCOMPARE(core.attemptFailed(T0 + 10s).action, Action::GiveUp);
        QCOMPARE(core.state(), ServerState::Failed);

        // Disabling reconnect: the next failure waits for a manual action.
        core.start(T0 + 1min);
        QCOMPARE(core.setPolicy(policy(1000, 5000, 3, 0.0, false), T0 + 1min).action, Action::None);
        const SupervisorDecision decision = core.attemptFailed(T0 + 1min + 1s);
        QCOMPARE(decision.action, Action::WaitForManual);
        QCOMPARE(decision.state, ServerState::Disconnected);

        // Jitter too.
        SupervisorCore jittered(policy(500, 30000, 10, 0.0), fixedRandom(0.0));
        QCOMPARE(jittered.retryDelay(1), 500ms);
        jittered.setPolicy(policy(500, 30000, 10, 0.2), T0);
        QCOMPARE(jittered.retryDelay(1), 400ms);
    }
};

QTEST_APPLESS_MAIN(TestSupervisorCore)
#include "tst_supervisorcore.moc"
