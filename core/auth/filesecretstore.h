#pragma once

#include "auth/secretstore.h"

#include <QString>

namespace Tether {

// Secrets in one JSON file readable by the user alone, where no system keyring is available:
// {"version": 1, "tokens": {"<server url>": {…}}, "clients": {"<issuer>": {…}}}. Every call reads
// the file afresh, so entries written by another Tether are seen; a file that others may read is
// refused, never used.
class FileSecretStore final : public SecretStore
{
public:
    explicit FileSecretStore(QString path);

    // $XDG_STATE_HOME/tether/credentials.json
    static QString defaultPath();

    const QString &path() const { return m_path; }

    void read(const QString &key, SecretDone done) override;
    void write(const QString &key, const QJsonObject &value, SecretDone done) override;
    void remove(const QString &key, SecretDone done) override;

private:
    // Reads the file, applies `change` to the entries of the key's kind, writes it back.
    void edit(const QString &key, const std::function<void(QJsonObject &entries, const QString &name)> &change,
              SecretDone done);

    QString m_path;
};

} // namespace Tether
