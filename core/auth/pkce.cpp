#include "pkce.h"

#include <QCryptographicHash>
#include <QRandomGenerator>

#include <array>

namespace Tether {

static QString randomBase64Url()
{
    std::array<quint32, 8> words{}; // 32 bytes
    QRandomGenerator::system()->fillRange(words.data(), words.size());
    return base64Url(QByteArray(reinterpret_cast<const char *>(words.data()), qsizetype(sizeof(words))));
}

QString base64Url(const QByteArray &bytes)
{
    return QString::fromLatin1(bytes.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

Pkce Pkce::generate()
{
    return forVerifier(randomBase64Url());
}

Pkce Pkce::forVerifier(const QString &verifier)
{
    return {verifier, base64Url(QCryptographicHash::hash(verifier.toLatin1(), QCryptographicHash::Sha256))};
}

QString newAuthorizationState()
{
    return randomBase64Url();
}

} // namespace Tether
