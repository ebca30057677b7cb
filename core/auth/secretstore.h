#pragma once

#include <QJsonObject>
#include <QString>

#include <functional>

namespace Tether {

// What a secret store answers. `store` names the store that answered ("keyring", "file",
// "memory"); `storeNote` says why it is not the keyring, when the choice fell elsewhere.
struct SecretResult
{
    enum class Status { Ok, NotFound, AccessDenied, Failed };

    Status status = Status::Ok;
    QString error;      // what went wrong, for a person; never holds a secret
    QJsonObject value;  // read: the entry
    QString store;
    QString storeNote;

    bool ok() const { return status == Status::Ok; }
};

using SecretDone = std::function<void(const SecretResult &)>;

// Where sign-in secrets are kept: tokens per server URL, client registrations per authorization
// server. Each call answers `done` exactly once, perhaps before it returns.
class SecretStore
{
public:
    virtual ~SecretStore() = default;

    virtual void read(const QString &key, SecretDone done) = 0;
    virtual void write(const QString &key, const QJsonObject &value, SecretDone done) = 0;
    // Removing an entry that is not there is no error.
    virtual void remove(const QString &key, SecretDone done) = 0;
};

// The keys: "token:<server url>" and "client:<issuer>".
QString tokenKey(const QString &serverUrl);
QString clientKey(const QString &issuer);

} // namespace Tether
