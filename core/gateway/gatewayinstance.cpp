#include "gatewayinstance.h"

#include "gatewaytoken.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSaveFile>
#include <QStandardPaths>
#include <QTimer>

#include <cerrno>
#include <csignal>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// Why a file or folder of the record cannot be trusted: not the user's, or open to others.
QString untrusted(const QString &path, bool folder)
{
    struct stat info{};
    if (::lstat(QFile::encodeName(path).constData(), &info) != 0)
        return u"%1 cannot be read"_s.arg(path);
    if ((folder && !S_ISDIR(info.st_mode)) || (!folder && !S_ISREG(info.st_mode)))
        return u"%1 is not a %2"_s.arg(path, folder ? u"folder"_s : u"file"_s);
    if (info.st_uid != ::getuid())
        return u"%1 belongs to another user"_s.arg(path);
    if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0)
        return u"%1 can be used by others (mode %2)"_s.arg(path).arg(info.st_mode & 0777, 3, 8, QLatin1Char('0'));
    return {};
}

QString recordFolder()
{
    QString runtime = qEnvironmentVariable("XDG_RUNTIME_DIR");
    if (runtime.isEmpty())
        runtime = QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation);
    return QDir(runtime).filePath(u"tether"_s);
}

QString canonical(const QString &path)
{
    const QString resolved = QFileInfo(path).canonicalFilePath();
    return resolved.isEmpty() ? QFileInfo(path).absoluteFilePath() : resolved;
}

// The instance id /healthz answers with `token`, waiting at most `timeout`; empty when none.
QString healthInstance(const QString &endpointUrl, const QByteArray &token, std::chrono::milliseconds timeout)
{
    QUrl url(endpointUrl);
    url.setPath(u"/healthz"_s);
    QNetworkAccessManager network;
    QNetworkRequest request(url);
    request.setRawHeader("Authorization", "Bearer " + token);
    request.setTransferTimeout(int(timeout.count()));
    QNetworkReply *reply = network.get(request);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(timeout, &loop, &QEventLoop::quit);
    loop.exec();
    const QByteArray body = reply->isFinished() && reply->error() == QNetworkReply::NoError ? reply->readAll() : QByteArray();
    delete reply; // stops a transfer still under way (abort() could make Qt 6.4 warn of a queued error)
    return QJsonDocument::fromJson(body).object().value(u"instance"_s).toString();
}

} // namespace

QString gatewayInstanceRecordPath()
{
    return QDir(recordFolder()).filePath(u"gateway.json"_s);
}

bool writeGatewayInstanceRecord(const GatewayInstanceRecord &record, QString *error)
{
    const QString folder = recordFolder();
    if (!QFileInfo::exists(folder) && ::mkdir(QFile::encodeName(folder).constData(), 0700) != 0 && errno != EEXIST) {
        *error = u"Cannot make %1 for the gateway's instance record"_s.arg(folder);
        return false;
    }
    if (const QString why = untrusted(folder, true); !why.isEmpty()) {
        *error = why + u"; the gateway's instance record goes there only when it is yours alone (chmod 700 it)"_s;
        return false;
    }
    const QJsonObject json{{u"pid"_s, record.pid},
                           {u"instance"_s, record.instance},
                           {u"url"_s, record.url},
                           {u"configPath"_s, canonical(record.configPath)},
                           {u"tokenFile"_s, record.tokenFile},
                           {u"version"_s, record.version},
                           {u"startedAt"_s, record.startedAt.toString(Qt::ISODateWithMs)}};
    QSaveFile file(gatewayInstanceRecordPath());
    if (!file.open(QIODevice::WriteOnly) || !file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner)
        || file.write(QJsonDocument(json).toJson()) < 0 || !file.commit()) {
        *error = u"Cannot write the gateway's instance record %1: %2"_s.arg(file.fileName(), file.errorString());
        return false;
    }
    return true;
}

void removeGatewayInstanceRecord(const QString &instance)
{
    QString why;
    const std::optional<GatewayInstanceRecord> record = readGatewayInstanceRecord(&why);
    if (record && record->instance == instance)
        QFile::remove(gatewayInstanceRecordPath());
}

std::optional<GatewayInstanceRecord> readGatewayInstanceRecord(QString *why)
{
    const QString path = gatewayInstanceRecordPath();
    why->clear();
    if (!QFileInfo::exists(path))
        return std::nullopt;
    for (const auto &[checked, folder] : {std::pair{recordFolder(), true}, std::pair{path, false}}) {
        if (QString untrustedWhy = untrusted(checked, folder); !untrustedWhy.isEmpty()) {
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
    if (record.pid <= 0 || record.instance.isEmpty() || !QUrl(record.url).isValid() || record.tokenFile.isEmpty()) {
        *why = u"%1 is not a gateway instance record"_s.arg(path);
        return std::nullopt;
    }
    return record;
}

std::optional<LiveGatewayInstance> findLiveGatewayInstance(const QString &configPath, QString *why,
                                                           std::chrono::milliseconds timeout)
{
    const std::optional<GatewayInstanceRecord> record = readGatewayInstanceRecord(why);
    if (!record)
        return std::nullopt;
    if (canonical(configPath) != record->configPath) {
        *why = u"the Tether serving %1 runs another config (%2)"_s.arg(record->url, record->configPath);
        return std::nullopt;
    }
    if (::kill(pid_t(record->pid), 0) != 0 && errno == ESRCH) {
        *why = u"the Tether of %1 (pid %2) is gone; its record is removed"_s.arg(gatewayInstanceRecordPath()).arg(record->pid);
        QFile::remove(gatewayInstanceRecordPath());
        return std::nullopt;
    }
    QString tokenError;
    const std::optional<QByteArray> token = readGatewayToken(record->tokenFile, &tokenError);
    if (!token) {
        *why = tokenError;
        return std::nullopt;
    }
    if (healthInstance(record->url, *token, timeout) != record->instance) {
        *why = u"the Tether of %1 (pid %2) does not answer at %3"_s.arg(gatewayInstanceRecordPath())
                   .arg(record->pid)
                   .arg(record->url);
        return std::nullopt;
    }
    return LiveGatewayInstance{*record, *token};
}

} // namespace Tether
