// The gateway's bearer token: made once, 0600, kept; a token file others can read, or that holds
// no token, is refused with what to do; the comparison takes exactly "Bearer <token>".
#include "gateway/gatewaytoken.h"

#include "support/testfiles.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

class TestGatewayToken final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private slots:
    void madeOnFirstUseAndKept()
    {
        const QString path = gatewayTokenPath(m_dir.filePath(u"config/servers.json"_s));
        QCOMPARE(path, m_dir.filePath(u"config/gateway-token"_s));
        QString error;
        const std::optional<QByteArray> made = loadOrCreateGatewayToken(path, &error);
        QVERIFY2(made, qPrintable(error));
        QCOMPARE(made->size(), 43); // 32 bytes in base64url, unpadded
        QVERIFY(!made->contains('=') && !made->contains('+') && !made->contains('/'));
        struct stat info{};
        QCOMPARE(::stat(QFile::encodeName(path).constData(), &info), 0);
        QCOMPARE(info.st_mode & 0777, 0600u);
        QCOMPARE(loadOrCreateGatewayToken(path, &error), made);
        // Another file, another token.
        const std::optional<QByteArray> other = loadOrCreateGatewayToken(m_dir.filePath(u"other-token"_s), &error);
        QVERIFY(other && *other != *made);
    }

    void rotatedInPlace()
    {
        const QString path = m_dir.filePath(u"rotated/gateway-token"_s);
        QString error;
        const std::optional<QByteArray> first = loadOrCreateGatewayToken(path, &error);
        QVERIFY2(first, qPrintable(error));
        const std::optional<QByteArray> rotated = rotateGatewayToken(path, &error);
        QVERIFY2(rotated, qPrintable(error));
        QCOMPARE(rotated->size(), 43);
        QVERIFY(*rotated != *first);
        QCOMPARE(readGatewayToken(path, &error), rotated);
        struct stat info{};
        QCOMPARE(::stat(QFile::encodeName(path).constData(), &info), 0);
        QCOMPARE(info.st_mode & 0777, 0600u);
        QCOMPARE(QDir(m_dir.filePath(u"rotated"_s)).entryList(QDir::Files | QDir::Hidden), QStringList{u"gateway-token"_s});
    }

    void aRotationThatCannotWriteKeepsTheOldToken()
    {
        const QString folder = m_dir.filePath(u"locked"_s);
        const QString path = folder + u"/gateway-token"_s;
        QString error;
        const std::optional<QByteArray> kept = loadOrCreateGatewayToken(path, &error);
        QVERIFY2(kept, qPrintable(error));
        QVERIFY(QFile::setPermissions(folder, QFile::ReadOwner | QFile::ExeOwner));
        const std::optional<QByteArray> rotated = rotateGatewayToken(path, &error);
        QFile::setPermissions(folder, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        if (::geteuid() == 0)
            QSKIP("root writes into a read-only folder");
        QVERIFY(!rotated);
        QVERIFY2(error.startsWith(u"Cannot replace the gateway token: Cannot write in "_s + folder), qPrintable(error));
        QVERIFY2(error.endsWith(u"; the old token stays in use"_s), qPrintable(error));
        QCOMPARE(readGatewayToken(path, &error), kept);
    }

    void refused_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("message");
        QTest::newRow("readable by the group") << QByteArray("0123456789abcdefghij\n") << 0640
                                               << u"can be read by others (mode 640), so anyone could call your tools: "
                                                  "run chmod 600 "_s;
        QTest::newRow("readable by all") << QByteArray("0123456789abcdefghij\n") << 0644 << u"(mode 644)"_s;
        QTest::newRow("empty") << QByteArray() << 0600 << u"holds no token"_s;
        QTest::newRow("not a token") << QByteArray("hello world, this is no token") << 0600 << u"holds no token"_s;
    }

    void refused()
    {
        QFETCH(QByteArray, content);
        QFETCH(int, mode);
        QFETCH(QString, message);
        const QString path = m_dir.filePath(QString::fromLatin1(QTest::currentDataTag()).replace(u' ', u'-'));
        QVERIFY(writeFile(path, content));
        QCOMPARE(::chmod(QFile::encodeName(path).constData(), mode_t(mode)), 0);
        QString error;
        QVERIFY(!loadOrCreateGatewayToken(path, &error));
        QVERIFY2(error.contains(message) && error.contains(path), qPrintable(error));
    }

    void aLinkIsNoToken()
    {
        const QString target = m_dir.filePath(u"elsewhere"_s);
        QVERIFY(writeFile(target, "0123456789abcdefghij\n"));
        QCOMPARE(::chmod(QFile::encodeName(target).constData(), 0600), 0);
        const QString path = m_dir.filePath(u"linked-token"_s);
        QVERIFY(QFile::link(target, path));
        QString error;
        QVERIFY(!loadOrCreateGatewayToken(path, &error));
        QCOMPARE(error, u"The gateway token %1 is not a regular file; move it away, and Tether makes a new one"_s.arg(path));
        // A link to nothing is no place to make one either.
        const QString dangling = m_dir.filePath(u"dangling-token"_s);
        QVERIFY(QFile::link(m_dir.filePath(u"nothing"_s), dangling));
        QVERIFY(!loadOrCreateGatewayToken(dangling, &error));
        QVERIFY2(error.contains(u"is not a regular file"_s), qPrintable(error));
        QVERIFY(!QFile::exists(m_dir.filePath(u"nothing"_s)));
    }

    void anotherUsersTokenIsRefused()
    {
        if (::geteuid() != 0)
            QSKIP("only root can give a file to another user");
        const QString path = m_dir.filePath(u"their-token"_s);
        QVERIFY(writeFile(path, "0123456789abcdefghij\n"));
        QCOMPARE(::chmod(QFile::encodeName(path).constData(), 0600), 0);
        QCOMPARE(::chown(QFile::encodeName(path).constData(), 65534, 65534), 0);
        QString error;
        QVERIFY(!loadOrCreateGatewayToken(path, &error));
        QCOMPARE(error, u"The gateway token %1 belongs to another user; delete it, and Tether makes one of your own"_s.arg(path));
    }

    void bearerTokenMatches_data()
    {
        QTest::addColumn<QByteArray>("authorization");
        QTest::addColumn<bool>("expected");
        QTest::newRow("exact") << QByteArray("Bearer abcdefghijklmnop") << true;
        QTest::newRow("scheme in any case") << QByteArray("BEARER abcdefghijklmnop") << true;
        QTest::newRow("blanks around") << QByteArray("Bearer  abcdefghijklmnop ") << true;
        QTest::newRow("last byte differs") << QByteArray("Bearer abcdefghijklmnoq") << false;
        QTest::newRow("prefix") << QByteArray("Bearer abcdefghijklmno") << false;
        QTest::newRow("longer") << QByteArray("Bearer abcdefghijklmnopq") << false;
        QTest::newRow("no scheme") << QByteArray("abcdefghijklmnop") << false;
        QTest::newRow("empty") << QByteArray() << false;
        QTest::newRow("scheme alone") << QByteArray("Bearer ") << false;
    }

    void bearerTokenMatches()
    {
        QFETCH(QByteArray, authorization);
        QFETCH(bool, expected);
        QCOMPARE(Tether::bearerTokenMatches(authorization, "abcdefghijklmnop"), expected);
    }
};

QTEST_GUILESS_MAIN(TestGatewayToken)
#include "tst_gatewaytoken.moc"
