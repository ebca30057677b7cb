#include "gatewaytoken.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>

#include <array>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

constexpr int TokenBytes = 32;

QByteArray newToken()
{
    std::array<quint32, TokenBytes / sizeof(quint32)> words{};
    QRandomGenerator::system()->fillRange(words.data(), qsizetype(words.size()));
    return QByteArray(reinterpret_cast<const char *>(words.data()), TokenBytes)
        .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

bool isToken(const QByteArray &text)
{
    return text.size() >= 16 && std::all_of(text.cbegin(), text.cend(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    });
}

// Writes `token` as a new file at `path`, readable by its owner only; false with `error` (and
// errno as the failure left it) when the file exists or cannot be written.
bool writeNewTokenFile(const QString &path, const QByteArray &token, QString *error)
{
    const QByteArray local = QFile::encodeName(path);
    const int fd = ::open(local.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        const int openError = errno;
        *error = u"Cannot write the gateway token %1: %2"_s.arg(path, QString::fromLocal8Bit(std::strerror(openError)));
        errno = openError;
        return false;
    }
    const QByteArray line = token + '\n';
    const bool written = ::write(fd, line.constData(), size_t(line.size())) == line.size() && ::fsync(fd) == 0;
    ::close(fd);
    if (!written) {
        ::unlink(local.constData());
        *error = u"Cannot write the gateway token %1"_s.arg(path);
        errno = EIO;
        return false;
    }
    return true;
}

} // namespace

std::optional<QByteArray> readGatewayToken(const QString &path, QString *error)
{
    const QByteArray local = QFile::encodeName(path);
    struct stat info{};
    if (::stat(local.constData(), &info) != 0) {
        *error = u"Cannot read the gateway token %1: %2"_s.arg(path, QString::fromLocal8Bit(std::strerror(errno)));
        return std::nullopt;
    }
    if (info.st_uid != ::getuid()) {
        *error = u"The gateway token %1 belongs to another user; delete it, and Tether makes one of your own"_s.arg(path);
        return std::nullopt;
    }
    if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
        *error = u"The gateway token %1 can be read by others (mode %2), so anyone could call your tools: "
                 "run chmod 600 %1, or delete it to have a new one made"_s.arg(path)
                     .arg(info.st_mode & 0777, 3, 8, QLatin1Char('0'));
        return std::nullopt;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = u"Cannot read the gateway token %1: %2"_s.arg(path, file.errorString());
        return std::nullopt;
    }
    const QByteArray token = file.read(4096).trimmed();
    if (!isToken(token)) {
        *error = u"The gateway token %1 holds no token (at least 16 characters of A-Z a-z 0-9 - _); delete it, "
                 "and Tether makes a new one"_s.arg(path);
        return std::nullopt;
    }
    return token;
}

QString gatewayTokenPath(const QString &configPath)
{
    return QFileInfo(configPath).absoluteDir().filePath(u"gateway-token"_s);
}

std::optional<QByteArray> loadOrCreateGatewayToken(const QString &path, QString *error)
{
    if (QFileInfo::exists(path))
        return readGatewayToken(path, error);
    if (!QDir().mkpath(QFileInfo(path).absolutePath())) {
        *error = u"Cannot make the folder of the gateway token %1"_s.arg(path);
        return std::nullopt;
    }
    const QByteArray token = newToken();
    if (!writeNewTokenFile(path, token, error)) {
        if (errno == EEXIST) // made by another Tether just now
            return readGatewayToken(path, error);
        return std::nullopt;
    }
    return token;
}

std::optional<QByteArray> rotateGatewayToken(const QString &path, QString *error)
{
    // Written beside it and renamed over it: a reader sees the old token or the new, whole.
    const QString temporary = path + u".new"_s;
    ::unlink(QFile::encodeName(temporary).constData()); // left by a rotation that was cut short
    const QByteArray token = newToken();
    if (!writeNewTokenFile(temporary, token, error))
        return std::nullopt;
    if (::rename(QFile::encodeName(temporary).constData(), QFile::encodeName(path).constData()) != 0) {
        *error = u"Cannot replace the gateway token %1: %2; the old token stays in use"_s.arg(
            path, QString::fromLocal8Bit(std::strerror(errno)));
        ::unlink(QFile::encodeName(temporary).constData());
        return std::nullopt;
    }
    return token;
}

bool bearerTokenMatches(QByteArrayView authorization, QByteArrayView token)
{
    constexpr QByteArrayView scheme = "bearer ";
    if (authorization.size() < scheme.size()
        || QByteArrayView(authorization.first(scheme.size())).compare(scheme, Qt::CaseInsensitive) != 0)
        return false;
    const QByteArrayView presented = authorization.sliced(scheme.size()).trimmed();
    // Every byte of the expected token is looked at, whatever was presented.
    unsigned char difference = presented.size() == token.size() ? 0 : 1;
    for (qsizetype i = 0; i < token.size(); ++i)
        difference |= static_cast<unsigned char>(token[i] ^ (i < presented.size() ? presented[i] : 0));
    return difference == 0 && !token.isEmpty();
}

} // namespace Tether
