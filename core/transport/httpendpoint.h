#pragma once

#include "credentials.h"
#include "sseparser.h"

#include "common/displaytext.h"

#include <QByteArray>
#include <QList>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QString>
#include <QUrl>

#include <chrono>
#include <functional>
#include <memory>

namespace Tether {

// Where a remote MCP server is and what to send it besides the protocol.
struct HttpServerEndpoint
{
    QUrl url;
    QList<std::pair<QString, QString>> headers; // from the config, e.g. Authorization; never shown
    // The url as messages may show it, e.g. as written in the config before ${env:…} put a
    // token into it; empty: the url without user info and query.
    QString shownUrl;
    // The server's sign-in, when it has one; unused when `headers` hold an Authorization.
    // Initialized here, so that a brace initialization may leave it out.
    std::shared_ptr<ServerCredentials> credentials = nullptr;

    QString shown() const;
    // Whether requests carry the sign-in's Authorization and a 401 asks it for a renewal.
    bool signsIn() const;
    // The sign-in's Authorization now; empty unless signsIn() and it has a token.
    QByteArray authorization() const;
    // Of the header values and the sign-in's Authorization (and of "Bearer token" the token
    // alone), the url's password and its query values: what the server's text is scrubbed of.
    SecretScrubber secrets() const;
    // A request to `target` with the configured headers, the sign-in's Authorization and
    // `accept`. Redirects are the caller's to vet with followOnlySafeRedirects().
    QNetworkRequest request(const QUrl &target, const QByteArray &accept) const;
};

// What a scrubber takes out for a header value: the value, and of "Bearer token" the token
// alone (a server that quotes the token it was sent quotes it without its scheme).
QStringList secretsOfHeaderValue(const QString &value);

// Qt would follow a redirect anywhere, sending the configured headers (Authorization) along,
// and turns a POST answered 301/302/303 into a GET. `reply` follows only a redirect to the
// same scheme, host and port that keeps its method (any for GET, 307/308 for others) and that
// does not lead back to where it came from (a loop); any other is aborted and
// refusedRedirect() says why.
void followOnlySafeRedirects(QNetworkReply *reply, const HttpServerEndpoint &endpoint);
QString refusedRedirect(const QNetworkReply &reply); // empty when none was refused
bool isSameOrigin(const QUrl &a, const QUrl &b);

// Lets go of a reply that `receiver` no longer wants, and stops its transfer. Not with abort():
// Qt 6.4 reports an error its network thread had already queued for the reply (an HTTP error
// status, say) after the one abort() sets, and warns "QNetworkReplyImplPrivate::error: Internal
// problem, this method must only be called once". Deleting the reply stops the transfer just
// the same and drops what was queued for it.
void discardReply(QNetworkReply *reply, const QObject *receiver);

struct HttpTransportOptions
{
    // Longest silence on one POST before it is given up (the session times requests out on its
    // own); for HTTP+SSE also the wait for the endpoint event.
    std::chrono::milliseconds requestTimeout{60000};
    qsizetype maxMessageBytes = SseParser::DefaultMaxEventBytes; // one JSON body or one event
    std::chrono::milliseconds resumeDelay{1000}; // before resuming a cut stream, unless the server said retry:
    // A server's retry: is kept within these; reopenings in a row that bring no event double
    // the delay up to the longest.
    std::chrono::milliseconds shortestResumeDelay{100};
    std::chrono::milliseconds longestResumeDelay{60000};
    int maxNetworkFailures = 3; // POSTs in a row without any HTTP answer before the connection counts as lost
    int maxResumeAttempts = 3;                   // resumptions in a row that fail to connect
    std::chrono::milliseconds closeTimeout{2000}; // the DELETE of the session on close
};

// Texts for people about a failed HTTP exchange with `endpoint`, scrubbed of its secrets.
namespace HttpErrors {

// A failure below HTTP: refused, DNS, TLS, cut connection, timeout.
QString networkFailure(const HttpServerEndpoint &endpoint, QNetworkReply::NetworkError error, const QString &detail);
// An HTTP error status; `what` names the exchange ("'tools/call'", "the event stream").
QString httpStatus(const HttpServerEndpoint &endpoint, const QString &what, const QNetworkReply &reply,
                   QByteArrayView body);
// A 2xx body that is neither JSON nor an event stream.
QString notJson(const HttpServerEndpoint &endpoint, const QString &what, const QNetworkReply &reply,
                QByteArrayView body);
QString tooLarge(const HttpServerEndpoint &endpoint, const QString &what, qsizetype limit);
// How every text about an HTTP status begins: "https://host/mcp answered 'tools/list' with HTTP 403 Forbidden".
QString answeredWith(const HttpServerEndpoint &endpoint, const QString &what, const QNetworkReply &reply);
// A 403 insufficient_scope (`answered`) for scopes the sign-in asked for already, as the step-up's
// `reason` says.
QString scopeRefusedAgain(const HttpServerEndpoint &endpoint, const QString &answered, const QString &reason);
// A 403 insufficient_scope to a request of a server that signs in: its sign-in is told the scope
// asked for, which the next sign-in asks for.
void reportRefusedScope(const HttpServerEndpoint &endpoint, const QNetworkReply &reply);

// A 401 that no silent renewal could answer: "https://host/mcp asks for sign-in (scope mcp:read)".
QString signInNeeded(const HttpServerEndpoint &endpoint, const BearerChallenge &challenge);

} // namespace HttpErrors

// What a transport does with a request its server refused, before processing it, for the sign-in
// it carried: send it again as it was, once the sign-in has a token the server may take; close for
// a sign-in only the user can give; or fail it. Nothing is called once `context` is gone.
struct SignInRetry
{
    const QObject *context = nullptr;
    std::function<void()> sendAgain;
    std::function<void(const BearerChallenge &challenge, const QString &reason)> needsSignIn;
    std::function<void(const QString &error)> fail;
};

// A 401 to a request that carried `rejected` (its Authorization): the sign-in renews its token,
// then the request is sent again, once. A request that carried a renewed token already
// (`renewed`) needs a sign-in at once.
void renewAfterUnauthorized(const HttpServerEndpoint &endpoint, const QNetworkReply &reply, const QByteArray &rejected,
                            bool renewed, SignInRetry retry);
// A 403 insufficient_scope to `what` (with `body`, the start of its body): the sign-in steps up to
// the scope asked for, then the request is sent again, once. Without that scope, `fail` has the
// refusal as the server gave it, or, when the scope was asked for already, that it was refused
// again; `needsSignIn` is not called.
void stepUpAfterInsufficientScope(const HttpServerEndpoint &endpoint, const QNetworkReply &reply, const QString &what,
                                  QByteArrayView body, const QByteArray &rejected, SignInRetry retry);

// Refused, unresolved, TLS or proxy failures: the server is out of reach, not just one
// exchange unlucky (a connection cut, a timeout).
bool meansUnreachable(QNetworkReply::NetworkError error);
int httpStatusOf(const QNetworkReply &reply); // 0 when no HTTP response arrived
bool isEventStream(const QNetworkReply &reply);

} // namespace Tether
