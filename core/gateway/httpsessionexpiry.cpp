#include "httpsessionexpiry.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

std::chrono::milliseconds idleFor(const HttpSessionActivity &session, std::chrono::steady_clock::time_point now)
{
    return std::max(std::chrono::milliseconds(0),
                    std::chrono::duration_cast<std::chrono::milliseconds>(now - session.idleSince));
}

} // namespace

QList<HttpSessionEnding> expiredHttpSessions(const QList<HttpSessionActivity> &sessions,
                                             std::chrono::steady_clock::time_point now,
                                             std::chrono::milliseconds expiry)
{
    QList<HttpSessionEnding> expired;
    for (const HttpSessionActivity &session : sessions) {
        if (session.idle && idleFor(session, now) >= expiry)
            expired.append({session.sessionId, idleFor(session, now)});
    }
    std::stable_sort(expired.begin(), expired.end(),
                     [](const HttpSessionEnding &a, const HttpSessionEnding &b) { return a.idleFor > b.idleFor; });
    return expired;
}

std::optional<HttpSessionEnding> httpSessionToGiveWay(const QList<HttpSessionActivity> &sessions,
                                                      std::chrono::steady_clock::time_point now)
{
    std::optional<HttpSessionEnding> longest;
    for (const HttpSessionActivity &session : sessions) {
        if (session.idle && (!longest || idleFor(session, now) > longest->idleFor))
            longest = HttpSessionEnding{session.sessionId, idleFor(session, now)};
    }
    return longest;
}

QString httpSessionLabel(const QByteArray &sessionId)
{
    return u"http session %1…"_s.arg(QString::fromLatin1(sessionId.first(std::min<qsizetype>(8, sessionId.size()))));
}

} // namespace Tether
