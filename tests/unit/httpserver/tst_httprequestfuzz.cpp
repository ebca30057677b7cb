#include "fuzz/httprequestentry.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QTest>

using namespace Tether;
using namespace Qt::StringLiterals;

// The fuzz entry of HttpRequestParser in the normal build: every input of its corpus (the seeds,
// and any input a fuzzer once failed on, kept as a regression test), then seeded mutations of
// them, so that each test run also explores a little.
class TestHttpRequestFuzz final : public QObject
{
    Q_OBJECT

private slots:
    void replaysTheCorpus_data()
    {
        QTest::addColumn<QString>("path");
        const QFileInfoList inputs = corpus().entryInfoList(QDir::Files, QDir::Name);
        QVERIFY(!inputs.isEmpty());
        for (const QFileInfo &input : inputs)
            QTest::newRow(qPrintable(input.fileName())) << input.filePath();
    }

    void replaysTheCorpus()
    {
        QFETCH(QString, path);
        QFile file(path);
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.errorString()));
        const QString broken = Fuzz::httpRequest(file.readAll());
        QVERIFY2(broken.isEmpty(), qPrintable(broken));
    }

    // Bit flips, bytes that matter to HTTP put in, ranges cut, doubled or cut off, inputs spliced.
    void survivesMutations()
    {
        constexpr int Mutations = 25'000;
        QList<QByteArray> seeds;
        for (const QFileInfo &input : corpus().entryInfoList(QDir::Files, QDir::Name)) {
            QFile file(input.filePath());
            QVERIFY(file.open(QIODevice::ReadOnly));
            seeds.append(file.readAll().first(std::min<qsizetype>(file.size(), 512)));
        }
        QRandomGenerator random(20261130);
        static constexpr char interesting[] = {'\r', '\n', ' ', '\t', ':', ',', '\0', '0', '9', '-', '+', '/', '?', '%', 'H', '\x7f', '\xff'};
        for (int i = 0; i < Mutations; ++i) {
            QByteArray input = seeds[random.bounded(qsizetype(seeds.size()))];
            for (int edits = 1 + random.bounded(4); edits > 0 && input.size() > 1; --edits) {
                const qsizetype at = 1 + random.bounded(input.size() - 1);
                const qsizetype length = std::min<qsizetype>(1 + random.bounded(16), input.size() - at);
                switch (random.bounded(6)) {
                case 0: input[at] = char(input[at] ^ (1 << random.bounded(8))); break;
                case 1: input.insert(at, interesting[random.bounded(qsizetype(std::size(interesting)))]); break;
                case 2: input.remove(at, length); break;
                case 3: input.insert(at, input.mid(at, length)); break;
                case 4: input.truncate(at); break;
                case 5: input += seeds[random.bounded(qsizetype(seeds.size()))].sliced(1); break;
                }
            }
            if (!input.isEmpty())
                input[0] = char(random.bounded(256)); // any way of arriving, either bounds
            const QString broken = Fuzz::httpRequest(input);
            QVERIFY2(broken.isEmpty(), qPrintable(u"mutation %1 (%2): %3"_s.arg(i).arg(QString::fromLatin1(input.toBase64()), broken)));
        }
    }

private:
    static QDir corpus() { return QDir(QStringLiteral(TETHER_HTTP_REQUEST_CORPUS)); }
};

QTEST_GUILESS_MAIN(TestHttpRequestFuzz)
#include "tst_httprequestfuzz.moc"
