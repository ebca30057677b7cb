// When the HTTP sessions of hosts that left without a DELETE end, decided at a given moment: the
// sessions idle for the expiry or longer, the longest idle first, and the longest idle one giving
// way to a new session at the cap; a session awaiting an answer or holding its GET stream open
// never ends for being quiet.
#include "gateway/httpsessionexpiry.h"

#include <QTest>

#include <algorithm>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace std::chrono_literals;

namespace {

const std::chrono::steady_clock::time_point Now = std::chrono::steady_clock::time_point() + 24h;

// A session idle (or busy, `idle` false) since `ago` before Now.
HttpSessionActivity session(const char *id, std::chrono::milliseconds ago, bool idle = true)
{
    return {QByteArray(id), idle, Now - ago};
}

QByteArrayList idsOf(const QList<HttpSessionEnding> &endings)
{
    QByteArrayList ids;
    for (const HttpSessionEnding &ending : endings)
        ids.append(ending.sessionId);
    return ids;
}

} // namespace

Q_DECLARE_METATYPE(QList<HttpSessionActivity>)

class TestHttpSessionExpiry final : public QObject
{
    Q_OBJECT

private slots:
    void expired_data()
    {
        QTest::addColumn<QList<HttpSessionActivity>>("sessions");
        QTest::addColumn<QByteArrayList>("expected"); // the longest idle first
        QTest::newRow("none") << QList<HttpSessionActivity>{} << QByteArrayList{};
        QTest::newRow("idle a minute short") << QList<HttpSessionActivity>{session("a", 29min)} << QByteArrayList{};
        QTest::newRow("idle exactly the expiry") << QList<HttpSessionActivity>{session("a", 30min)} << QByteArrayList{"a"};
        QTest::newRow("a call running for hours")
            << QList<HttpSessionActivity>{session("a", 3h, false)} << QByteArrayList{};
        QTest::newRow("the longest idle first")
            << QList<HttpSessionActivity>{session("recent", 31min), session("busy", 5h, false), session("old", 2h),
                                          session("fresh", 1s)}
            << QByteArrayList{"old", "recent"};
        QTest::newRow("a clock before the session began")
            << QList<HttpSessionActivity>{session("future", -1min)} << QByteArrayList{};
    }

    void expired()
    {
        QFETCH(QList<HttpSessionActivity>, sessions);
        QFETCH(QByteArrayList, expected);
        const QList<HttpSessionEnding> endings = expiredHttpSessions(sessions, Now, 30min);
        QCOMPARE(idsOf(endings), expected);
        for (const HttpSessionEnding &ending : endings) {
            const auto it = std::find_if(sessions.cbegin(), sessions.cend(),
                                         [&](const HttpSessionActivity &s) { return s.sessionId == ending.sessionId; });
            QCOMPARE(ending.idleFor, std::chrono::duration_cast<std::chrono::milliseconds>(Now - it->idleSince));
        }
    }

    void theLongestIdleGivesWay()
    {
        const std::optional<HttpSessionEnding> givesWay = httpSessionToGiveWay(
            {session("busy", 3h, false), session("recent", 10s), session("oldest", 12min), session("mid", 5min)}, Now);
        QVERIFY(givesWay);
        QCOMPARE(givesWay->sessionId, QByteArray("oldest"));
        QCOMPARE(givesWay->idleFor, std::chrono::milliseconds(12min));
        // None idle, however old: none gives way (the new host gets 503).
        QVERIFY(!httpSessionToGiveWay({session("a", 3h, false), session("b", 1h, false)}, Now));
        QVERIFY(!httpSessionToGiveWay({}, Now));
    }

    void theLogNamesASessionByItsPrefix()
    {
        QCOMPARE(httpSessionLabel("0123456789abcdef0123456789abcdef"), u"http session 01234567…"_s);
        QCOMPARE(httpSessionLabel("abc"), u"http session abc…"_s);
    }
};

QTEST_GUILESS_MAIN(TestHttpSessionExpiry)
#include "tst_httpsessionexpiry.moc"
