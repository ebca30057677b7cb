#include "transport/lineframer.h"

#include <QTest>

using namespace Tether;

class TestLineFramer final : public QObject
{
    Q_OBJECT

private slots:
    void frames_data()
    {
        QTest::addColumn<QByteArrayList>("chunks");
        QTest::addColumn<QByteArrayList>("lines");
        QTest::addColumn<qsizetype>("leftOver");

        QTest::newRow("one line") << QByteArrayList{"{}\n"} << QByteArrayList{"{}"} << qsizetype(0);
        QTest::newRow("two lines in one chunk") << QByteArrayList{"a\nb\n"} << QByteArrayList{"a", "b"} << qsizetype(0);
        QTest::newRow("partial line waits") << QByteArrayList{"{\"a\":"} << QByteArrayList{} << qsizetype(5);
        QTest::newRow("line split across chunks") << QByteArrayList{"{\"a\"", ":1}", "\n"} << QByteArrayList{"{\"a\":1}"}
                                                  << qsizetype(0);
        QTest::newRow("byte at a time") << QByteArrayList{"x", "y", "\r", "\n", "z"} << QByteArrayList{"xy"}
                                        << qsizetype(1);
        QTest::newRow("CRLF") << QByteArrayList{"a\r\nb\r\n"} << QByteArrayList{"a", "b"} << qsizetype(0);
        QTest::newRow("blank lines skipped") << QByteArrayList{"\n\r\n  \n\ta\n\n"} << QByteArrayList{"\ta"}
                                             << qsizetype(0);
        QTest::newRow("inner CR kept") << QByteArrayList{"a\rb\n"} << QByteArrayList{"a\rb"} << qsizetype(0);
        QTest::newRow("line at the limit") << QByteArrayList{QByteArray(16, 'x') + '\n'}
                                           << QByteArrayList{QByteArray(16, 'x')} << qsizetype(0);
        QTest::newRow("CRLF line at the limit") << QByteArrayList{QByteArray(15, 'x') + "\r\n"}
                                                << QByteArrayList{QByteArray(15, 'x')} << qsizetype(0);
    }

    void frames()
    {
        QFETCH(QByteArrayList, chunks);
        QFETCH(QByteArrayList, lines);
        QFETCH(qsizetype, leftOver);

        LineFramer framer(16);
        QByteArrayList framed;
        for (const QByteArray &chunk : chunks)
            framed += framer.push(chunk);
        QCOMPARE(framed, lines);
        QVERIFY(!framer.overflowed());
        QCOMPARE(framer.bufferedBytes(), leftOver);
    }

    void overflows_data()
    {
        QTest::addColumn<QByteArrayList>("chunks");
        QTest::addColumn<QByteArrayList>("linesBefore");

        QTest::newRow("complete long line") << QByteArrayList{"ok\n" + QByteArray(17, 'x') + "\nlater\n"}
                                            << QByteArrayList{"ok"};
        QTest::newRow("unterminated long line") << QByteArrayList{QByteArray(10, 'x'), QByteArray(10, 'x')}
                                                << QByteArrayList{};
        QTest::newRow("long line without its newline yet") << QByteArrayList{"a\n", QByteArray(17, 'y')}
                                                          << QByteArrayList{"a"};
    }

    void overflows()
    {
        QFETCH(QByteArrayList, chunks);
        QFETCH(QByteArrayList, linesBefore);

        LineFramer framer(16);
        QByteArrayList framed;
        for (const QByteArray &chunk : chunks)
            framed += framer.push(chunk);
        QVERIFY(framer.overflowed());
        QCOMPARE(framed, linesBefore);
        // Once overflowed the stream is unusable: nothing more comes out.
        QVERIFY(framer.push("{}\n").isEmpty());
        QCOMPARE(framer.bufferedBytes(), 0);
    }

    void defaultLimitIsSixteenMebibytes()
    {
        LineFramer framer;
        QCOMPARE(framer.maxLineBytes(), 16 * 1024 * 1024);
        const QByteArray big(16 * 1024 * 1024, 'a');
        QCOMPARE(framer.push(QByteArray(big + '\n')).size(), 1);
        QVERIFY(!framer.overflowed());
        framer.push(QByteArray(big + 'a'));
        QVERIFY(framer.overflowed());
    }
};

QTEST_APPLESS_MAIN(TestLineFramer)
#include "tst_lineframer.moc"
