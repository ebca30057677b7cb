#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>
#include <QUrl>

#include <optional>

namespace Tether {

// A client Tether registered with Dynamic Client Registration (RFC 7591 §3.2.1); kept per
// authorization server. The secret and the registration access token are never shown.
struct RegisteredClient
{
    QString clientId;
    QString clientSecret;
    QString tokenEndpointAuthMethod; // empty: not said, client_secret_basic where there is a secret
    QString registrationAccessToken;
    QUrl redirectUri;
};

// The registration request and its answer (RFC 7591 §3.1, §3.2).
struct ClientRegistrationDocument
{
    // A native public client with one loopback redirect URI, for the code flow and refresh.
    static QByteArray request(const QUrl &redirectUri);

    std::optional<RegisteredClient> client;
    QString error; // for people, naming the endpoint; empty with a client

    static ClientRegistrationDocument parse(int httpStatus, QByteArrayView body, const QUrl &endpoint,
                                            const QUrl &redirectUri);
};

} // namespace Tether
