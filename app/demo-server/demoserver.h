#pragma once

#include "clientasks.h"
#include "demooptions.h"
#include "messagewriter.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QObject>
#include <QString>

class QTimer;

namespace Demo {

class SleepCall;
class StdinReader;

// The MCP server proper: reads JSON-RPC lines from stdin, answers on stdout, and applies the
// misbehaviours the options ask for.
class DemoServer final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DemoServer)

public:
    explicit DemoServer(const DemoOptions &options, QObject *parent = nullptr);
    ~DemoServer() override;

    void start();

private:
    void handleLine(const QByteArray &line);
    void handleEndOfInput();
    void handleRequest(const QJsonValue &id, const QString &method, const QJsonObject &params);
    void handleNotification(const QString &method, const QJsonObject &params);
    void handleResponse(const QJsonObject &message);

    void handleInitialize(const QJsonValue &id, const QJsonObject &params);
    void sendInitializeResult(const QJsonValue &id, const QString &protocolVersion);
    void handleInitialized();
    void handleToolsList(const QJsonValue &id, const QJsonObject &params);
    void handleToolsCall(const QJsonValue &id, const QJsonObject &params);
    void startSleep(const QJsonValue &id, int ms, const QJsonValue &progressToken);
    // sample, elicit, elicit-url and roots: the requests to the client, and the call's answer once
    // every one is answered.
    void startClientAsk(const QJsonValue &id, const QString &tool, const QJsonObject &arguments);
    void sendClientAsk(const ClientAsk &ask, const QString &callKey);
    void onClientAnswer(const QString &callKey, int index, const QJsonObject &outcome);
    void handleCancelled(const QJsonObject &params);
    void closeStdout();
    void startPingFlood();
    void sendDamagedReply(const QJsonValue &id);

    void sendResult(const QJsonValue &id, const QJsonObject &result);
    void sendError(const QJsonValue &id, int code, const QString &message);
    void sendNotification(const QString &method, const QJsonObject &params = {});
    void sendRequest(const QString &id, const QString &method, const QJsonObject &params = {});

    // A request of ours to the client, waiting for its answer.
    struct ClientRequest
    {
        QString method;
        QString callKey;       // the call of an asking tool it serves; empty: none (its answer is logged)
        int index = 0;         // its place among that call's requests
        QString elicitationId; // URL mode with 'complete': notifications/elicitation/complete after an accept
    };
    // A call of an asking tool that waits for the client's answers.
    struct AskingCall
    {
        QJsonValue id;
        QString tool;
        QString method;
        QJsonArray outcomes; // null until answered
        int waiting = 0;
        bool silent = false;
        bool cancelled = false; // by the client: answered with nothing
    };

    const DemoOptions m_options;
    // Each tool as compact JSON: a page of many tools is joined, not built and serialised again.
    const QList<QByteArray> m_tools;
    MessageWriter m_writer;
    StdinReader *m_reader = nullptr;
    QTimer *m_listChangedTimer = nullptr;
    QHash<QString, SleepCall *> m_sleeps;               // request id key -> running sleep
    QHash<QString, ClientRequest> m_pendingClientRequests; // our request id key -> what it is
    QHash<QString, AskingCall> m_askingCalls;               // tools/call id key -> its requests' answers
    int m_clientAsks = 0;
    bool m_initialized = false;
    qint64 m_floodPings = 0;
};

} // namespace Demo
