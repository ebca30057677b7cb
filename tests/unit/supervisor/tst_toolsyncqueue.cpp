#include "supervisor/toolsyncqueue.h"

#include <QTest>

#include <set>
#include <utility>

using namespace Qt::StringLiterals;
using namespace Tether;

namespace {

struct Finished
{
    quint64 generation = 0;
    bool initial = false;
    QString marker; // which reply it got

    bool operator==(const Finished &) const = default;
};

// A queue over generations that list their tools when the test answers them.
struct Harness
{
    std::set<quint64> stale;             // generations that can no longer be asked
    QList<quint64> asked;                // every generation asked for its tools, in order
    QList<ToolListHandler> unanswered;   // oldest first
    int mostAtOnce = 0;                  // tools/list requests in flight at the same time
    QList<Finished> finished;
    ToolListReply lastReply;
    std::function<void(const ToolSyncQueue::Job &)> onFinished;

    ToolSyncQueue queue{
        [this](quint64 generation, ToolListHandler done) {
            if (stale.count(generation))
                return false;
            asked.append(generation);
            unanswered.append(std::move(done));
            mostAtOnce = std::max(mostAtOnce, int(unanswered.size()));
            return true;
        },
        [this](const ToolSyncQueue::Job &job, const ToolListReply &reply) {
            finished.append({job.generation, job.initial, reply.warnings.value(0)});
            lastReply = reply;
            if (onFinished)
                onFinished(job);
        }};

    // Answers the oldest request.
    void answer(const ToolListReply &reply) { unanswered.takeFirst()(reply); }
    // `marker` tells the reply apart.
    void answer(const QString &marker = u"tools"_s)
    {
        ToolListReply reply;
        reply.warnings = {marker};
        answer(reply);
    }
};

} // namespace

namespace QTest {
template<>
char *toString(const Finished &finished)
{
    return qstrdup(qPrintable(u"{generation %1, %2, %3}"_s.arg(finished.generation)
                                  .arg(finished.initial ? u"initial"_s : u"re-sync"_s, finished.marker)));
}
} // namespace QTest

class TestToolSyncQueue final : public QObject
{
    Q_OBJECT

private slots:
    void aSyncRunsAtOnceWhenNoneIsInFlight()
    {
        Harness h;
        h.queue.enqueue(1, true);
        QCOMPARE(h.asked, (QList<quint64>{1}));
        QVERIFY(h.finished.isEmpty());
        h.answer(u"first list"_s);
        QCOMPARE(h.finished, (QList<Finished>{{1, true, u"first list"_s}}));
    }

    void syncsRunOneAtATimeInOrderAcrossGenerations()
    {
        Harness h;
        h.queue.enqueue(1, false);
        h.queue.enqueue(2, true);
        h.queue.enqueue(3, false);
        // The others wait for the sync in flight, whatever generation they belong to.
        QCOMPARE(h.asked, (QList<quint64>{1}));
        h.answer(u"a"_s);
        QCOMPARE(h.asked, (QList<quint64>{1, 2}));
        h.answer(u"b"_s);
        QCOMPARE(h.asked, (QList<quint64>{1, 2, 3}));
        h.answer(u"c"_s);
        QCOMPARE(h.finished, (QList<Finished>{{1, false, u"a"_s}, {2, true, u"b"_s}, {3, false, u"c"_s}}));
        QCOMPARE(h.mostAtOnce, 1);
    }

    void aWaitingSyncOfTheSameGenerationIsMergedInto_data()
    {
        QTest::addColumn<bool>("first");
        QTest::addColumn<bool>("second");
        QTest::addColumn<bool>("merged");
        QTest::newRow("re-sync, re-sync") << false << false << false;
        QTest::newRow("initial, re-sync") << true << false << true;
        QTest::newRow("re-sync, initial") << false << true << true;
        QTest::newRow("initial, initial") << true << true << true;
    }

    void aWaitingSyncOfTheSameGenerationIsMergedInto()
    {
        QFETCH(bool, first);
        QFETCH(bool, second);
        QFETCH(bool, merged);
        Harness h;
        h.queue.enqueue(1, true);
        h.queue.enqueue(2, first);
        h.queue.enqueue(2, second);
        h.answer();
        // One sync for both: it reads the newest list anyway.
        QCOMPARE(h.asked, (QList<quint64>{1, 2}));
        h.answer();
        QCOMPARE(h.asked, (QList<quint64>{1, 2}));
        QCOMPARE(h.finished, (QList<Finished>{{1, true, u"tools"_s}, {2, merged, u"tools"_s}}));
    }

    void theSyncInFlightIsNotMergedInto()
    {
        Harness h;
        h.queue.enqueue(1, true);
        // list_changed during the initial sync: the list in flight may predate the change.
        h.queue.enqueue(1, false);
        h.queue.enqueue(1, false);
        QCOMPARE(h.asked, (QList<quint64>{1}));
        h.answer(u"before"_s);
        QCOMPARE(h.asked, (QList<quint64>{1, 1}));
        h.answer(u"after"_s);
        QCOMPARE(h.finished, (QList<Finished>{{1, true, u"before"_s}, {1, false, u"after"_s}}));
        QVERIFY(h.unanswered.isEmpty());
    }

    void aStaleGenerationsSyncIsDropped()
    {
        Harness h;
        h.queue.enqueue(1, true);
        h.queue.enqueue(2, false);
        h.queue.enqueue(3, true);
        h.stale = {1, 2};
        // Generation 1 went stale with its sync in flight: that sync still reports.
        h.answer(u"late"_s);
        QCOMPARE(h.asked, (QList<quint64>{1, 3}));
        h.answer(u"current"_s);
        QCOMPARE(h.finished, (QList<Finished>{{1, true, u"late"_s}, {3, true, u"current"_s}}));

        // Nothing in flight: a stale job is dropped at once and holds nothing up.
        h.queue.enqueue(2, false);
        h.queue.enqueue(4, true);
        QCOMPARE(h.asked, (QList<quint64>{1, 3, 4}));
        h.answer();
        QCOMPARE(h.finished.size(), 3);
        QCOMPARE(h.finished.last(), (Finished{4, true, u"tools"_s}));
    }

    void clearDropsTheWaitingSyncsButNotTheOneInFlight()
    {
        Harness h;
        h.queue.enqueue(1, true);
        h.queue.enqueue(2, false);
        h.queue.enqueue(3, false);
        h.queue.clear();
        QCOMPARE(h.asked, (QList<quint64>{1}));
        h.answer();
        QCOMPARE(h.asked, (QList<quint64>{1}));
        QCOMPARE(h.finished, (QList<Finished>{{1, true, u"tools"_s}}));

        h.queue.enqueue(4, true);
        QCOMPARE(h.asked, (QList<quint64>{1, 4}));
    }

    void aSyncEnqueuedWhileOneFinishesWaitsItsTurn()
    {
        Harness h;
        h.onFinished = [&h](const ToolSyncQueue::Job &job) {
            if (job.generation == 1) {
                h.queue.enqueue(2, true);
                h.queue.enqueue(3, false);
            }
        };
        h.queue.enqueue(1, true);
        h.answer(u"a"_s);
        QCOMPARE(h.asked, (QList<quint64>{1, 2}));
        h.answer(u"b"_s);
        QCOMPARE(h.asked, (QList<quint64>{1, 2, 3}));
        h.answer(u"c"_s);
        QCOMPARE(h.finished, (QList<Finished>{{1, true, u"a"_s}, {2, true, u"b"_s}, {3, false, u"c"_s}}));
        QCOMPARE(h.mostAtOnce, 1);
    }

    void aSyncAnsweredFromInsideItsRequestLetsTheNextRun()
    {
        QList<quint64> finished;
        ToolSyncQueue *queue = nullptr;
        ToolSyncQueue answeringAtOnce(
            [](quint64, ToolListHandler done) {
                done(ToolListReply{});
                return true;
            },
            [&](const ToolSyncQueue::Job &job, const ToolListReply &) {
                finished.append(job.generation);
                if (job.generation == 1)
                    queue->enqueue(2, false);
            });
        queue = &answeringAtOnce;
        answeringAtOnce.enqueue(1, true);
        QCOMPARE(finished, (QList<quint64>{1, 2}));
        answeringAtOnce.enqueue(3, false);
        QCOMPARE(finished, (QList<quint64>{1, 2, 3}));
    }

    void aFailedSyncIsReportedAsItCame()
    {
        Harness h;
        ToolListReply failure;
        failure.error = JsonRpc::Error{JsonRpc::InternalError, u"tools/list failed: busy"_s, {}};
        std::optional<JsonRpc::Error> seen;
        h.onFinished = [&](const ToolSyncQueue::Job &) { seen = h.lastReply.error; };
        h.queue.enqueue(1, false);
        h.answer(failure);
        QVERIFY(seen);
        QCOMPARE(seen->code, int(JsonRpc::InternalError));
        QCOMPARE(seen->message, u"tools/list failed: busy"_s);
    }
};

QTEST_APPLESS_MAIN(TestToolSyncQueue)
#include "tst_toolsyncqueue.moc"
