#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QUrl>

class QNetworkReply;

namespace Tether {

// A server's `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3, RFC 9728 §5.1): what it
// wants for signing in.
struct BearerChallenge
{
    int status = 0;          // the HTTP status that carried it (401, 403); 0 when not from a reply
    QString error;           // e.g. invalid_token, insufficient_scope
    QString errorDescription;
    QString scope;           // space-separated, as the server wrote it
    QUrl resourceMetadata;   // its Protected Resource Metadata; empty unless an absolute http(s) url

    bool operator==(const BearerChallenge &) const = default;
};

// The Bearer challenges among all those of the WWW-Authenticate header values, in order
// (RFC 9110 §11.2, §11.6.1: several challenges per value and several values, auth-params with
// token or quoted-string values, token68, schemes and parameter names case-insensitive; a
// parameter given twice counts once, as first given). A value that breaks the grammar keeps
// what came before the break.
QList<BearerChallenge> parseBearerChallenges(const QList<QByteArray> &headerValues);

// The first Bearer challenge of a reply's WWW-Authenticate headers, with the reply's status
// (only the status when there is none).
BearerChallenge bearerChallengeOf(const QNetworkReply &reply);

} // namespace Tether
