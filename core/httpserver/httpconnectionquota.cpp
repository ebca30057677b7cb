#include "httpconnectionquota.h"

#include "httpservice.h"

#include <algorithm>

namespace Tether::HttpConnectionQuota {

int reservedConnections(const HttpServerOptions &options)
{
    return std::clamp(options.reservedConnections, 0, options.maxConnections / 4);
}

int unadmittedRoom(const HttpServerOptions &options)
{
    return std::max(1, options.maxConnections - reservedConnections(options));
}

bool samePeer(const QHostAddress &a, const QHostAddress &b)
{
    bool aIsV4 = false;
    bool bIsV4 = false;
    const quint32 a4 = a.toIPv4Address(&aIsV4);
    const quint32 b4 = b.toIPv4Address(&bIsV4);
    if (aIsV4 || bIsV4)
        return aIsV4 && bIsV4 && a4 == b4;
    return a.isInSubnet(b, 64);
}

namespace {

// The oldest unadmitted connection that passes the filter, or nullptr.
template<typename Filter>
const OpenConnection *oldestUnadmitted(const QList<OpenConnection> &open, Filter filter)
{
    const OpenConnection *oldest = nullptr;
    for (const OpenConnection &connection : open) {
        if (!connection.admitted && filter(connection) && (!oldest || connection.openedAt < oldest->openedAt))
            oldest = &connection;
    }
    return oldest;
}

Arrival evicting(const OpenConnection &victim)
{
    return {Arrival::Verdict::AcceptEvicting, victim.id};
}

} // namespace

Arrival judgeArrival(const QList<OpenConnection> &open, const QHostAddress &peer, Clock::time_point now,
                     const HttpServerOptions &options)
{
    const qsizetype unadmitted = std::count_if(open.cbegin(), open.cend(), [](const OpenConnection &c) { return !c.admitted; });
    const qsizetype ofPeer = std::count_if(open.cbegin(), open.cend(), [&](const OpenConnection &c) {
        return !c.admitted && samePeer(c.peer, peer);
    });
    // A peer past its share gives up its own slowest, unless each had only just come (a burst
    // of hosts behind one address): then the server-wide bounds judge.
    if (ofPeer >= std::max(1, options.maxUnadmittedPerPeer)) {
        const OpenConnection *victim = oldestUnadmitted(open, [&](const OpenConnection &c) {
            return samePeer(c.peer, peer) && now - c.openedAt >= options.unadmittedGrace;
        });
        if (victim)
            return evicting(*victim);
    }
    if (open.size() < options.maxConnections && unadmitted < unadmittedRoom(options))
        return {};
    if (const OpenConnection *victim = oldestUnadmitted(open, [](const OpenConnection &) { return true; }))
        return evicting(*victim);
    return {Arrival::Verdict::Refuse};
}

bool underPressure(qsizetype unadmitted, const HttpServerOptions &options)
{
    return unadmitted * 2 >= unadmittedRoom(options);
}

std::chrono::milliseconds headTimeout(qsizetype unadmitted, const HttpServerOptions &options)
{
    return underPressure(unadmitted, options) ? std::min(options.headTimeout, options.headTimeoutUnderPressure)
                                              : options.headTimeout;
}

} // namespace Tether::HttpConnectionQuota
