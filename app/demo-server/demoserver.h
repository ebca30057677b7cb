#pragma once

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
    void handleCancelled(const QJsonObject &params);
    void closeStdout();
    void startPingFlood();
    void sendDamagedReply(const QJsonValue &id);

    void sendResult(const QJsonValue &id, const QJsonObject &result);
    void sendError(const QJsonValue &id, int code, const QString &message);
    void sendNotification(const QString &method, const QJsonObject &params = {});
    void sendRequest(const QString &id, const QString &method, const QJsonObject &params = {});

    const DemoOptions m_options;
    // Each tool as compact JSON: a page of many tools is joined, not built and serialised again.
    const QList<QByteArray> m_tools;
    MessageWriter m_writer;
    StdinReader *m_reader = nullptr;
    QTimer *m_listChangedTimer = nullptr;
    QHash<QString, SleepCall *> m_sleeps;               // request id key -> running sleep
    QHash<QString, QString> m_pendingClientRequests;    // our request id key -> method
    bool m_initialized = false;
    qint64 m_floodPings = 0;
};

} // namespace Demo
