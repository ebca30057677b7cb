// What a mistyped name probably meant, as tetherctl and the gateway suggest it.
#include "common/closenames.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;

class TestCloseNames final : public QObject
{
    Q_OBJECT

private slots:
    void measuresEdits_data()
    {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::addColumn<int>("distance");

        QTest::newRow("same") << u"status"_s << u"status"_s << 0;
        QTest::newRow("swapped letters") << u"stauts"_s << u"status"_s << 2;
        QTest::newRow("one replaced") << u"ecko"_s << u"echo"_s << 1;
        QTest::newRow("one missing") << u"githbu"_s << u"github"_s << 2;
        QTest::newRow("case is no edit") << u"GitHub"_s << u"github"_s << 0;
        QTest::newRow("empty") << QString() << u"abc"_s << 3;
    }

    void measuresEdits()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(int, distance);
        QCOMPARE(editDistance(a, b), distance);
        QCOMPARE(editDistance(b, a), distance);
    }

    void findsCloseNames_data()
    {
        QTest::addColumn<QString>("typed");
        QTest::addColumn<QStringList>("candidates");
        QTest::addColumn<QStringList>("close");

        const QStringList commands{u"status"_s, u"start"_s, u"stop"_s, u"servers"_s, u"serve"_s, u"tools"_s};
        QTest::newRow("a command") << u"stauts"_s << commands << QStringList{u"status"_s, u"start"_s};
        QTest::newRow("closest first") << u"serv"_s << commands << QStringList{u"serve"_s, u"servers"_s};
        QTest::newRow("nothing close") << u"frobnicate"_s << commands << QStringList{};
        QTest::newRow("contained") << u"search"_s << QStringList{u"search_repositories"_s, u"echo"_s}
                                   << QStringList{u"search_repositories"_s};
        QTest::newRow("nothing typed") << QString() << commands << QStringList{};
    }

    void findsCloseNames()
    {
        QFETCH(QString, typed);
        QFETCH(QStringList, candidates);
        QFETCH(QStringList, close);
        QCOMPARE(closeNames(typed, candidates), close);
    }

    void tellsLikelyTypos_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("typo");
        QTest::newRow("a letter missing") << u"arg"_s << u"args"_s << true;
        QTest::newRow("neighbours swapped") << u"evn"_s << u"env"_s << true;
        QTest::newRow("case") << u"MCPServers"_s << u"mcpServers"_s << true;
        QTest::newRow("two edits, long") << u"timeout"_s << u"timeoutMs"_s << true;
        QTest::newRow("two edits, short") << u"id"_s << u"cwd"_s << false;
        QTest::newRow("a part") << u"mcp"_s << u"mcpServers"_s << false;
        QTest::newRow("far apart swaps") << u"vne"_s << u"env"_s << false;
    }

    void tellsLikelyTypos()
    {
        QFETCH(QString, key);
        QFETCH(QString, name);
        QFETCH(bool, typo);
        QCOMPARE(isLikelyTypo(key, name), typo);
    }

    void limitsTheirNumber()
    {
        QCOMPARE(closeNames(u"a", {u"b"_s, u"c"_s, u"d"_s}, 2), (QStringList{u"b"_s, u"c"_s}));
    }

    void suggests()
    {
        QCOMPARE(didYouMean({}), QString());
        QCOMPARE(didYouMean({u"status"_s}), u"; did you mean status?"_s);
        QCOMPARE(didYouMean({u"echo"_s, u"add"_s, u"sum"_s}), u"; did you mean echo, add or sum?"_s);
    }
};

QTEST_GUILESS_MAIN(TestCloseNames)
#include "tst_closenames.moc"
