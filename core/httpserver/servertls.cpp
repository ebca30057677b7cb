#include "servertls.h"

#include <QFile>
#include <QSslCertificate>
#include <QSslKey>

using namespace Qt::StringLiterals;

namespace Tether {

static std::optional<QByteArray> readPem(const QString &path, const QString &what, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = u"Cannot read the TLS %1 %2: %3."_s.arg(what, path, file.errorString());
        return std::nullopt;
    }
    return file.readAll();
}

std::optional<QSslConfiguration> loadServerTls(const QString &certificatePath, const QString &keyPath, QString *error)
{
    const std::optional<QByteArray> certificatePem = readPem(certificatePath, u"certificate"_s, error);
    if (!certificatePem)
        return std::nullopt;
    const QList<QSslCertificate> chain = QSslCertificate::fromData(*certificatePem, QSsl::Pem);
    if (chain.isEmpty() || chain.first().isNull()) {
        *error = u"The TLS certificate %1 holds no PEM certificate."_s.arg(certificatePath);
        return std::nullopt;
    }
    const std::optional<QByteArray> keyPem = readPem(keyPath, u"key"_s, error);
    if (!keyPem)
        return std::nullopt;
    QSslKey key;
    for (const QSsl::KeyAlgorithm algorithm : {QSsl::Rsa, QSsl::Ec}) {
        key = QSslKey(*keyPem, algorithm, QSsl::Pem, QSsl::PrivateKey);
        if (!key.isNull())
            break;
    }
    if (key.isNull()) {
        *error = u"The TLS key %1 holds no unencrypted RSA or EC private key in PEM."_s.arg(keyPath);
        return std::nullopt;
    }
    QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
    configuration.setLocalCertificateChain(chain);
    configuration.setPrivateKey(key);
    configuration.setProtocol(QSsl::TlsV1_2OrLater);
    configuration.setPeerVerifyMode(QSslSocket::VerifyNone);
    return configuration;
}

} // namespace Tether
