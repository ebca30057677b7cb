#pragma once

#include "config/oauthsettings.h"

#include <QDateTime>
#include <QHash>
#include <QString>
#include <QStringList>

#include <optional>

namespace Tether {

// What is known of one server's sign-in, without a secret: what the window's Details and
// `tetherctl` show, and how one Tether notices another's sign-in.
struct SignInRecord
{
    QString issuer;
    QString clientId;
    QString account;     // as the token says it, unverified; empty: not said
    QStringList scopes;
    QDateTime expiresAt; // of the access token; invalid: not said
    QString store;       // where the tokens are: "keyring", "file" or "memory"
    QString storeNote;   // why not the keyring, when not
    QDateTime updatedAt;
    // What a server refused a request for want of (403 insufficient_scope): the next sign-in,
    // by whichever Tether, asks for it.
    QStringList wantedScopes;

    bool operator==(const SignInRecord &) const = default;

    SignInInfo info() const; // a signed-in server's SignInInfo
};

// $XDG_STATE_HOME/tether/signins.json, mode 0600: {"version": 1, "servers": {"<server url>": {…}}}.
// Read afresh on every call; written whole and renamed, so a reader never sees half of it. Writers
// hold SignInLock, which orders the read and the write of two processes.
class SignInIndex final
{
public:
    explicit SignInIndex(QString path);

    static QString defaultPath();

    const QString &path() const { return m_path; }

    // Every record by server URL; with `error` set (and nothing) when the file cannot be used.
    QHash<QString, SignInRecord> records(QString *error = nullptr) const;
    std::optional<SignInRecord> record(const QString &serverUrl) const;

    bool put(const QString &serverUrl, const SignInRecord &record, QString *error);
    bool remove(const QString &serverUrl, QString *error);

private:
    QString m_path;
};

} // namespace Tether
