#include "signinservice.h"

#include "authdiscovery.h"
#include "authorizationcodeflow.h"
#include "canonicalurl.h"
#include "scopestepup.h"
#include "tokenclient.h"

#include "common/displaytext.h"
#include "common/duration.h"
#include "common/logging.h"
#include "common/privatefile.h"
#include "config/serverconfig.h"

#include <QFileInfo>
#include <QPointer>
#include <QTimer>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Tether {

// The one credentials object of a sign-in, shared by every connection to its servers. Holds the
// Authorization in memory; renewals go to the service, which may be gone first.
class SignInCredentials final : public ServerCredentials
{
public:
    SignInCredentials(SignInService *service, QString key)
        : m_service(service)
        , m_key(std::move(key))
    {}

    QByteArray authorization() const override { return m_authorization; }
    void setAuthorization(QByteArray authorization) { m_authorization = std::move(authorization); }

    void renew(const BearerChallenge &challenge, const QByteArray &rejected, RenewalDone done) override
    {
        if (!m_service)
            return done(Renewal::NeedsSignIn, u"Tether's sign-in ended"_s);
        m_service->renew(m_key, challenge, rejected, std::move(done));
    }

    void stepUp(const BearerChallenge &challenge, const QByteArray &rejected, RenewalDone done) override
    {
        if (!m_service)
            return done(Renewal::NeedsSignIn, u"Tether's sign-in ended"_s);
        m_service->stepUp(m_key, challenge, rejected, std::move(done));
    }

    void refusedForScope(const BearerChallenge &challenge) override
    {
        if (m_service)
            m_service->refusedForScope(m_key, challenge);
    }

private:
    QPointer<SignInService> m_service;
    QString m_key;
    QByteArray m_authorization;
};

struct SignInService::Server
{
    QString key;
    QString name; // of the server that last named this sign-in, for messages
    QUrl url;
    OAuthSettings oauth;
    std::shared_ptr<SignInCredentials> credentials; // once a server connects with it
    std::optional<StoredSignIn> stored;             // as last read or written
    bool loaded = false;
    bool loading = false;
    std::vector<std::function<void()>> afterLoad;
    BearerChallenge lastChallenge; // of the last 401: where discovery starts
    QStringList wantedScopes;      // of the last 403 insufficient_scope: the next sign-in asks for them
    QStringList lastAskedScopes;   // by the last sign-in of this process
    std::vector<ServerCredentials::RenewalDone> waitingForSignIn; // requests, on signInWhenAsked
    QString lostReason;            // why the tokens were forgotten without the user, until the next sign-in
    bool refreshing = false;
    std::vector<ServerCredentials::RenewalDone> waitingForRefresh;
    std::unique_ptr<TokenClient> tokenClient;
    QTimer refreshAhead;
    std::unique_ptr<AuthDiscovery> discovery;
    std::unique_ptr<AuthorizationCodeFlow> flow;
    Done signInDone;
    quint64 signInAttempt = 0; // which sign-in the answers of the store belong to
};

namespace {

QString failureText(const QString &serverName, const QString &error)
{
    return error.startsWith(u"sign-in to "_s, Qt::CaseInsensitive) ? error
                                                                   : u"sign-in to %1: %2"_s.arg(serverName, error);
}

QString storeText(const SignInRecord &record)
{
    if (record.store == u"keyring")
        return u"in the system keyring"_s;
    if (record.store == u"file")
        return u"in a file readable by you alone; not in the keyring: %1"_s.arg(record.storeNote);
    return u"in memory until Tether quits; not in the keyring: %1"_s.arg(record.storeNote);
}

SignInRecord recordOf(const StoredSignIn &stored, const SecretResult &written, const QStringList &wantedScopes)
{
    return {stored.issuer,
            stored.client.clientId,
            tokenAccount(stored.tokens.accessToken),
            stored.tokens.scopes,
            stored.tokens.expiresAt,
            written.store,
            written.storeNote,
            QDateTime::currentDateTimeUtc(),
            wantedScopes};
}

// How long before expiry a token is refreshed: a fifth of what is left, at most a minute.
std::chrono::milliseconds refreshLead(std::chrono::milliseconds remaining)
{
    return std::min<std::chrono::milliseconds>(remaining / 5, std::chrono::minutes(1));
}

} // namespace

SignInService::SignInService(std::unique_ptr<SecretStore> store, Paths paths, QObject *parent)
    : SignInController(parent)
    , m_index(std::move(paths.index))
    , m_lock(paths.lock)
    , m_store(std::move(store))
{
    // Another Tether signing in or out rewrites the index; its folder is watched since the file
    // comes and goes (written whole and renamed).
    const QString folder = QFileInfo(m_index.path()).absolutePath();
    if (QString error; makePrivateFolder(folder, &error))
        m_indexWatcher.addPath(folder);
    else
        spdlog::warn("sign-in: {}; a sign-in by another Tether is noticed at this one's next start", error);
    connect(&m_indexWatcher, &QFileSystemWatcher::directoryChanged, this, &SignInService::onIndexChanged);
    m_knownRecords = m_index.records();
}

SignInService::~SignInService()
{
    for (auto &[key, server] : m_servers) {
        if (server->flow)
            server->flow->disconnect(this);
        if (server->discovery)
            server->discovery->disconnect(this);
    }
}

QString SignInService::keyFor(const ServerConfig &config) const
{
    return canonicalResourceUrl(QUrl(config.url));
}

SignInService::Server &SignInService::serverFor(const ServerConfig &config)
{
    const QString key = keyFor(config);
    std::unique_ptr<Server> &slot = m_servers[key];
    if (!slot) {
        slot = std::make_unique<Server>();
        slot->key = key;
        slot->refreshAhead.setSingleShot(true);
        connect(&slot->refreshAhead, &QTimer::timeout, this, [this, server = slot.get()] {
            if (server->stored)
                refresh(*server, server->stored->authorization(), [](ServerCredentials::Renewal, const QString &) {});
        });
    }
    slot->name = config.name;
    slot->url = QUrl(config.url);
    slot->oauth = config.oauth;
    return *slot;
}

SignInService::Server *SignInService::find(const QString &key)
{
    const auto it = m_servers.find(key);
    return it == m_servers.end() ? nullptr : it->second.get();
}

std::shared_ptr<ServerCredentials> SignInService::credentialsFor(const ServerConfig &config)
{
    Server &server = serverFor(config);
    if (!server.credentials) {
        server.credentials = std::make_shared<SignInCredentials>(this, server.key);
        // Read now, so the first request already carries the token (known already after a
        // sign-in made here before any connection).
        load(server, [this, &server] { adopt(server, server.stored); });
    }
    return server.credentials;
}

void SignInService::load(Server &server, std::function<void()> then)
{
    if (server.loaded) {
        then();
        return;
    }
    server.afterLoad.push_back(std::move(then));
    if (server.loading)
        return;
    if (!m_index.record(server.key)) {
        // Never signed in: the keyring is not asked (it may want unlocking) for a server that
        // may never ask for a sign-in.
        server.loaded = true;
        adopt(server, std::nullopt);
        for (const auto &waiting : std::exchange(server.afterLoad, {}))
            waiting();
        return;
    }
    server.loading = true;
    m_store->read(tokenKey(server.key), [this, &server](const SecretResult &result) {
        if (!result.ok() && result.status != SecretResult::Status::NotFound)
            spdlog::warn("server '{}': its sign-in could not be read: {}", server.name, result.error);
        server.loading = false;
        server.loaded = true;
        adopt(server, result.ok() ? StoredSignIn::fromJson(result.value) : std::nullopt);
        for (const auto &waiting : std::exchange(server.afterLoad, {}))
            waiting();
    });
}

void SignInService::adopt(Server &server, std::optional<StoredSignIn> stored)
{
    server.stored = std::move(stored);
    if (server.credentials)
        server.credentials->setAuthorization(server.stored ? server.stored->authorization() : QByteArray());
    armRefreshAhead(server);
}

void SignInService::armRefreshAhead(Server &server)
{
    server.refreshAhead.stop();
    if (!server.credentials || !server.stored || server.stored->tokens.refreshToken.isEmpty()
        || !server.stored->tokens.expiresAt.isValid())
        return;
    const auto remaining =
        std::chrono::milliseconds(QDateTime::currentDateTimeUtc().msecsTo(server.stored->tokens.expiresAt));
    // An expired token is refreshed when a server refuses it, not in a loop here.
    if (remaining.count() > 0)
        server.refreshAhead.start(remaining - refreshLead(remaining));
}

void SignInService::signInWhenAsked(BrowserOpener opener, Done told)
{
    m_signInWhenAsked = AskedSignIn{std::move(opener), std::move(told)};
}

void SignInService::renew(const QString &key, const BearerChallenge &challenge, const QByteArray &rejected,
                          ServerCredentials::RenewalDone done)
{
    Server *server = find(key);
    if (!server)
        return done(ServerCredentials::Renewal::NeedsSignIn, u"not signed in"_s);
    server->lastChallenge = challenge;
    if (m_signInWhenAsked) {
        // What no silent renewal answers, the browser may.
        done = [this, server, done = std::move(done)](ServerCredentials::Renewal renewal, const QString &reason) {
            if (renewal == ServerCredentials::Renewal::NeedsSignIn)
                return signInForRequest(*server, done);
            done(renewal, reason);
        };
    }
    load(*server, [this, server, rejected, done = std::move(done)]() mutable {
        // Another connection of this sign-in may have renewed it already.
        if (server->stored && server->stored->authorization() != rejected)
            return done(ServerCredentials::Renewal::Renewed, {});
        // Nothing to refresh anywhere: the store (a keyring that may want unlocking) is not asked.
        if (!server->stored && !m_index.record(server->key))
            return done(ServerCredentials::Renewal::NeedsSignIn,
                        server->lostReason.isEmpty() ? u"not signed in"_s : server->lostReason);
        refresh(*server, rejected, std::move(done));
    });
}

void SignInService::stepUp(const QString &key, const BearerChallenge &challenge, const QByteArray &rejected,
                           ServerCredentials::RenewalDone done)
{
    refusedForScope(key, challenge);
    Server *server = find(key);
    if (!server)
        return done(ServerCredentials::Renewal::NeedsSignIn, {});
    server->lastChallenge = challenge;
    load(*server, [this, server, challenge, rejected, done = std::move(done)] {
        // Another connection of this sign-in may have stepped up already.
        if (server->stored && server->stored->authorization() != rejected)
            return done(ServerCredentials::Renewal::Renewed, {});
        const QStringList asked = challenge.scope.split(u' ', Qt::SkipEmptyParts);
        const QStringList askedBefore = !server->lastAskedScopes.isEmpty() || !server->stored
                                            ? server->lastAskedScopes
                                            : server->stored->tokens.scopes;
        if (asked.isEmpty())
            return done(ServerCredentials::Renewal::NeedsSignIn, {}); // no scope named to step up to
        // All asked for already: the next sign-in would ask for the same and be refused again.
        if (!stepUpCanHelp(askedBefore, asked))
            return done(ServerCredentials::Renewal::Failed,
                        u"the server refuses a token for scopes it was given already (%1)"_s.arg(asked.join(u' ')));
        if (!m_signInWhenAsked)
            return done(ServerCredentials::Renewal::NeedsSignIn, {});
        signInForRequest(*server, done);
    });
}

void SignInService::signInForRequest(Server &server, ServerCredentials::RenewalDone done)
{
    server.waitingForSignIn.push_back(std::move(done));
    if (server.waitingForSignIn.size() > 1)
        return; // one sign-in answers them all
    beginSignIn(server, {}, m_signInWhenAsked->opener, [this, &server](bool signedIn, const QString &message) {
        if (m_signInWhenAsked && m_signInWhenAsked->told)
            m_signInWhenAsked->told(signedIn, message);
        for (const auto &waiting : std::exchange(server.waitingForSignIn, {}))
            waiting(signedIn ? ServerCredentials::Renewal::Renewed : ServerCredentials::Renewal::NeedsSignIn, message);
    });
}

void SignInService::refusedForScope(const QString &key, const BearerChallenge &challenge)
{
    Server *server = find(key);
    const QStringList wanted = challenge.scope.split(u' ', Qt::SkipEmptyParts);
    if (!server || wanted.isEmpty() || wanted == server->wantedScopes)
        return;
    server->wantedScopes = wanted;
    // Kept in the index too, for the sign-in of another Tether (tetherctl login).
    m_lock.acquire([this, server, wanted](bool held, const QString &) {
        if (!held)
            return;
        if (std::optional<SignInRecord> record = m_index.record(server->key)) {
            record->wantedScopes = wanted;
            if (QString error; !m_index.put(server->key, *record, &error))
                spdlog::warn("server '{}': {}", server->name, error);
            m_knownRecords = m_index.records();
        }
        m_lock.release();
    });
}

void SignInService::refresh(Server &server, const QByteArray &rejected, ServerCredentials::RenewalDone done)
{
    server.waitingForRefresh.push_back(std::move(done));
    if (server.refreshing)
        return;
    server.refreshing = true;
    server.refreshAhead.stop();
    // A rotated refresh token works once: of two processes, the second to hold the lock finds
    // the first one's tokens in the store.
    m_lock.acquire([this, &server, rejected](bool held, const QString &error) {
        if (!held)
            return endRefresh(server, ServerCredentials::Renewal::Failed,
                              u"sign-in to %1: could not refresh its token: %2"_s.arg(server.name, error));
        refreshLocked(server, rejected);
    });
}

void SignInService::refreshLocked(Server &server, const QByteArray &rejected)
{
    m_store->read(tokenKey(server.key), [this, &server, rejected](const SecretResult &result) {
        if (!result.ok() && result.status != SecretResult::Status::NotFound) {
            m_lock.release();
            return endRefresh(server, ServerCredentials::Renewal::Failed,
                              u"sign-in to %1: its tokens could not be read: %2"_s.arg(server.name, result.error));
        }
        std::optional<StoredSignIn> stored = result.ok() ? StoredSignIn::fromJson(result.value) : std::nullopt;
        if (!stored) {
            m_lock.release();
            adopt(server, std::nullopt);
            return endRefresh(server, ServerCredentials::Renewal::NeedsSignIn,
                              server.lostReason.isEmpty() ? u"not signed in"_s : server.lostReason);
        }
        if (stored->authorization() != rejected) {
            m_lock.release();
            adopt(server, std::move(stored));
            return endRefresh(server, ServerCredentials::Renewal::Renewed, {});
        }
        if (stored->tokens.refreshToken.isEmpty()) {
            m_lock.release();
            return endRefresh(server, ServerCredentials::Renewal::NeedsSignIn,
                              u"the server refused the token and gave no refresh token to renew it"_s);
        }
        server.tokenClient = std::make_unique<TokenClient>(&m_network, stored->tokenEndpoint, stored->client);
        server.tokenClient->refresh(
            stored->tokens.refreshToken, stored->resource, stored->tokens.scopes,
            [this, &server, stored = *stored](const TokenResponse &response) {
                server.tokenClient.release()->deleteLater();
                if (!response.tokens && response.errorCode.isEmpty()) {
                    // No answer, or not an OAuth one: the grant may well be fine.
                    m_lock.release();
                    return endRefresh(server, ServerCredentials::Renewal::Failed,
                                      u"sign-in to %1: could not refresh its token: %2"_s.arg(server.name, response.error));
                }
                if (!response.tokens) {
                    spdlog::info("server '{}': the authorization server refused to refresh its token: {}", server.name,
                                 response.error);
                    const QString reason =
                        u"the authorization server refused to refresh the token (%1)"_s.arg(response.error);
                    server.lostReason = reason;
                    return forget(server, [this, &server, reason] {
                        m_lock.release();
                        adopt(server, std::nullopt);
                        endRefresh(server, ServerCredentials::Renewal::NeedsSignIn, reason);
                    });
                }
                StoredSignIn renewed = stored;
                renewed.tokens = *response.tokens;
                m_store->write(tokenKey(server.key), renewed.toJson(),
                               [this, &server, renewed](const SecretResult &written) {
                                   QString error;
                                   if (written.ok() && !m_index.put(server.key, recordOf(renewed, written, server.wantedScopes), &error))
                                       spdlog::warn("server '{}': {}", server.name, error);
                                   m_knownRecords = m_index.records();
                                   m_lock.release();
                                   if (!written.ok())
                                       spdlog::warn("server '{}': its refreshed token could not be stored: {}",
                                                    server.name, written.error);
                                   spdlog::info("server '{}': its token was refreshed", server.name);
                                   adopt(server, renewed);
                                   endRefresh(server, ServerCredentials::Renewal::Renewed, {});
                               });
            });
    });
}

void SignInService::endRefresh(Server &server, ServerCredentials::Renewal renewal, const QString &reason)
{
    server.refreshing = false;
    for (const auto &done : std::exchange(server.waitingForRefresh, {}))
        done(renewal, reason);
}

void SignInService::forget(Server &server, std::function<void()> then)
{
    m_store->remove(tokenKey(server.key), [this, &server, then = std::move(then)](const SecretResult &result) {
        if (!result.ok())
            spdlog::warn("server '{}': its tokens could not be removed: {}", server.name, result.error);
        QString error;
        if (!m_index.remove(server.key, &error))
            spdlog::warn("server '{}': {}", server.name, error);
        m_knownRecords = m_index.records();
        then();
    });
}

void SignInService::signIn(const ServerConfig &config, const QStringList &scopes, BrowserOpener opener, Done done)
{
    beginSignIn(serverFor(config), scopes, std::move(opener), std::move(done));
}

void SignInService::beginSignIn(Server &server, const QStringList &scopes, BrowserOpener opener, Done done)
{
    // An earlier sign-in still under way ends here, its caller told.
    if (server.flow)
        server.flow->abandon(u"sign-in to %1 started again"_s.arg(server.name));
    if (server.signInDone)
        endSignIn(server, false, u"sign-in to %1 started again"_s.arg(server.name));
    const quint64 attempt = ++server.signInAttempt;
    server.signInDone = std::move(done);
    server.discovery = std::make_unique<AuthDiscovery>(&m_network);
    connect(server.discovery.get(), &AuthDiscovery::failed, this, [this, &server](const QString &reason) {
        server.discovery.release()->deleteLater();
        endSignIn(server, false, failureText(server.name, reason));
    });
    connect(server.discovery.get(), &AuthDiscovery::found, this,
            [this, &server, attempt, scopes, opener = std::move(opener)](const SignInTarget &target) {
                server.discovery.release()->deleteLater();
                m_store->read(clientKey(target.authServer.issuer),
                              [this, &server, attempt, target, scopes, opener](const SecretResult &result) {
                                  if (attempt != server.signInAttempt)
                                      return; // started again meanwhile
                                  startFlow(server, target, scopes, opener,
                                            result.ok() ? registeredClientFromJson(result.value) : std::nullopt);
                              });
            });
    spdlog::info("server '{}': signing in", server.name);
    server.discovery->start(server.url, server.lastChallenge);
}

void SignInService::startFlow(Server &server, const SignInTarget &target, QStringList scopes, BrowserOpener opener,
                              std::optional<RegisteredClient> registered)
{
    if (server.wantedScopes.isEmpty()) {
        if (const std::optional<SignInRecord> record = m_index.record(server.key))
            server.wantedScopes = record->wantedScopes;
    }
    if (scopes.isEmpty() && !server.wantedScopes.isEmpty()) {
        // A step-up: what the server asked for on top of what the tokens have.
        scopes = stepUpScopes(server.stored ? server.stored->tokens.scopes : QStringList(), server.wantedScopes);
    }
    if (scopes.isEmpty())
        scopes = target.scopes.isEmpty() ? server.oauth.scopes : target.scopes;
    server.lastAskedScopes = scopes;

    SignInRequest request;
    request.serverName = server.name;
    request.server = target.authServer;
    request.scopes = scopes;
    request.resource = target.resource;
    request.browserTimeout = server.oauth.browserTimeout;
    request.redirectPort = quint16(server.oauth.redirectPort);
    request.openBrowser = std::move(opener);
    const std::optional<ClientIdentity> client = clientBeforeRegistration(server.oauth, target.authServer);
    request.preRegistered = client;
    request.registered = registered;
    server.flow = std::make_unique<AuthorizationCodeFlow>(&m_network, std::move(request));
    connect(server.flow.get(), &AuthorizationCodeFlow::finished, this,
            [this, &server, target, client, registered](const SignInOutcome &outcome) {
                server.flow.release()->deleteLater();
                // The client that signed in: configured, registered now, or registered before.
                ClientIdentity used;
                if (client)
                    used = *client;
                else if (const std::optional<RegisteredClient> &r = outcome.newRegistration ? outcome.newRegistration
                                                                                              : registered)
                    used = ClientIdentity::registered(r->clientId, r->clientSecret, r->tokenEndpointAuthMethod);
                if (outcome.newRegistration) {
                    m_store->write(clientKey(target.authServer.issuer), registeredClientToJson(*outcome.newRegistration),
                                   [name = server.name](const SecretResult &result) {
                                       if (!result.ok())
                                           spdlog::warn("server '{}': its client registration could not be kept: {}",
                                                        name, result.error);
                                   });
                }
                if (!outcome.tokens) {
                    // Endpoints Tether assumed may well not be there: the message says they were assumed.
                    const QString assumed = target.authServer.documentUrl.isEmpty()
                                                ? u"; %1 publishes no sign-in metadata, so Tether used the default "
                                                  "endpoints of MCP 2025-03-26 at its origin"_s.arg(redactedUrl(server.url.toString()))
                                                : QString();
                    return endSignIn(server, false, failureText(server.name, outcome.error) + assumed);
                }
                finishSignIn(server, target, used, outcome);
            });
    server.flow->start();
}

void SignInService::finishSignIn(Server &server, const SignInTarget &target, const ClientIdentity &client,
                                 const SignInOutcome &outcome)
{
    StoredSignIn stored;
    stored.tokens = *outcome.tokens;
    stored.issuer = target.authServer.issuer;
    stored.tokenEndpoint = target.authServer.tokenEndpoint;
    stored.revocationEndpoint = target.authServer.revocationEndpoint;
    stored.resource = target.resource;
    stored.client = client;
    m_lock.acquire([this, &server, stored](bool held, const QString &error) {
        if (!held)
            return endSignIn(server, false,
                             u"sign-in to %1: the tokens could not be stored: %2"_s.arg(server.name, error));
        m_store->write(tokenKey(server.key), stored.toJson(), [this, &server, stored](const SecretResult &written) {
            if (!written.ok()) {
                m_lock.release();
                return endSignIn(server, false,
                                 u"sign-in to %1: the tokens could not be stored: %2"_s.arg(server.name, written.error));
            }
            const SignInRecord record = recordOf(stored, written, {});
            if (QString indexError; !m_index.put(server.key, record, &indexError))
                spdlog::warn("server '{}': {}", server.name, indexError);
            m_lock.release();
            server.wantedScopes.clear();
            server.lostReason.clear();
            server.loaded = true;
            adopt(server, stored);
            m_knownRecords = m_index.records();
            const QString account = record.account.isEmpty() ? QString() : u" as "_s + record.account;
            const QString scopes = record.scopes.isEmpty() ? QString() : u" (scopes %1)"_s.arg(record.scopes.join(u' '));
            // Servers waiting for it start again before the caller hears of it.
            emit changed(server.key);
            endSignIn(server, true,
                      u"Signed in to %1%2%3; the tokens are kept %4"_s.arg(server.name, account, scopes, storeText(record)));
        });
    });
}

void SignInService::endSignIn(Server &server, bool signedIn, const QString &message)
{
    if (signedIn)
        spdlog::info("server '{}': signed in", server.name);
    else
        spdlog::warn("server '{}': {}", server.name, message);
    if (server.discovery) {
        // What it may still find belongs to the sign-in that ends here.
        server.discovery->disconnect(this);
        server.discovery.release()->deleteLater();
    }
    if (Done done = std::exchange(server.signInDone, {}))
        done(signedIn, message);
}

void SignInService::signOut(const ServerConfig &config, Done done)
{
    Server &server = serverFor(config);
    if (server.flow)
        server.flow->abandon(u"signed out of %1 meanwhile"_s.arg(server.name));
    if (server.signInDone)
        endSignIn(server, false, u"signed out of %1 meanwhile"_s.arg(server.name));
    ++server.signInAttempt;
    m_lock.acquire([this, &server, done = std::move(done)](bool held, const QString &error) mutable {
        if (!held)
            return done(false, u"sign-out of %1: %2"_s.arg(server.name, error));
        m_store->read(tokenKey(server.key), [this, &server, done = std::move(done)](const SecretResult &result) mutable {
            const std::optional<StoredSignIn> stored = result.ok() ? StoredSignIn::fromJson(result.value) : std::nullopt;
            const bool wasSignedIn = stored.has_value() || m_index.record(server.key).has_value();
            forget(server, [this, &server, stored, wasSignedIn, done = std::move(done)] {
                m_lock.release();
                server.loaded = true;
                adopt(server, std::nullopt);
                m_knownRecords = m_index.records();
                if (!wasSignedIn)
                    return done(true, u"%1 was not signed in"_s.arg(server.name));
                // Revoked after being forgotten: the tokens are gone here even when revoking fails.
                if (stored && !stored->revocationEndpoint.isEmpty()) {
                    auto *client = new TokenClient(&m_network, stored->tokenEndpoint, stored->client, this);
                    const QString token = stored->tokens.refreshToken.isEmpty() ? stored->tokens.accessToken
                                                                                : stored->tokens.refreshToken;
                    const QString hint = stored->tokens.refreshToken.isEmpty() ? u"access_token"_s : u"refresh_token"_s;
                    client->revoke(stored->revocationEndpoint, token, hint, [client, name = server.name](const QString &revokeError) {
                        if (!revokeError.isEmpty())
                            spdlog::warn("server '{}': its token could not be revoked: {}", name, revokeError);
                        client->deleteLater();
                    });
                }
                emit signedOut(server.key);
                emit changed(server.key);
                done(true, u"Signed out of %1: its tokens are forgotten"_s.arg(server.name));
            });
        });
    });
}

SignInInfo SignInService::info(const ServerConfig &config) const
{
    const std::optional<SignInRecord> record = m_index.record(keyFor(config));
    return record ? record->info() : SignInInfo();
}

void SignInService::onIndexChanged()
{
    const QHash<QString, SignInRecord> records = m_index.records();
    QStringList changedKeys;
    for (auto it = records.begin(); it != records.end(); ++it)
        if (m_knownRecords.value(it.key()) != it.value())
            changedKeys.append(it.key());
    QStringList removedKeys;
    for (auto it = m_knownRecords.begin(); it != m_knownRecords.end(); ++it)
        if (!records.contains(it.key()))
            removedKeys.append(it.key());
    m_knownRecords = records;
    for (const QString &key : std::as_const(changedKeys) + removedKeys) {
        const bool removed = removedKeys.contains(key);
        Server *server = find(key);
        if (!server) {
            emit changed(key);
            continue;
        }
        // Read again, then tell: a server that starts again then has the new tokens.
        server->loaded = false;
        load(*server, [this, key, removed] {
            if (removed)
                emit signedOut(key);
            emit changed(key);
        });
    }
}

} // namespace Tether
