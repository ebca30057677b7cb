#pragma once

#include <QDateTime>
#include <QString>
#include <QStringList>

#include <chrono>

namespace Tether {

// Where tokens are kept: "auto" tries the system keyring first, "file" goes straight to the
// file readable by the user alone (a machine whose keyring should not be used).
enum class TokenStoreChoice { Auto, File };

QString tokenStoreChoiceName(TokenStoreChoice choice); // "auto", "file"

// How a remote server signs in when it asks (the config's "oauth"), resolved: ${env:…} expanded,
// `defaults.oauth` applied.
struct OAuthSettings
{
    static constexpr int DefaultBrowserTimeoutMs = 300000;

    bool enabled = true;      // "oauth": false: never signs in, a 401 stays "needs credentials"
    QString clientId;         // a pre-registered client; empty: the authorization server is asked
    QString clientSecret;     // a secret like a header value: never shown, never logged
    QStringList scopes;       // asked for when neither the challenge nor the server's metadata says
    int redirectPort = 0;     // the loopback redirect's port; 0: one the system picks
    std::chrono::milliseconds browserTimeout{DefaultBrowserTimeoutMs}; // the browser step's bound
    // From `defaults.oauth` alone: they concern Tether, not one server.
    TokenStoreChoice tokenStore = TokenStoreChoice::Auto;
    QString clientMetadataUrl; // Tether's Client ID Metadata Document; empty: none

    bool operator==(const OAuthSettings &) const = default;
};

// What a server's sign-in looks like now, as values the supervisor and the window can show
// without seeing how it was done. Never a token.
struct SignInInfo
{
    enum class State { NotUsed, SignedIn, Needed };

    State state = State::NotUsed;
    QString account;      // as the token says it, unverified; empty: not said
    QStringList scopes;
    QDateTime expiresAt;  // invalid: the token did not say
    QString store;        // "keyring", "file" or "memory"
    QString storeNote;    // why not the keyring, when not

    bool operator==(const SignInInfo &) const = default;
};

} // namespace Tether
