#pragma once

#include <QHash>
#include <QObject>
#include <QString>

#include <memory>

class QLocalServer;

namespace Tether {

class Gateway;
class GatewaySession;
class StdioHostChannel;

// The gateway on a Unix domain socket, for the relays of `tetherctl serve`: each connection is a
// host session speaking newline-delimited JSON-RPC exactly as over stdio, listed with the
// transport RelayedTransport. Only the user's own processes can connect: the socket is the
// user's alone (0600, in the 0700 runtime folder), and a peer of another user is refused.
// The gateway must outlive the endpoint.
class LocalSocketEndpoint final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LocalSocketEndpoint)

public:
    static inline const QString RelayedTransport = QStringLiteral("stdio (relayed)");

    explicit LocalSocketEndpoint(Gateway &gateway, QObject *parent = nullptr);
    ~LocalSocketEndpoint() override;

    // Listens at `path` (a socket left there by an instance that is gone is replaced); false with
    // `error` saying why.
    bool listen(const QString &path, QString *error);
    // Ends every session (their calls are cancelled), stops listening and removes the socket.
    void close();

    QString path() const;

private:
    void accept(int fd);
    void endSession(StdioHostChannel *channel, const QString &reason);

    Gateway &m_gateway;
    std::unique_ptr<QLocalServer> m_server;
    QHash<StdioHostChannel *, GatewaySession *> m_sessions; // channels owned
};

} // namespace Tether
