#pragma once

#include "hostchannel.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>

#include <memory>
#include <optional>

namespace Tether {

class Gateway;
class GatewaySession;
class StreamableHttpTransport;

// tetherctl serve in front of a Tether that already serves the gateway over HTTP (the window,
// tetherctl serve --http): a relay, not a second gateway. The host's messages go to that
// instance's endpoint as they are (its initialize too, so the instance shows the real host), and
// whatever the instance sends comes back to the host, so the host uses exactly the servers that
// Tether runs. When the instance goes away, lost() tells; takeOver() then hands the host to a
// gateway of this process: the host's initialize is replayed to it (its answer dropped: the host
// has had one) and the host is told to list the tools again. When the instance's token was
// replaced (Rotate in the window), the session is lost too; the bridge then reads the new token
// from the token file and relays again through a new session, set up the same way.
class GatewayBridge final : public QObject, private HostChannel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(GatewayBridge)

public:
    GatewayBridge(const QString &endpointUrl, const QString &tokenFile, const QByteArray &token,
                  QObject *parent = nullptr);
    ~GatewayBridge() override;

    void start();
    // One message of the host as it came (a stdin line).
    void relayFromHost(const QByteArray &payload);
    // From now on `gateway` (which must outlive the bridge) answers the host.
    void takeOver(Gateway &gateway);
    bool hasTakenOver() const { return m_gateway != nullptr; }
    // Ends the host's session: at the instance (DELETE, at most 2 s), or at the gateway that took
    // over. closed() follows.
    void close(const QString &reason);

signals:
    void messageForHost(const QByteArray &message);
    // The instance's session was lost or it cannot be reached (not after close()). Calls in
    // flight have had their errors.
    void lost(const QString &why);
    void closed();

private:
    void openTransport();
    void onTransportClosed(const QString &error);
    void relayToInstance(const QJsonObject &message);
    // The instance's token, when the token file holds another than the one in use.
    std::optional<QByteArray> replacedToken() const;
    // The session of the gateway that took over writes here.
    QString transportName() const override;
    void send(const QByteArray &message, Role role, const QJsonValue &request) override;
    void endWithoutResponse(const QJsonValue &request) override;

    QString m_endpointUrl;
    QString m_tokenFile;
    QByteArray m_token;
    std::unique_ptr<StreamableHttpTransport> m_transport;
    // While a new session replays the host's initialize: the host's messages wait.
    bool m_replaying = false;
    QList<QJsonObject> m_held;
    QJsonObject m_hostInitialize; // as the host sent it
    bool m_hostInitialized = false;
    bool m_closing = false;
    Gateway *m_gateway = nullptr;
    GatewaySession *m_session = nullptr;
};

} // namespace Tether
