#include "clientregistration.h"

#include "authserverpost.h"

#include <QNetworkAccessManager>

namespace Tether {

ClientRegistration::ClientRegistration(QNetworkAccessManager *network, QObject *parent)
    : QObject(parent)
    , m_network(network)
{
}

ClientRegistration::~ClientRegistration() = default;

void ClientRegistration::registerClient(const QUrl &registrationEndpoint, const QUrl &redirectUri, Done done)
{
    postToAuthorizationServer(m_network,
                              {registrationEndpoint, "application/json", ClientRegistrationDocument::request(redirectUri), {}},
                              this, [registrationEndpoint, redirectUri, done = std::move(done)](const AuthServerAnswer &answer) {
                                  if (!answer.networkError.isEmpty())
                                      return done({std::nullopt, answer.networkError});
                                  done(ClientRegistrationDocument::parse(answer.httpStatus, answer.body,
                                                                         registrationEndpoint, redirectUri));
                              });
}

} // namespace Tether
