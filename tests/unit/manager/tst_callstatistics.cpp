// How a tool call's answer is counted: its outcome, and the duration buckets it falls in.
#include "manager/callstatistics.h"

#include <QSet>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;
using namespace Tether;

Q_DECLARE_METATYPE(Tether::CallOutcome)
Q_DECLARE_METATYPE(Tether::ToolCallReply)

namespace {

ToolCallReply result(bool isError)
{
    ToolCallReply reply;
    reply.result.isError = isError;
    return reply;
}

ToolCallReply serverError(int code)
{
    ToolCallReply reply = ToolCallReply::failure(code, u"the server's own error"_s);
    reply.fromServer = true;
    return reply;
}

} // namespace

class TestCallStatistics final : public QObject
{
    Q_OBJECT

private slots:
    void outcome_data()
    {
        QTest::addColumn<ToolCallReply>("reply");
        QTest::addColumn<CallOutcome>("outcome");
        QTest::addColumn<QString>("name");

        QTest::newRow("result") << result(false) << CallOutcome::Ok << u"ok"_s;
        QTest::newRow("result with isError") << result(true) << CallOutcome::ToolError << u"tool_error"_s;
        QTest::newRow("the server's error") << serverError(JsonRpc::InvalidParams) << CallOutcome::Error << u"error"_s;
        QTest::newRow("the server's error with a code Tether uses too")
            << serverError(JsonRpc::RequestTimeout) << CallOutcome::Error << u"error"_s;
        QTest::newRow("a reply that cannot be used") << ToolCallReply::failure(JsonRpc::InvalidReply, u"x"_s)
                                                     << CallOutcome::Error << u"error"_s;
        QTest::newRow("not connected") << ToolCallReply::failure(JsonRpc::ServerUnavailable, u"x"_s)
                                       << CallOutcome::Unavailable << u"unavailable"_s;
        QTest::newRow("connection lost") << ToolCallReply::failure(JsonRpc::ConnectionClosed, u"x"_s) << CallOutcome::Lost
                                         << u"lost"_s;
        QTest::newRow("timed out") << ToolCallReply::failure(JsonRpc::RequestTimeout, u"x"_s) << CallOutcome::Timeout
                                   << u"timeout"_s;
        QTest::newRow("cancelled") << ToolCallReply::failure(JsonRpc::RequestCancelled, u"x"_s) << CallOutcome::Cancelled
                                   << u"cancelled"_s;
        QTest::newRow("transport") << ToolCallReply::failure(JsonRpc::TransportError, u"x"_s) << CallOutcome::Transport
                                   << u"transport"_s;
    }

    void outcome()
    {
        QFETCH(ToolCallReply, reply);
        QFETCH(CallOutcome, outcome);
        QFETCH(QString, name);
        QCOMPARE(callOutcomeOf(reply), outcome);
        QCOMPARE(callOutcomeName(outcome), name);
    }

    void outcomeNamesAreDistinct()
    {
        QSet<QString> names;
        for (int i = 0; i < CallOutcomeCount; ++i)
            names.insert(callOutcomeName(CallOutcome(i)));
        QCOMPARE(names.size(), CallOutcomeCount);
        QVERIFY(!names.contains(QString()));
    }

    // Which buckets a call of `took` counts in: its bound and every one above it.
    void durationBuckets_data()
    {
        QTest::addColumn<qint64>("tookUs");
        QTest::addColumn<int>("firstBucket"); // the smallest bound it is counted under; 14: only +Inf

        QTest::newRow("instant") << qint64(0) << 0;
        QTest::newRow("1 ms") << qint64(1000) << 0;
        QTest::newRow("exactly 5 ms: bounds are inclusive") << qint64(5000) << 0;
        QTest::newRow("just over 5 ms") << qint64(5001) << 1;
        QTest::newRow("300 ms") << qint64(300000) << 6;
        QTest::newRow("exactly 1 s") << qint64(1000000) << 7;
        QTest::newRow("a 10 s wait through an outage") << qint64(10000000) << 10;
        QTest::newRow("exactly 120 s") << qint64(120000000) << 13;
        QTest::newRow("longer than every bound") << qint64(121000000) << 14;
    }

    void durationBuckets()
    {
        QFETCH(qint64, tookUs);
        QFETCH(int, firstBucket);
        CallStatistics statistics;
        statistics.record(CallOutcome::Ok, std::chrono::microseconds(tookUs));
        for (int i = 0; i < int(CallStatistics::DurationBounds.size()); ++i)
            QCOMPARE(statistics.atMost.at(size_t(i)), quint64(i >= firstBucket ? 1 : 0));
        QCOMPARE(statistics.total(), quint64(1));
        QCOMPARE(statistics.durationSecondsSum, double(tookUs) / 1e6);
    }

    void countsAddUp()
    {
        CallStatistics statistics;
        statistics.record(CallOutcome::Ok, 2ms);
        statistics.record(CallOutcome::Ok, 40ms);
        statistics.record(CallOutcome::ToolError, 3ms);
        statistics.record(CallOutcome::Unavailable, 10s);
        QCOMPARE(statistics.calls(CallOutcome::Ok), quint64(2));
        QCOMPARE(statistics.calls(CallOutcome::ToolError), quint64(1));
        QCOMPARE(statistics.calls(CallOutcome::Unavailable), quint64(1));
        QCOMPARE(statistics.calls(CallOutcome::Lost), quint64(0));
        QCOMPARE(statistics.total(), quint64(4));
        QCOMPARE(statistics.atMost.front(), quint64(2)); // ≤ 5 ms
        QCOMPARE(statistics.atMost.at(3), quint64(3));   // ≤ 50 ms
        QCOMPARE(statistics.atMost.back(), quint64(4));  // ≤ 120 s
        QVERIFY(qAbs(statistics.durationSecondsSum - 10.045) < 1e-9);
    }
};

QTEST_APPLESS_MAIN(TestCallStatistics)
#include "tst_callstatistics.moc"
