#pragma once

#include "gatewayinstance.h"

#include <QHash>
#include <QObject>
#include <QString>

#include <memory>

class QLocalServer;

namespace Tether {

class Gateway;
class GatewaySession;
class StdioHostChannel;

// A protocol served on the relay socket beside the gateway's MCP (the instance's control
// protocol): each connection whose first line it claims is its own from then on.
class LocalSocketService
{
public:
    virtual ~LocalSocketService() = default;
    virtual bool claims(const QByteArray &firstLine) const = 0;
    // `channel` stays the endpoint's (it ends with the peer or the endpoint); the service reads
    // the lines after `firstLine` from it and answers on it. `instance` is the endpoint's record.
    virtual void serve(StdioHostChannel *channel, const QByteArray &firstLine, const GatewayInstanceRecord &instance) = 0;
};

// The gateway on a Unix domain socket, for the relays of `tetherctl serve`: each connection is a
// host session speaking newline-delimited JSON-RPC exactly as over stdio, listed with the
// transport RelayedTransport. Only the user's own processes can connect: the socket is the
// user's alone (0600, in the 0700 runtime folder), and a peer of another user is refused.
// Made by announce(), it is the instance's: its record (gatewayinstance.h) names it, so that a
// tetherctl serve of the same config relays here. The gateway must outlive the endpoint.
class LocalSocketEndpoint final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LocalSocketEndpoint)

public:
    static inline const QString RelayedTransport = QStringLiteral("stdio (relayed)");

    explicit LocalSocketEndpoint(Gateway &gateway, QObject *parent = nullptr);
    ~LocalSocketEndpoint() override;

    // This process as the instance `instanceId` (newRandomId(); what /healthz answers too) that
    // serves the config at `configPath`, and the HTTP endpoint at `httpUrl` with its `tokenFile`
    // (none when empty): listening at the instance's relay socket, its record written. Nothing,
    // with `error`, when the socket cannot be listened on or the record written (tetherctl serve
    // then runs the servers itself).
    static std::unique_ptr<LocalSocketEndpoint> announce(Gateway &gateway, const QString &configPath,
                                                         const QString &instanceId, const QString &httpUrl,
                                                         const QString &tokenFile, QString *error);
    // The record written anew with the HTTP endpoint at `httpUrl`, served since; the relays
    // connected stay.
    bool announceHttp(const QString &httpUrl, const QString &tokenFile, QString *error);

    // Connections whose first line `service` claims go to it (it must outlive the endpoint or be
    // unset before it goes); null: every connection is a host of the gateway.
    void setService(LocalSocketService *service) { m_service = service; }

    // Listens at `path` (a socket left there by an instance that is gone is replaced); false with
    // `error` saying why.
    bool listen(const QString &path, QString *error);
    // Ends every session (their calls are cancelled), stops listening and removes the socket, and
    // the record while it is still this instance's.
    void close();

    QString path() const;

private:
    void accept(int fd);
    // A connection's first line decides whose it is: the service's, or a host session's.
    void onFirstLine(StdioHostChannel *channel, const QByteArray &line);
    void endSession(StdioHostChannel *channel, const QString &reason);

    Gateway &m_gateway;
    GatewayInstanceRecord m_record; // written while announced
    bool m_announced = false;
    std::unique_ptr<QLocalServer> m_server;
    LocalSocketService *m_service = nullptr;
    // Channels owned: a host's with its session; null before the first line and for the service's.
    QHash<StdioHostChannel *, GatewaySession *> m_sessions;
};

} // namespace Tether
