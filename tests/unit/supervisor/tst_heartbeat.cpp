#include "supervisor/heartbeat.h"
#include "support/policyprinters.h"

#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;
using namespace Tether;

Q_DECLARE_METATYPE(Tether::RpcReply)

// A connection that takes pings and holds their replies until the test answers them.
class PingPeer final : public QObject
{
    Q_OBJECT

public:
    bool ready = true;
    QString probe = u"ping"_s;                 // what the connection sends: "server/discover" when stateless
    QList<std::chrono::milliseconds> timeouts; // of every ping sent
    QList<ReplyHandler> waiting;               // oldest first

    Heartbeat::PingSender sender()
    {
        return [this](std::chrono::milliseconds timeout, ReplyHandler onReply) -> std::optional<QString> {
            if (!ready)
                return std::nullopt;
            timeouts.append(timeout);
            waiting.append(std::move(onReply));
            emit pingSent();
            return probe;
        };
    }

    int pings() const { return int(timeouts.size()); }
    // Waits until `count` pings were sent, and no more.
    bool pinged(int count)
    {
        QSignalSpy sent(this, &PingPeer::pingSent);
        while (pings() < count && sent.wait(2000)) {
        }
        return pings() == count;
    }
    // Answers the oldest ping still waiting.
    void answer(const RpcReply &reply) { waiting.takeFirst()(reply); }

signals:
    void pingSent();
};

namespace {

RpcReply resultReply()
{
    return {QJsonObject{}, std::nullopt};
}

// An error the server itself answered.
RpcReply serverError(int code, const QString &message)
{
    return {{}, JsonRpc::Error{code, message, {}}, true};
}

RpcReply timeoutReply()
{
    return RpcReply::failure(JsonRpc::RequestTimeout, u"'ping' timed out"_s);
}

HeartbeatPolicy fastPolicy(int maxFailures = 3)
{
    return {true, 2, 20, maxFailures};
}

// One heartbeat over one PingPeer, with spies on everything it says.
struct Harness
{
    explicit Harness(const HeartbeatPolicy &policy = fastPolicy())
        : heartbeat(policy, peer.sender())
    {}

    QTimer *timer() { return heartbeat.findChild<QTimer *>(); }

    // Waits for the next ping and leaves it unanswered.
    bool miss()
    {
        const int sent = peer.pings();
        if (!peer.pinged(sent + 1))
            return false;
        peer.answer(timeoutReply());
        return true;
    }

    bool answered(const RpcReply &reply = resultReply())
    {
        const int sent = peer.pings();
        if (!peer.pinged(sent + 1))
            return false;
        peer.answer(reply);
        return true;
    }

    // Lets the interval pass `count` times.
    bool ticked(int count)
    {
        QSignalSpy ticks(timer(), &QTimer::timeout);
        while (ticks.count() < count && ticks.wait(2000)) {
        }
        return ticks.count() >= count;
    }

    PingPeer peer;
    Heartbeat heartbeat;
    QSignalSpy missed{&heartbeat, &Heartbeat::missed};
    QSignalSpy answeredAgain{&heartbeat, &Heartbeat::answeredAgain};
    QSignalSpy lost{&heartbeat, &Heartbeat::lost};
};

} // namespace

class TestHeartbeat final : public QObject
{
    Q_OBJECT

private slots:
    void init()
    {
        // Any Qt warning (a bad connect, a timer misuse, …) fails the test.
        QTest::failOnWarning(QRegularExpression(u".*"_s));
    }

    void pingsEveryIntervalOneAtATime()
    {
        Harness h;
        QVERIFY(!h.timer()->isActive());
        h.heartbeat.start();
        QVERIFY(h.timer()->isActive());
        QCOMPARE(h.timer()->interval(), 2);

        QVERIFY(h.peer.pinged(1));
        QCOMPARE(h.peer.timeouts.first(), 20ms);
        // Ticks while the ping waits for its reply send no second one.
        QVERIFY(h.ticked(3));
        QCOMPARE(h.peer.pings(), 1);

        h.peer.answer(resultReply());
        QVERIFY(h.peer.pinged(2));
        QCOMPARE(h.missed.count(), 0);
        QCOMPARE(h.answeredAgain.count(), 0); // nothing was missed
        QCOMPARE(h.lost.count(), 0);
    }

    void noPingWithoutAReadyConnection()
    {
        Harness h;
        h.peer.ready = false;
        h.heartbeat.start();
        QVERIFY(h.ticked(3));
        QCOMPARE(h.peer.pings(), 0);
        // A ping that could not be sent is not waited for.
        h.peer.ready = true;
        QVERIFY(h.peer.pinged(1));
    }

    void disabledPolicyNeverPings()
    {
        HeartbeatPolicy policy = fastPolicy();
        policy.enabled = false;
        Harness h(policy);
        h.heartbeat.start();
        QVERIFY(!h.timer()->isActive());
    }

    void missesInARowAreALoss_data()
    {
        QTest::addColumn<int>("maxFailures");
        QTest::newRow("1") << 1;
        QTest::newRow("3 (default)") << 3;
        QTest::newRow("5") << 5;
        QTest::newRow("100") << 100;
    }

    void missesInARowAreALoss()
    {
        QFETCH(int, maxFailures);
        Harness h(fastPolicy(maxFailures));
        h.heartbeat.start();
        QCOMPARE(h.heartbeat.misses(), 0);

        // maxFailures - 1 misses in a row are tolerated; the next one is the loss.
        for (int i = 1; i < maxFailures; ++i) {
            QVERIFY(h.miss());
            QCOMPARE(h.heartbeat.misses(), i);
            QCOMPARE(h.missed.count(), i);
            QCOMPARE(h.missed.last(), (QVariantList{i, maxFailures}));
        }
        QCOMPARE(h.lost.count(), 0);
        QVERIFY(h.miss());
        QCOMPARE(h.lost.count(), 1);
        QCOMPARE(h.heartbeat.misses(), maxFailures);
        QCOMPARE(h.missed.count(), maxFailures - 1);

        // Any answer resets the run.
        QVERIFY(h.answered());
        QCOMPARE(h.heartbeat.misses(), 0);
        QCOMPARE(h.answeredAgain.count(), 1);
        for (int i = 1; i < maxFailures; ++i)
            QVERIFY(h.miss());
        QVERIFY(h.answered());
        for (int i = 1; i < maxFailures; ++i)
            QVERIFY(h.miss());
        QCOMPARE(h.lost.count(), 1); // not maxFailures in a row: the answer interrupted them
        QVERIFY(h.miss());
        QCOMPARE(h.lost.count(), 2);

        h.heartbeat.clearMisses();
        QCOMPARE(h.heartbeat.misses(), 0);
        QVERIFY(h.miss());
        QCOMPARE(h.lost.count(), maxFailures > 1 ? 2 : 3);
    }

    void interleavedMissesAndAnswers()
    {
        Harness h(fastPolicy(3));
        h.heartbeat.start();
        // miss, miss, answer, miss, miss, miss with maxFailures 3: only the last miss is the loss.
        QVERIFY(h.miss());
        QVERIFY(h.miss());
        QVERIFY(h.answered());
        QVERIFY(h.miss());
        QVERIFY(h.miss());
        QCOMPARE(h.heartbeat.misses(), 2);
        QCOMPARE(h.lost.count(), 0);
        QVERIFY(h.miss());
        QCOMPARE(h.heartbeat.misses(), 3);
        QCOMPARE(h.lost.count(), 1);
        QCOMPARE(h.answeredAgain.count(), 1);
    }

    void anyAnswerOfTheServerProvesItAlive_data()
    {
        QTest::addColumn<QString>("probe");
        QTest::addColumn<RpcReply>("reply");
        QTest::addColumn<int>("missesAfter"); // after one miss before it

        const QString ping = u"ping"_s;
        const QString discover = u"server/discover"_s;
        QTest::newRow("result") << ping << resultReply() << 0;
        QTest::newRow("internal error") << ping << serverError(JsonRpc::InternalError, u"busy"_s) << 0;
        // A server that does not implement ping is not proved alive by refusing it.
        QTest::newRow("ping refused") << ping << serverError(JsonRpc::MethodNotFound, u"Method not found"_s) << 2;
        // A stateless server's probe is server/discover, which every such server answers.
        QTest::newRow("discover answered") << discover << resultReply() << 0;
        QTest::newRow("discover refused") << discover << serverError(JsonRpc::InternalError, u"busy"_s) << 2;
        // Errors the transport or the session made up are no answer of the server.
        QTest::newRow("timeout") << ping << timeoutReply() << 2;
        QTest::newRow("transport error")
            << ping << RpcReply::failure(JsonRpc::TransportError, u"http://proxy/mcp answered 'ping' with HTTP 502"_s) << 2;
        // The session reports the loss itself: the ping neither proves nor disproves anything.
        QTest::newRow("connection closed") << ping << RpcReply::failure(JsonRpc::ConnectionClosed, u"closed"_s) << 1;
    }

    void anyAnswerOfTheServerProvesItAlive()
    {
        QFETCH(QString, probe);
        QFETCH(RpcReply, reply);
        QFETCH(int, missesAfter);
        Harness h(fastPolicy(3));
        h.peer.probe = probe;
        h.heartbeat.start();
        QVERIFY(h.miss());
        QCOMPARE(h.heartbeat.misses(), 1);

        QVERIFY(h.answered(reply));
        QCOMPARE(h.heartbeat.misses(), missesAfter);
        QCOMPARE(h.answeredAgain.count(), missesAfter == 0 ? 1 : 0);
        QCOMPARE(h.missed.count(), missesAfter == 2 ? 2 : 1);
        QCOMPARE(h.lost.count(), 0);
        // Whatever came back, the next ping goes out.
        QVERIFY(h.peer.pinged(3));
    }

    void lossReasonSaysHow_data()
    {
        QTest::addColumn<int>("maxFailures");
        QTest::addColumn<RpcReply>("reply");
        QTest::addColumn<QString>("reason");

        QTest::newRow("one ping timed out")
            << 1 << timeoutReply() << u"heartbeat: a ping got no answer within 20 ms"_s;
        QTest::newRow("pings timed out")
            << 2 << timeoutReply() << u"heartbeat: 2 pings in a row got no answer within 20 ms"_s;
        QTest::newRow("transport error")
            << 2 << RpcReply::failure(JsonRpc::TransportError, u"http://proxy/mcp answered 'ping' with HTTP 502"_s)
            << u"heartbeat: 2 pings in a row got no answer: http://proxy/mcp answered 'ping' with HTTP 502"_s;
        QTest::newRow("ping refused")
            << 3 << serverError(JsonRpc::MethodNotFound, u"Method not found"_s)
            << u"heartbeat: 3 pings in a row (ping) were refused: -32601 Method not found"_s;
    }

    void lossReasonSaysHow()
    {
        QFETCH(int, maxFailures);
        QFETCH(RpcReply, reply);
        QFETCH(QString, reason);
        Harness h(fastPolicy(maxFailures));
        h.heartbeat.start();
        for (int i = 0; i < maxFailures; ++i)
            QVERIFY(h.answered(reply));
        QCOMPARE(h.lost.count(), 1);
        QCOMPARE(h.lost.first().first().toString(), reason);
    }

    void stopEndsThePingsAndALateReplyIsIgnored()
    {
        Harness h(fastPolicy(1));
        h.heartbeat.start();
        QVERIFY(h.peer.pinged(1));
        h.heartbeat.stop();
        QVERIFY(!h.timer()->isActive());

        // The connection ended before its ping was answered; the reply comes late.
        h.peer.answer(timeoutReply());
        QCOMPARE(h.heartbeat.misses(), 0);
        QCOMPARE(h.lost.count(), 0);

        // The next connection: the ping of the last one is not waited for, and its reply,
        // should it come now, is not counted.
        h.heartbeat.start();
        QVERIFY(h.peer.pinged(2));
        h.heartbeat.stop();
        h.heartbeat.start();
        QVERIFY(h.peer.pinged(3));
        h.peer.answer(timeoutReply()); // ping 2, of the connection before
        QCOMPARE(h.heartbeat.misses(), 0);
        QCOMPARE(h.lost.count(), 0);
        h.peer.answer(timeoutReply()); // ping 3, of this connection
        QCOMPARE(h.heartbeat.misses(), 1);
        QCOMPARE(h.lost.count(), 1);
    }

    void missesOutliveTheConnectionUntilCleared()
    {
        Harness h(fastPolicy(2));
        h.heartbeat.start();
        QVERIFY(h.miss());
        QVERIFY(h.miss());
        QCOMPARE(h.lost.count(), 1);
        h.heartbeat.stop();
        // The status still shows why the connection was lost.
        QCOMPARE(h.heartbeat.misses(), 2);
        h.heartbeat.clearMisses();
        QCOMPARE(h.heartbeat.misses(), 0);
    }

    void policyChangeIsAppliedAtOnce()
    {
        Harness h(fastPolicy(3));
        // Not running: kept for the next start.
        h.heartbeat.setPolicy({true, 7, 30, 3});
        QVERIFY(!h.timer()->isActive());
        h.heartbeat.start();
        QVERIFY(h.timer()->isActive());
        QCOMPARE(h.timer()->interval(), 7);
        QVERIFY(h.peer.pinged(1));
        QCOMPARE(h.peer.timeouts.last(), 30ms);

        // Running with a ping in flight: the interval restarts, the ping is still waited for
        // and its reply is judged by the new policy.
        h.heartbeat.setPolicy({true, 9, 40, 1});
        QCOMPARE(h.heartbeat.policy(), (HeartbeatPolicy{true, 9, 40, 1}));
        QVERIFY(h.timer()->isActive());
        QCOMPARE(h.timer()->interval(), 9);
        QVERIFY(h.ticked(2));
        QCOMPARE(h.peer.pings(), 1);
        h.peer.answer(timeoutReply());
        QCOMPARE(h.lost.count(), 1);
        QVERIFY(h.peer.pinged(2));
        QCOMPARE(h.peer.timeouts.last(), 40ms);

        // Disabled, then enabled again, while the connection is up.
        h.heartbeat.setPolicy({false, 9, 40, 1});
        QVERIFY(!h.timer()->isActive());
        h.heartbeat.setPolicy({true, 11, 40, 1});
        QVERIFY(h.timer()->isActive());
        QCOMPARE(h.timer()->interval(), 11);

        // Enabled after the connection ended: nothing pings.
        h.heartbeat.stop();
        h.heartbeat.setPolicy({true, 5, 20, 3});
        QVERIFY(!h.timer()->isActive());
    }
};

QTEST_GUILESS_MAIN(TestHeartbeat)
#include "tst_heartbeat.moc"
