#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QString>
#include <QUrl>

#include <functional>

class QNetworkAccessManager;
class QObject;

namespace Tether {

// One POST to an authorization server (token, registration, revocation endpoint) and what came
// back: an HTTP answer, or why there was none.
struct AuthServerAnswer
{
    int httpStatus = 0; // 0: no HTTP answer, see networkError
    QByteArray body;
    QString networkError; // for people, naming the endpoint
    QDateTime receivedAt;
};

struct AuthServerPost
{
    QUrl url;
    QByteArray contentType;
    QByteArray body;
    QByteArray authorization; // the Authorization header's value, if any
};

// Sends `post` without following redirects (a token request must not be re-sent elsewhere)
// and calls `done` once, unless `context` is destroyed first. Answers larger than 1 MiB and
// exchanges silent for 30 s are given up.
void postToAuthorizationServer(QNetworkAccessManager *network, const AuthServerPost &post, QObject *context,
                               std::function<void(const AuthServerAnswer &)> done);

} // namespace Tether
