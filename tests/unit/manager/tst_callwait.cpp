// How a call with a wait treats a server that is not connected: sent, kept waiting, or answered
// at once, and what the answer says.
#include "manager/callwait.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;

Q_DECLARE_METATYPE(Tether::ServerState)
Q_DECLARE_METATYPE(Tether::CallVerdict)

class TestCallWait final : public QObject
{
    Q_OBJECT

private slots:
    void verdict_data()
    {
        QTest::addColumn<ServerState>("state");
        QTest::addColumn<bool>("enabled");
        QTest::addColumn<bool>("startPending");
        QTest::addColumn<qint64>("msUntilNextRetry"); // -1: none scheduled
        QTest::addColumn<qint64>("msLeft");
        QTest::addColumn<CallVerdict>("expected");

        using S = ServerState;
        using V = CallVerdict;
        QTest::newRow("connected") << S::Connected << true << false << qint64(-1) << qint64(10000) << V::Send;
        QTest::newRow("connected, wait over") << S::Connected << true << false << qint64(-1) << qint64(0) << V::Send;
        QTest::newRow("starting") << S::Starting << true << false << qint64(-1) << qint64(10000) << V::Wait;
        QTest::newRow("starting, wait over") << S::Starting << true << false << qint64(-1) << qint64(0) << V::Unavailable;
        QTest::newRow("reconnecting, retry in time") << S::Reconnecting << true << false << qint64(500) << qint64(10000) << V::Wait;
        QTest::newRow("reconnecting, retry at the deadline") << S::Reconnecting << true << false << qint64(10000) << qint64(10000)
                                                             << V::Wait;
        QTest::newRow("reconnecting, retry after the deadline") << S::Reconnecting << true << false << qint64(10001)
                                                                << qint64(10000) << V::Unavailable;
        QTest::newRow("retrying, retry in time") << S::Retrying << true << false << qint64(200) << qint64(1000) << V::Wait;
        QTest::newRow("retrying, retry after the deadline") << S::Retrying << true << false << qint64(30000) << qint64(1000)
                                                            << V::Unavailable;
        QTest::newRow("retrying, wait over") << S::Retrying << true << false << qint64(0) << qint64(0) << V::Unavailable;
        QTest::newRow("failed") << S::Failed << true << false << qint64(-1) << qint64(10000) << V::Unavailable;
        QTest::newRow("disconnected") << S::Disconnected << true << false << qint64(-1) << qint64(10000) << V::Unavailable;
        QTest::newRow("stopping") << S::Stopping << true << false << qint64(-1) << qint64(10000) << V::Unavailable;
        QTest::newRow("stopped") << S::Stopped << true << false << qint64(-1) << qint64(10000) << V::Unavailable;
        QTest::newRow("stopped, restart pending") << S::Stopped << true << true << qint64(-1) << qint64(10000) << V::Wait;
        QTest::newRow("disabled") << S::Stopped << false << false << qint64(-1) << qint64(10000) << V::Unavailable;
        QTest::newRow("disabled while connected") << S::Connected << false << false << qint64(-1) << qint64(10000)
                                                  << V::Unavailable;
        QTest::newRow("no wait: starting") << S::Starting << true << false << qint64(-1) << qint64(0) << V::Unavailable;
    }

    void verdict()
    {
        QFETCH(ServerState, state);
        QFETCH(bool, enabled);
        QFETCH(bool, startPending);
        QFETCH(qint64, msUntilNextRetry);
        QFETCH(qint64, msLeft);
        QFETCH(CallVerdict, expected);
        CallTarget target{state, enabled, startPending, std::nullopt};
        if (msUntilNextRetry >= 0)
            target.msUntilNextRetry = msUntilNextRetry;
        QCOMPARE(judgeCall(target, msLeft), expected);
    }

    void reason_data()
    {
        QTest::addColumn<ServerState>("state");
        QTest::addColumn<int>("attempt");
        QTest::addColumn<bool>("enabled");
        QTest::addColumn<qint64>("waitedMs");
        QTest::addColumn<QString>("expected");

        using S = ServerState;
        QTest::newRow("reconnecting, waited") << S::Reconnecting << 3 << true << qint64(10000)
                                              << u"server 'github' is reconnecting (attempt 3/10, next retry in 4 s); "
                                                 "waited 10 s; try again shortly"_s;
        QTest::newRow("retrying, at once") << S::Retrying << 3 << true << qint64(0)
                                           << u"server 'github' is retrying (attempt 3/10, next retry in 4 s); try again "
                                              "shortly"_s;
        QTest::newRow("starting") << S::Starting << 0 << true << qint64(2500)
                                  << u"server 'github' is still starting; waited 2.5 s; try again shortly"_s;
        QTest::newRow("starting again") << S::Starting << 3 << true << qint64(1500)
                                        << u"server 'github' is starting again (attempt 3/10); waited 1.5 s; try again "
                                           "shortly"_s;
        QTest::newRow("failed") << S::Failed << 3 << true << qint64(0)
                                << u"server 'github' has failed after 3 attempts (last error: connection failed: "
                                   "process exited with code 1); reconnect it in Tether"_s;
        QTest::newRow("failed, not retried") << S::Failed << 0 << true << qint64(0)
                                             << u"server 'github' has failed (last error: connection failed: process "
                                                "exited with code 1); reconnect it in Tether"_s;
        QTest::newRow("disconnected") << S::Disconnected << 3 << true << qint64(0)
                                      << u"server 'github' is disconnected and reconnect is off for it (last error: "
                                         "connection failed: process exited with code 1); reconnect it in Tether"_s;
        QTest::newRow("stopped") << S::Stopped << 3 << true << qint64(0)
                                 << u"server 'github' is stopped; start it in Tether to use its tools"_s;
        QTest::newRow("disabled") << S::Stopped << 3 << false << qint64(0)
                                  << u"server 'github' is disabled; enable it in Tether to use its tools"_s;
    }

    void reason()
    {
        QFETCH(ServerState, state);
        QFETCH(int, attempt);
        QFETCH(bool, enabled);
        QFETCH(qint64, waitedMs);
        QFETCH(QString, expected);
        const QDateTime now = QDateTime::fromMSecsSinceEpoch(1'700'000'000'000, Qt::UTC);
        ServerStatus status;
        status.name = u"github"_s;
        status.state = state;
        status.attempt = attempt;
        status.maxAttempts = 10;
        status.lastError = u"connection failed: process exited with code 1"_s;
        if (state == ServerState::Retrying || state == ServerState::Reconnecting) {
            status.nextDelayMs = 4000;
            status.nextRetryAt = now.addMSecs(4000);
        }
        QCOMPARE(unavailableReason(status, enabled, waitedMs, now), expected);
    }
};

QTEST_GUILESS_MAIN(TestCallWait)
#include "tst_callwait.moc"
