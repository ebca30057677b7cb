#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include <chrono>
#include <optional>

namespace Tether {

// When the Streamable HTTP sessions of hosts that left without a DELETE end: a session is idle
// while no request of it awaits an answer and no GET stream of it is open, and nothing then tells
// whether its host is still there. Decided on values and a given `now`, so that it is tested
// without waiting.

struct HttpSessionActivity
{
    QByteArray sessionId;
    bool idle = false;
    std::chrono::steady_clock::time_point idleSince; // its last request, answer or stream end
};

struct HttpSessionEnding
{
    QByteArray sessionId;
    std::chrono::milliseconds idleFor{0};
};

// The sessions idle for `expiry` or longer at `now`, the longest idle first.
QList<HttpSessionEnding> expiredHttpSessions(const QList<HttpSessionActivity> &sessions,
                                             std::chrono::steady_clock::time_point now,
                                             std::chrono::milliseconds expiry);

// The session that gives way to a new one when the cap is reached: the longest idle; nothing
// when none is idle.
std::optional<HttpSessionEnding> httpSessionToGiveWay(const QList<HttpSessionActivity> &sessions,
                                                      std::chrono::steady_clock::time_point now);

// How the log names a session: "http session 1a2b3c4d…", the first 8 characters of its id (enough
// to tell sessions apart in a log, too few to use it).
QString httpSessionLabel(const QByteArray &sessionId);

} // namespace Tether
