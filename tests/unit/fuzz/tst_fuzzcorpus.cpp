#include "fuzzentries.h"

#include <QDir>
#include <QFile>
#include <QSet>
#include <QTest>

using namespace Tether::Fuzz;

// Every input of fuzz/corpus/<name>/ through fuzz entry <name> in the normal build: the seeds,
// and each input a fuzzer once failed on (kept there as a regression test), in every test run.
class TestFuzzCorpus final : public QObject
{
    Q_OBJECT

private slots:
    void everyEntryHasItsCorpus()
    {
        QSet<QString> entries;
        for (const FuzzEntry &entry : FuzzEntries) {
            entries.insert(QString::fromLatin1(entry.name));
            QVERIFY2(!inputsOf(entry).isEmpty(), entry.name);
        }
        const QStringList folders = corpus().entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QCOMPARE(QSet<QString>(folders.begin(), folders.end()), entries);
    }

    void replays_data()
    {
        QTest::addColumn<qsizetype>("entry");
        QTest::addColumn<QString>("path");
        for (qsizetype index = 0; index < qsizetype(std::size(FuzzEntries)); ++index) {
            for (const QFileInfo &input : inputsOf(FuzzEntries[index]))
                QTest::addRow("%s/%s", FuzzEntries[index].name, qPrintable(input.fileName()))
                    << index << input.filePath();
        }
    }

    void replays()
    {
        QFETCH(qsizetype, entry);
        QFETCH(QString, path);
        QFile file(path);
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.errorString()));
        const QString broken = FuzzEntries[entry].run(file.readAll());
        QVERIFY2(broken.isEmpty(), qPrintable(broken));
    }

private:
    static QDir corpus() { return QDir(QStringLiteral(TETHER_FUZZ_CORPUS)); }

    static QFileInfoList inputsOf(const FuzzEntry &entry)
    {
        return QDir(corpus().filePath(QString::fromLatin1(entry.name))).entryInfoList(QDir::Files, QDir::Name);
    }
};

QTEST_GUILESS_MAIN(TestFuzzCorpus)
#include "tst_fuzzcorpus.moc"
