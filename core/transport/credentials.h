#pragma once

#include "bearerchallenge.h"

#include <QByteArray>
#include <QString>

#include <functional>

namespace Tether {

// What a signed-in remote server is sent: the Authorization of its sign-in, one object per
// server, shared by every connection to it. Implemented by the sign-in library above the
// manager; the transports only ask for the header and for a renewal.
class ServerCredentials
{
public:
    virtual ~ServerCredentials() = default;

    // "Bearer …", or empty while there is no token. Kept in memory; never logged.
    virtual QByteArray authorization() const = 0;

    // Failed: no renewal now, for a reason that may pass (the authorization server out of reach);
    // the connection ends with `reason` and reconnects as after any other failure.
    enum class Renewal { Renewed, NeedsSignIn, Failed };
    using RenewalDone = std::function<void(Renewal renewal, const QString &reason)>;
    // The server answered 401 to a request that carried `rejected`. Renews without the user
    // (another connection's newer token, a refresh), or with the browser where the process lets
    // its sign-in ask (tetherctl --url); `done` is called once, possibly before this returns.
    // `reason` says why a renewal was not possible.
    virtual void renew(const BearerChallenge &challenge, const QByteArray &rejected, RenewalDone done) = 0;
    // The server refused a request that carried `rejected` for want of scope (403
    // insufficient_scope, MCP 2025-11-25 §Step-Up Authorization Flow). Renewed: a token with
    // `challenge.scope` added, send the request once more. NeedsSignIn: the request fails, and the
    // next sign-in asks for those scopes. Failed: no sign-in can help (the scopes named were all
    // asked for already), as `reason` says; the request fails with it.
    virtual void stepUp(const BearerChallenge &challenge, const QByteArray &rejected, RenewalDone done)
    {
        Q_UNUSED(rejected)
        refusedForScope(challenge);
        done(Renewal::NeedsSignIn, {});
    }
    // The same refusal where the request is not sent again: the next sign-in asks for `challenge.scope`.
    virtual void refusedForScope(const BearerChallenge &challenge) { Q_UNUSED(challenge) }
};

// A connection ended because the server wants the user to sign in (again).
struct SignInRequired
{
    BearerChallenge challenge;
    QString reason; // why no silent renewal was possible, e.g. "no token" or the refused refresh
};

} // namespace Tether
