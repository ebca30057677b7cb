#include "common/displaytext.h"
#include "common/duration.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;

class TestDisplayText final : public QObject
{
    Q_OBJECT

private slots:
    void scrubsSecrets_data()
    {
        QTest::addColumn<QStringList>("secrets");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("scrubbed");

        const QString token = u"SECRET-TOKEN-123"_s;
        QTest::newRow("a reflected header") << QStringList{token} << u"X-Api-Key: SECRET-TOKEN-123 was refused"_s
                                            << u"X-Api-Key: … was refused"_s;
        QTest::newRow("every occurrence") << QStringList{token} << u"SECRET-TOKEN-123,SECRET-TOKEN-123"_s << u"…,…"_s;
        QTest::newRow("the longest first") << QStringList{u"abcdef"_s, u"abcdefghij"_s} << u"key abcdefghij"_s
                                           << u"key …"_s;
        QTest::newRow("two secrets") << QStringList{token, u"hunter22"_s} << u"user:hunter22 key:SECRET-TOKEN-123"_s
                                     << u"user:… key:…"_s;
        QTest::newRow("an excerpt cut inside one") << QStringList{token}
                                                   << u"the body starts with 'key=SECRET-TO…' (900 bytes)"_s
                                                   << u"the body starts with 'key=…' (900 bytes)"_s;
        QTest::newRow("a cut start shorter than the minimum stays") << QStringList{token} << u"a SECRE… b"_s
                                                                    << u"a SECRE… b"_s;
        QTest::newRow("an ordinary ellipsis stays") << QStringList{token} << u"loading… done"_s << u"loading… done"_s;
        QTest::newRow("short values are no secrets") << QStringList{u"1"_s, u"true"_s, u"debug"_s}
                                                     << u"debug: 1 is true"_s << u"debug: 1 is true"_s;
        QTest::newRow("case matters") << QStringList{token} << u"secret-token-123"_s << u"secret-token-123"_s;
        QTest::newRow("no secrets") << QStringList{} << u"plain text"_s << u"plain text"_s;
    }

    void scrubsSecrets()
    {
        QFETCH(QStringList, secrets);
        QFETCH(QString, text);
        QFETCH(QString, scrubbed);
        QCOMPARE(SecretScrubber(secrets).scrub(text), scrubbed);
    }

    void scrubsEveryStringOfJson()
    {
        const SecretScrubber secrets({u"SECRET-TOKEN-123"_s});
        const QJsonObject data{{u"message"_s, u"token SECRET-TOKEN-123"_s},
                               {u"SECRET-TOKEN-123"_s, 1},
                               {u"list"_s, QJsonArray{u"SECRET-TOKEN-123"_s, 2, true}}};
        const QJsonObject expected{{u"message"_s, u"token …"_s}, {u"…"_s, 1}, {u"list"_s, QJsonArray{u"…"_s, 2, true}}};
        QCOMPARE(secrets.scrub(QJsonValue(data)), QJsonValue(expected));
        QCOMPARE(secrets.scrub(QJsonValue(42)), QJsonValue(42));
    }

    // A secret learned later (a renewed token) joins those known, longest first as ever.
    void learnsSecretsLater()
    {
        const SecretScrubber first({u"first-token"_s});
        const SecretScrubber both = first.with({u"renewed-token"_s, u"renewed-token-long"_s, u"short"_s});
        QCOMPARE(both.scrub(u"first-token renewed-token renewed-token-long short"_s), u"… … … short"_s);
        QCOMPARE(first.scrub(u"renewed-token"_s), u"renewed-token"_s);
        QCOMPARE(both.with({u"first-token"_s}).scrub(u"first-token renewed-token-long"_s), u"… …"_s);
    }

    void makesControlCharactersVisible_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("keepLineBreaks");
        QTest::addColumn<QString>("shown");

        QTest::newRow("window title") << u"\x1b]0;owned\x07tool"_s << false << u"\\x1b]0;owned\\x07tool"_s;
        QTest::newRow("clear screen") << u"\x1b[2J\x1b[Hdescription"_s << true << u"\\x1b[2J\\x1b[Hdescription"_s;
        QTest::newRow("carriage return") << u"ok\rfake"_s << true << u"ok\\x0dfake"_s;
        QTest::newRow("line break in a line") << u"a\nb"_s << false << u"a\\x0ab"_s;
        QTest::newRow("line break in multi-line text") << u"a\nb\n"_s << true << u"a\nb\n"_s;
        QTest::newRow("tab stays") << u"a\tb"_s << false << u"a\tb"_s;
        QTest::newRow("NUL and DEL") << QString(u"a\0b\x7f"_s) << false << u"a\\x00b\\x7f"_s;
        QTest::newRow("C1 control sequence introducer") << u"\u009b2J"_s << true << u"\\u009b2J"_s;
        QTest::newRow("ordinary text stays") << u"héllo – ✓ \u00a0 ok"_s << false << u"héllo – ✓ \u00a0 ok"_s;
    }

    void makesControlCharactersVisible()
    {
        QFETCH(QString, text);
        QFETCH(bool, keepLineBreaks);
        QFETCH(QString, shown);
        QCOMPARE(withVisibleControls(text, keepLineBreaks ? LineBreaks::Keep : LineBreaks::Escape), shown);
    }

    void writesDurationsForPeople_data()
    {
        QTest::addColumn<qint64>("ms");
        QTest::addColumn<QString>("expected");
        QTest::newRow("none") << qint64(0) << u"0 ms"_s;
        QTest::newRow("under a second") << qint64(350) << u"350 ms"_s;
        QTest::newRow("just under a second") << qint64(999) << u"999 ms"_s;
        QTest::newRow("seconds") << qint64(4200) << u"4.2 s"_s;
        QTest::newRow("minutes") << qint64(151000) << u"2 min 31 s"_s;
        QTest::newRow("whole minutes") << qint64(120000) << u"2 min"_s;
        QTest::newRow("hours") << qint64(3900000) << u"1 h 5 min"_s;
    }

    void writesDurationsForPeople()
    {
        QFETCH(qint64, ms);
        QFETCH(QString, expected);
        QCOMPARE(formatDuration(std::chrono::milliseconds(ms)), expected);
    }
    // A caret under the place in the text, however long the text and whatever it holds.
    void pointsAtAPlaceInText_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qsizetype>("position");
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("caret");

        QTest::newRow("short") << u"{\"a\": }"_s << qsizetype(6) << u"{\"a\": }"_s << u"      ^"_s;
        QTest::newRow("at the end") << u"{\"a\": "_s << qsizetype(6) << u"{\"a\": "_s << u"      ^"_s;
        QTest::newRow("at the start") << u"x"_s << qsizetype(0) << u"x"_s << u"^"_s;
        QTest::newRow("controls made visible") << u"{\n\t\"a\" 1}"_s << qsizetype(6)
                                               << u"{\\x0a \"a\" 1}"_s << u"         ^"_s;
        const QString longText = QString(u'a').repeated(50) + u'X' + QString(u'b').repeated(50);
        QTest::newRow("long, cut on both sides") << longText << qsizetype(50)
                                                 << u'…' + QString(u'a').repeated(10) + u'X' + QString(u'b').repeated(9) + u'…'
                                                 << QString(u' ').repeated(11) + u'^';
        QTest::newRow("long, near the start") << longText << qsizetype(2)
                                              << QString(u'a').repeated(20) + u'…' << u"  ^"_s;
        QTest::newRow("long, at the end") << longText << longText.size()
                                          << u'…' + QString(u'b').repeated(20) << QString(u' ').repeated(21) + u'^';
    }

    void pointsAtAPlaceInText()
    {
        QFETCH(QString, text);
        QFETCH(qsizetype, position);
        QFETCH(QString, line);
        QFETCH(QString, caret);
        const PointedText pointed = pointAt(text, position, 20);
        QCOMPARE(pointed.line, line);
        QCOMPARE(pointed.caret, caret);
    }
};

QTEST_GUILESS_MAIN(TestDisplayText)
#include "tst_displaytext.moc"
