#include "httpserver/httpconnectionquota.h"
#include "httpserver/httpservice.h"

#include <QTest>

using namespace Tether;
using namespace Tether::HttpConnectionQuota;
using namespace std::chrono_literals;

Q_DECLARE_METATYPE(QList<Tether::HttpConnectionQuota::OpenConnection>)
Q_DECLARE_METATYPE(Tether::HttpConnectionQuota::Arrival)

namespace Tether::HttpConnectionQuota {
char *toString(const Arrival &arrival)
{
    const char *verdict = arrival.verdict == Arrival::Verdict::Accept           ? "Accept"
                          : arrival.verdict == Arrival::Verdict::AcceptEvicting ? "AcceptEvicting"
                                                                                : "Refuse";
    return qstrdup(QByteArray(verdict).append(' ').append(QByteArray::number(arrival.evicted)).constData());
}
} // namespace Tether::HttpConnectionQuota

static const Clock::time_point Now = Clock::time_point() + 1h;

// Eight slots, two of them reserved, three unadmitted ones per peer, a second of grace.
static HttpServerOptions smallServer()
{
    HttpServerOptions options;
    options.maxConnections = 8;
    options.reservedConnections = 2;
    options.maxUnadmittedPerPeer = 3;
    options.unadmittedGrace = 1000ms;
    options.headTimeout = 10'000ms;
    options.headTimeoutUnderPressure = 2000ms;
    return options;
}

static OpenConnection unadmitted(quint64 id, const char *peer, std::chrono::milliseconds age)
{
    return {id, QHostAddress(QString::fromLatin1(peer)), Now - age, false};
}

static OpenConnection admitted(quint64 id, const char *peer)
{
    return {id, QHostAddress(QString::fromLatin1(peer)), Now - 60s, true};
}

static Arrival accept()
{
    return {};
}

static Arrival evict(quint64 id)
{
    return {Arrival::Verdict::AcceptEvicting, id};
}

static Arrival refuse()
{
    return {Arrival::Verdict::Refuse};
}

class TestHttpConnectionQuota final : public QObject
{
    Q_OBJECT

private slots:
    void judgeArrival_data()
    {
        QTest::addColumn<QList<OpenConnection>>("open");
        QTest::addColumn<QString>("peer");
        QTest::addColumn<Arrival>("expected");
        const char *a = "10.0.0.1";
        const char *b = "10.0.0.2";

        QTest::newRow("empty") << QList<OpenConnection>{} << QString::fromLatin1(a) << accept();
        QTest::newRow("peer under its share")
            << QList<OpenConnection>{unadmitted(1, a, 5s), unadmitted(2, a, 5s)} << QString::fromLatin1(a) << accept();
        QTest::newRow("peer at its share gives up its oldest")
            << QList<OpenConnection>{unadmitted(1, a, 1200ms), unadmitted(2, a, 2000ms), unadmitted(3, a, 1500ms),
                                     unadmitted(4, b, 9s)}
            << QString::fromLatin1(a) << evict(2);
        QTest::newRow("peer at its share, only its old ones go")
            << QList<OpenConnection>{unadmitted(1, a, 300ms), unadmitted(2, a, 1000ms), unadmitted(3, a, 200ms)}
            << QString::fromLatin1(a) << evict(2);
        QTest::newRow("a burst behind one address is let in")
            << QList<OpenConnection>{unadmitted(1, a, 300ms), unadmitted(2, a, 200ms), unadmitted(3, a, 100ms)}
            << QString::fromLatin1(a) << accept();
        QTest::newRow("another peer keeps its share")
            << QList<OpenConnection>{unadmitted(1, a, 5s), unadmitted(2, a, 5s), unadmitted(3, a, 5s)}
            << QString::fromLatin1(b) << accept();
        QTest::newRow("admitted ones leave the share")
            << QList<OpenConnection>{admitted(1, a), admitted(2, a), admitted(3, a), admitted(4, a), unadmitted(5, a, 5s),
                                     unadmitted(6, a, 5s)}
            << QString::fromLatin1(a) << accept();
        QTest::newRow("unadmitted room full: the oldest anywhere goes")
            << QList<OpenConnection>{unadmitted(1, a, 100ms), unadmitted(2, a, 200ms), unadmitted(3, a, 300ms),
                                     unadmitted(4, b, 400ms), unadmitted(5, b, 50ms), unadmitted(6, b, 60ms)}
            << QString::fromLatin1("10.0.0.3") << evict(4);
        QTest::newRow("the reserved slots stay for admitted ones")
            << QList<OpenConnection>{admitted(1, a), unadmitted(2, a, 10ms), unadmitted(3, a, 20ms),
                                     unadmitted(4, b, 30ms), unadmitted(5, b, 40ms), unadmitted(6, "10.0.0.3", 50ms),
                                     unadmitted(7, "10.0.0.4", 60ms)}
            << QString::fromLatin1("10.0.0.5") << evict(7);
        QTest::newRow("full: a newcomer takes an unadmitted one's place")
            << QList<OpenConnection>{admitted(1, a), admitted(2, a), admitted(3, a), admitted(4, a), admitted(5, a),
                                     admitted(6, a), admitted(7, a), unadmitted(8, b, 10ms)}
            << QString::fromLatin1(a) << evict(8);
        QTest::newRow("all admitted: refused")
            << QList<OpenConnection>{admitted(1, a), admitted(2, a), admitted(3, a), admitted(4, a), admitted(5, a),
                                     admitted(6, a), admitted(7, a), admitted(8, b)}
            << QString::fromLatin1(a) << refuse();
        QTest::newRow("admitted may take the reserved slots")
            << QList<OpenConnection>{admitted(1, a), admitted(2, a), admitted(3, a), admitted(4, a), admitted(5, a),
                                     admitted(6, a), admitted(7, a)}
            << QString::fromLatin1(b) << accept();
        QTest::newRow("IPv4-mapped is the same peer")
            << QList<OpenConnection>{unadmitted(1, a, 5s), unadmitted(2, a, 4s), unadmitted(3, a, 3s)}
            << QString::fromLatin1("::ffff:10.0.0.1") << evict(1);
        QTest::newRow("one IPv6 /64 is one peer")
            << QList<OpenConnection>{unadmitted(1, "2001:db8::1", 5s), unadmitted(2, "2001:db8::2", 4s),
                                     unadmitted(3, "2001:db8::3", 3s)}
            << QString::fromLatin1("2001:db8::ffff:1") << evict(1);
        QTest::newRow("another IPv6 /64 is another peer")
            << QList<OpenConnection>{unadmitted(1, "2001:db8::1", 5s), unadmitted(2, "2001:db8::2", 4s),
                                     unadmitted(3, "2001:db8::3", 3s)}
            << QString::fromLatin1("2001:db8:0:1::1") << accept();
    }
    void judgeArrival()
    {
        QFETCH(QList<OpenConnection>, open);
        QFETCH(QString, peer);
        QFETCH(Arrival, expected);
        QCOMPARE(HttpConnectionQuota::judgeArrival(open, QHostAddress(peer), Now, smallServer()), expected);
    }

    // A server too small for its reserve keeps a quarter at most, and room for one unadmitted.
    void boundsMadeConsistent()
    {
        HttpServerOptions options;
        options.maxConnections = 2;
        options.reservedConnections = 64;
        QCOMPARE(reservedConnections(options), 0);
        QCOMPARE(unadmittedRoom(options), 2);
        options.maxConnections = 256;
        QCOMPARE(reservedConnections(options), 64);
        QCOMPARE(unadmittedRoom(options), 192);
        options.maxConnections = 1;
        options.reservedConnections = -3;
        QCOMPARE(unadmittedRoom(options), 1);
    }

    void headTimeoutShortensUnderPressure()
    {
        const HttpServerOptions options = smallServer(); // room for 6 unadmitted
        QCOMPARE(headTimeout(0, options), 10'000ms);
        QCOMPARE(headTimeout(2, options), 10'000ms);
        QVERIFY(!underPressure(2, options));
        QVERIFY(underPressure(3, options));
        QCOMPARE(headTimeout(3, options), 2000ms);
        QCOMPARE(headTimeout(6, options), 2000ms);
        HttpServerOptions quick = options;
        quick.headTimeout = 300ms; // never longer for the pressure
        QCOMPARE(headTimeout(6, quick), 300ms);
    }

    void samePeer_data()
    {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::addColumn<bool>("same");
        QTest::newRow("one IPv4") << "127.0.0.1" << "127.0.0.1" << true;
        QTest::newRow("two IPv4") << "127.0.0.1" << "127.0.0.2" << false;
        QTest::newRow("IPv4-mapped") << "::ffff:127.0.0.1" << "127.0.0.1" << true;
        QTest::newRow("IPv4 and IPv6") << "127.0.0.1" << "::1" << false;
        QTest::newRow("one /64") << "2001:db8:1:2::1" << "2001:db8:1:2:ffff::9" << true;
        QTest::newRow("two /64") << "2001:db8:1:2::1" << "2001:db8:1:3::1" << false;
    }
    void samePeer()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(bool, same);
        QCOMPARE(HttpConnectionQuota::samePeer(QHostAddress(a), QHostAddress(b)), same);
        QCOMPARE(HttpConnectionQuota::samePeer(QHostAddress(b), QHostAddress(a)), same);
    }
};

QTEST_APPLESS_MAIN(TestHttpConnectionQuota)
#include "tst_httpconnectionquota.moc"
