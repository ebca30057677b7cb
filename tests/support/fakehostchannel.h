#pragma once

#include "gateway/hostchannel.h"
#include "protocol/jsonrpc.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QList>

namespace Tether::Testing {

// A host's channel that keeps what the gateway sends it, for tests that play the host in process.
class FakeHostChannel final : public HostChannel
{
public:
    struct Sent
    {
        QJsonObject message;
        Role role;
        QJsonValue request;
    };

    QString transportName() const override { return QStringLiteral("test"); }
    void send(const QByteArray &message, Role role, const QJsonValue &request) override
    {
        sent.append({QJsonDocument::fromJson(message).object(), role, request});
    }
    void endWithoutResponse(const QJsonValue &request) override { endedWithoutResponse.append(request); }

    // The response to the request `id`, if one came.
    std::optional<QJsonObject> response(const QJsonValue &id) const
    {
        for (const Sent &entry : sent) {
            if (entry.role == Role::Response && entry.message.value(u"id") == id)
                return entry.message;
        }
        return std::nullopt;
    }

    // The messages of `method` (notifications), in order.
    QList<QJsonObject> notifications(const QString &method) const
    {
        QList<QJsonObject> found;
        for (const Sent &entry : sent) {
            if (entry.message.value(u"method").toString() == method)
                found.append(entry.message);
        }
        return found;
    }

    QList<Sent> sent;
    QList<QJsonValue> endedWithoutResponse;
};

// A JSON-RPC request as a host sends it.
inline QJsonObject hostRequest(const QJsonValue &id, const QString &method, const QJsonObject &params = {})
{
    return JsonRpc::makeRequest(id, method, params);
}

inline QJsonObject initializeRequest(const QJsonValue &id = 0, const QString &clientName = QStringLiteral("test-host"))
{
    return hostRequest(id, QStringLiteral("initialize"),
                       {{QStringLiteral("protocolVersion"), QStringLiteral("2025-11-25")},
                        {QStringLiteral("capabilities"), QJsonObject{}},
                        {QStringLiteral("clientInfo"), QJsonObject{{QStringLiteral("name"), clientName},
                                                                   {QStringLiteral("version"), QStringLiteral("1.0")}}}});
}

} // namespace Tether::Testing
