#include "memorysecretstore.h"

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

const QString StoreName = u"memory"_s;

} // namespace

void MemorySecretStore::read(const QString &key, SecretDone done)
{
    const auto found = m_entries.constFind(key);
    if (found == m_entries.constEnd())
        done({SecretResult::Status::NotFound, u"no entry for %1"_s.arg(key), {}, StoreName, {}});
    else
        done({SecretResult::Status::Ok, {}, *found, StoreName, {}});
}

void MemorySecretStore::write(const QString &key, const QJsonObject &value, SecretDone done)
{
    m_entries.insert(key, value);
    done({SecretResult::Status::Ok, {}, {}, StoreName, {}});
}

void MemorySecretStore::remove(const QString &key, SecretDone done)
{
    m_entries.remove(key);
    done({SecretResult::Status::Ok, {}, {}, StoreName, {}});
}

} // namespace Tether
