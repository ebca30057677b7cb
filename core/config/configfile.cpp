#include "configfile.h"

#include "common/duration.h"
#include "configparser.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QLockFile>
#include <QSaveFile>
#include <QThread>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// A writer holds the lock for the milliseconds of one read and write; a lock file this old was
// left by one that is gone, even when its pid now belongs to another process of the same name.
constexpr std::chrono::milliseconds StaleLockAge{30000};
// How often a waiting writer tries again: short next to a wait, long next to a write.
constexpr unsigned long LockRetryMs = 20;

// Takes `lock`, waiting at most `wait` for the writer that holds it; `why` says what stood in the way.
bool takeLock(QLockFile &lock, std::chrono::milliseconds wait, QString *why)
{
    lock.setStaleLockTime(StaleLockAge);
    const QDeadlineTimer deadline(wait);
    // Each attempt first removes a lock whose process is gone (QLockFile checks its pid and host).
    while (!lock.tryLock()) {
        if (lock.error() != QLockFile::LockFailedError) {
            *why = u"cannot create the lock file %1 (%2), so nothing was saved: check that the folder is yours and "
                   "writable"_s.arg(lock.fileName(),
                                    lock.error() == QLockFile::PermissionError ? u"permission denied"_s : u"unknown error"_s);
            return false;
        }
        if (deadline.hasExpired()) {
            qint64 pid = 0;
            QString host;
            QString program;
            const QString holder = lock.getLockInfo(&pid, &host, &program)
                                       ? u"%1 (pid %2) on %3"_s.arg(program.isEmpty() ? u"a program"_s : program, QString::number(pid), host)
                                       : u"another program"_s;
            *why = u"%1 holds its lock %2 and did not let go within %3, so nothing was saved: try again when it is "
                   "done; if that process is no longer running, delete %2"_s.arg(holder, lock.fileName(),
                                                                                 formatDuration(wait));
            return false;
        }
        QThread::msleep(LockRetryMs);
    }
    return true;
}

} // namespace

std::optional<QByteArray> readConfigFile(const QString &path, QString *error)
{
    const auto failed = [&](const QString &text) {
        if (error)
            *error = path + u": "_s + text;
        return std::nullopt;
    };
    const QFileInfo info(path);
    if (!info.exists())
        return failed(u"no such file"_s);
    if (info.isDir())
        return failed(u"is a folder, not a file"_s);
    if (info.size() > MaxConfigBytes)
        return failed(u"is %1 bytes, too large for a config file (at most %2)"_s.arg(info.size()).arg(MaxConfigBytes));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return failed(u"cannot be read: %1"_s.arg(file.errorString()));
    // It may have grown since it was measured.
    QByteArray bytes = file.read(MaxConfigBytes + 1);
    if (file.error() != QFileDevice::NoError)
        return failed(u"cannot be read: %1"_s.arg(file.errorString()));
    if (bytes.size() > MaxConfigBytes)
        return failed(u"is too large for a config file (at most %1 bytes)"_s.arg(MaxConfigBytes));
    return bytes;
}

ConfigDocument loadConfig(const QString &path, const ConfigContext &context, QByteArray *content)
{
    QString error;
    const std::optional<QByteArray> bytes = readConfigFile(path, &error);
    if (content)
        *content = bytes.value_or(QByteArray());
    if (!bytes) {
        ConfigDocument document;
        document.path = path;
        document.serversKey = u"mcpServers"_s;
        document.errors.append(error);
        return document;
    }
    return parseConfig(*bytes, path, context);
}

bool editConfig(const QString &path, const ConfigEdit &edit, QString *error, const JsonKeyOrder &orderWithoutFile,
                QByteArray *written, std::chrono::milliseconds lockWait)
{
    const auto fail = [&](const QString &text) {
        if (error)
            *error = path + u": "_s + text;
        return false;
    };
    const QFileInfo info(path);
    if (info.isDir())
        return fail(u"is a folder, not a file: nothing was saved"_s);
    const QString folder = info.absolutePath();
    if (!QDir().mkpath(folder))
        return fail(u"cannot create the folder %1"_s.arg(folder));

    QLockFile lock(path + u".lock"_s);
    QString why;
    if (!takeLock(lock, lockWait, &why))
        return fail(why);

    // Read under the lock: what another writer saved a moment ago is in it.
    ConfigOnDisk current;
    current.exists = QFileInfo::exists(path);
    if (current.exists) {
        QString readError;
        const std::optional<QByteArray> bytes = readConfigFile(path, &readError);
        if (!bytes) {
            if (error)
                *error = readError + u", so it was left untouched"_s;
            return false;
        }
        current.content = *bytes;
    }
    const std::optional<QJsonObject> root = edit(current, &why);
    if (!root) {
        if (error)
            *error = why;
        return why.isEmpty();
    }

    JsonKeyOrder order = orderWithoutFile;
    JsonTextStyle style;
    if (current.exists && !isBlankConfig(current.content)) {
        // What the user wrote by hand is never replaced by a save they did not see fail to load.
        QJsonParseError parseError;
        QJsonDocument::fromJson(current.content, &parseError);
        if (parseError.error != QJsonParseError::NoError) {
            return fail(parseErrorLocation(current.content, parseError)
                        + u": the file on disk is broken (not valid JSON), so it was left untouched: fix it or "
                          "move it away, then save again"_s);
        }
        order = JsonKeyOrder::scan(current.content).value_or(order);
        style = jsonTextStyleOf(current.content);
        if (const QStringList lost = definitionsLostByRewrite(order); !lost.isEmpty()) {
            return fail(lost.join(u"; "_s)
                        + u": JSON keeps only the last one, and saving would drop the others, so nothing was saved: "
                          "remove or rename the others in the file, then save again"_s);
        }
    }

    // QSaveFile writes a temporary file next to the target and renames it over the target on commit.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return fail(u"cannot be written: %1"_s.arg(file.errorString()));
    if (!file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner))
        return fail(u"cannot restrict the file to its owner: %1; nothing was saved"_s.arg(file.errorString()));
    const QByteArray bytes = toOrderedJson(*root, order, style);
    if (file.write(bytes) != bytes.size())
        return fail(u"cannot be written: %1; the file was left as it was"_s.arg(file.errorString()));
    if (!file.commit())
        return fail(u"cannot be written: %1; the file was left as it was"_s.arg(file.errorString()));
    if (written)
        *written = bytes;
    return true;
}

} // namespace Tether
