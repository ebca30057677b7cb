#pragma once

#include "auth/secretstore.h"
#include "auth/signinservice.h"
#include "config/oauthsettings.h"

#include <QString>

#include <memory>

namespace Tether {

class MemorySecretStore;

// Why tokens go to the file without trying the keyring, or empty: `TETHER_TOKEN_STORE=file`
// (`environmentValue`), else `defaults.oauth.tokenStore: "file"`.
QString forcedFileReason(TokenStoreChoice choice, const QString &environmentValue);

// Where sign-in secrets are kept, chosen as each is saved. The keyring counts as available only
// when a write to it succeeds (a headless keyring answers reads yet refuses writes): then any
// copy in the file is removed. When it refuses access (locked, denied by the user) the secret is
// kept in memory for this run; on any other failure it goes to the file, and the result says why
// (`storeNote`). Reads look in memory, the keyring, then the file.
class TokenStore final : public SecretStore
{
public:
    // `forcedFile`: forcedFileReason(); when set, the keyring is never used.
    TokenStore(std::unique_ptr<SecretStore> keyring, std::unique_ptr<SecretStore> file, QString forcedFile);
    ~TokenStore() override;

    // The system keyring and $XDG_STATE_HOME/tether/credentials.json, as the config and the
    // environment choose.
    static std::unique_ptr<TokenStore> forSystem(TokenStoreChoice choice);

    void read(const QString &key, SecretDone done) override;
    void write(const QString &key, const QJsonObject &value, SecretDone done) override;
    void remove(const QString &key, SecretDone done) override;

private:
    void readFile(const QString &key, const SecretResult &keyringResult, SecretDone done);
    void writeFile(const QString &key, const QJsonObject &value, const QString &note, SecretDone done);

    std::unique_ptr<SecretStore> m_keyring;
    std::unique_ptr<SecretStore> m_file;
    std::unique_ptr<MemorySecretStore> m_memory;
    QString m_forcedFile;
};

// The sign-in every Tether program of this user shares: tokens where forSystem(choice) keeps
// them, the index and the lock in the state folder.
std::unique_ptr<SignInService> systemSignInService(TokenStoreChoice choice);

} // namespace Tether
