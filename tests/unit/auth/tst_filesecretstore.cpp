#include "auth/filesecretstore.h"
#include "support/awaitreply.h"
#include "support/testfiles.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using Tether::Testing::awaitReply;
using Tether::Testing::readFile;

namespace {

const QString ServerUrl = u"https://mcp.example.com/api/mcp"_s;
const QString Issuer = u"https://auth.example.com/tenant1"_s;

const QJsonObject Tokens{{u"issuer"_s, Issuer},
                         {u"clientId"_s, u"2ojz"_s},
                         {u"accessToken"_s, u"access-4f1c"_s},
                         {u"refreshToken"_s, u"refresh-9a7e"_s},
                         {u"expiresAt"_s, u"2026-11-30T12:00:00Z"_s}};
const QJsonObject Client{{u"clientId"_s, u"2ojz"_s}, {u"redirectUri"_s, u"http://127.0.0.1:43127/callback"_s}};

SecretResult readKey(FileSecretStore &store, const QString &key)
{
    return awaitReply<SecretResult>([&](SecretDone done) { store.read(key, done); }, 1000).value();
}

SecretResult writeKey(FileSecretStore &store, const QString &key, const QJsonObject &value)
{
    return awaitReply<SecretResult>([&](SecretDone done) { store.write(key, value, done); }, 1000).value();
}

SecretResult removeKey(FileSecretStore &store, const QString &key)
{
    return awaitReply<SecretResult>([&](SecretDone done) { store.remove(key, done); }, 1000).value();
}

mode_t modeOf(const QString &path)
{
    struct stat info{};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0)
        return 0;
    return info.st_mode & 07777;
}

ino_t inodeOf(const QString &path)
{
    struct stat info{};
    ::stat(QFile::encodeName(path).constData(), &info);
    return info.st_ino;
}

} // namespace

class TestFileSecretStore final : public QObject
{
    Q_OBJECT

private slots:
    // Each test in a folder of its own.
    void init()
    {
        m_home = std::make_unique<QTemporaryDir>();
        QVERIFY(m_home->isValid());
        m_path = m_home->filePath(u"state/tether/credentials.json"_s);
    }

    void defaultPathFollowsXdgStateHome()
    {
        qputenv("XDG_STATE_HOME", m_home->path().toUtf8());
        QCOMPARE(FileSecretStore::defaultPath(), m_home->filePath(u"tether/credentials.json"_s));
        // A relative value is not a place (the XDG rule): the home folder's default is used.
        qputenv("XDG_STATE_HOME", "relative/state");
        QCOMPARE(FileSecretStore::defaultPath(), QDir::homePath() + u"/.local/state/tether/credentials.json"_s);
        qunsetenv("XDG_STATE_HOME");
    }

    void roundTrip()
    {
        FileSecretStore store(m_path);
        QCOMPARE(readKey(store, tokenKey(ServerUrl)).status, SecretResult::Status::NotFound);
        QVERIFY(!QFile::exists(m_path)); // a read makes nothing

        const SecretResult written = writeKey(store, tokenKey(ServerUrl), Tokens);
        QVERIFY2(written.ok(), qPrintable(written.error));
        QCOMPARE(written.store, u"file"_s);
        QVERIFY(writeKey(store, clientKey(Issuer), Client).ok());

        const SecretResult read = readKey(store, tokenKey(ServerUrl));
        QVERIFY(read.ok());
        QCOMPARE(read.value, Tokens);
        QCOMPARE(readKey(store, clientKey(Issuer)).value, Client);
        // Another store on the same file (another Tether) sees the same entries.
        FileSecretStore other(m_path);
        QCOMPARE(readKey(other, tokenKey(ServerUrl)).value, Tokens);

        // The design's format: tokens by server url, clients by issuer.
        const QJsonObject file = QJsonDocument::fromJson(readFile(m_path)).object();
        QCOMPARE(file.value(u"version"_s).toInt(), 1);
        QCOMPARE(file.value(u"tokens"_s).toObject().value(ServerUrl).toObject(), Tokens);
        QCOMPARE(file.value(u"clients"_s).toObject().value(Issuer).toObject(), Client);

        QVERIFY(removeKey(store, tokenKey(ServerUrl)).ok());
        QCOMPARE(readKey(store, tokenKey(ServerUrl)).status, SecretResult::Status::NotFound);
        QCOMPARE(readKey(store, clientKey(Issuer)).value, Client);
        QVERIFY(removeKey(store, tokenKey(ServerUrl)).ok()); // already gone: no error
        // Nothing left: no file left either.
        QVERIFY(removeKey(store, clientKey(Issuer)).ok());
        QVERIFY(!QFile::exists(m_path));
    }

    void modes()
    {
        FileSecretStore store(m_path);
        QVERIFY(writeKey(store, tokenKey(ServerUrl), Tokens).ok());
        QCOMPARE(modeOf(QFileInfo(m_path).absolutePath()), mode_t(0700));
        QCOMPARE(modeOf(m_path), mode_t(0600));
        // Replaced, it stays 0600, whatever the umask would give a new file.
        const mode_t previous = ::umask(0);
        const bool rewritten = writeKey(store, clientKey(Issuer), Client).ok();
        ::umask(previous);
        QVERIFY(rewritten);
        QCOMPARE(modeOf(m_path), mode_t(0600));
    }

    // Written beside the file and renamed over it: a reader holding the old file reads it whole,
    // and no temporary file stays behind.
    void writesAtomically()
    {
        FileSecretStore store(m_path);
        QVERIFY(writeKey(store, tokenKey(ServerUrl), Tokens).ok());
        const QByteArray before = readFile(m_path);
        QFile reader(m_path);
        QVERIFY(reader.open(QIODevice::ReadOnly));
        const ino_t inode = inodeOf(m_path);

        QVERIFY(writeKey(store, clientKey(Issuer), Client).ok());
        QVERIFY(inodeOf(m_path) != inode); // a new file, renamed into place
        QCOMPARE(reader.readAll(), before);
        QCOMPARE(QDir(QFileInfo(m_path).absolutePath()).entryList(QDir::Files | QDir::Hidden),
                 QStringList{u"credentials.json"_s});
    }

    void refusesAFileOthersCanRead_data()
    {
        QTest::addColumn<int>("mode");
        QTest::newRow("0644") << 0644;
        QTest::newRow("0640") << 0640;
        QTest::newRow("0604") << 0604;
        QTest::newRow("0660") << 0660;
    }

    void refusesAFileOthersCanRead()
    {
        QFETCH(int, mode);
        FileSecretStore store(m_path);
        QVERIFY(writeKey(store, tokenKey(ServerUrl), Tokens).ok());
        QVERIFY(::chmod(QFile::encodeName(m_path).constData(), mode_t(mode)) == 0);
        const QByteArray before = readFile(m_path);
        const QString expected = u"%1 is readable by others (mode %2); Tether does not use it: chmod 600 %1"_s.arg(m_path).arg(
            mode, 4, 8, QLatin1Char('0'));

        const SecretResult read = readKey(store, tokenKey(ServerUrl));
        QCOMPARE(read.status, SecretResult::Status::Failed);
        QCOMPARE(read.error, expected);
        QVERIFY(read.value.isEmpty());
        // Neither written over nor emptied: the user decides.
        const SecretResult written = writeKey(store, clientKey(Issuer), Client);
        QCOMPARE(written.status, SecretResult::Status::Failed);
        QCOMPARE(written.error, expected);
        QCOMPARE(removeKey(store, tokenKey(ServerUrl)).error, expected);
        QCOMPARE(readFile(m_path), before);
        QCOMPARE(modeOf(m_path), mode_t(mode));

        QVERIFY(::chmod(QFile::encodeName(m_path).constData(), 0600) == 0);
        QCOMPARE(readKey(store, tokenKey(ServerUrl)).value, Tokens);
    }

    void refusesWhatIsNotItsFile()
    {
        QVERIFY(QDir().mkpath(QFileInfo(m_path).absolutePath()));
        FileSecretStore store(m_path);
        // A link could point anywhere: never followed.
        QVERIFY(QFile::link(m_home->filePath(u"elsewhere.json"_s), m_path));
        QCOMPARE(readKey(store, tokenKey(ServerUrl)).error,
                 u"%1 is not a regular file; Tether does not use it: move it away"_s.arg(m_path));
        QVERIFY(QFile::remove(m_path));

        QVERIFY(Testing::writeFile(m_path, "not json"));
        QVERIFY(::chmod(QFile::encodeName(m_path).constData(), 0600) == 0);
        const QString notOurs = u"%1 is not the JSON object Tether writes; Tether does not use it: move it away, and "
                                "sign in again"_s.arg(m_path);
        QCOMPARE(readKey(store, tokenKey(ServerUrl)).error, notOurs);
        QCOMPARE(writeKey(store, tokenKey(ServerUrl), Tokens).error, notOurs);
        QCOMPARE(readFile(m_path), QByteArray("not json"));

        QCOMPARE(writeKey(store, u"password:x"_s, Tokens).error,
                 u"password:x is not a key of the token file (token:<server url> or client:<issuer>)"_s);
    }

private:
    std::unique_ptr<QTemporaryDir> m_home;
    QString m_path;
};

QTEST_GUILESS_MAIN(TestFileSecretStore)
#include "tst_filesecretstore.moc"
