#pragma once

#include <QHostAddress>
#include <QList>

#include <chrono>

namespace Tether {

struct HttpServerOptions;

// Who may hold an HttpServer's connections, as pure functions of the connections open. A
// connection is admitted once the admission function let one of its requests through (the
// gateway's wants the token); until then anyone who reaches the port can hold it, so:
// - unadmitted connections never take the last reservedConnections slots;
// - a peer (an IPv4 address, an IPv6 /64) past maxUnadmittedPerPeer gives up its own oldest
//   unadmitted connection that has had unadmittedGrace to send a head;
// - a newcomer to a full server takes the place of the oldest unadmitted connection, so that a
//   well-behaved client, whose head comes at once, gets in however many slots are held;
// - while unadmitted connections fill half their room, heads get the shorter timeout.
// Only a server whose every slot is admitted refuses a newcomer.
namespace HttpConnectionQuota {

using Clock = std::chrono::steady_clock;

struct OpenConnection
{
    quint64 id = 0;
    QHostAddress peer;
    Clock::time_point openedAt;
    bool admitted = false;
};

struct Arrival
{
    enum class Verdict {
        Accept,
        AcceptEvicting, // close `evicted` first (it was unadmitted)
        Refuse,         // every slot is held by admitted connections
    };
    Verdict verdict = Verdict::Accept;
    quint64 evicted = 0;

    friend bool operator==(const Arrival &, const Arrival &) = default;
};

// The options' bounds, made consistent: at most a quarter of the slots reserved, at least one
// unadmitted connection per peer.
int reservedConnections(const HttpServerOptions &options);
int unadmittedRoom(const HttpServerOptions &options);

// Whether two peers count as one: the same IPv4 address (also IPv4-mapped), or the same IPv6 /64.
bool samePeer(const QHostAddress &a, const QHostAddress &b);

Arrival judgeArrival(const QList<OpenConnection> &open, const QHostAddress &peer, Clock::time_point now,
                     const HttpServerOptions &options);

// Unadmitted connections fill half their room or more.
bool underPressure(qsizetype unadmitted, const HttpServerOptions &options);
std::chrono::milliseconds headTimeout(qsizetype unadmitted, const HttpServerOptions &options);

} // namespace HttpConnectionQuota
} // namespace Tether
