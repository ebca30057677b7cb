#include "httpssetransport.h"

#include "common/displaytext.h"
#include "common/duration.h"
#include "common/logging.h"
#include "protocol/jsonrpc.h"

#include <QPointer>

#include <utility>

using namespace Qt::StringLiterals;

namespace Tether {

// Of a failed stream request only the start of the body is worth quoting.
static constexpr qsizetype MaxErrorBodyBytes = 4096;

// Keeps the start of what `reply` has for `body` and drops the rest, so that a body that
// never ends cannot grow memory.
static void keepStartOfBody(QNetworkReply &reply, QByteArray &body)
{
    body.append(reply.read(std::max<qsizetype>(0, MaxErrorBodyBytes - body.size())));
    reply.skip(reply.bytesAvailable());
}

HttpSseTransport::HttpSseTransport(HttpServerEndpoint endpoint, HttpTransportOptions options, QObject *parent)
    : Transport(endpoint.secrets(), parent)
    , m_endpoint(std::move(endpoint))
    , m_options(options)
    , m_events(options.maxMessageBytes)
{
    m_endpointTimer.setSingleShot(true);
    connect(&m_endpointTimer, &QTimer::timeout, this, [this] {
        closeWithError(u"%1 sent no endpoint event within %2: is it an HTTP+SSE (2024-11-05) server? For a "
                       "Streamable HTTP server set \"type\": \"http\""_s.arg(m_endpoint.shown(),
                                                                            formatDuration(m_options.requestTimeout)));
    });
}

HttpSseTransport::~HttpSseTransport()
{
    abortAll();
}

QString HttpSseTransport::description() const
{
    return u"sse: "_s + m_endpoint.shown();
}

void HttpSseTransport::start()
{
    Q_ASSERT(m_stage == Stage::Idle);
    // Idle -> Connecting: usable once the server has named its message endpoint.
    m_stage = Stage::Connecting;
    openStream(false);
    m_endpointTimer.start(m_options.requestTimeout);
}

QNetworkRequest HttpSseTransport::request(const QUrl &target, const QByteArray &accept)
{
    // A token renewed by another connection of this server is new to this one's scrubber.
    if (const QByteArray authorization = m_endpoint.authorization(); !authorization.isEmpty())
        addSecrets(secretsOfHeaderValue(QString::fromLatin1(authorization)));
    return m_endpoint.request(target, accept);
}

void HttpSseTransport::openStream(bool renewed)
{
    const QNetworkRequest request = this->request(m_endpoint.url, "text/event-stream");
    m_streamAuthorization = request.rawHeader("Authorization");
    m_streamRenewed = renewed;
    m_streamBody.clear();
    m_stream = m_network.get(request);
    followOnlySafeRedirects(m_stream, m_endpoint);
    connect(m_stream, &QNetworkReply::readyRead, this, &HttpSseTransport::onStreamData);
    connect(m_stream, &QNetworkReply::finished, this, &HttpSseTransport::onStreamFinished);
}

void HttpSseTransport::onUnauthorized(const QNetworkReply &reply, const QByteArray &authorization, bool renewed,
                                      std::function<void()> sendAgain)
{
    renewAfterUnauthorized(m_endpoint, reply, authorization, renewed,
                           {this,
                            [this, sendAgain = std::move(sendAgain)] {
                                if (m_stage != Stage::Closed)
                                    sendAgain();
                            },
                            [this](const BearerChallenge &challenge, const QString &reason) {
                                if (m_stage == Stage::Closed)
                                    return;
                                spdlog::info("{}: needs a sign-in: {}", description(), secrets().scrub(reason));
                                m_closure.signIn = SignInRequired{challenge, reason};
                                closeWithError(HttpErrors::signInNeeded(m_endpoint, challenge));
                            },
                            [this](const QString &error) { closeWithError(error); }});
}

static QString notAnEventStream(const HttpServerEndpoint &endpoint, const QNetworkReply &stream)
{
    return u"%1 answered the request for its event stream with Content-Type '%2', not text/event-stream"_s.arg(
        endpoint.shown(), stream.header(QNetworkRequest::ContentTypeHeader).toString());
}

void HttpSseTransport::onStreamData()
{
    const int status = httpStatusOf(*m_stream);
    if (status >= 200 && status < 300 && !isEventStream(*m_stream)) {
        // Known wrong at once, and a body that never ends must not be waited for.
        closeWithError(notAnEventStream(m_endpoint, *m_stream));
        return;
    }
    if (status < 200 || status >= 300) {
        keepStartOfBody(*m_stream, m_streamBody);
        return; // judged when the reply has finished
    }
    const QPointer<HttpSseTransport> guard(this);
    const QList<SseEvent> events = m_events.push(m_stream->readAll());
    for (const SseEvent &event : events) {
        if (event.type == "endpoint") {
            onEndpoint(event.data);
        } else if (event.type == "message" && !event.data.isEmpty()) {
            JsonRpc::DecodedPayload decoded = JsonRpc::decodePayload(event.data);
            if (!decoded.error.isEmpty()) {
                const QString damage = u"an event from %1 that is %2"_s.arg(m_endpoint.shown(), decoded.error);
                emit inputSkipped(u"skipped "_s + damage);
                if (!guard)
                    return;
                if (!decoded.damagedReplyId.isUndefined())
                    decoded.messages.append(JsonRpc::makeDamagedReplyError(decoded.damagedReplyId, damage));
            }
            for (const QJsonObject &message : std::as_const(decoded.messages)) {
                if (m_stage != Stage::Open)
                    break; // nothing is spoken before the endpoint is known
                emit messageReceived(message, decoded.text);
                if (!guard)
                    return;
            }
        }
        if (!guard || m_stage == Stage::Closed)
            return;
    }
    if (m_events.overflowed())
        closeWithError(HttpErrors::tooLarge(m_endpoint, u"its event stream"_s, m_options.maxMessageBytes));
}

void HttpSseTransport::onEndpoint(QByteArrayView data)
{
    const QUrl target = m_endpoint.url.resolved(QUrl(QString::fromUtf8(data.trimmed())));
    // Messages may carry secrets: they go only where the stream came from.
    if (!target.isValid() || !isSameOrigin(target, m_endpoint.url)) {
        closeWithError(u"%1 named %2 as its message endpoint, which is not on the same host and port; Tether sends "
                       "messages only to where the event stream came from"_s.arg(m_endpoint.shown(),
                                                                                excerpt(data)));
        return;
    }
    m_messageUrl = target;
    if (m_stage != Stage::Connecting)
        return;
    // Connecting -> Open
    m_stage = Stage::Open;
    m_endpointTimer.stop();
    emit started();
}

void HttpSseTransport::onStreamFinished()
{
    if (m_stream->isOpen())
        onStreamData();
    if (m_stage != Stage::Connecting && m_stage != Stage::Open)
        return;
    const int status = httpStatusOf(*m_stream);
    if (status == 401 && m_endpoint.signsIn()) {
        QNetworkReply *stream = std::exchange(m_stream, nullptr);
        discardReply(stream, this);
        onUnauthorized(*stream, m_streamAuthorization, m_streamRenewed, [this] { openStream(true); });
        return;
    }
    QString error;
    if (const QString refused = refusedRedirect(*m_stream); !refused.isEmpty()) {
        error = refused;
    } else if (status == 0) {
        error = HttpErrors::networkFailure(m_endpoint, m_stream->error(), m_stream->errorString());
        m_closure.unreached = meansUnreachable(m_stream->error());
    } else if (status < 200 || status >= 300) {
        HttpErrors::reportRefusedScope(m_endpoint, *m_stream);
        error = HttpErrors::httpStatus(m_endpoint, u"the request for its event stream"_s, *m_stream, m_streamBody);
    } else if (!isEventStream(*m_stream)) {
        error = notAnEventStream(m_endpoint, *m_stream);
    } else if (m_stage == Stage::Connecting) {
        error = u"%1 ended its event stream before naming its message endpoint"_s.arg(m_endpoint.shown());
    } else {
        error = u"%1 ended its event stream: the connection is lost"_s.arg(m_endpoint.shown());
    }
    closeWithError(error);
}

void HttpSseTransport::send(const QJsonObject &message)
{
    if (m_stage != Stage::Open)
        return;
    const JsonRpc::Message classified = JsonRpc::classify(message);
    post(JsonRpc::serialize(message),
         classified.kind == JsonRpc::MessageKind::Request ? classified.id : QJsonValue(QJsonValue::Undefined),
         classified.method, false);
}

void HttpSseTransport::post(const QByteArray &payload, const QJsonValue &requestId, const QString &method, bool renewed,
                            bool steppedUp)
{
    QNetworkRequest request = this->request(m_messageUrl, "application/json, text/event-stream");
    request.setHeader(QNetworkRequest::ContentTypeHeader, u"application/json"_s);
    request.setTransferTimeout(int(m_options.requestTimeout.count()));
    QNetworkReply *reply = m_network.post(request, payload);
    followOnlySafeRedirects(reply, m_endpoint);
    m_posts.emplace(reply, Post{requestId, method, {}, m_endpoint.signsIn() ? payload : QByteArray(),
                                request.rawHeader("Authorization"), renewed, steppedUp});
    connect(reply, &QNetworkReply::readyRead, this, [this, reply] {
        if (const auto it = m_posts.find(reply); it != m_posts.end())
            keepStartOfBody(*reply, it->second.body);
    });
    connect(reply, &QNetworkReply::finished, this, [this, reply] { onPostFinished(reply); });
}

// How a refusal names what was posted: "'tools/call'", or "a response" to the server's request.
QString HttpSseTransport::whatWasPosted(const Post &post)
{
    return post.method.isEmpty() ? u"a response"_s : u"'%1'"_s.arg(post.method);
}

void HttpSseTransport::onPostFinished(QNetworkReply *reply)
{
    const auto it = m_posts.find(reply);
    if (it == m_posts.end())
        return;
    Post post = std::move(it->second);
    m_posts.erase(it);
    reply->deleteLater();
    keepStartOfBody(*reply, post.body);

    const int status = httpStatusOf(*reply);
    if (status >= 200 && status < 300)
        return; // the answer comes on the event stream
    if (status == 401 && m_endpoint.signsIn()) {
        onUnauthorized(*reply, post.authorization, post.renewed, [this, post] {
            if (m_stage == Stage::Open)
                this->post(post.payload, post.requestId, post.method, true, post.steppedUp);
        });
        return;
    }
    if (status == 403 && !post.steppedUp && m_endpoint.signsIn()
        && bearerChallengeOf(*reply).error == u"insufficient_scope") {
        onInsufficientScope(*reply, post);
        return;
    }
    const QString what = whatWasPosted(post);
    if (const QString refused = refusedRedirect(*reply); !refused.isEmpty()) {
        answerWithError(post.requestId, refused);
        return;
    }
    if (status == 0) {
        const QString text = HttpErrors::networkFailure(m_endpoint, reply->error(), reply->errorString());
        // A lost connection shows on the event stream; here only that the server is out of reach.
        if (meansUnreachable(reply->error())) {
            m_closure.unreached = true;
            closeWithError(text);
        } else {
            answerWithError(post.requestId, text);
        }
        return;
    }
    HttpErrors::reportRefusedScope(m_endpoint, *reply);
    const QString text = HttpErrors::httpStatus(m_endpoint, what, *reply, post.body);
    if (post.requestId.isUndefined())
        spdlog::warn("{}: {}", description(), text);
    else
        answerWithError(post.requestId, text);
}

void HttpSseTransport::onInsufficientScope(const QNetworkReply &reply, const Post &post)
{
    stepUpAfterInsufficientScope(m_endpoint, reply, whatWasPosted(post), post.body, post.authorization,
                                 {this,
                                  [this, post] {
                                      if (m_stage == Stage::Open)
                                          this->post(post.payload, post.requestId, post.method, post.renewed, true);
                                  },
                                  {},
                                  [this, requestId = post.requestId](const QString &error) {
                                      if (m_stage != Stage::Open)
                                          return;
                                      if (requestId.isUndefined())
                                          spdlog::warn("{}: {}", description(), error);
                                      else
                                          answerWithError(requestId, error);
                                  }});
}

void HttpSseTransport::answerWithError(const QJsonValue &requestId, const QString &error)
{
    if (requestId.isUndefined() || m_stage != Stage::Open)
        return;
    spdlog::debug("{}: {}", description(), error);
    emit messageReceived(JsonRpc::makeError(requestId, JsonRpc::TransportError, error));
}

void HttpSseTransport::close()
{
    if (m_stage == Stage::Closed)
        return;
    m_closure.requested = true;
    closeWithError({});
}

void HttpSseTransport::closeWithError(const QString &error)
{
    if (m_stage == Stage::Closed)
        return;
    if (m_closure.error.isEmpty())
        m_closure.error = error;
    // * -> Closed: nothing to wait for; the server sees the stream end.
    m_stage = Stage::Closed;
    m_endpointTimer.stop();
    abortAll();
    spdlog::debug("{}: closed ({})", description(), m_closure.describe());
    QMetaObject::invokeMethod(this, [this] { emit closed(m_closure); }, Qt::QueuedConnection);
}

void HttpSseTransport::abortAll()
{
    if (m_stream) {
        discardReply(m_stream, this);
        m_stream = nullptr;
    }
    const auto posts = std::move(m_posts);
    m_posts.clear();
    for (const auto &[reply, post] : posts)
        discardReply(reply, this);
}

} // namespace Tether
