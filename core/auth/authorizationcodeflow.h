#pragma once

#include "authmetadata.h"
#include "clientidentity.h"
#include "clientregistrationdocument.h"
#include "pkce.h"
#include "tokenresponse.h"

#include <QMetaType>
#include <QObject>
#include <QStringList>
#include <QTimer>
#include <QUrl>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

class QNetworkAccessManager;

namespace Tether {

class ClientRegistration;
class LoopbackReceiver;
class TokenClient;

// What one sign-in needs to know.
struct SignInRequest
{
    QString serverName; // for messages: "sign-in to <serverName> …"
    AuthServerMetadata server; // as discovery validated it
    // Who Tether is there: a client registered in advance (config), else one registered by
    // Tether before (its redirect URI's port is listened on first), else one registered now.
    std::optional<ClientIdentity> preRegistered;
    std::optional<RegisteredClient> registered;
    QStringList scopes; // empty: the server's default
    QString resource;   // RFC 8707; empty: none
    std::chrono::milliseconds browserTimeout{300000}; // oauth.browserTimeoutMs
    quint16 redirectPort = 0; // oauth.redirectPort: a pre-registered client's; 0: one the system picks
    // Shows the user the authorization URL: a browser, a command, a line on the terminal.
    std::function<void(const QUrl &)> openBrowser;
};

// How it ended: tokens, or one message for people. Holds secrets: never logged whole.
struct SignInOutcome
{
    std::optional<TokenSet> tokens;
    std::optional<RegisteredClient> newRegistration; // to keep for this authorization server
    QString errorCode; // the token endpoint's `error`, if that is where it failed
    QString error;
};

// The authorization code flow with PKCE (RFC 6749 §4.1, RFC 7636, RFC 8252 for native apps):
// a loopback redirect URI, the client registration when needed, the browser step bounded by
// a timeout, the callback's checks and the code exchange. finished() comes exactly once.
class AuthorizationCodeFlow final : public QObject
{
    Q_OBJECT

public:
    AuthorizationCodeFlow(QNetworkAccessManager *network, SignInRequest request, QObject *parent = nullptr);
    ~AuthorizationCodeFlow() override;
    Q_DISABLE_COPY_MOVE(AuthorizationCodeFlow)

    void start();
    // Ends the flow with `reason`, e.g. when the browser command failed.
    void abandon(const QString &reason);

signals:
    // From within a network reply's handler: the flow is to be deleted later, not in the slot.
    void finished(const Tether::SignInOutcome &outcome);

private:
    bool listen();
    void registerClient();
    void openBrowser(const ClientIdentity &client);
    void receiveCallback(const QByteArray &query);
    void exchange(const QString &code);
    void end(SignInOutcome outcome);

    QNetworkAccessManager *m_network;
    SignInRequest m_request;
    std::unique_ptr<LoopbackReceiver> m_receiver;
    std::unique_ptr<ClientRegistration> m_registration;
    std::unique_ptr<TokenClient> m_tokenClient;
    std::optional<RegisteredClient> m_newRegistration;
    Pkce m_pkce;
    QString m_state;
    QTimer m_browserTimer;
    bool m_ended = false;
};

} // namespace Tether

Q_DECLARE_METATYPE(Tether::SignInOutcome)
