#include "common/commandline.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;

class TestCommandLine final : public QObject
{
    Q_OBJECT

private slots:
    void splits_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QStringList>("words");

        QTest::newRow("plain") << u"server --flag value"_s << QStringList{u"server"_s, u"--flag"_s, u"value"_s};
        QTest::newRow("extra blanks") << u"  a \t b  "_s << QStringList{u"a"_s, u"b"_s};
        QTest::newRow("single quotes keep everything") << u"echo 'a \"b\" \\c $HOME'"_s
                                                       << QStringList{u"echo"_s, u"a \"b\" \\c $HOME"_s};
        QTest::newRow("double quotes with escapes") << u"echo \"say \\\"hi\\\" \\\\ \\n\""_s
                                                    << QStringList{u"echo"_s, u"say \"hi\" \\ \\n"_s};
        QTest::newRow("quotes join a word") << u"--arg='x y'z"_s << QStringList{u"--arg=x yz"_s};
        QTest::newRow("empty quoted word") << u"a '' b"_s << QStringList{u"a"_s, u""_s, u"b"_s};
        QTest::newRow("backslash escapes a blank") << u"my\\ server x"_s << QStringList{u"my server"_s, u"x"_s};
        QTest::newRow("no expansion") << u"$HOME *.txt ~"_s << QStringList{u"$HOME"_s, u"*.txt"_s, u"~"_s};
        QTest::newRow("unicode") << u"srv 'héllo wörld'"_s << QStringList{u"srv"_s, u"héllo wörld"_s};
    }

    void splits()
    {
        QFETCH(QString, line);
        QFETCH(QStringList, words);
        const SplitCommandLine split = splitCommandLine(line);
        QCOMPARE(split.error, QString());
        QCOMPARE(split.words, words);
    }

    void joinsSoThatSplittingGivesTheWordsBack_data()
    {
        QTest::addColumn<QStringList>("words");
        QTest::addColumn<QString>("line");

        QTest::newRow("plain") << QStringList{u"-y"_s, u"@scope/pkg@1.0"_s, u"--root=/srv"_s}
                               << u"-y @scope/pkg@1.0 --root=/srv"_s;
        QTest::newRow("blanks") << QStringList{u"My Documents"_s, u"tab\there"_s} << u"'My Documents' 'tab\there'"_s;
        QTest::newRow("empty word") << QStringList{u"a"_s, QString(), u"b"_s} << u"a '' b"_s;
        QTest::newRow("single quote") << QStringList{u"it's"_s} << u"'it'\\''s'"_s;
        QTest::newRow("shell characters") << QStringList{u"$HOME"_s, u"*.txt"_s, u"a;b"_s, u"\"x\\y\""_s}
                                          << u"'$HOME' '*.txt' 'a;b' '\"x\\y\"'"_s;
        QTest::newRow("variable") << QStringList{u"${env:TOKEN}"_s} << u"'${env:TOKEN}'"_s;
    }

    void joinsSoThatSplittingGivesTheWordsBack()
    {
        QFETCH(QStringList, words);
        QFETCH(QString, line);
        QCOMPARE(joinCommandLine(words), line);
        const SplitCommandLine split = splitCommandLine(line);
        QCOMPARE(split.error, QString());
        QCOMPARE(split.words, words);
    }

    void rejects_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("errorPart");

        QTest::newRow("empty") << QString() << u"empty"_s;
        QTest::newRow("blank") << u"   "_s << u"empty"_s;
        QTest::newRow("open single quote") << u"a 'b"_s << u"unterminated '"_s;
        QTest::newRow("open double quote") << u"a \"b"_s << u"unterminated \""_s;
        QTest::newRow("lone backslash") << u"a \\"_s << u"backslash"_s;
    }

    void rejects()
    {
        QFETCH(QString, line);
        QFETCH(QString, errorPart);
        const SplitCommandLine split = splitCommandLine(line);
        QVERIFY2(split.error.contains(errorPart), qPrintable(split.error));
    }
};

QTEST_APPLESS_MAIN(TestCommandLine)
#include "tst_commandline.moc"
