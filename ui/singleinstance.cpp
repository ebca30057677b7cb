#include "singleinstance.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalSocket>
#include <QStandardPaths>
#include <QTimer>

#include <spdlog/spdlog.h>

using namespace Qt::StringLiterals;
using namespace std::chrono;

namespace Tether {

namespace {

// A request or an answer is one line of JSON; anything longer is not from Tether.
constexpr qint64 MaxLineBytes = 64 * 1024;
constexpr milliseconds UnansweredConnectionLimit = 5s;

QString sameFileKey(const QString &path)
{
    const QFileInfo file(path);
    const QString canonical = file.canonicalFilePath();
    return canonical.isEmpty() ? QDir::cleanPath(file.absoluteFilePath()) : canonical;
}

QByteArray line(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
}

} // namespace

LaunchAnswer answerSecondLaunch(const ConfigSource &running, const QString &requestedConfig)
{
    if (requestedConfig.isEmpty() || (!running.embedded && sameFileKey(running.path) == sameFileKey(requestedConfig)))
        return {true, {}};
    const QString runningText = running.embedded ? u"its built-in example config"_s : running.path;
    return {false, u"Tether is already running, with %1, and one Tether runs one config: %2 was not opened and no "
                   "server was started. To run %2, quit the running Tether (File ▸ Quit, or Quit in its tray menu) "
                   "and start tether --config %2 again."_s.arg(runningText, requestedConfig)};
}

QString instanceSocketPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation) + u"/tether.socket"_s;
}

InstanceListener::InstanceListener(QString socketPath, Answer answer, QObject *parent)
    : QObject(parent)
    , m_socketPath(std::move(socketPath))
    , m_answer(std::move(answer))
{
    // The user's alone, as the runtime folder is.
    m_server.setSocketOptions(QLocalServer::UserAccessOption);
    connect(&m_server, &QLocalServer::newConnection, this, &InstanceListener::onNewConnection);
}

InstanceListener::~InstanceListener()
{
    m_server.close();
}

std::optional<LaunchAnswer> InstanceListener::askRunningInstance(const QString &socketPath, const QString &requestedConfig,
                                                                 milliseconds timeout)
{
    QLocalSocket socket;
    socket.connectToServer(socketPath);
    if (!socket.waitForConnected(int(timeout.count())))
        return std::nullopt;
    socket.write(line({{u"config"_s, requestedConfig}}));
    socket.waitForBytesWritten(int(timeout.count()));
    while (!socket.canReadLine() && socket.bytesAvailable() < MaxLineBytes && socket.waitForReadyRead(int(timeout.count()))) {
    }
    const QJsonObject reply = QJsonDocument::fromJson(socket.readLine(MaxLineBytes)).object();
    if (!reply.value(u"activated"_s).isBool()) {
        return LaunchAnswer{false, u"Another Tether listens on %1 but did not answer; if it hangs, end it (it is "
                                   "named tether in the process list) and start Tether again."_s.arg(socketPath)};
    }
    return LaunchAnswer{reply.value(u"activated"_s).toBool(), reply.value(u"refusal"_s).toString()};
}

bool InstanceListener::claim(const QString &requestedConfig, std::optional<LaunchAnswer> *answer, QString *error)
{
    QDir().mkpath(QFileInfo(m_socketPath).absolutePath());
    // Between asking and listening, another launch must not do the same.
    QLockFile lock(m_socketPath + u".lock"_s);
    if (!lock.tryLock(int(duration_cast<milliseconds>(10s).count()))) {
        *error = u"another Tether is starting and holds %1.lock; try again in a moment"_s.arg(m_socketPath);
        return false;
    }
    *answer = askRunningInstance(m_socketPath, requestedConfig);
    if (*answer)
        return true;
    // No Tether answers on it: a socket left by one that ended without removing it.
    QLocalServer::removeServer(m_socketPath);
    if (!m_server.listen(m_socketPath)) {
        *error = u"cannot listen on %1: %2"_s.arg(m_socketPath, m_server.errorString());
        return false;
    }
    return true;
}

void InstanceListener::onNewConnection()
{
    while (QLocalSocket *socket = m_server.nextPendingConnection()) {
        connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
        // A peer that never says its line is dropped, not kept.
        QTimer::singleShot(UnansweredConnectionLimit, socket, [socket] { socket->abort(); });
        connect(socket, &QLocalSocket::readyRead, this, [this, socket] {
            if (!socket->canReadLine()) {
                if (socket->bytesAvailable() > MaxLineBytes)
                    socket->abort();
                return;
            }
            const QJsonValue config = QJsonDocument::fromJson(socket->readLine(MaxLineBytes)).object().value(u"config"_s);
            const LaunchAnswer answer = config.isString()
                ? m_answer(config.toString())
                : LaunchAnswer{false, u"not a request of a Tether launch: {\"config\": PATH} was expected"_s};
            socket->write(line({{u"activated"_s, answer.activated}, {u"refusal"_s, answer.refusal}}));
            socket->disconnectFromServer();
            if (answer.activated) {
                spdlog::info("a second launch of Tether brought this one to the front");
                emit activationRequested();
            } else {
                spdlog::info("a second launch of Tether was refused: {}", answer.refusal.toStdString());
            }
        });
    }
}

} // namespace Tether
