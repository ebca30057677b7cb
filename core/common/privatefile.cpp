#include "privatefile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <optional>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

QString systemError(int number)
{
    return QString::fromLocal8Bit(std::strerror(number));
}

// Writes `bytes` to a new file beside `path`, synced; its name, or nothing with `error` set.
std::optional<QByteArray> writeBeside(const QString &path, const QByteArray &bytes, QString *error)
{
    const QString folder = QFileInfo(path).absolutePath();
    if (!makePrivateFolder(folder, error))
        return std::nullopt;
    // mkstemp makes the file with mode 0600: the secret is never readable by others, not even for a moment.
    QByteArray temporary = QFile::encodeName(folder + u"/."_s + QFileInfo(path).fileName() + u".XXXXXX"_s);
    const int fd = ::mkstemp(temporary.data());
    if (fd < 0) {
        *error = u"Cannot write in %1: %2"_s.arg(folder, systemError(errno));
        return std::nullopt;
    }
    qsizetype written = 0;
    while (written < bytes.size()) {
        const ssize_t chunk = ::write(fd, bytes.constData() + written, size_t(bytes.size() - written));
        if (chunk < 0 && errno == EINTR)
            continue;
        if (chunk <= 0)
            break;
        written += chunk;
    }
    const int writeError = written == bytes.size() ? 0 : errno;
    const bool synced = writeError == 0 && ::fsync(fd) == 0;
    const int syncError = errno;
    ::close(fd);
    if (!synced) {
        ::unlink(temporary.constData());
        *error = u"Cannot write %1: %2"_s.arg(path, systemError(writeError ? writeError : syncError));
        return std::nullopt;
    }
    return temporary;
}

} // namespace

PrivateFileContent readPrivateFile(const QString &path)
{
    PrivateFileContent content;
    const QByteArray local = QFile::encodeName(path);
    struct stat info{};
    if (::lstat(local.constData(), &info) != 0) {
        if (errno != ENOENT) {
            content.refusal = PrivateFileContent::Refusal::Unreadable;
            content.error = u"Cannot read %1: %2"_s.arg(path, systemError(errno));
        }
        return content;
    }
    content.exists = true;
    content.mode = info.st_mode & 0777;
    if (!S_ISREG(info.st_mode)) {
        content.refusal = PrivateFileContent::Refusal::NotRegular;
        content.error = u"%1 is not a regular file; Tether does not use it: move it away"_s.arg(path);
        return content;
    }
    if (info.st_uid != ::getuid()) {
        content.refusal = PrivateFileContent::Refusal::OtherOwner;
        content.error = u"%1 belongs to another user; Tether does not use it: move it away"_s.arg(path);
        return content;
    }
    if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
        content.refusal = PrivateFileContent::Refusal::OpenToOthers;
        content.error = u"%1 is readable by others (mode %2); Tether does not use it: chmod 600 %1"_s.arg(path).arg(
            content.mode, 4, 8, QLatin1Char('0'));
        return content;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        content.refusal = PrivateFileContent::Refusal::Unreadable;
        content.error = u"Cannot read %1: %2"_s.arg(path, file.errorString());
        return content;
    }
    content.bytes = file.readAll();
    return content;
}

bool makePrivateFolder(const QString &folder, QString *error)
{
    if (QFileInfo::exists(folder))
        return true;
    // Made one level at a time so that the last one is 0700 from the start.
    if (!QDir().mkpath(QFileInfo(folder).absolutePath())
        || (::mkdir(QFile::encodeName(folder).constData(), 0700) != 0 && errno != EEXIST)) {
        *error = u"Cannot make the folder %1: %2"_s.arg(folder, systemError(errno));
        return false;
    }
    return true;
}

bool writePrivateFile(const QString &path, const QByteArray &bytes, QString *error)
{
    // A link planted at the path would be replaced by the rename, but a file that is not one is
    // not Tether's to replace: it is refused as readPrivateFile refuses it.
    struct stat info{};
    if (::lstat(QFile::encodeName(path).constData(), &info) == 0 && !S_ISREG(info.st_mode)) {
        *error = u"%1 is not a regular file; Tether does not replace it: move it away"_s.arg(path);
        return false;
    }
    const std::optional<QByteArray> temporary = writeBeside(path, bytes, error);
    if (!temporary)
        return false;
    if (::rename(temporary->constData(), QFile::encodeName(path).constData()) != 0) {
        *error = u"Cannot replace %1: %2"_s.arg(path, systemError(errno));
        ::unlink(temporary->constData());
        return false;
    }
    return true;
}

PrivateFileCreation createPrivateFile(const QString &path, const QByteArray &bytes, QString *error)
{
    const std::optional<QByteArray> temporary = writeBeside(path, bytes, error);
    if (!temporary)
        return PrivateFileCreation::Failed;
    // A link fails where a file exists, where a rename would replace it.
    const int linked = ::link(temporary->constData(), QFile::encodeName(path).constData());
    const int linkError = errno;
    ::unlink(temporary->constData());
    if (linked == 0)
        return PrivateFileCreation::Created;
    if (linkError == EEXIST)
        return PrivateFileCreation::AlreadyThere;
    *error = u"Cannot write %1: %2"_s.arg(path, systemError(linkError));
    return PrivateFileCreation::Failed;
}

} // namespace Tether
