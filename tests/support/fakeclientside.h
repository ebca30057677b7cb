#pragma once

#include "protocol/clientside.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>
#include <utility>

namespace Tether::Testing {

// A client of the session as a host of the gateway, the window or tetherctl plays it: it keeps
// what the server asks of it and answers when the test says.
class FakeClient final : public ClientSide
{
public:
    explicit FakeClient(QString label)
        : m_label(std::move(label))
    {
    }

    struct Notification
    {
        QString serverName;
        QString method;
        QJsonObject params;
    };

    QString clientLabel() const override { return m_label; }
    quint64 serverRequest(const ServerRequest &request, ReplyHandler reply, ProgressHandler onProgress) override
    {
        requests.append(request);
        replies.append(reply);
        progress.append(std::move(onProgress));
        if (answerAtOnce)
            reply(*answerAtOnce);
        return ++m_lastHandle;
    }
    void cancelServerRequest(quint64 handle, const QString &reason) override { cancelled.append({handle, reason}); }
    void serverNotification(const QString &serverName, const QString &method, const QJsonObject &params) override
    {
        notifications.append({serverName, method, params});
    }

    QList<ServerRequest> requests;
    QList<ReplyHandler> replies;
    QList<ProgressHandler> progress;
    QList<std::pair<quint64, QString>> cancelled;
    QList<Notification> notifications;
    std::optional<RpcReply> answerAtOnce; // answered from inside serverRequest()

private:
    QString m_label;
    quint64 m_lastHandle = 100; // the first request's handle is 101
};

} // namespace Tether::Testing
