#include "localsocketendpoint.h"

#include "gateway.h"
#include "gatewaysession.h"
#include "stdiohostchannel.h"

#include "common/logging.h"

#include <QCoreApplication>
#include <QFile>
#include <QLocalServer>

#include <functional>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// QLocalServer hands over the accepted descriptor itself, for a channel that reads and writes it
// directly, rather than wrapping it in a QLocalSocket.
class DescriptorServer final : public QLocalServer
{
public:
    explicit DescriptorServer(std::function<void(int)> accepted)
        : m_accepted(std::move(accepted))
    {}

protected:
    void incomingConnection(quintptr socketDescriptor) override { m_accepted(int(socketDescriptor)); }

private:
    std::function<void(int)> m_accepted;
};

// sockaddr_un's sun_path, less its terminating zero.
constexpr qsizetype MaxSocketPathBytes = sizeof(sockaddr_un::sun_path) - 1;

// The user id of the process at the other end of `fd`; -1 when it cannot be told.
qint64 peerUser(int fd)
{
    struct ucred credentials{};
    socklen_t size = sizeof credentials;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0)
        return -1;
    return qint64(credentials.uid);
}

} // namespace

LocalSocketEndpoint::LocalSocketEndpoint(Gateway &gateway, QObject *parent)
    : QObject(parent)
    , m_gateway(gateway)
    , m_server(std::make_unique<DescriptorServer>([this](int fd) { accept(fd); }))
{
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
}

LocalSocketEndpoint::~LocalSocketEndpoint()
{
    close();
}

std::unique_ptr<LocalSocketEndpoint> LocalSocketEndpoint::announce(Gateway &gateway, const QString &configPath,
                                                                   const QString &instanceId, const QString &httpUrl,
                                                                   const QString &tokenFile, QString *error)
{
    if (!makeGatewayRuntimeFolder(error))
        return nullptr;
    if (const qint64 holder = instanceClaimHolder(configPath); holder > 0 && holder != QCoreApplication::applicationPid()) {
        *error = u"another Tether (pid %1) runs the config %2 and serves its gateway"_s.arg(holder).arg(configPath);
        return nullptr;
    }
    // A killed instance left its socket (and record) behind.
    removeStaleGatewayFiles();
    auto endpoint = std::make_unique<LocalSocketEndpoint>(gateway);
    GatewayInstanceRecord &record = endpoint->m_record;
    record.pid = QCoreApplication::applicationPid();
    record.instance = instanceId;
    record.url = httpUrl;
    record.configPath = configPath;
    record.tokenFile = httpUrl.isEmpty() ? QString() : tokenFile;
    record.version = QStringLiteral(TETHER_VERSION);
    record.startedAt = QDateTime::currentDateTimeUtc();
    if (!endpoint->listen(gatewayRelaySocketPath(record.instance), error))
        return nullptr;
    record.socket = endpoint->path();
    if (!writeGatewayInstanceRecord(record, error))
        return nullptr;
    endpoint->m_announced = true;
    return endpoint;
}

bool LocalSocketEndpoint::announceHttp(const QString &httpUrl, const QString &tokenFile, QString *error)
{
    m_record.url = httpUrl;
    m_record.tokenFile = httpUrl.isEmpty() ? QString() : tokenFile;
    return m_announced && writeGatewayInstanceRecord(m_record, error);
}

bool LocalSocketEndpoint::listen(const QString &path, QString *error)
{
    if (const qsizetype length = QFile::encodeName(path).size(); length > MaxSocketPathBytes) {
        *error = u"Cannot listen on the relay socket %1: its path is %2 bytes, more than the %3 a socket's may be; "
                 "set XDG_RUNTIME_DIR to a shorter folder"_s.arg(path).arg(length).arg(MaxSocketPathBytes);
        return false;
    }
    QLocalServer::removeServer(path);
    if (!m_server->listen(path)) {
        *error = u"Cannot listen on the relay socket %1: %2; XDG_RUNTIME_DIR must name a folder of yours that can "
                 "be written"_s.arg(path, m_server->errorString());
        return false;
    }
    // Read and write are all a connection needs: no one else's, and nothing to execute.
    if (::chmod(QFile::encodeName(path).constData(), 0600) != 0) {
        *error = u"Cannot make the relay socket %1 the user's alone (chmod 600)"_s.arg(path);
        m_server->close();
        return false;
    }
    spdlog::info("gateway: relays connect at {}", path);
    return true;
}

void LocalSocketEndpoint::close()
{
    if (std::exchange(m_announced, false))
        removeGatewayInstanceRecord(m_record.configPath, m_record.instance);
    const QList<StdioHostChannel *> channels = m_sessions.keys();
    for (StdioHostChannel *channel : channels)
        endSession(channel, u"Tether's relay socket closed"_s);
    m_server->close(); // removes the socket file
}

QString LocalSocketEndpoint::path() const
{
    return m_server->fullServerName();
}

void LocalSocketEndpoint::accept(int fd)
{
    if (const qint64 user = peerUser(fd); user != qint64(::getuid())) {
        spdlog::warn("gateway: refused a connection to the relay socket from user id {}", user);
        ::close(fd);
        return;
    }
    auto *channel = new StdioHostChannel(StdioHostChannel::socket(fd, RelayedTransport), this);
    m_sessions.insert(channel, nullptr);
    connect(channel, &StdioHostChannel::messageReceived, this,
            [this, channel](const QByteArray &line) { onFirstLine(channel, line); });
    connect(channel, &StdioHostChannel::finished, this,
            [this, channel](const QString &reason) { endSession(channel, reason); });
    channel->start();
}

void LocalSocketEndpoint::onFirstLine(StdioHostChannel *channel, const QByteArray &line)
{
    // The lines after this one, read in the same turn, go where this one went.
    disconnect(channel, &StdioHostChannel::messageReceived, this, nullptr);
    if (m_service && m_service->claims(line)) {
        m_service->serve(channel, line, m_record);
        return;
    }
    GatewaySession *session = m_gateway.openSession(channel);
    m_sessions.insert(channel, session);
    connect(channel, &StdioHostChannel::messageReceived, session, &GatewaySession::receive);
    session->receive(line);
}

void LocalSocketEndpoint::endSession(StdioHostChannel *channel, const QString &reason)
{
    GatewaySession *session = m_sessions.take(channel);
    if (session)
        m_gateway.closeSession(session, reason);
    channel->disconnect(this);
    // The session is deleted from the event loop, and may still speak to its channel until then.
    channel->deleteLater();
}

} // namespace Tether
