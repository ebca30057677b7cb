#include "authdiscovery.h"

#include "authdiscoverysteps.h"

#include "common/displaytext.h"
#include "common/logging.h"
#include "protocol/mcptypes.h"
#include "transport/httpendpoint.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>

using namespace Qt::StringLiterals;

namespace Tether {

AuthDiscovery::AuthDiscovery(QNetworkAccessManager *network, Options options, QObject *parent)
    : QObject(parent), m_network(network), m_options(options)
{
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this, &AuthDiscovery::onTimeout);
}

AuthDiscovery::AuthDiscovery(QNetworkAccessManager *network, QObject *parent)
    : AuthDiscovery(network, Options{}, parent)
{
}

AuthDiscovery::~AuthDiscovery()
{
    dropReply();
}

void AuthDiscovery::start(const QUrl &serverUrl, const BearerChallenge &challenge)
{
    dropReply();
    m_steps = std::make_unique<AuthDiscoverySteps>(serverUrl, challenge);
    fetchNext();
}

void AuthDiscovery::fetchNext()
{
    if (m_steps->isOver()) {
        if (const std::optional<SignInTarget> &target = m_steps->target()) {
            spdlog::debug("{}: signs in at {} for resource {}", redactedUrl(m_steps->serverUrl().toString()),
                          target->authServer.issuer, target->resource);
            emit found(*target);
        } else {
            emit failed(m_steps->failure());
        }
        return;
    }
    const QUrl url = m_steps->next();
    const HttpServerEndpoint endpoint{url, {}, {}};
    QNetworkRequest request = endpoint.request(url, "application/json");
    // MCP 2025-03-26 §Server Metadata Discovery Headers.
    if (isSameOrigin(url, m_steps->serverUrl()))
        request.setRawHeader("MCP-Protocol-Version", supportedProtocolVersions().first().toUtf8());
    QNetworkReply *reply = m_network->get(request);
    m_reply = reply;
    followOnlySafeRedirects(reply, endpoint);
    connect(reply, &QNetworkReply::finished, this, &AuthDiscovery::onFinished);
    connect(reply, &QNetworkReply::downloadProgress, this, [this](qint64 received) {
        if (received > m_options.maxDocumentBytes)
            onTooLarge();
    });
    m_deadline.start(m_options.requestTimeout);
}

void AuthDiscovery::onFinished()
{
    QNetworkReply *reply = m_reply;
    m_deadline.stop();
    const int status = httpStatusOf(*reply);
    const QNetworkReply::NetworkError error = reply->error();
    // A reply aborted at a refused redirect is closed: nothing to read.
    const QByteArray body = reply->isOpen() ? reply->readAll() : QByteArray();
    const QString detail = reply->errorString();
    dropReply();
    // Any HTTP status is an answer: an error status says the metadata is not there, and a
    // redirect left with its 3xx status was refused by followOnlySafeRedirects.
    if (status > 0) {
        spdlog::debug("sign-in discovery: {} answered HTTP {}", redactedUrl(m_steps->next().toString()), status);
        m_steps->answered(status, body);
    } else {
        const HttpServerEndpoint endpoint{m_steps->next(), {}, {}};
        m_steps->unreachable(HttpErrors::networkFailure(endpoint, error, detail)
                             + u" while looking for sign-in metadata"_s);
    }
    fetchNext();
}

void AuthDiscovery::onTooLarge()
{
    m_deadline.stop();
    dropReply();
    m_steps->unreachable(u"%1 answered with more than %2 bytes while looking for sign-in metadata; that is no "
                         "metadata document"_s.arg(redactedUrl(m_steps->next().toString()),
                                                   QString::number(m_options.maxDocumentBytes)));
    fetchNext();
}

void AuthDiscovery::onTimeout()
{
    dropReply();
    const HttpServerEndpoint endpoint{m_steps->next(), {}, {}};
    m_steps->unreachable(HttpErrors::networkFailure(endpoint, QNetworkReply::TimeoutError, {})
                         + u" while looking for sign-in metadata"_s);
    fetchNext();
}

void AuthDiscovery::dropReply()
{
    if (m_reply)
        discardReply(m_reply, this);
    m_reply = nullptr;
}

} // namespace Tether
