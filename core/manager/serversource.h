#pragma once

#include "config/oauthsettings.h"
#include "config/serverconfig.h"
#include "manager/callwait.h"
#include "manager/eventlog.h"
#include "manager/toolcallticket.h"
#include "protocol/replies.h"
#include "supervisor/servercatalog.h"
#include "supervisor/serverstatus.h"
#include "supervisor/toolregistry.h"

#include <QObject>
#include <QUrl>

#include <functional>
#include <optional>

namespace Tether {

// A server whose connection failed or was lost and is not back, whether it gave up (Failed,
// Disconnected) or waits for its next retry, and that may be reconnected (enabled, with a valid
// config): what "Retry failed" reconnects.
bool needsRetry(const ServerStatus &status);

// The servers of a config as the window shows and drives them, wherever they run: in this process
// (ServerManager) or in the Tether that runs the config, the window attached to it (RemoteServers).
// Snapshots and signals out, commands and requests in; the views know no more than this.
class ServerSource : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ServerSource)

public:
    using QObject::QObject;
    ~ServerSource() override = default;

    virtual QStringList serverNames() const = 0; // in config order
    virtual const ServerConfig *serverConfig(const QString &name) const = 0;
    virtual std::optional<ServerStatus> status(const QString &name) const = 0;
    virtual QList<ServerStatus> statuses() const = 0;
    // Every tool of every server under its public name.
    virtual ToolRegistry &registry() = 0;
    virtual EventLog &eventLog() = 0;
    // The server's resources and prompts as last listed; empty for an unknown server.
    virtual ServerCatalog catalog(const QString &name) const = 0;

    // What Details shows of the sign-in of `name` (never a token), and whether it can sign in here.
    virtual SignInInfo signInInfo(const QString &name) const = 0;
    virtual bool canSignIn(const QString &name) const = 0;
    virtual void signIn(const QString &name, const QStringList &scopes, std::function<void(const QUrl &)> opener,
                        std::function<void(bool signedIn, const QString &message)> done) = 0;
    virtual void signOut(const QString &name, std::function<void(bool signedOut, const QString &message)> done) = 0;

    virtual void start(const QString &name) = 0;
    virtual void stop(const QString &name) = 0;
    virtual void reconnect(const QString &name) = 0;
    // Disabling stops the server and keeps it stopped until it is enabled.
    virtual void setEnabled(const QString &name, bool enabled) = 0;
    // Every server that is not stopped (or stopping).
    virtual void reconnectAll() = 0;
    // Every server that needsRetry(), at once with a fresh retry budget.
    virtual void retryFailed() = 0;

    // Each handler is answered exactly once: the result, an error, or the cancellation.
    virtual ToolCallTicket callTool(const QString &serverName, const QString &toolName, const ToolCallInput &input,
                                    ToolCallHandler handler, ProgressHandler onProgress = {}, CallOptions options = {}) = 0;
    // False when the call had already been answered.
    virtual bool cancelToolCall(ToolCallTicket ticket, const QString &reason = {}) = 0;
    virtual void readResource(const QString &serverName, const QString &uri, ResourceReadHandler handler) = 0;
    virtual void getPrompt(const QString &serverName, const QString &promptName, const QJsonObject &arguments,
                           PromptHandler handler) = 0;

signals:
    void statusChanged(const Tether::ServerStatus &status);
    void stateChanged(const Tether::ServerStatus &status);
    void serverAdded(const QString &name);
    void serverRemoved(const QString &name);
    // The config changed which of the server's tools are hidden (ServerConfig::hiddenTools).
    void toolSwitchesChanged(const QString &name);
    // Its resources or prompts changed: read them with catalog().
    void catalogChanged(const QString &name);
    // Its sign-in changed: signed in or out, or its token renewed (read signInInfo()).
    void signInChanged(const QString &name);
};

} // namespace Tether
