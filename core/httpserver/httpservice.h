#pragma once

#include "httpreply.h"
#include "httprequestparser.h"

#include <QString>

#include <chrono>
#include <functional>
#include <optional>

namespace Tether {

class HttpResponse;
struct HttpRequest;

// The bounds and timeouts of an HttpServer. The defaults are the gateway's (design note §1.1).
struct HttpServerOptions
{
    HttpLimits limits;
    // Who holds the connections (httpconnectionquota.h): a connection is admitted once a request
    // of it was; newcomers take the place of the oldest unadmitted ones, and are refused (503)
    // only when every slot is admitted.
    int maxConnections = 256;
    int reservedConnections = 64;                          // slots only admitted connections hold (≤ a quarter)
    int maxUnadmittedPerPeer = 32;                         // past it a peer gives up its own oldest unadmitted one…
    std::chrono::milliseconds unadmittedGrace{1'000};      // …that has been open this long
    std::chrono::milliseconds refusalDelay{1'000};         // a refused or evicted connection is answered after this
                                                           // (so that a peer reconnecting at once cannot spin the server)…
    int maxDelayedRefusals = 1024;                         // …while no more than this many wait (then at once)
    std::chrono::milliseconds headTimeout{10'000};         // from a request's first byte to its whole head; also the
                                                           // longest pause inside a body (slowloris)
    std::chrono::milliseconds headTimeoutUnderPressure{2'000}; // while unadmitted connections fill half their room
    std::chrono::milliseconds idleTimeout{60'000};         // a kept-alive connection with no request in flight; also a
                                                           // connection whose answers its peer stopped taking
    std::chrono::milliseconds eventStreamKeepAlive{15'000}; // a silent event stream gets a comment this often
    qint64 maxUnsentBytes = 8 * 1024 * 1024;               // a stream its peer reads slower than this is aborted
    qint64 readPauseUnsentBytes = 256 * 1024;              // no next request is read while more than this is unsent
    std::chrono::milliseconds tlsHandshakeTimeout{5'000};
};

// Judges a request from its head alone, before its body is read: the reply to refuse it with,
// or nothing to admit it. Refusing keeps the connection only when no body was announced.
using HttpAdmission = std::function<std::optional<HttpReply>(const HttpRequest &head)>;
// Answers a whole request, now or later, through the response (see HttpResponse).
using HttpHandler = std::function<void(const HttpRequest &request, HttpResponse &response)>;
// The reply to a request the server refuses itself: malformed or over a bound (400, 411, 413,
// 414, 417, 431, 501, 505, …), too slow (408) or one connection too many (503). The reason
// says what was wrong; a 405 gets its Allow field from the server.
using HttpErrorReply = std::function<HttpReply(int status, const QString &reason)>;

// What an HttpServer does with its connections; each HttpConnection reads it from there.
struct HttpService
{
    HttpServerOptions options;
    HttpAdmission admission;
    HttpHandler handler;
    HttpErrorReply errorReply;
    // The head timeout now: options.headTimeout, or the shorter one under pressure (set by HttpServer).
    std::chrono::milliseconds headTimeout = options.headTimeout;
};

} // namespace Tether
