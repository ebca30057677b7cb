#include "gatewayinstance.h"

#include "common/logging.h"
#include "common/privatefile.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSet>
#include <QUrl>

#include <array>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// Why a file, folder or socket of the record cannot be trusted: not the user's, or open to others.
QString untrusted(const QString &path, mode_t type)
{
    struct stat info{};
    if (::lstat(QFile::encodeName(path).constData(), &info) != 0)
        return u"%1 cannot be read"_s.arg(path);
    if ((info.st_mode & S_IFMT) != type) {
        const QString kind = type == S_IFDIR ? u"folder"_s : type == S_IFSOCK ? u"socket"_s : u"file"_s;
        return u"%1 is not a %2"_s.arg(path, kind);
    }
    if (info.st_uid != ::getuid())
        return u"%1 belongs to another user"_s.arg(path);
    if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0)
        return u"%1 can be used by others (mode %2)"_s.arg(path).arg(info.st_mode & 0777, 3, 8, QLatin1Char('0'));
    return {};
}

QString recordFolder()
{
    const QString runtime = qEnvironmentVariable("XDG_RUNTIME_DIR");
    // Without one (a cron job, a container), a folder of the user's own in /tmp, made 0700 and
    // checked like the other; every tetherctl of this user then finds the same one.
    if (runtime.isEmpty())
        return QDir::temp().filePath(u"tether-%1"_s.arg(::getuid()));
    return QDir(runtime).filePath(u"tether"_s);
}

QString canonical(const QString &path)
{
    const QString resolved = QFileInfo(path).canonicalFilePath();
    return resolved.isEmpty() ? QFileInfo(path).absoluteFilePath() : resolved;
}

// Whether the process `pid` exists (a zombie too: its parent has yet to hear of its end).
bool processExists(qint64 pid)
{
    return pid > 0 && !(::kill(pid_t(pid), 0) != 0 && errno == ESRCH);
}

// A connection to the socket at `path`, not waiting for one (a listener takes it at once); -1,
// with `error`, when none is made.
int connectToSocket(const QString &path, QString *error)
{
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const QByteArray encoded = QFile::encodeName(path);
    if (encoded.size() >= qsizetype(sizeof address.sun_path)) {
        *error = u"the path is too long for a socket"_s;
        return -1;
    }
    std::memcpy(address.sun_path, encoded.constData(), size_t(encoded.size()));
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || ::connect(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0) {
        const int failure = errno;
        *error = QString::fromLocal8Bit(std::strerror(failure));
        if (fd >= 0)
            ::close(fd);
        errno = failure; // for a caller that tells a refusal from the rest
        return -1;
    }
    return fd;
}

} // namespace

QString gatewayInstanceRecordName(const QString &configPath)
{
    const QByteArray digest = QCryptographicHash::hash(canonical(configPath).toUtf8(), QCryptographicHash::Sha256);
    return u"gateway-%1.json"_s.arg(QString::fromLatin1(digest.first(8).toHex()));
}

QString gatewayInstanceRecordPath(const QString &configPath)
{
    return QDir(recordFolder()).filePath(gatewayInstanceRecordName(configPath));
}

QString gatewayRelaySocketPath(const QString &instance)
{
    return QDir(recordFolder()).filePath(u"gateway-%1.sock"_s.arg(instance));
}

bool makeGatewayRuntimeFolder(QString *error)
{
    const QString folder = recordFolder();
    if (!QFileInfo::exists(folder) && ::mkdir(QFile::encodeName(folder).constData(), 0700) != 0 && errno != EEXIST) {
        *error = u"Cannot make %1 for the gateway's instance record: %2; set XDG_RUNTIME_DIR to a folder of your "
                 "own"_s.arg(folder, QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    if (const QString why = untrusted(folder, S_IFDIR); !why.isEmpty()) {
        *error = why + u"; the gateway's instance record goes there only when it is yours alone (chmod 700 it)"_s;
        return false;
    }
    return true;
}

bool writeGatewayInstanceRecord(const GatewayInstanceRecord &record, QString *error)
{
    if (!makeGatewayRuntimeFolder(error))
        return false;
    const QJsonObject json{{u"pid"_s, record.pid},
                           {u"instance"_s, record.instance},
                           {u"url"_s, record.url},
                           {u"configPath"_s, canonical(record.configPath)},
                           {u"tokenFile"_s, record.tokenFile},
                           {u"version"_s, record.version},
                           {u"startedAt"_s, record.startedAt.toString(Qt::ISODateWithMs)},
                           {u"socket"_s, record.socket}};
    // Never through a link planted at its path: its target would be overwritten.
    QString why;
    if (!writePrivateFile(gatewayInstanceRecordPath(record.configPath), QJsonDocument(json).toJson(), &why)) {
        *error = u"Cannot write the gateway's instance record: "_s + why;
        return false;
    }
    return true;
}

namespace {

QString claimPath(const QString &configPath)
{
    return gatewayInstanceRecordPath(configPath) + u".lock"_s;
}

// The whole file, for fcntl's record locks: released when the process ends, and testable by others
// (F_GETLK) without taking them.
struct flock wholeFileLock(short type)
{
    struct flock lock{};
    lock.l_type = type;
    lock.l_whence = SEEK_SET;
    return lock;
}

// The lock files this process holds.
QSet<QString> &heldClaims()
{
    static QSet<QString> held;
    return held;
}

} // namespace

InstanceClaim::InstanceClaim(int fd, QString path)
    : m_fd(fd)
    , m_path(std::move(path))
{
    heldClaims().insert(m_path);
}

std::unique_ptr<InstanceClaim> InstanceClaim::claim(const QString &configPath, qint64 *holder, QString *error)
{
    *holder = 0;
    if (!makeGatewayRuntimeFolder(error))
        return nullptr;
    const QString path = claimPath(configPath);
    if (heldClaims().contains(path)) {
        *holder = QCoreApplication::applicationPid();
        return nullptr;
    }
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        *error = u"Cannot open %1 to claim the config %2: %3"_s.arg(path, configPath,
                                                                    QString::fromLocal8Bit(std::strerror(errno)));
        return nullptr;
    }
    struct flock lock = wholeFileLock(F_WRLCK);
    if (::fcntl(fd, F_SETLK, &lock) == 0)
        return std::unique_ptr<InstanceClaim>(new InstanceClaim(fd, path));
    const int failure = errno;
    ::close(fd);
    if (failure == EACCES || failure == EAGAIN) {
        *holder = instanceClaimHolder(configPath);
        if (*holder > 0)
            return nullptr;
    }
    *error = u"Cannot lock %1 to claim the config %2: %3"_s.arg(path, configPath,
                                                                QString::fromLocal8Bit(std::strerror(failure)));
    return nullptr;
}

InstanceClaim::~InstanceClaim()
{
    heldClaims().remove(m_path);
    ::close(m_fd);
}

qint64 instanceClaimHolder(const QString &configPath)
{
    const QString path = claimPath(configPath);
    if (heldClaims().contains(path))
        return QCoreApplication::applicationPid();
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 0;
    struct flock lock = wholeFileLock(F_WRLCK);
    const bool tested = ::fcntl(fd, F_GETLK, &lock) == 0;
    ::close(fd);
    return tested && lock.l_type != F_UNLCK ? qint64(lock.l_pid) : 0;
}

QByteArray newRandomId()
{
    std::array<quint32, 4> words{};
    QRandomGenerator::system()->fillRange(words.data(), qsizetype(words.size()));
    return QByteArray(reinterpret_cast<const char *>(words.data()), sizeof(words)).toHex();
}

void removeGatewayInstanceRecord(const QString &configPath, const QString &instance)
{
    QString why;
    const std::optional<GatewayInstanceRecord> record = readGatewayInstanceRecord(configPath, &why);
    if (record && record->instance == instance)
        QFile::remove(gatewayInstanceRecordPath(configPath));
}

namespace {

std::optional<GatewayInstanceRecord> readRecordFile(const QString &path, QString *why)
{
    why->clear();
    if (!QFileInfo::exists(path))
        return std::nullopt;
    for (const auto &[checked, type] : {std::pair{recordFolder(), mode_t(S_IFDIR)}, std::pair{path, mode_t(S_IFREG)}}) {
        if (QString untrustedWhy = untrusted(checked, type); !untrustedWhy.isEmpty()) {
            *why = untrustedWhy;
            return std::nullopt;
        }
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *why = u"%1 cannot be read: %2"_s.arg(path, file.errorString());
        return std::nullopt;
    }
    const QJsonObject json = QJsonDocument::fromJson(file.read(64 * 1024)).object();
    GatewayInstanceRecord record;
    record.pid = json.value(u"pid"_s).toInteger();
    record.instance = json.value(u"instance"_s).toString();
    record.url = json.value(u"url"_s).toString();
    record.configPath = json.value(u"configPath"_s).toString();
    record.tokenFile = json.value(u"tokenFile"_s).toString();
    record.version = json.value(u"version"_s).toString();
    record.startedAt = QDateTime::fromString(json.value(u"startedAt"_s).toString(), Qt::ISODateWithMs);
    record.socket = json.value(u"socket"_s).toString();
    const bool servesHttp = !record.url.isEmpty();
    if (record.pid <= 0 || record.instance.isEmpty() || (servesHttp && (!QUrl(record.url).isValid() || record.tokenFile.isEmpty()))) {
        *why = u"%1 is not a gateway instance record"_s.arg(path);
        return std::nullopt;
    }
    return record;
}

} // namespace

std::optional<GatewayInstanceRecord> readGatewayInstanceRecord(const QString &configPath, QString *why)
{
    return readRecordFile(gatewayInstanceRecordPath(configPath), why);
}

QList<GatewayInstanceRecord> readGatewayInstanceRecords()
{
    QList<GatewayInstanceRecord> records;
    const QDir folder(recordFolder());
    for (const QString &name : folder.entryList({u"gateway-*.json"_s}, QDir::Files, QDir::Name)) {
        QString why;
        const std::optional<GatewayInstanceRecord> record = readRecordFile(folder.filePath(name), &why);
        if (record && processExists(record->pid))
            records.append(*record);
    }
    return records;
}

void removeStaleGatewayFiles()
{
    const QDir folder(recordFolder());
    if (!untrusted(folder.path(), S_IFDIR).isEmpty())
        return;
    QSet<QString> namedByLive;
    for (const QString &name : folder.entryList({u"gateway-*.json"_s}, QDir::Files, QDir::Name)) {
        QString why;
        const std::optional<GatewayInstanceRecord> record = readRecordFile(folder.filePath(name), &why);
        if (!record)
            continue;
        if (processExists(record->pid)) {
            namedByLive.insert(record->socket);
            continue;
        }
        spdlog::info("gateway: removing the instance record {} of pid {}, which is gone", name, record->pid);
        QFile::remove(folder.filePath(name));
    }
    for (const QString &name : folder.entryList({u"gateway-*.sock"_s}, QDir::System, QDir::Name)) {
        const QString path = folder.filePath(name);
        if (namedByLive.contains(path) || !untrusted(path, S_IFSOCK).isEmpty())
            continue;
        // Refused: nothing listens (a listener with a full backlog would say EAGAIN).
        QString connectError;
        const int socket = connectToSocket(path, &connectError);
        if (socket >= 0) {
            ::close(socket);
            continue;
        }
        if (errno != ECONNREFUSED)
            continue;
        spdlog::info("gateway: removing the relay socket {}, which no Tether listens on (its Tether was killed)", name);
        QFile::remove(path);
    }
}

std::optional<LiveGatewayInstance> findLiveGatewayInstance(const QString &configPath, QString *why)
{
    const QString path = gatewayInstanceRecordPath(configPath);
    const std::optional<GatewayInstanceRecord> record = readGatewayInstanceRecord(configPath, why);
    if (!record)
        return std::nullopt;
    if (canonical(configPath) != record->configPath) {
        *why = u"the Tether of pid %1 serves another config (%2)"_s.arg(record->pid).arg(record->configPath);
        return std::nullopt;
    }
    if (!processExists(record->pid)) {
        *why = u"the Tether of %1 (pid %2) is gone; its record is removed"_s.arg(path).arg(record->pid);
        QFile::remove(path);
        if (!record->socket.isEmpty() && untrusted(record->socket, S_IFSOCK).isEmpty())
            QFile::remove(record->socket);
        return std::nullopt;
    }
    if (record->socket.isEmpty()) {
        *why = u"the Tether of pid %1 (version %2) has no relay socket; restart it to be relayed to"_s.arg(record->pid)
                   .arg(record->version);
        return std::nullopt;
    }
    if (QString untrustedWhy = untrusted(record->socket, S_IFSOCK); !untrustedWhy.isEmpty()) {
        *why = untrustedWhy;
        return std::nullopt;
    }
    QString connectError;
    const int socket = connectToSocket(record->socket, &connectError);
    if (socket < 0) {
        *why = u"the Tether of %1 (pid %2) does not answer at %3: %4"_s.arg(path)
                   .arg(record->pid)
                   .arg(record->socket, connectError);
        return std::nullopt;
    }
    return LiveGatewayInstance{*record, socket};
}

} // namespace Tether
