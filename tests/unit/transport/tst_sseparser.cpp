#include "transport/sseparser.h"

#include <QTest>

using namespace Tether;

// "type|data|id", so that a whole stream's events compare as one list.
static QByteArrayList render(const QList<SseEvent> &events)
{
    QByteArrayList rendered;
    for (const SseEvent &event : events)
        rendered.append(event.type + '|' + event.data + '|' + event.id);
    return rendered;
}

enum class Feed { Whole, ByteAtATime, Halves };

static QList<SseEvent> parse(SseParser &parser, const QByteArray &stream, Feed feed)
{
    QList<SseEvent> events;
    switch (feed) {
    case Feed::Whole:
        events = parser.push(stream);
        break;
    case Feed::ByteAtATime:
        for (qsizetype i = 0; i < stream.size(); ++i)
            events += parser.push(stream.sliced(i, 1));
        break;
    case Feed::Halves:
        events = parser.push(stream.first(stream.size() / 2));
        events += parser.push(stream.sliced(stream.size() / 2));
        break;
    }
    return events;
}

class TestSseParser final : public QObject
{
    Q_OBJECT

private slots:
    void parses_data()
    {
        QTest::addColumn<QByteArray>("stream");
        QTest::addColumn<QByteArrayList>("events");
        QTest::addColumn<QByteArray>("lastEventId");

        QTest::newRow("one event") << QByteArray("data: {}\n\n") << QByteArrayList{"message|{}|"} << QByteArray();
        QTest::newRow("multi-line data joined with LF")
            << QByteArray("data: first\ndata:second\ndata:  third\n\n") << QByteArrayList{"message|first\nsecond\n third|"}
            << QByteArray();
        QTest::newRow("event type and id") << QByteArray("event: endpoint\nid: 7\ndata: /message?s=1\n\n")
                                           << QByteArrayList{"endpoint|/message?s=1|7"} << QByteArray("7");
        QTest::newRow("id stays for later events") << QByteArray("id: a\ndata: 1\n\ndata: 2\n\nid\ndata: 3\n\n")
                                                   << QByteArrayList{"message|1|a", "message|2|a", "message|3|"}
                                                   << QByteArray();
        QTest::newRow("type resets after each event") << QByteArray("event: x\ndata: 1\n\ndata: 2\n\n")
                                                      << QByteArrayList{"x|1|", "message|2|"} << QByteArray();
        QTest::newRow("comments ignored") << QByteArray(": keep-alive\n:\ndata: a\n: inside\n\n")
                                          << QByteArrayList{"message|a|"} << QByteArray();
        QTest::newRow("CRLF") << QByteArray("id: 1\r\ndata: a\r\n\r\ndata: b\r\n\r\n")
                              << QByteArrayList{"message|a|1", "message|b|1"} << QByteArray("1");
        QTest::newRow("CR alone") << QByteArray("data: a\r\rdata: b\r\r") << QByteArrayList{"message|a|", "message|b|"}
                                  << QByteArray();
        QTest::newRow("CR then CRLF is two line ends") << QByteArray("data: a\r\r\n") << QByteArrayList{"message|a|"}
                                                       << QByteArray();
        QTest::newRow("field without a colon") << QByteArray("data\ndata\n\n") << QByteArrayList{"message|\n|"}
                                               << QByteArray();
        QTest::newRow("only the first space is dropped") << QByteArray("data:  x \n\n") << QByteArrayList{"message| x |"}
                                                         << QByteArray();
        QTest::newRow("colon inside the value") << QByteArray("data: {\"a\":1}\n\n") << QByteArrayList{"message|{\"a\":1}|"}
                                                << QByteArray();
        QTest::newRow("no data: not dispatched, id kept") << QByteArray("id: prime\n\nevent: x\n\n") << QByteArrayList{}
                                                          << QByteArray("prime");
        QTest::newRow("empty data line is dispatched")
            << QByteArray("id: p\ndata: \n\n") << QByteArrayList{"message||p"} << QByteArray("p");
        QTest::newRow("unknown fields ignored") << QByteArray("foo: bar\ndata: a\n\n") << QByteArrayList{"message|a|"}
                                                << QByteArray();
        QTest::newRow("id with NUL ignored") << QByteArray("id: a\0b\ndata: x\n\n", 17) << QByteArrayList{"message|x|"}
                                             << QByteArray();
        QTest::newRow("cut in the middle of an event")
            << QByteArray("id: 1\ndata: whole\n\nid: 2\ndata: {\"part") << QByteArrayList{"message|whole|1"}
            << QByteArray("1");
        QTest::newRow("cut after the last line but before the blank one")
            << QByteArray("data: a\n\nid: 9\ndata: b\n") << QByteArrayList{"message|a|"} << QByteArray();
        QTest::newRow("byte order mark at the start skipped")
            << QByteArray("\xEF\xBB\xBF" "data: a\n\n") << QByteArrayList{"message|a|"} << QByteArray();
    }

    void parses()
    {
        QFETCH(QByteArray, stream);
        QFETCH(QByteArrayList, events);
        QFETCH(QByteArray, lastEventId);

        for (const Feed feed : {Feed::Whole, Feed::ByteAtATime, Feed::Halves}) {
            SseParser parser(1024);
            QCOMPARE(render(parse(parser, stream, feed)), events);
            QCOMPARE(parser.lastEventId(), lastEventId);
            QVERIFY(!parser.overflowed());
        }
    }

    void retry_data()
    {
        QTest::addColumn<QByteArray>("stream");
        QTest::addColumn<qint64>("retryMs"); // -1: none

        QTest::newRow("none") << QByteArray("data: a\n\n") << qint64(-1);
        QTest::newRow("set") << QByteArray("retry: 1500\n\n") << qint64(1500);
        QTest::newRow("latest wins") << QByteArray("retry: 10\ndata: a\n\nretry: 20\n\n") << qint64(20);
        QTest::newRow("zero") << QByteArray("retry: 0\n") << qint64(0);
        QTest::newRow("not digits ignored") << QByteArray("retry: 1s\nretry: -5\nretry:\n\n") << qint64(-1);
        QTest::newRow("bad value keeps the good one") << QByteArray("retry: 300\nretry: x\n") << qint64(300);
    }

    void retry()
    {
        QFETCH(QByteArray, stream);
        QFETCH(qint64, retryMs);

        for (const Feed feed : {Feed::Whole, Feed::ByteAtATime}) {
            SseParser parser;
            parse(parser, stream, feed);
            QCOMPARE(parser.retry().has_value(), retryMs >= 0);
            if (retryMs >= 0)
                QCOMPARE(parser.retry()->count(), retryMs);
        }
    }

    void limitCountsTheEventsLines()
    {
        for (const Feed feed : {Feed::Whole, Feed::ByteAtATime}) {
            SseParser atTheLimit(16);
            QCOMPARE(parse(atTheLimit, "data: " + QByteArray(10, 'x') + "\n\n", feed).size(), 1);
            QVERIFY(!atTheLimit.overflowed());
            SseParser overTheLimit(16);
            QCOMPARE(parse(overTheLimit, "data: " + QByteArray(11, 'x') + "\n\n", feed).size(), 0);
            QVERIFY(overTheLimit.overflowed());
        }
    }

    void overflows_data()
    {
        QTest::addColumn<QByteArray>("stream");
        QTest::addColumn<QByteArrayList>("eventsBefore");

        QTest::newRow("one long data line") << QByteArray("data: ok\n\ndata: " + QByteArray(40, 'x') + "\n\n")
                                            << QByteArrayList{"message|ok|"};
        QTest::newRow("many data lines") << QByteArray("data: 0123456789\ndata: 0123456789\ndata: 0123456789\n\n")
                                         << QByteArrayList{};
        QTest::newRow("unterminated line") << QByteArray("data: " + QByteArray(40, 'x')) << QByteArrayList{};
    }

    void overflows()
    {
        QFETCH(QByteArray, stream);
        QFETCH(QByteArrayList, eventsBefore);

        for (const Feed feed : {Feed::Whole, Feed::ByteAtATime}) {
            SseParser parser(32);
            QCOMPARE(render(parse(parser, stream, feed)), eventsBefore);
            QVERIFY(parser.overflowed());
            // A parser that overflowed stays stopped.
            QVERIFY(parser.push("data: more\n\n").isEmpty());
        }
    }

    void memoryIsReleasedBetweenEvents()
    {
        SseParser parser(1024);
        QCOMPARE(parser.push(QByteArray("data: " + QByteArray(500, 'x') + "\n\n")).size(), 1);
        // A large event followed by many small ones never accumulates towards the limit.
        for (int i = 0; i < 10; ++i)
            QCOMPARE(parser.push(QByteArray("data: " + QByteArray(500, 'y') + "\n\n")).size(), 1);
        QVERIFY(!parser.overflowed());
    }
};

QTEST_GUILESS_MAIN(TestSseParser)
#include "tst_sseparser.moc"
