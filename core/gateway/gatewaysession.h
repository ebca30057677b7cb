#pragma once

#include "hostchannel.h"

#include "gatewayprotocol.h"

#include "manager/toolcallticket.h"
#include "protocol/jsonrpc.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>
#include <QObject>
#include <QString>

#include <limits>
#include <map>

namespace Tether {

class Gateway;

// One MCP host connected to the gateway: its lifecycle (initialize, then tools), its requests in
// flight by id, the progress and cancellation of its calls, and the list_changed it has been
// told of. Whatever the transport, its channel hands it the host's messages and carries its own.
class GatewaySession final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(GatewaySession)

public:
    GatewaySession(Gateway &gateway, HostChannel &channel, QObject *parent = nullptr);
    ~GatewaySession() override;

    // One message or batch as the host sent it (a stdio line, an HTTP body).
    void receive(const QByteArray &payload);
    void receiveMessage(const QJsonObject &object);

    // Cancels every call of the session, upstream too; nothing more is sent for them.
    void cancelAllCalls(const QString &reason);
    // Sends tools/list_changed when the host was last told of a different set of tools.
    void toolsChanged(const QByteArray &fingerprint);

    bool isInitialized() const { return m_initialized; }
    const QString &clientName() const { return m_clientName; }
    const QString &clientVersion() const { return m_clientVersion; }
    const QString &protocolVersion() const { return m_protocolVersion; }
    const QDateTime &since() const { return m_since; }
    int callsInFlight() const;
    QString transportName() const { return m_channel.transportName(); }

signals:
    // What the window shows of the host changed: it initialized, a call began or ended.
    void hostChanged();

private:
    // A host request that is not answered yet.
    struct PendingRequest
    {
        quint64 order = 0;            // arrival
        QJsonValue id;
        QString method;               // tools/list or tools/call
        QJsonObject params;           // tools/list
        ToolCallRequest call;         // tools/call: what to call, and the host's progress token
        ToolCallTicket ticket;        // tools/call, once sent
        double lastProgress = -std::numeric_limits<double>::infinity(); // sent so far: only higher values go out
        bool waitsForServers = false; // held until the servers starting with the gateway are up
    };

    // A plain tools/call read without parsing it; false when the payload is anything else.
    bool receiveToolCallText(const QByteArray &payload);
    void onRequest(const JsonRpc::Message &message);
    // Answers a request whose id is in flight already; true when it did.
    bool refuseReusedId(const QJsonValue &id, const QString &key);
    void acceptToolCall(const QJsonValue &id, const QString &key, ToolCallRequest call);
    void onNotification(const JsonRpc::Message &message);
    void onInitialize(const QJsonValue &id, const QJsonObject &params);
    void answerToolsList(const QJsonValue &id, const QJsonObject &params);
    void startToolCall(const QString &key);
    void onToolCallProgress(const QString &key, const ProgressUpdate &update);
    void finishToolCall(const QString &key, const HostToolReply &reply);
    void dropRequest(const QString &key);
    void onSettled();
    void respond(const QJsonValue &id, const QJsonObject &result, const QByteArray &resultJson = {});
    void respondError(const QJsonValue &id, int code, const QString &message, const QJsonValue &data = {});
    void send(const QJsonObject &message, HostChannel::Role role, const QJsonValue &request);
    // "Claude Code 2.1", or "a host over stdio" before it initializes: on every call's log line.
    const QString &hostLabel() const { return m_hostLabel; }

    Gateway &m_gateway;
    HostChannel &m_channel;
    bool m_initialized = false;
    QString m_clientName;
    QString m_clientVersion;
    QString m_protocolVersion;
    QString m_hostLabel;
    QDateTime m_since;
    QByteArray m_notifiedFingerprint; // of the tools the host was last told of
    std::map<QString, PendingRequest> m_pending; // by the request's id as a key
    quint64 m_arrivals = 0;
};

} // namespace Tether
