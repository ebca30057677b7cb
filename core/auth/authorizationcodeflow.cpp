#include "authorizationcodeflow.h"

#include "authorizationcallback.h"
#include "authorizationrequest.h"
#include "clientregistration.h"
#include "loopbackreceiver.h"
#include "tokenclient.h"

#include "common/displaytext.h"
#include "common/duration.h"
#include "common/logging.h"

using namespace Qt::StringLiterals;

namespace Tether {

AuthorizationCodeFlow::AuthorizationCodeFlow(QNetworkAccessManager *network, SignInRequest request, QObject *parent)
    : QObject(parent)
    , m_network(network)
    , m_request(std::move(request))
    , m_receiver(std::make_unique<LoopbackReceiver>())
{
    Q_ASSERT(m_request.openBrowser);
    m_browserTimer.setSingleShot(true);
    connect(&m_browserTimer, &QTimer::timeout, this, [this] {
        end({{}, {}, {}, u"sign-in to %1 was not completed within %2 (oauth.browserTimeoutMs); run tetherctl login %1 "
                         "or use Sign in again"_s.arg(m_request.serverName, formatDuration(m_request.browserTimeout))});
    });
    connect(m_receiver.get(), &LoopbackReceiver::callbackReceived, this, &AuthorizationCodeFlow::receiveCallback);
}

AuthorizationCodeFlow::~AuthorizationCodeFlow() = default;

void AuthorizationCodeFlow::start()
{
    if (!listen())
        return;
    if (m_request.preRegistered)
        return openBrowser(*m_request.preRegistered);
    if (m_request.registered && m_request.registered->redirectUri == m_receiver->redirectUri())
        return openBrowser(ClientIdentity::registered(m_request.registered->clientId, m_request.registered->clientSecret,
                                                      m_request.registered->tokenEndpointAuthMethod));
    registerClient();
}

bool AuthorizationCodeFlow::listen()
{
    // A client Tether registered has its redirect URI's port; servers that match redirect URIs
    // exactly accept no other. Taken meanwhile: another port and a new registration.
    const quint16 registeredPort = m_request.preRegistered ? m_request.redirectPort
                                   : m_request.registered ? quint16(m_request.registered->redirectUri.port(0))
                                                          : 0;
    if (registeredPort != 0 && m_receiver->listen(registeredPort))
        return true;
    if (m_receiver->listen(0))
        return true;
    end({{}, {}, {}, u"sign-in to %1 could not listen for the browser's answer on 127.0.0.1: %2"_s.arg(
                         m_request.serverName, m_receiver->errorString())});
    return false;
}

void AuthorizationCodeFlow::registerClient()
{
    const AuthServerMetadata &server = m_request.server;
    if (server.registrationEndpoint.isEmpty()) {
        end({{}, {}, {}, u"the authorization server %1 does not let Tether register (no registration_endpoint) and no "
                         "client id is configured: register \"Tether\" there with redirect URI "
                         "http://127.0.0.1/callback and add \"oauth\": {\"clientId\": \"…\"} to this server in the config"_s
                             .arg(server.issuer)});
        return;
    }
    m_registration = std::make_unique<ClientRegistration>(m_network);
    m_registration->registerClient(server.registrationEndpoint, m_receiver->redirectUri(),
                                   [this](const ClientRegistrationDocument &document) {
                                       if (!document.client)
                                           return end({{}, {}, {}, document.error});
                                       spdlog::info("{}: registered as a client at {}", m_request.serverName,
                                                    redactedUrl(m_request.server.registrationEndpoint.toString()));
                                       m_newRegistration = document.client;
                                       openBrowser(ClientIdentity::registered(document.client->clientId,
                                                                              document.client->clientSecret,
                                                                              document.client->tokenEndpointAuthMethod));
                                   });
}

void AuthorizationCodeFlow::openBrowser(const ClientIdentity &client)
{
    m_tokenClient = std::make_unique<TokenClient>(m_network, m_request.server.tokenEndpoint, client);
    m_pkce = Pkce::generate();
    m_state = newAuthorizationState();
    const AuthorizationRequest authorization{m_request.server.authorizationEndpoint,
                                             client.clientId,
                                             m_receiver->redirectUri(),
                                             m_request.scopes,
                                             m_state,
                                             m_pkce.challenge,
                                             m_request.resource};
    m_browserTimer.start(m_request.browserTimeout);
    m_request.openBrowser(authorization.url());
}

void AuthorizationCodeFlow::receiveCallback(const QByteArray &query)
{
    if (m_ended)
        return;
    m_browserTimer.stop();
    const AuthorizationCallback callback = AuthorizationCallback::parse(
        query, {m_state, m_request.server.issuer, m_request.server.authorizationResponseIssParameterSupported});
    if (!callback.error.isEmpty())
        return end({{}, {}, {}, callback.error});
    exchange(callback.code);
}

void AuthorizationCodeFlow::exchange(const QString &code)
{
    m_tokenClient->exchangeCode(code, m_receiver->redirectUri(), m_pkce.verifier, m_request.resource, m_request.scopes,
                                [this](const TokenResponse &response) {
                                    end({response.tokens, m_newRegistration, response.errorCode, response.error});
                                });
}

void AuthorizationCodeFlow::abandon(const QString &reason)
{
    end({{}, {}, {}, reason});
}

void AuthorizationCodeFlow::end(SignInOutcome outcome)
{
    if (m_ended)
        return;
    m_ended = true;
    m_browserTimer.stop();
    // A client registered now is kept even when the sign-in failed after it: the next one reuses it.
    if (!outcome.newRegistration)
        outcome.newRegistration = m_newRegistration;
    const bool succeeded = outcome.tokens.has_value();
    m_receiver->finish(succeeded, succeeded ? u"Signed in to %1. You can close this page."_s.arg(m_request.serverName)
                                            : u"Sign-in to %1 failed: %2"_s.arg(m_request.serverName, outcome.error));
    emit finished(outcome);
}

} // namespace Tether
