#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <optional>

namespace Tether {

// The bearer token that every request to the HTTP endpoint carries: 32 random bytes in
// base64url, kept in a file only its owner may read.

// Where the token of the config at `configPath` lives: next to it, as "gateway-token".
QString gatewayTokenPath(const QString &configPath);

// The token in the file at `path`, made on first use (the folder 0700 when missing, the file 0600,
// whole before it appears). Nothing, with `error` saying what to do, when the file is not the
// user's own, can be read by others, is a link, or holds no token.
std::optional<QByteArray> loadOrCreateGatewayToken(const QString &path, QString *error);

// A new token in place of the one in the file at `path`: written 0600 beside it and renamed over
// it, so that no reader sees half a token. Nothing, with `error`, when it cannot be written; the
// old token then stays.
std::optional<QByteArray> rotateGatewayToken(const QString &path, QString *error);

// The token in the file at `path`, which must exist: nothing, with `error`, as above.
std::optional<QByteArray> readGatewayToken(const QString &path, QString *error);

// Whether an Authorization field value is "Bearer <token>", compared in a time that does not
// depend on where the two differ.
bool bearerTokenMatches(QByteArrayView authorization, QByteArrayView token);

} // namespace Tether
