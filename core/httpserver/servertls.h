#pragma once

#include <QSslConfiguration>
#include <QString>

#include <optional>

namespace Tether {

// The TLS configuration of a server from PEM files: the certificate (its chain may follow it in
// the same file) and its unencrypted private key (RSA or EC). TLS 1.2 or later, no client
// certificates. Nothing, with `error` saying which file is wrong and why, when either cannot be
// used.
std::optional<QSslConfiguration> loadServerTls(const QString &certificatePath, const QString &keyPath, QString *error);

} // namespace Tether
