#include "tokenstore.h"

#include "keychainsecretstore.h"

#include "auth/filesecretstore.h"
#include "auth/memorysecretstore.h"

using namespace Qt::StringLiterals;

namespace Tether {

QString forcedFileReason(TokenStoreChoice choice, const QString &environmentValue)
{
    if (environmentValue == u"file")
        return u"TETHER_TOKEN_STORE=file"_s;
    if (choice == TokenStoreChoice::File)
        return u"defaults.oauth.tokenStore is \"file\""_s;
    return {};
}

TokenStore::TokenStore(std::unique_ptr<SecretStore> keyring, std::unique_ptr<SecretStore> file, QString forcedFile)
    : m_keyring(std::move(keyring))
    , m_file(std::move(file))
    , m_memory(std::make_unique<MemorySecretStore>())
    , m_forcedFile(std::move(forcedFile))
{}

TokenStore::~TokenStore() = default;

std::unique_ptr<TokenStore> TokenStore::forSystem(TokenStoreChoice choice)
{
    return std::make_unique<TokenStore>(std::make_unique<KeychainSecretStore>(),
                                        std::make_unique<FileSecretStore>(FileSecretStore::defaultPath()),
                                        forcedFileReason(choice, qEnvironmentVariable("TETHER_TOKEN_STORE")));
}

void TokenStore::read(const QString &key, SecretDone done)
{
    m_memory->read(key, [this, key, done = std::move(done)](const SecretResult &inMemory) {
        if (inMemory.ok())
            return done(inMemory);
        if (!m_forcedFile.isEmpty())
            return readFile(key, {SecretResult::Status::NotFound, {}, {}, {}, {}}, done);
        m_keyring->read(key, [this, key, done](const SecretResult &inKeyring) {
            if (inKeyring.ok())
                return done(inKeyring);
            readFile(key, inKeyring, done);
        });
    });
}

void TokenStore::readFile(const QString &key, const SecretResult &keyringResult, SecretDone done)
{
    m_file->read(key, [keyringResult, done = std::move(done)](const SecretResult &inFile) {
        // Not in the file either: a locked keyring is the better answer than "not found".
        if (inFile.status == SecretResult::Status::NotFound && keyringResult.status == SecretResult::Status::AccessDenied)
            return done(keyringResult);
        done(inFile);
    });
}

void TokenStore::write(const QString &key, const QJsonObject &value, SecretDone done)
{
    if (!m_forcedFile.isEmpty())
        return writeFile(key, value, m_forcedFile, std::move(done));
    m_keyring->write(key, value, [this, key, value, done = std::move(done)](const SecretResult &written) {
        switch (written.status) {
        case SecretResult::Status::Ok:
            // The keyring holds it now: no copy stays behind in memory or in the file.
            m_memory->remove(key, [](const SecretResult &) {});
            return m_file->remove(key, [written, done](const SecretResult &) { done(written); });
        case SecretResult::Status::AccessDenied:
            return m_memory->write(key, value, [note = written.error, done](const SecretResult &kept) {
                SecretResult result = kept;
                result.storeNote = u"the system keyring refused access (%1); kept for this run only"_s.arg(note);
                done(result);
            });
        case SecretResult::Status::NotFound:
        case SecretResult::Status::Failed:
            return writeFile(key, value, u"no system keyring (%1)"_s.arg(written.error), done);
        }
    });
}

void TokenStore::writeFile(const QString &key, const QJsonObject &value, const QString &note, SecretDone done)
{
    m_file->write(key, value, [this, key, value, note, done = std::move(done)](const SecretResult &written) {
        if (written.ok()) {
            m_memory->remove(key, [](const SecretResult &) {});
            SecretResult result = written;
            result.storeNote = note;
            return done(result);
        }
        // The file cannot be used either (refused, unwritable): this run still signs in.
        m_memory->write(key, value, [note, fileError = written.error, done](const SecretResult &kept) {
            SecretResult result = kept;
            result.storeNote = u"%1, and the file cannot be used (%2); kept for this run only"_s.arg(note, fileError);
            done(result);
        });
    });
}

void TokenStore::remove(const QString &key, SecretDone done)
{
    m_memory->remove(key, [](const SecretResult &) {});
    m_file->remove(key, [this, key, done = std::move(done)](const SecretResult &fromFile) {
        if (!m_forcedFile.isEmpty())
            return done(fromFile);
        m_keyring->remove(key, [fromFile, done](const SecretResult &fromKeyring) {
            // No keyring at all means nothing of ours is in it; a locked one may still hold the entry.
            if (fromKeyring.status == SecretResult::Status::AccessDenied)
                return done(fromKeyring);
            done(fromFile);
        });
    });
}

std::unique_ptr<SignInService> systemSignInService(TokenStoreChoice choice)
{
    return std::make_unique<SignInService>(TokenStore::forSystem(choice), SignInService::Paths{});
}

} // namespace Tether
