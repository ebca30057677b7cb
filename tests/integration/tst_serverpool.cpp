// Several sessions of one server, for servers that answer one request at a time.
#include "manager/serverpool.h"
#include "support/demoserverconfig.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

ServerConfig pooled(int min, int max, int maxQueue = 64)
{
    ServerConfig config = demoServerConfig(u"pooled"_s);
    config.pool = {min, max, maxQueue};
    config.poolConfigured = true;
    return config;
}

struct Calls
{
    void issue(ServerPool &pool, int count, int sleepMs)
    {
        for (int i = 0; i < count; ++i) {
            pool.callTool(u"sleep"_s, {{u"ms"_s, sleepMs}}, [this](const ToolCallReply &reply) {
                replies.append(reply);
                if (replies.size() == 1)
                    firstDoneMs = elapsed.elapsed();
            });
        }
    }

    QElapsedTimer elapsed;
    QList<ToolCallReply> replies;
    qint64 firstDoneMs = 0;
};

void stop(ServerPool &pool)
{
    QSignalSpy stopped(&pool, &ServerPool::stopped);
    pool.stop();
    QTRY_COMPARE_WITH_TIMEOUT(stopped.size(), 1, 10000);
}

} // namespace

class TestServerPool final : public QObject
{
    Q_OBJECT

private slots:
    void concurrentCallsRunOnAsManySessions()
    {
        ToolRegistry registry;
        ServerPool pool(pooled(1, 4), &registry, std::chrono::milliseconds(300));
        pool.start();
        QTRY_COMPARE_WITH_TIMEOUT(pool.state(), ServerState::Connected, 10000);
        QCOMPARE(registry.count(), 12); // the extra sessions do not register their tools again

        Calls calls;
        calls.elapsed.start();
        calls.issue(pool, 4, 600);
        QTRY_COMPARE_WITH_TIMEOUT(calls.replies.size(), 4, 10000);
        const qint64 total = calls.elapsed.elapsed();
        for (const ToolCallReply &reply : std::as_const(calls.replies))
            QVERIFY2(!reply.error, reply.error ? qPrintable(reply.error->message) : "");
        // About one call's time (plus starting three sessions), far from four calls' 2400 ms.
        QVERIFY2(total < 1800, qPrintable(QString::number(total)));
        QCOMPARE(pool.sessionCount(), 4);
        QCOMPARE(registry.count(), 12);

        // Idle sessions above min close again.
        QTRY_COMPARE_WITH_TIMEOUT(pool.sessionCount(), 1, 5000);
        QCOMPARE(pool.status().sessions, 1);
        stop(pool);
        QCOMPARE(registry.count(), 0);
    }

    void oneSessionTakesOneCallAtATime()
    {
        ToolRegistry registry;
        ServerPool pool(pooled(1, 1), &registry);
        pool.start();
        QTRY_COMPARE_WITH_TIMEOUT(pool.state(), ServerState::Connected, 10000);
        Calls calls;
        calls.elapsed.start();
        calls.issue(pool, 3, 300);
        QTRY_COMPARE_WITH_TIMEOUT(calls.replies.size(), 3, 10000);
        QVERIFY2(calls.elapsed.elapsed() >= 900, qPrintable(QString::number(calls.elapsed.elapsed())));
        QVERIFY(calls.firstDoneMs < 600);
        QCOMPARE(pool.sessionCount(), 1);
        stop(pool);
    }

    void aFullQueueIsRefusedClearly()
    {
        ToolRegistry registry;
        ServerPool pool(pooled(1, 1, 1), &registry);
        pool.start();
        QTRY_COMPARE_WITH_TIMEOUT(pool.state(), ServerState::Connected, 10000);
        Calls calls;
        calls.elapsed.start();
        calls.issue(pool, 3, 300); // one runs, one waits, one is refused
        QTRY_COMPARE_WITH_TIMEOUT(calls.replies.size(), 1, 10000);
        QVERIFY(calls.replies.first().error.has_value());
        QVERIFY2(calls.replies.first().error->message.contains(u"is busy"_s)
                     && calls.replies.first().error->message.contains(u"pool.maxQueue 1"_s),
                 qPrintable(calls.replies.first().error->message));
        QTRY_COMPARE_WITH_TIMEOUT(calls.replies.size(), 3, 10000);
        QVERIFY(!calls.replies.at(1).error);
        QVERIFY(!calls.replies.at(2).error);
        stop(pool);
    }

    // A reconnect budget lowered while every session waits for a retry fails them all at once:
    // the extra sessions leave the pool as they fail, the first one stays to show Failed.
    void aSpentBudgetFailsEverySessionAtOnce()
    {
        ServerConfig config = pooled(3, 3);
        config.command = demoServer({u"--fail-at-startup"_s});
        config.reconnect.initialDelayMs = 5000;
        config.reconnect.maxDelayMs = 10000;
        ToolRegistry registry;
        ServerPool pool(config, &registry);
        QSignalSpy refusals(&pool, &ServerPool::stderrLine);
        pool.start();
        QCOMPARE(pool.sessionCount(), 3);
        QTRY_COMPARE_WITH_TIMEOUT(refusals.size(), 3, 10000); // every session's server refused to start
        QTRY_COMPARE_WITH_TIMEOUT(pool.state(), ServerState::Retrying, 10000);
        QCOMPARE(pool.status().attempt, 1);

        ReconnectPolicy none = config.reconnect;
        none.maxAttempts = 0;
        pool.setPolicies(none, config.heartbeat);
        QCOMPARE(pool.state(), ServerState::Failed);
        QVERIFY2(pool.status().reason.startsWith(u"gave up: the new reconnect policy allows 0 retries"_s),
                 qPrintable(pool.status().reason));
        QTRY_COMPARE_WITH_TIMEOUT(pool.sessionCount(), 1, 5000);
        stop(pool);
    }

    void withoutAPoolCallsShareTheSession()
    {
        ToolRegistry registry;
        ServerConfig config = pooled(1, 1);
        config.poolConfigured = false;
        ServerPool pool(config, &registry);
        pool.start();
        QTRY_COMPARE_WITH_TIMEOUT(pool.state(), ServerState::Connected, 10000);
        Calls calls;
        calls.elapsed.start();
        calls.issue(pool, 3, 400);
        QTRY_COMPARE_WITH_TIMEOUT(calls.replies.size(), 3, 10000);
        QVERIFY2(calls.elapsed.elapsed() < 1000, qPrintable(QString::number(calls.elapsed.elapsed())));
        QCOMPARE(pool.sessionCount(), 1);
        stop(pool);
    }
};

QTEST_GUILESS_MAIN(TestServerPool)
#include "tst_serverpool.moc"
