// Durations as people write them (the policy dialog's fields): every form read exactly, every
// slip refused with a message that says how to write it, and the exact form read back unchanged.
#include "common/duration.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace std::chrono;

class TestDuration final : public QObject
{
    Q_OBJECT

private slots:
    void readsDurationsAsPeopleWriteThem_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("ms");
        QTest::newRow("milliseconds") << u"500 ms"_s << qint64(500);
        QTest::newRow("milliseconds, no space") << u"500ms"_s << qint64(500);
        QTest::newRow("a number alone is milliseconds") << u"1500"_s << qint64(1500);
        QTest::newRow("zero") << u"0"_s << qint64(0);
        QTest::newRow("seconds") << u"2 s"_s << qint64(2000);
        QTest::newRow("decimal seconds") << u"1.5 s"_s << qint64(1500);
        QTest::newRow("seconds, no space") << u"90s"_s << qint64(90000);
        QTest::newRow("sec") << u"3 sec"_s << qint64(3000);
        QTest::newRow("seconds spelled out") << u"2 seconds"_s << qint64(2000);
        QTest::newRow("one second") << u"1 second"_s << qint64(1000);
        QTest::newRow("minutes") << u"1 min"_s << qint64(60000);
        QTest::newRow("m is minutes") << u"2m"_s << qint64(120000);
        QTest::newRow("minutes spelled out") << u"5 minutes"_s << qint64(300000);
        QTest::newRow("decimal minutes") << u"1.5 min"_s << qint64(90000);
        QTest::newRow("hours") << u"1 h"_s << qint64(3600000);
        QTest::newRow("hr") << u"2 hr"_s << qint64(7200000);
        QTest::newRow("hours spelled out") << u"24 hours"_s << qint64(86400000);
        QTest::newRow("a fraction of an hour") << u"0.0001 h"_s << qint64(360);
        QTest::newRow("upper case") << u"2 S"_s << qint64(2000);
        QTest::newRow("mixed case") << u"1 Min"_s << qint64(60000);
        QTest::newRow("minutes and seconds") << u"1 min 30 s"_s << qint64(90000);
        QTest::newRow("hours and minutes, no spaces") << u"1h30min"_s << qint64(5400000);
        QTest::newRow("as formatDuration writes it") << u"2 min 31 s"_s << qint64(151000);
        QTest::newRow("spaces around") << u"  2 s  "_s << qint64(2000);
        QTest::newRow("leading zeros") << u"007 ms"_s << qint64(7);
        QTest::newRow("trailing zeros in the fraction") << u"1.500 s"_s << qint64(1500);
        QTest::newRow("no whole part") << u".5 s"_s << qint64(500);
        QTest::newRow("a whole number written with a point") << u"2.0"_s << qint64(2);
    }

    void readsDurationsAsPeopleWriteThem()
    {
        QFETCH(QString, text);
        QFETCH(qint64, ms);
        QString error;
        const std::optional<milliseconds> parsed = parseDuration(text, &error);
        QVERIFY2(parsed, qPrintable(error));
        QCOMPARE(parsed->count(), ms);
        QVERIFY(error.isEmpty());
    }

    void refusesWhatIsNoDuration_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("error");
        const QString howToWrite = u"; write it like 500 ms, 2 s, 1.5 s or 1 min (a number alone counts milliseconds)"_s;
        QTest::newRow("empty") << QString() << u"nothing is written; write a duration like 500 ms, 2 s, 1.5 s or 1 min"_s;
        QTest::newRow("spaces") << u"   "_s << u"nothing is written; write a duration like 500 ms, 2 s, 1.5 s or 1 min"_s;
        QTest::newRow("a word") << u"soon"_s << u"\"soon\" is not a duration"_s + howToWrite;
        QTest::newRow("a unit alone") << u"ms"_s << u"\"ms\" is not a duration"_s + howToWrite;
        QTest::newRow("a point alone") << u"."_s << u"\".\" is not a duration"_s + howToWrite;
        QTest::newRow("something after the unit") << u"2 s!"_s << u"\"2 s!\" is not a duration"_s + howToWrite;
        QTest::newRow("a sign") << u"+2 s"_s << u"\"+2 s\" is not a duration"_s + howToWrite;
        QTest::newRow("unknown unit") << u"2 weeks"_s << u"\"2 weeks\" has an unknown unit \"weeks\"; use ms, s, min or h"_s;
        QTest::newRow("microseconds") << u"5 us"_s << u"\"5 us\" has an unknown unit \"us\"; use ms, s, min or h"_s;
        QTest::newRow("exponent") << u"1e3"_s << u"\"1e3\" has an unknown unit \"e\"; use ms, s, min or h"_s;
        QTest::newRow("a number without unit after another") << u"1 min 30"_s
                                                             << u"\"1 min 30\" has no unit after 30; use ms, s, min or h"_s;
        QTest::newRow("two numbers") << u"1 30"_s << u"\"1 30\" has no unit after 1; use ms, s, min or h"_s;
        QTest::newRow("decimal comma") << u"1,5 s"_s << u"\"1,5 s\" has a comma; write decimals with a point, like 1.5 s"_s;
        QTest::newRow("negative") << u"-2 s"_s << u"\"-2 s\" is negative; a duration is 0 or more"_s;
        QTest::newRow("negative number alone") << u"-1"_s << u"\"-1\" is negative; a duration is 0 or more"_s;
        QTest::newRow("a fraction of a millisecond") << u"1.5"_s << u"\"1.5\" is not a whole number of milliseconds"_s;
        QTest::newRow("a fraction of a millisecond in ms") << u"0.5 ms"_s << u"\"0.5 ms\" is not a whole number of milliseconds"_s;
        QTest::newRow("finer than a millisecond in s") << u"1.0005 s"_s << u"\"1.0005 s\" is not a whole number of milliseconds"_s;
        QTest::newRow("many fraction digits") << u"1.0000000001 h"_s << u"\"1.0000000001 h\" is not a whole number of milliseconds"_s;
        QTest::newRow("too long") << u"10000000000 h"_s << u"\"10000000000 h\" is too long for a duration"_s;
        QTest::newRow("too long in all") << u"999999999 h 999999999 h 999999999 h"_s
                                         << u"\"999999999 h 999999999 h 999999999 h\" is too long for a duration"_s;
    }

    void refusesWhatIsNoDuration()
    {
        QFETCH(QString, text);
        QFETCH(QString, error);
        QString shown;
        QCOMPARE(parseDuration(text, &shown), std::nullopt);
        QCOMPARE(shown, error);
    }

    void writesDurationsExactly_data()
    {
        QTest::addColumn<qint64>("ms");
        QTest::addColumn<QString>("text");
        QTest::newRow("none") << qint64(0) << u"0 ms"_s;
        QTest::newRow("milliseconds") << qint64(500) << u"500 ms"_s;
        QTest::newRow("seconds") << qint64(2000) << u"2 s"_s;
        QTest::newRow("decimal seconds") << qint64(1500) << u"1.5 s"_s;
        QTest::newRow("to the millisecond") << qint64(12345) << u"12.345 s"_s; // formatDuration: "12.3 s"
        QTest::newRow("one minute") << qint64(60000) << u"1 min"_s;
        QTest::newRow("minutes and seconds") << qint64(90000) << u"1 min 30 s"_s;
        QTest::newRow("minutes and a fraction") << qint64(61500) << u"1 min 1.5 s"_s;
        QTest::newRow("hours") << qint64(86400000) << u"24 h"_s;
        QTest::newRow("hours and minutes") << qint64(3900000) << u"1 h 5 min"_s;
        QTest::newRow("an hour and a millisecond") << qint64(3600001) << u"1 h 0.001 s"_s;
    }

    void writesDurationsExactly()
    {
        QFETCH(qint64, ms);
        QFETCH(QString, text);
        QCOMPARE(formatDurationExactly(milliseconds(ms)), text);
    }

    // What the dialog shows is read back as the same milliseconds, whatever they are.
    void readsBackWhatItWrites()
    {
        for (qint64 ms : {qint64(0), qint64(1), qint64(999), qint64(1000), qint64(1001), qint64(59999), qint64(60000),
                          qint64(60001), qint64(3599999), qint64(3600000), qint64(86400000), qint64(86399999)}) {
            QString error;
            const QString text = formatDurationExactly(milliseconds(ms));
            QCOMPARE(parseDuration(text, &error), std::optional<milliseconds>(ms));
        }
        for (qint64 ms = 0; ms < 200000; ms += 777) {
            QString error;
            QCOMPARE(parseDuration(formatDurationExactly(milliseconds(ms)), &error), std::optional<milliseconds>(ms));
        }
    }
};

QTEST_GUILESS_MAIN(TestDuration)
#include "tst_duration.moc"
