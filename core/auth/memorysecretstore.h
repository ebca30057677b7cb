#pragma once

#include "auth/secretstore.h"

#include <QHash>

namespace Tether {

// Secrets kept for this run only: where tokens go when the keyring refuses access, and the store
// of tests.
class MemorySecretStore final : public SecretStore
{
public:
    void read(const QString &key, SecretDone done) override;
    void write(const QString &key, const QJsonObject &value, SecretDone done) override;
    void remove(const QString &key, SecretDone done) override;

private:
    QHash<QString, QJsonObject> m_entries;
};

} // namespace Tether
