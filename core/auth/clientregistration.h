#pragma once

#include "clientregistrationdocument.h"

#include <QObject>
#include <QUrl>

#include <functional>

class QNetworkAccessManager;

namespace Tether {

// Registers Tether as a native public client at an authorization server's registration
// endpoint (RFC 7591 §3).
class ClientRegistration final : public QObject
{
    Q_OBJECT

public:
    using Done = std::function<void(const ClientRegistrationDocument &)>;

    explicit ClientRegistration(QNetworkAccessManager *network, QObject *parent = nullptr);
    ~ClientRegistration() override;
    Q_DISABLE_COPY_MOVE(ClientRegistration)

    void registerClient(const QUrl &registrationEndpoint, const QUrl &redirectUri, Done done);

private:
    QNetworkAccessManager *m_network;
};

} // namespace Tether
