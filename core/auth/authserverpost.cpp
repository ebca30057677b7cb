#include "authserverpost.h"

#include "transport/httpendpoint.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>

using namespace Qt::StringLiterals;

namespace Tether {

static constexpr qint64 MaxAnswerBytes = 1024 * 1024;
static constexpr int SilenceTimeoutMs = 30000;

void postToAuthorizationServer(QNetworkAccessManager *network, const AuthServerPost &post, QObject *context,
                               std::function<void(const AuthServerAnswer &)> done)
{
    QNetworkRequest request(post.url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, post.contentType);
    request.setRawHeader("Accept", "application/json");
    if (!post.authorization.isEmpty())
        request.setRawHeader("Authorization", post.authorization);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
    request.setAttribute(QNetworkRequest::CacheSaveControlAttribute, false);
    request.setTransferTimeout(SilenceTimeoutMs);
    QNetworkReply *reply = network->post(request, post.body);
    const HttpServerEndpoint endpoint{post.url, {}, {}};
    auto finish = std::make_shared<std::function<void(const AuthServerAnswer &)>>(std::move(done));
    // The reply outlives no one who waits for it.
    QObject::connect(context, &QObject::destroyed, reply, &QObject::deleteLater);
    QObject::connect(reply, &QNetworkReply::downloadProgress, context, [reply, context, endpoint, finish](qint64 received, qint64) {
        if (received <= MaxAnswerBytes || !*finish)
            return;
        const auto call = std::exchange(*finish, nullptr);
        discardReply(reply, context);
        call({0, {}, HttpErrors::tooLarge(endpoint, u"the answer"_s, MaxAnswerBytes), QDateTime::currentDateTimeUtc()});
    });
    QObject::connect(reply, &QNetworkReply::finished, context, [reply, endpoint, finish] {
        reply->deleteLater();
        if (!*finish)
            return;
        const auto call = std::exchange(*finish, nullptr);
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status == 0) {
            call({0, {}, HttpErrors::networkFailure(endpoint, reply->error(), reply->errorString()),
                  QDateTime::currentDateTimeUtc()});
            return;
        }
        call({status, reply->readAll(), {}, QDateTime::currentDateTimeUtc()});
    });
}

} // namespace Tether
