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
    int maxConnections = 256;                              // more are answered 503 and closed
    std::chrono::milliseconds headTimeout{10'000};         // from a request's first byte to its whole head; also the
                                                           // longest pause inside a body (slowloris)
    std::chrono::milliseconds idleTimeout{60'000};         // a kept-alive connection with no request in flight
    std::chrono::milliseconds eventStreamKeepAlive{15'000}; // a silent event stream gets a comment this often
    qint64 maxUnsentBytes = 8 * 1024 * 1024;               // a stream its peer reads slower than this is aborted
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
};

} // namespace Tether
