#pragma once

#include "auth/secretstore.h"

#include <QObject>

#include <chrono>

namespace QKeychain {
class Job;
}

namespace Tether {

// Secrets in the system keyring through QtKeychain: service "tether", the entry as JSON text.
// Every job is bounded: an unlock prompt nobody answers ends as a failure after `timeout`.
class KeychainSecretStore final : public QObject, public SecretStore
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(KeychainSecretStore)

public:
    static constexpr std::chrono::seconds DefaultTimeout{60};

    explicit KeychainSecretStore(std::chrono::milliseconds timeout = DefaultTimeout, QObject *parent = nullptr);
    ~KeychainSecretStore() override;

    void read(const QString &key, SecretDone done) override;
    void write(const QString &key, const QJsonObject &value, SecretDone done) override;
    void remove(const QString &key, SecretDone done) override;

private:
    using Finish = std::function<SecretResult(QKeychain::Job *)>;
    void run(QKeychain::Job *job, Finish finish, SecretDone done);

    std::chrono::milliseconds m_timeout;
};

} // namespace Tether
