#pragma once

#include "config/oauthsettings.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <functional>
#include <memory>

namespace Tether {

class ServerCredentials;
struct ServerConfig;

// Signing in to remote servers that ask for it, as the manager uses it: the credentials each
// server's transports send, and the user's Sign in and Sign out. Implemented above the manager
// (core/auth); the manager and the window see only this.
class SignInController : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SignInController)

public:
    // Opens the authorization URL for the user (a browser, a command, a printed line).
    using BrowserOpener = std::function<void(const QUrl &url)>;
    // Called once; `message` says what happened, for people (never a token).
    using Done = std::function<void(bool signedIn, const QString &message)>;

    explicit SignInController(QObject *parent = nullptr)
        : QObject(parent)
    {
    }

    // Which sign-in a server uses: servers with the same key share one (its canonical url).
    virtual QString keyFor(const ServerConfig &config) const = 0;
    // What the transports of a remote server send and renew; shared by all its connections.
    virtual std::shared_ptr<ServerCredentials> credentialsFor(const ServerConfig &config) = 0;
    // Signs in with the browser step; `scopes` empty: those the server asks for.
    virtual void signIn(const ServerConfig &config, const QStringList &scopes, BrowserOpener opener, Done done) = 0;
    // Forgets (and revokes where possible) the tokens of the sign-in.
    virtual void signOut(const ServerConfig &config, Done done) = 0;
    // The sign-in as people may see it (never a token); NotUsed when not signed in.
    virtual SignInInfo info(const ServerConfig &config) const = 0;

signals:
    // The sign-in of `serverKey` changed (signed in, out, or renewed, here or by another process).
    void changed(const QString &serverKey);
    // Its tokens were forgotten: connections that still use them are to end.
    void signedOut(const QString &serverKey);
};

} // namespace Tether
