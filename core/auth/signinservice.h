#pragma once

#include "authmetadata.h"
#include "secretstore.h"
#include "signinindex.h"
#include "signinlock.h"
#include "storedsignin.h"

#include "manager/signincontroller.h"
#include "transport/credentials.h"

#include <QFileSystemWatcher>
#include <QNetworkAccessManager>

#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace Tether {

class AuthDiscovery;
class AuthorizationCodeFlow;
class SignInCredentials;
class TokenClient;
struct SignInOutcome;

// Signing in to remote servers, as the window and tetherctl do it: discovery, the code flow,
// tokens in `store` (never elsewhere), refresh before expiry and after a 401, revocation at
// sign-out. Other Tether processes share the store: SignInLock orders their refreshes, and the
// index they all write (SignInIndex) tells this one when another signed in or out.
class SignInService final : public SignInController
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SignInService)

public:
    struct Paths
    {
        QString index = SignInIndex::defaultPath();
        QString lock = SignInLock::defaultPath();
    };

    SignInService(std::unique_ptr<SecretStore> store, Paths paths, QObject *parent = nullptr);
    ~SignInService() override;

    QString keyFor(const ServerConfig &config) const override;
    std::shared_ptr<ServerCredentials> credentialsFor(const ServerConfig &config) override;
    void signIn(const ServerConfig &config, const QStringList &scopes, BrowserOpener opener, Done done) override;
    void signOut(const ServerConfig &config, Done done) override;
    SignInInfo info(const ServerConfig &config) const override;
    // From now on a request that a server refuses for want of a sign-in (401 with no token to
    // refresh) or of scope (403 insufficient_scope asking for a scope not asked for yet) signs in
    // with the browser through `opener`, and is sent again once signed in; `told` hears how each
    // such sign-in ended. Without it (the window, the supervisor) those requests fail and the
    // server shows Sign-in needed. For a process that runs one user's command: tetherctl --url.
    void signInWhenAsked(BrowserOpener opener, Done told);

    // Of SignInCredentials: a 401 to `rejected`, and a 403 insufficient_scope.
    void renew(const QString &key, const BearerChallenge &challenge, const QByteArray &rejected,
               ServerCredentials::RenewalDone done);
    void stepUp(const QString &key, const BearerChallenge &challenge, const QByteArray &rejected,
                ServerCredentials::RenewalDone done);
    void refusedForScope(const QString &key, const BearerChallenge &challenge);

private:
    struct Server;

    Server &serverFor(const ServerConfig &config);
    Server *find(const QString &key);
    // Runs `then` once the stored tokens of `server` were read (at once when they were).
    void load(Server &server, std::function<void()> then);
    void adopt(Server &server, std::optional<StoredSignIn> stored);
    void armRefreshAhead(Server &server);
    // Refreshes with the lock held, unless another connection or process already replaced `rejected`.
    void refresh(Server &server, const QByteArray &rejected, ServerCredentials::RenewalDone done);
    void refreshLocked(Server &server, const QByteArray &rejected);
    void endRefresh(Server &server, ServerCredentials::Renewal renewal, const QString &reason);
    // Removes the tokens from the store and the index; the lock is held.
    void forget(Server &server, std::function<void()> then);
    void beginSignIn(Server &server, const QStringList &scopes, BrowserOpener opener, Done done);
    // A sign-in with the browser for requests waiting on it (signInWhenAsked); one at a time.
    void signInForRequest(Server &server, ServerCredentials::RenewalDone done);
    void startFlow(Server &server, const SignInTarget &target, QStringList scopes, BrowserOpener opener,
                   std::optional<RegisteredClient> registered);
    void finishSignIn(Server &server, const SignInTarget &target, const ClientIdentity &client,
                      const SignInOutcome &outcome);
    void endSignIn(Server &server, bool signedIn, const QString &message);
    void onIndexChanged();

    SignInIndex m_index;
    SignInLock m_lock;
    QNetworkAccessManager m_network;
    QFileSystemWatcher m_indexWatcher;
    QHash<QString, SignInRecord> m_knownRecords; // the index as last seen, to tell what another process changed
    std::map<QString, std::unique_ptr<Server>> m_servers; // by key
    struct AskedSignIn
    {
        BrowserOpener opener;
        Done told;
    };
    std::optional<AskedSignIn> m_signInWhenAsked;
    // Last, so gone first: no answer of the store's comes after the servers it answers for.
    std::unique_ptr<SecretStore> m_store;
};

} // namespace Tether
