#include "gatewaytoken.h"

#include "common/privatefile.h"

#include <QDir>
#include <QFileInfo>
#include <QRandomGenerator>

#include <array>

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

} // namespace

std::optional<QByteArray> readGatewayToken(const QString &path, QString *error)
{
    const PrivateFileContent content = readPrivateFile(path);
    switch (content.refusal) {
    case PrivateFileContent::Refusal::None:
        break;
    case PrivateFileContent::Refusal::Unreadable:
        *error = u"Cannot read the gateway token: "_s + content.error;
        return std::nullopt;
    case PrivateFileContent::Refusal::NotRegular:
        *error = u"The gateway token %1 is not a regular file; move it away, and Tether makes a new one"_s.arg(path);
        return std::nullopt;
    case PrivateFileContent::Refusal::OtherOwner:
        *error = u"The gateway token %1 belongs to another user; delete it, and Tether makes one of your own"_s.arg(path);
        return std::nullopt;
    case PrivateFileContent::Refusal::OpenToOthers:
        *error = u"The gateway token %1 can be read by others (mode %2), so anyone could call your tools: "
                 "run chmod 600 %1, or delete it to have a new one made"_s.arg(path)
                     .arg(content.mode, 3, 8, QLatin1Char('0'));
        return std::nullopt;
    }
    if (!content.exists) {
        *error = u"Cannot read the gateway token %1: there is no such file"_s.arg(path);
        return std::nullopt;
    }
    const QByteArray token = content.bytes.trimmed();
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
    const QByteArray token = newToken();
    QString why;
    switch (createPrivateFile(path, token + '\n', &why)) {
    case PrivateFileCreation::Created:
        return token;
    case PrivateFileCreation::AlreadyThere: // made by another Tether just now
        return readGatewayToken(path, error);
    case PrivateFileCreation::Failed:
        break;
    }
    *error = u"Cannot make the gateway token: "_s + why;
    return std::nullopt;
}

std::optional<QByteArray> rotateGatewayToken(const QString &path, QString *error)
{
    // Written beside it and renamed over it: a reader sees the old token or the new, whole.
    const QByteArray token = newToken();
    QString why;
    if (!writePrivateFile(path, token + '\n', &why)) {
        *error = u"Cannot replace the gateway token: %1; the old token stays in use"_s.arg(why);
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
