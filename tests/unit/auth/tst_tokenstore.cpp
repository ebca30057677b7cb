#include "auth/filesecretstore.h"
#include "auth/memorysecretstore.h"
#include "keyring/tokenstore.h"
#include "support/awaitreply.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using Tether::Testing::awaitReply;

Q_DECLARE_METATYPE(Tether::TokenStoreChoice)

namespace {

const QString Key = tokenKey(u"https://mcp.example.com/api/mcp"_s);
const QJsonObject Tokens{{u"accessToken"_s, u"access-4f1c"_s}, {u"refreshToken"_s, u"refresh-9a7e"_s}};
const QJsonObject Renewed{{u"accessToken"_s, u"access-77b0"_s}, {u"refreshToken"_s, u"refresh-0c21"_s}};

// A keyring that answers as it is told: entries in memory while it works, `failure` while it does not.
class ScriptedKeyring final : public SecretStore
{
public:
    std::optional<SecretResult> failure;
    int calls = 0;

    void read(const QString &key, SecretDone done) override { answer([&](SecretDone d) { m_entries.read(key, d); }, done); }
    void write(const QString &key, const QJsonObject &value, SecretDone done) override
    {
        answer([&](SecretDone d) { m_entries.write(key, value, d); }, done);
    }
    void remove(const QString &key, SecretDone done) override { answer([&](SecretDone d) { m_entries.remove(key, d); }, done); }

private:
    void answer(const std::function<void(SecretDone)> &working, const SecretDone &done)
    {
        ++calls;
        if (failure)
            return done(*failure);
        working([done](const SecretResult &result) {
            SecretResult fromKeyring = result;
            fromKeyring.store = u"keyring"_s;
            done(fromKeyring);
        });
    }

    MemorySecretStore m_entries;
};

const SecretResult NoDbus{SecretResult::Status::Failed, u"Cannot autolaunch D-Bus without X11 $DISPLAY"_s, {}, u"keyring"_s, {}};
const SecretResult Locked{SecretResult::Status::AccessDenied, u"Access to the keyring was denied"_s, {}, u"keyring"_s, {}};

SecretResult call(const std::function<void(SecretDone)> &operation)
{
    return awaitReply<SecretResult>(operation, 1000).value();
}

} // namespace

class TestTokenStore final : public QObject
{
    Q_OBJECT

private slots:
    void init()
    {
        m_folder = std::make_unique<QTemporaryDir>();
        QVERIFY(m_folder->isValid());
        m_filePath = m_folder->filePath(u"tether/credentials.json"_s);
        auto keyring = std::make_unique<ScriptedKeyring>();
        m_keyring = keyring.get();
        m_store = std::make_unique<TokenStore>(std::move(keyring), std::make_unique<FileSecretStore>(m_filePath), QString());
    }

    void forcedFileReason_data()
    {
        QTest::addColumn<TokenStoreChoice>("choice");
        QTest::addColumn<QString>("environment");
        QTest::addColumn<QString>("reason");
        QTest::newRow("auto") << TokenStoreChoice::Auto << QString() << QString();
        QTest::newRow("config") << TokenStoreChoice::File << QString() << u"defaults.oauth.tokenStore is \"file\""_s;
        QTest::newRow("environment") << TokenStoreChoice::Auto << u"file"_s << u"TETHER_TOKEN_STORE=file"_s;
        QTest::newRow("both") << TokenStoreChoice::File << u"file"_s << u"TETHER_TOKEN_STORE=file"_s;
        QTest::newRow("environment says auto") << TokenStoreChoice::Auto << u"auto"_s << QString();
    }

    void forcedFileReason()
    {
        QFETCH(TokenStoreChoice, choice);
        QFETCH(QString, environment);
        QFETCH(QString, reason);
        QCOMPARE(Tether::forcedFileReason(choice, environment), reason);
    }

    void aWorkingKeyringHoldsTheTokens()
    {
        const SecretResult written = call([&](SecretDone done) { m_store->write(Key, Tokens, done); });
        QVERIFY(written.ok());
        QCOMPARE(written.store, u"keyring"_s);
        QVERIFY(written.storeNote.isEmpty());
        QVERIFY(!QFile::exists(m_filePath));
        const SecretResult read = call([&](SecretDone done) { m_store->read(Key, done); });
        QCOMPARE(read.value, Tokens);
        QCOMPARE(read.store, u"keyring"_s);
    }

    // The headless case: every keyring call fails (QtKeychain's OtherError).
    void noKeyringMeansTheFile()
    {
        m_keyring->failure = NoDbus;
        const SecretResult written = call([&](SecretDone done) { m_store->write(Key, Tokens, done); });
        QVERIFY(written.ok());
        QCOMPARE(written.store, u"file"_s);
        QCOMPARE(written.storeNote, u"no system keyring (Cannot autolaunch D-Bus without X11 $DISPLAY)"_s);
        QVERIFY(QFile::exists(m_filePath));
        const SecretResult read = call([&](SecretDone done) { m_store->read(Key, done); });
        QCOMPARE(read.value, Tokens);
        QCOMPARE(read.store, u"file"_s);
    }

    void aLaterKeyringSaveRemovesTheFileCopy()
    {
        m_keyring->failure = NoDbus;
        QCOMPARE(call([&](SecretDone done) { m_store->write(Key, Tokens, done); }).store, u"file"_s);
        m_keyring->failure.reset();
        const SecretResult written = call([&](SecretDone done) { m_store->write(Key, Renewed, done); });
        QCOMPARE(written.store, u"keyring"_s);
        QVERIFY(!QFile::exists(m_filePath));
        QCOMPARE(call([&](SecretDone done) { m_store->read(Key, done); }).value, Renewed);
    }

    // Locked, or refused by the user: nothing is written anywhere, the run still signs in.
    void aRefusingKeyringMeansMemoryForThisRun()
    {
        m_keyring->failure = Locked;
        const SecretResult written = call([&](SecretDone done) { m_store->write(Key, Tokens, done); });
        QVERIFY(written.ok());
        QCOMPARE(written.store, u"memory"_s);
        QCOMPARE(written.storeNote,
                 u"the system keyring refused access (Access to the keyring was denied); kept for this run only"_s);
        QVERIFY(!QFile::exists(m_filePath));
        const SecretResult read = call([&](SecretDone done) { m_store->read(Key, done); });
        QCOMPARE(read.value, Tokens);
        QCOMPARE(read.store, u"memory"_s);

        // Once unlocked, the keyring takes it and the memory copy goes.
        m_keyring->failure.reset();
        QCOMPARE(call([&](SecretDone done) { m_store->write(Key, Renewed, done); }).store, u"keyring"_s);
        QCOMPARE(call([&](SecretDone done) { m_store->read(Key, done); }).store, u"keyring"_s);
    }

    void theFileWhenChosen()
    {
        auto keyring = std::make_unique<ScriptedKeyring>();
        ScriptedKeyring *untouched = keyring.get();
        TokenStore store(std::move(keyring), std::make_unique<FileSecretStore>(m_filePath), u"TETHER_TOKEN_STORE=file"_s);
        const SecretResult written = call([&](SecretDone done) { store.write(Key, Tokens, done); });
        QCOMPARE(written.store, u"file"_s);
        QCOMPARE(written.storeNote, u"TETHER_TOKEN_STORE=file"_s);
        QCOMPARE(call([&](SecretDone done) { store.read(Key, done); }).value, Tokens);
        QVERIFY(call([&](SecretDone done) { store.remove(Key, done); }).ok());
        QCOMPARE(untouched->calls, 0);
    }

    void aRefusedFileMeansMemory()
    {
        m_keyring->failure = NoDbus;
        QVERIFY(call([&](SecretDone done) { m_store->write(tokenKey(u"https://other/mcp"_s), Tokens, done); }).ok());
        QVERIFY(::chmod(QFile::encodeName(m_filePath).constData(), 0644) == 0);
        const SecretResult written = call([&](SecretDone done) { m_store->write(Key, Tokens, done); });
        QVERIFY(written.ok());
        QCOMPARE(written.store, u"memory"_s);
        QCOMPARE(written.storeNote,
                 u"no system keyring (Cannot autolaunch D-Bus without X11 $DISPLAY), and the file cannot be used (%1 is "
                 "readable by others (mode 0644); Tether does not use it: chmod 600 %1); kept for this run only"_s.arg(
                     m_filePath));
        QCOMPARE(call([&](SecretDone done) { m_store->read(Key, done); }).value, Tokens);
    }

    void removeForgetsEverywhere()
    {
        m_keyring->failure = NoDbus;
        QVERIFY(call([&](SecretDone done) { m_store->write(Key, Tokens, done); }).ok());
        // No keyring: nothing of ours can be in it, so its failure is no failure to forget.
        QVERIFY(call([&](SecretDone done) { m_store->remove(Key, done); }).ok());
        QCOMPARE(call([&](SecretDone done) { m_store->read(Key, done); }).status, SecretResult::Status::NotFound);

        m_keyring->failure.reset();
        QVERIFY(call([&](SecretDone done) { m_store->write(Key, Tokens, done); }).ok());
        m_keyring->failure = Locked; // a locked keyring still holds it: say so
        QCOMPARE(call([&](SecretDone done) { m_store->remove(Key, done); }).status, SecretResult::Status::AccessDenied);
        m_keyring->failure.reset();
        QVERIFY(call([&](SecretDone done) { m_store->remove(Key, done); }).ok());
        QCOMPARE(call([&](SecretDone done) { m_store->read(Key, done); }).status, SecretResult::Status::NotFound);
    }

private:
    std::unique_ptr<QTemporaryDir> m_folder;
    QString m_filePath;
    ScriptedKeyring *m_keyring = nullptr;
    std::unique_ptr<TokenStore> m_store;
};

QTEST_GUILESS_MAIN(TestTokenStore)
#include "tst_tokenstore.moc"
