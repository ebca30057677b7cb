#include "manager/healthhistory.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace std::chrono_literals;

namespace {

const QDateTime T0 = QDateTime::fromMSecsSinceEpoch(1'700'000'000'000, Qt::UTC);

QDateTime at(std::chrono::milliseconds offset)
{
    return T0.addMSecs(offset.count());
}

} // namespace

namespace Tether {

char *toString(const HealthSpan &span)
{
    return QTest::toString(u"[%1 s, %2 s) band %3"_s.arg(T0.secsTo(span.start)).arg(T0.secsTo(span.end)).arg(int(span.band)));
}

} // namespace Tether

class HealthHistoryTest : public QObject
{
    Q_OBJECT

private slots:
    void statesMapToFourBands()
    {
        QCOMPARE(healthBandOf(ServerState::Connected), HealthBand::Connected);
        QCOMPARE(healthBandOf(ServerState::Starting), HealthBand::Reconnecting);
        QCOMPARE(healthBandOf(ServerState::Retrying), HealthBand::Reconnecting);
        QCOMPARE(healthBandOf(ServerState::Reconnecting), HealthBand::Reconnecting);
        QCOMPARE(healthBandOf(ServerState::Failed), HealthBand::Failed);
        QCOMPARE(healthBandOf(ServerState::Disconnected), HealthBand::Failed);
        QCOMPARE(healthBandOf(ServerState::Stopped), HealthBand::Stopped);
        QCOMPARE(healthBandOf(ServerState::Stopping), HealthBand::Stopped);
    }

    void spansFollowBandChanges()
    {
        HealthHistory history;
        history.record(at(0s), ServerState::Starting);
        history.record(at(1s), ServerState::Connected);
        history.record(at(60s), ServerState::Reconnecting);
        history.record(at(61s), ServerState::Starting); // same band: no new span
        history.record(at(62s), ServerState::Connected);
        const QList<HealthSpan> spans = history.spans(at(100s), 10min);
        const QList<HealthSpan> expected{{at(0s), at(1s), HealthBand::Reconnecting},
                                         {at(1s), at(60s), HealthBand::Connected},
                                         {at(60s), at(62s), HealthBand::Reconnecting},
                                         {at(62s), at(100s), HealthBand::Connected}};
        QCOMPARE(spans, expected);
    }

    void spansAreClippedToTheWindow()
    {
        HealthHistory history;
        history.record(at(0s), ServerState::Connected);
        history.record(at(50s), ServerState::Failed);
        const QList<HealthSpan> expected{{at(40s), at(50s), HealthBand::Connected},
                                         {at(50s), at(70s), HealthBand::Failed}};
        QCOMPARE(history.spans(at(70s), 30s), expected);
        QVERIFY(HealthHistory().spans(at(70s), 30s).isEmpty());
    }

    void oldChangesAreDroppedButTheBandAtTheHorizonIsKept()
    {
        HealthHistory history(10min);
        history.record(at(0s), ServerState::Connected);
        history.record(at(1min), ServerState::Reconnecting);
        history.record(at(2min), ServerState::Connected);
        history.record(at(20min), ServerState::Stopped);
        // The change at 2 min is older than the 10 min kept but still says the server was
        // connected until 20 min.
        const QList<HealthSpan> expected{{at(10min + 1s), at(20min), HealthBand::Connected},
                                         {at(20min), at(20min + 1s), HealthBand::Stopped}};
        QCOMPARE(history.spans(at(20min + 1s), 10min), expected);
    }

    void flappingIsBounded()
    {
        HealthHistory history(10min, 100);
        for (int i = 0; i < 10000; ++i)
            history.record(at(std::chrono::milliseconds(i)), i % 2 ? ServerState::Connected : ServerState::Reconnecting);
        const QList<HealthSpan> spans = history.spans(at(20s), 10min);
        QCOMPARE(spans.size(), 100);
        QCOMPARE(spans.last().end, at(20s));
        QCOMPARE(spans.last().band, HealthBand::Connected);
    }
};

QTEST_GUILESS_MAIN(HealthHistoryTest)
#include "tst_healthhistory.moc"
