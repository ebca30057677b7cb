#include "auth/filesecretstore.h"
#include "auth/signinindex.h"
#include "keyring/keychainsecretstore.h"
#include "keyring/tokenstore.h"
#include "support/awaitreply.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using Tether::Testing::awaitReply;

// Tokens kept by the real QtKeychain, in the two places CTest runs this:
//  - tst_authkeyring_session: in a D-Bus session of its own with gnome-keyring-daemon unlocked
//    (TETHER_TEST_KEYRING=session): the tokens land in the keyring, never in a file;
//  - tst_authkeyring: with no D-Bus at all (TETHER_TEST_KEYRING=none): the file, and why.
// Either way no token reaches a log line.

namespace {

const QString ServerUrl = u"https://mcp.example.com/api/mcp"_s;
const QString AccessToken = u"access-c5e1d0a7"_s;
const QString RefreshToken = u"refresh-62b9f3e4"_s;
const QJsonObject Tokens{{u"issuer"_s, u"https://auth.example.com"_s},
                         {u"accessToken"_s, AccessToken},
                         {u"refreshToken"_s, RefreshToken}};
// A keyring job may wait for the keyring to start; the store's own bound is 60 s.
constexpr int JobTimeoutMs = 70000;

QStringList loggedLines;

void collectLogLines(QtMsgType, const QMessageLogContext &, const QString &message)
{
    loggedLines.append(message);
    fprintf(stderr, "%s\n", qPrintable(message));
}

SecretResult call(const std::function<void(SecretDone)> &operation)
{
    return awaitReply<SecretResult>(operation, JobTimeoutMs)
        .value_or(SecretResult{SecretResult::Status::Failed, u"no answer"_s, {}, {}, {}});
}

SignInRecord recordFor(const SecretResult &written)
{
    SignInRecord record;
    record.issuer = Tokens.value(u"issuer"_s).toString();
    record.account = u"alice"_s;
    record.store = written.store;
    record.storeNote = written.storeNote;
    record.updatedAt = QDateTime::currentDateTimeUtc();
    return record;
}

} // namespace

class TestAuthKeyring final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        m_mode = qEnvironmentVariable("TETHER_TEST_KEYRING");
        QVERIFY2(m_mode == u"session" || m_mode == u"none", "run through CTest: TETHER_TEST_KEYRING=session or none");
        QVERIFY(m_state.isValid());
        qputenv("XDG_STATE_HOME", m_state.path().toUtf8());
        qunsetenv("TETHER_TOKEN_STORE");
        qInstallMessageHandler(collectLogLines);
    }

    void cleanupTestCase()
    {
        qInstallMessageHandler(nullptr);
        for (const QString &line : std::as_const(loggedLines)) {
            QVERIFY2(!line.contains(AccessToken) && !line.contains(RefreshToken), qPrintable(line));
        }
    }

    void tokensLandInTheKeyring()
    {
        if (m_mode != u"session")
            QSKIP("needs the keyring of tst_authkeyring_session");
        const std::unique_ptr<TokenStore> store = TokenStore::forSystem(TokenStoreChoice::Auto);
        const SecretResult written = call([&](SecretDone done) { store->write(tokenKey(ServerUrl), Tokens, done); });
        QVERIFY2(written.ok(), qPrintable(written.error));
        QCOMPARE(written.store, u"keyring"_s);
        QCOMPARE(written.storeNote, QString());
        QVERIFY(!QFile::exists(FileSecretStore::defaultPath()));

        SignInIndex index(SignInIndex::defaultPath());
        QString error;
        QVERIFY2(index.put(ServerUrl, recordFor(written), &error), qPrintable(error));
        QCOMPARE(index.record(ServerUrl)->store, u"keyring"_s);
        QCOMPARE(index.record(ServerUrl)->info().store, u"keyring"_s);

        // Really there: read by a store of its own, as the next run would.
        KeychainSecretStore keyring;
        const SecretResult read = call([&](SecretDone done) { keyring.read(tokenKey(ServerUrl), done); });
        QVERIFY2(read.ok(), qPrintable(read.error));
        QCOMPARE(read.value, Tokens);

        QVERIFY(call([&](SecretDone done) { store->remove(tokenKey(ServerUrl), done); }).ok());
        QVERIFY(index.remove(ServerUrl, &error));
        const SecretResult gone = call([&](SecretDone done) { keyring.read(tokenKey(ServerUrl), done); });
        QCOMPARE(gone.status, SecretResult::Status::NotFound);
        QVERIFY(!QFile::exists(FileSecretStore::defaultPath()));
    }

    void theFileWhenTheConfigSaysSo()
    {
        if (m_mode != u"session")
            QSKIP("needs the keyring of tst_authkeyring_session, to show it is not used");
        const std::unique_ptr<TokenStore> store = TokenStore::forSystem(TokenStoreChoice::File);
        const SecretResult written = call([&](SecretDone done) { store->write(tokenKey(ServerUrl), Tokens, done); });
        QCOMPARE(written.store, u"file"_s);
        QCOMPARE(written.storeNote, u"defaults.oauth.tokenStore is \"file\""_s);
        KeychainSecretStore keyring;
        QCOMPARE(call([&](SecretDone done) { keyring.read(tokenKey(ServerUrl), done); }).status,
                 SecretResult::Status::NotFound);
        QVERIFY(call([&](SecretDone done) { store->remove(tokenKey(ServerUrl), done); }).ok());
        QVERIFY(!QFile::exists(FileSecretStore::defaultPath()));
    }

    void noKeyringMeansTheFile()
    {
        if (m_mode != u"none")
            QSKIP("runs without D-Bus (tst_authkeyring)");
        const std::unique_ptr<TokenStore> store = TokenStore::forSystem(TokenStoreChoice::Auto);
        const SecretResult written = call([&](SecretDone done) { store->write(tokenKey(ServerUrl), Tokens, done); });
        QVERIFY2(written.ok(), qPrintable(written.error));
        QCOMPARE(written.store, u"file"_s);
        // QtKeychain's own words for why: with libsecret and no session bus, D-Bus cannot be reached.
        QVERIFY2(written.storeNote.startsWith(u"no system keyring ("_s) && written.storeNote.contains(u"D-Bus"_s),
                 qPrintable(written.storeNote));

        const QString file = FileSecretStore::defaultPath();
        QCOMPARE(file, m_state.filePath(u"tether/credentials.json"_s));
        struct stat info{};
        QCOMPARE(::stat(QFile::encodeName(file).constData(), &info), 0);
        QCOMPARE(info.st_mode & 0777, mode_t(0600));

        SignInIndex index(SignInIndex::defaultPath());
        QString error;
        QVERIFY(index.put(ServerUrl, recordFor(written), &error));
        QCOMPARE(index.record(ServerUrl)->store, u"file"_s);
        QCOMPARE(index.record(ServerUrl)->storeNote, written.storeNote);

        QCOMPARE(call([&](SecretDone done) { store->read(tokenKey(ServerUrl), done); }).value, Tokens);
        QVERIFY(call([&](SecretDone done) { store->remove(tokenKey(ServerUrl), done); }).ok());
        QCOMPARE(call([&](SecretDone done) { store->read(tokenKey(ServerUrl), done); }).status,
                 SecretResult::Status::NotFound);
        QVERIFY(!QFile::exists(file));
    }

private:
    QString m_mode;
    QTemporaryDir m_state;
};

QTEST_GUILESS_MAIN(TestAuthKeyring)
#include "tst_authkeyring.moc"
