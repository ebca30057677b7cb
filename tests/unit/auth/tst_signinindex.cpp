#include "auth/signinindex.h"
#include "support/testfiles.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using Tether::Testing::readFile;

namespace {

const QString ServerUrl = u"https://mcp.example.com/api/mcp"_s;

SignInRecord aliceRecord()
{
    SignInRecord record;
    record.issuer = u"https://auth.example.com/tenant1"_s;
    record.clientId = u"2ojz"_s;
    record.account = u"alice@example.com"_s;
    record.scopes = {u"mcp:read"_s, u"mcp:admin"_s};
    record.expiresAt = QDateTime(QDate(2026, 11, 30), QTime(12, 0), Qt::UTC);
    record.store = u"file"_s;
    record.storeNote = u"no system keyring (Cannot autolaunch D-Bus without X11 $DISPLAY)"_s;
    record.updatedAt = QDateTime(QDate(2026, 11, 30), QTime(11, 0), Qt::UTC);
    return record;
}

} // namespace

class TestSignInIndex final : public QObject
{
    Q_OBJECT

private slots:
    void init()
    {
        m_home = std::make_unique<QTemporaryDir>();
        QVERIFY(m_home->isValid());
        m_path = m_home->filePath(u"tether/signins.json"_s);
    }

    void roundTrip()
    {
        SignInIndex index(m_path);
        QVERIFY(!index.record(ServerUrl));
        QString error;
        QVERIFY2(index.put(ServerUrl, aliceRecord(), &error), qPrintable(error));
        SignInRecord other = aliceRecord();
        other.account.clear();
        other.expiresAt = {};
        other.store = u"keyring"_s;
        other.storeNote.clear();
        QVERIFY(index.put(u"https://other.example/mcp"_s, other, &error));

        // Read afresh by another index on the same file, as another Tether would.
        const SignInIndex reader(m_path);
        QCOMPARE(reader.record(ServerUrl), std::optional(aliceRecord()));
        QCOMPARE(reader.record(u"https://other.example/mcp"_s), std::optional(other));
        QCOMPARE(reader.records(&error).size(), 2);
        QVERIFY(error.isEmpty());

        const SignInInfo info = reader.record(ServerUrl)->info();
        QCOMPARE(info.state, SignInInfo::State::SignedIn);
        QCOMPARE(info.account, u"alice@example.com"_s);
        QCOMPARE(info.scopes, aliceRecord().scopes);
        QCOMPARE(info.expiresAt, aliceRecord().expiresAt);
        QCOMPARE(info.store, u"file"_s);
        QCOMPARE(info.storeNote, aliceRecord().storeNote);

        QVERIFY(index.remove(ServerUrl, &error));
        QVERIFY(!reader.record(ServerUrl));
        QVERIFY(index.remove(ServerUrl, &error)); // not there: no error
        QVERIFY(index.remove(u"https://other.example/mcp"_s, &error));
        QVERIFY(!QFile::exists(m_path));
    }

    // The index holds what Details shows, in the design's keys, and nothing else: no token field
    // exists to fill.
    void fileHoldsNoSecretKeys()
    {
        SignInIndex index(m_path);
        QString error;
        QVERIFY(index.put(ServerUrl, aliceRecord(), &error));
        const QJsonObject file = QJsonDocument::fromJson(readFile(m_path)).object();
        QCOMPARE(file.value(u"version"_s).toInt(), 1);
        const QJsonObject entry = file.value(u"servers"_s).toObject().value(ServerUrl).toObject();
        QStringList keys = entry.keys();
        keys.sort();
        QCOMPARE(keys, (QStringList{u"account"_s, u"clientId"_s, u"expiresAt"_s, u"issuer"_s, u"scopes"_s, u"store"_s,
                                    u"storeNote"_s, u"updatedAt"_s}));
        QCOMPARE(entry.value(u"expiresAt"_s).toString(), u"2026-11-30T12:00:00Z"_s);
        struct stat info{};
        QCOMPARE(::stat(QFile::encodeName(m_path).constData(), &info), 0);
        QCOMPARE(info.st_mode & 0777, mode_t(0600));
    }

    void refusesAFileOthersCanRead()
    {
        SignInIndex index(m_path);
        QString error;
        QVERIFY(index.put(ServerUrl, aliceRecord(), &error));
        QVERIFY(::chmod(QFile::encodeName(m_path).constData(), 0644) == 0);
        const QString expected = u"%1 is readable by others (mode 0644); Tether does not use it: chmod 600 %1"_s.arg(m_path);
        QVERIFY(index.records(&error).isEmpty());
        QCOMPARE(error, expected);
        QVERIFY(!index.put(ServerUrl, aliceRecord(), &error));
        QCOMPARE(error, expected);
    }

private:
    std::unique_ptr<QTemporaryDir> m_home;
    QString m_path;
};

QTEST_GUILESS_MAIN(TestSignInIndex)
#include "tst_signinindex.moc"
