#include "httpendpoint.h"

#include "common/displaytext.h"
#include "common/logging.h"
#include "config/httpheader.h"
#include "protocol/jsonrpc.h"
#include "transport.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QUrlQuery>

#include <algorithm>
#include <memory>

using namespace Qt::StringLiterals;

namespace Tether {

static const char RefusedRedirectProperty[] = "tetherRefusedRedirect";

QString HttpServerEndpoint::shown() const
{
    return shownUrl.isEmpty() ? url.toDisplayString(QUrl::RemoveUserInfo | QUrl::RemoveQuery) : shownUrl;
}

QStringList secretsOfHeaderValue(const QString &value)
{
    QStringList values{value};
    if (const qsizetype space = value.indexOf(u' '); space > 0)
        values.append(value.sliced(space + 1).trimmed());
    return values;
}

bool HttpServerEndpoint::signsIn() const
{
    return credentials && !holdsAuthorization(headers);
}

QByteArray HttpServerEndpoint::authorization() const
{
    return signsIn() ? credentials->authorization() : QByteArray();
}

SecretScrubber HttpServerEndpoint::secrets() const
{
    QStringList values;
    for (const auto &[name, value] : headers)
        values.append(secretsOfHeaderValue(value));
    if (const QByteArray signedIn = authorization(); !signedIn.isEmpty())
        values.append(secretsOfHeaderValue(QString::fromLatin1(signedIn)));
    values.append(url.password());
    for (const auto &[key, value] : QUrlQuery(url).queryItems(QUrl::FullyDecoded))
        values.append(value);
    return SecretScrubber(values);
}

bool isSameOrigin(const QUrl &a, const QUrl &b)
{
    const auto defaultPort = [](const QUrl &url) { return url.scheme() == u"https" ? 443 : 80; };
    return a.scheme().compare(b.scheme(), Qt::CaseInsensitive) == 0
           && a.host().compare(b.host(), Qt::CaseInsensitive) == 0
           && a.port(defaultPort(a)) == b.port(defaultPort(b));
}

void followOnlySafeRedirects(QNetworkReply *reply, const HttpServerEndpoint &endpoint)
{
    // By the time of redirected(), Qt has already made a POST answered 302 a GET, and the
    // reply's url is the target.
    const bool get = reply->operation() == QNetworkAccessManager::GetOperation;
    const QUrl origin = reply->url();
    // A loop is refused as soon as it closes: Qt 6.4 would follow it until it loses track of
    // the reply and reports two errors for it.
    auto visited = std::make_shared<QList<QUrl>>(QList<QUrl>{origin});
    QObject::connect(reply, &QNetworkReply::redirected, reply, [reply, endpoint, get, origin, visited](const QUrl &target) {
        const int status = httpStatusOf(*reply);
        const bool keepsMethod = get || status == 307 || status == 308;
        const bool loops = visited->contains(target);
        if (isSameOrigin(target, origin) && keepsMethod && !loops) {
            visited->append(target);
            emit reply->redirectAllowed();
            return;
        }
        const QString where = target.toDisplayString(QUrl::RemoveUserInfo | QUrl::RemoveQuery);
        QString why;
        if (!keepsMethod) {
            why = u"which would turn the POST into a GET; is the url the server's MCP endpoint? If the server moved, "
                  "put the new url in the config"_s;
        } else if (!isSameOrigin(target, origin)) {
            why = u"which is another origin; Tether follows redirects only to the same scheme, host and port, so that "
                  "the configured headers go nowhere else. If the server moved, put the new url in the config"_s;
        } else {
            why = u"which leads back to an address already passed: a redirect loop (%1 redirects). Check the url in "
                  "the config (a trailing slash?) and the redirects of the server or its proxy"_s.arg(visited->size());
        }
        reply->setProperty(RefusedRedirectProperty, u"%1 answered with HTTP %2, a redirect to %3, %4"_s.arg(
                                                        endpoint.shown()).arg(status).arg(where, why));
        reply->abort();
    });
}

void discardReply(QNetworkReply *reply, const QObject *receiver)
{
    reply->disconnect(receiver);
    // Nor is a redirect followed or refused meanwhile.
    QObject::disconnect(reply, &QNetworkReply::redirected, nullptr, nullptr);
    reply->deleteLater();
}

QString refusedRedirect(const QNetworkReply &reply)
{
    return reply.property(RefusedRedirectProperty).toString();
}

QNetworkRequest HttpServerEndpoint::request(const QUrl &target, const QByteArray &accept) const
{
    QNetworkRequest request(target);
    for (const auto &[name, value] : headers) {
        // The config refuses such a header; should one come by another way, it must not split the request.
        if (!isHeaderName(name) || !isHeaderValue(value)) {
            spdlog::error("{}: the header '{}' is not sent: its name or value holds a character no header may hold",
                          shown(), withVisibleControls(name));
            continue;
        }
        request.setRawHeader(name.toUtf8(), value.toUtf8());
    }
    if (const QByteArray signedIn = authorization(); !signedIn.isEmpty()) {
        if (isHeaderValue(QString::fromLatin1(signedIn)))
            request.setRawHeader("Authorization", signedIn);
        else
            spdlog::error("{}: the sign-in's Authorization is not sent: it holds a character no header may hold", shown());
    }
    // After the configured headers: the protocol's own must not be overridden.
    request.setRawHeader("Accept", accept);
    request.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
    request.setAttribute(QNetworkRequest::CacheSaveControlAttribute, false);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::UserVerifiedRedirectPolicy);
    return request;
}

bool meansUnreachable(QNetworkReply::NetworkError error)
{
    switch (error) {
    case QNetworkReply::ConnectionRefusedError:
    case QNetworkReply::HostNotFoundError:
    case QNetworkReply::SslHandshakeFailedError:
    case QNetworkReply::ProxyConnectionRefusedError:
    case QNetworkReply::ProxyNotFoundError:
    case QNetworkReply::ProxyAuthenticationRequiredError:
        return true;
    default:
        return false;
    }
}

int httpStatusOf(const QNetworkReply &reply)
{
    return reply.attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
}

bool isEventStream(const QNetworkReply &reply)
{
    return reply.header(QNetworkRequest::ContentTypeHeader).toString().startsWith(u"text/event-stream"_s, Qt::CaseInsensitive);
}

namespace HttpErrors {

static QString describeNetworkFailure(const HttpServerEndpoint &endpoint, QNetworkReply::NetworkError error,
                                      const QString &detail)
{
    const QString url = endpoint.shown();
    switch (error) {
    case QNetworkReply::ConnectionRefusedError:
        return u"could not connect to %1: connection refused; is the server running and listening there?"_s.arg(url);
    case QNetworkReply::HostNotFoundError:
        return u"could not connect to %1: the host name '%2' could not be resolved (DNS); check the url"_s.arg(
            url, endpoint.url.host());
    case QNetworkReply::TimeoutError:
    case QNetworkReply::OperationCanceledError:
        return u"%1 did not answer in time"_s.arg(url);
    case QNetworkReply::RemoteHostClosedError:
        return u"%1 closed the connection unexpectedly"_s.arg(url);
    default:
        break;
    }
    if (error == QNetworkReply::SslHandshakeFailedError || detail.contains(u"SSL"_s) || detail.contains(u"TLS"_s)
        || detail.contains(u"certificate"_s, Qt::CaseInsensitive)) {
        return u"TLS error talking to %1: %2; check the server's certificate, or whether the url should start "
               "with http:// instead of https://"_s.arg(url, detail);
    }
    return u"could not talk to %1: %2"_s.arg(url, detail);
}

// What the body of an error says: a JSON-RPC error's message, else its first bytes.
static QString bodySays(QByteArrayView body)
{
    const QJsonObject object = QJsonDocument::fromJson(body.toByteArray()).object();
    const QString message = object.value(u"error").toObject().value(u"message").toString();
    if (!message.isEmpty())
        return u": \"%1\""_s.arg(message);
    const QByteArray trimmed = body.trimmed().toByteArray();
    return trimmed.isEmpty() ? QString() : u"; the body starts with "_s + excerpt(trimmed);
}

QString networkFailure(const HttpServerEndpoint &endpoint, QNetworkReply::NetworkError error, const QString &detail)
{
    // Qt's detail quotes the server's reason phrase.
    return endpoint.secrets().scrub(describeNetworkFailure(endpoint, error, detail));
}

QString answeredWith(const HttpServerEndpoint &endpoint, const QString &what, const QNetworkReply &reply)
{
    const QString reason = reply.attribute(QNetworkRequest::HttpReasonPhraseAttribute).toString();
    return u"%1 answered %2 with HTTP %3%4"_s.arg(endpoint.shown(), what).arg(httpStatusOf(reply)).arg(
        reason.isEmpty() ? QString() : u" "_s + reason);
}

static QString describeHttpStatus(const HttpServerEndpoint &endpoint, const QString &what, const QNetworkReply &reply,
                                  QByteArrayView body)
{
    const int status = httpStatusOf(reply);
    const QString answered = answeredWith(endpoint, what, reply);
    if (status == 401) {
        const QByteArray challenge = reply.rawHeader("WWW-Authenticate").trimmed();
        const QString scheme = QString::fromLatin1(challenge.left(challenge.indexOf(' ') < 0 ? challenge.size()
                                                                                           : challenge.indexOf(' ')));
        return answered
               + u": the server needs credentials. Set them in this server's \"headers\" in the config, for example "
                 "\"Authorization\": \"Bearer ${env:TOKEN}\"%1, or with tetherctl's --header 'Authorization: Bearer "
                 "…'; or let Tether sign in (OAuth): remove the Authorization header and \"oauth\": false from this "
                 "server's config"_s.arg(scheme.isEmpty() ? QString() : u" (the server asks for " + scheme + u')');
    }
    if (status == 403 && endpoint.signsIn()) {
        const BearerChallenge challenge = bearerChallengeOf(reply);
        if (challenge.error == u"insufficient_scope") {
            const QString scope = withVisibleControls(challenge.scope.simplified());
            const QString said = withVisibleControls(challenge.errorDescription.simplified());
            return answered
                   + u": the sign-in lacks the access this needs%1%2; sign in again (Sign in in Tether's window, or "
                     "tetherctl login with this server's name) and Tether asks for it"_s.arg(
                         scope.isEmpty() ? QString() : u" (scope %1)"_s.arg(scope),
                         said.isEmpty() ? QString() : u": \"%1\""_s.arg(said));
        }
    }
    if (status == 403) {
        return answered
               + u": the server refused the credentials or they lack permission; check the \"Authorization\" (or other) "
                 "header in this server's \"headers\" in the config, or tetherctl's --header"_s
               + bodySays(body);
    }
    if (status >= 500)
        return answered + u" (a failure on the server's side; its own logs say more)"_s + bodySays(body);
    return answered + bodySays(body);
}

QString httpStatus(const HttpServerEndpoint &endpoint, const QString &what, const QNetworkReply &reply,
                   QByteArrayView body)
{
    // A server may quote the request, headers and all, in its error body.
    return endpoint.secrets().scrub(describeHttpStatus(endpoint, what, reply, body));
}

QString notJson(const HttpServerEndpoint &endpoint, const QString &what, const QNetworkReply &reply,
                QByteArrayView body)
{
    const QString type = reply.header(QNetworkRequest::ContentTypeHeader).toString();
    return endpoint.secrets().scrub(u"%1 answered %2 with a body that is not JSON%3: %4; is the url the server's MCP "
                                    "endpoint?"_s.arg(endpoint.shown(), what,
                                                      type.isEmpty() ? QString() : u" (Content-Type "_s + type + u')',
                                                      excerpt(body.trimmed())));
}

QString tooLarge(const HttpServerEndpoint &endpoint, const QString &what, qsizetype limit)
{
    return u"%1 answered %2 with more than %3 in one message; Tether refuses messages that large"_s.arg(
        endpoint.shown(), what, byteLimitText(limit));
}

QString scopeRefusedAgain(const HttpServerEndpoint &endpoint, const QString &answered, const QString &reason)
{
    return endpoint.secrets().scrub(answered + u": "_s + reason
                                    + u"; signing in again cannot help: the server's own logs, or whoever runs it, "
                                      "can say why it refuses them"_s);
}

void reportRefusedScope(const HttpServerEndpoint &endpoint, const QNetworkReply &reply)
{
    if (httpStatusOf(reply) != 403 || !endpoint.signsIn())
        return;
    if (const BearerChallenge challenge = bearerChallengeOf(reply); challenge.error == u"insufficient_scope")
        endpoint.credentials->refusedForScope(challenge);
}

QString signInNeeded(const HttpServerEndpoint &endpoint, const BearerChallenge &challenge)
{
    const QString scope = withVisibleControls(challenge.scope.simplified());
    return u"%1 asks for sign-in%2"_s.arg(endpoint.shown(), scope.isEmpty() ? QString() : u" (scope %1)"_s.arg(scope));
}

} // namespace HttpErrors

void renewAfterUnauthorized(const HttpServerEndpoint &endpoint, const QNetworkReply &reply, const QByteArray &rejected,
                            bool renewed, SignInRetry retry)
{
    const BearerChallenge challenge = bearerChallengeOf(reply);
    if (renewed) {
        retry.needsSignIn(challenge, u"the server refused the renewed token too"_s);
        return;
    }
    const QPointer<const QObject> guard(retry.context);
    endpoint.credentials->renew(challenge, rejected,
                                [guard, retry = std::move(retry), challenge](
                                    ServerCredentials::Renewal renewal, const QString &reason) {
                                    if (!guard)
                                        return;
                                    switch (renewal) {
                                    case ServerCredentials::Renewal::Renewed: retry.sendAgain(); return;
                                    case ServerCredentials::Renewal::NeedsSignIn: retry.needsSignIn(challenge, reason); return;
                                    case ServerCredentials::Renewal::Failed: retry.fail(reason); return;
                                    }
                                });
}

void stepUpAfterInsufficientScope(const HttpServerEndpoint &endpoint, const QNetworkReply &reply, const QString &what,
                                  QByteArrayView body, const QByteArray &rejected, SignInRetry retry)
{
    const QString refusal = HttpErrors::httpStatus(endpoint, what, reply, body);
    const QString answered = HttpErrors::answeredWith(endpoint, what, reply);
    const QPointer<const QObject> guard(retry.context);
    endpoint.credentials->stepUp(
        bearerChallengeOf(reply), rejected,
        [guard, retry = std::move(retry), refusal, answered, endpoint](ServerCredentials::Renewal renewal,
                                                                       const QString &reason) {
            if (!guard)
                return;
            if (renewal == ServerCredentials::Renewal::Renewed)
                retry.sendAgain();
            else
                retry.fail(renewal == ServerCredentials::Renewal::Failed
                               ? HttpErrors::scopeRefusedAgain(endpoint, answered, reason)
                               : refusal);
        });
}

} // namespace Tether
