#pragma once

#include "controlprotocol.h"

#include "protocol/jsonrpc.h"

#include <QJsonObject>
#include <QObject>
#include <QSet>
#include <QString>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>

class QTimer;

namespace Tether {

class StdioHostChannel;
struct RpcReply;

// What a control request came back with: its result, or why there is none.
struct ControlReply
{
    QJsonObject result;
    std::optional<JsonRpc::Error> error;
};

// The program's end of a connection to the instance that runs a config (tetherctl, an attached
// window): requests answered exactly once (with an error when the instance goes first), and the
// notifications of a subscription.
class ControlClient final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ControlClient)

public:
    using Handler = std::function<void(const ControlReply &)>;
    // A request of the instance to this client (tether/ask), answered once with respond().
    using RequestHandler = std::function<void(const QJsonValue &id, const QString &method, const QJsonObject &params)>;

    // Made by attachToInstance(); `socket` is connected to the instance and closed with the client.
    ControlClient(int socket, Control::InstanceInfo instance, QObject *parent = nullptr);
    ~ControlClient() override;

    const Control::InstanceInfo &instance() const { return m_instance; }
    bool isConnected() const { return !m_lost; }

    // Its id, for tether/cancel; 0 once the connection has ended (the handler then gets an error).
    qint64 request(QStringView method, const QJsonObject &params, Handler handler);
    // Runs the event loop until the answer comes (or the timeout passes, or close() is called).
    // Past the timeout, a late answer is dropped; what the instance does for the request goes on
    // until the connection ends. While the instance's questions (tether/ask) wait for their
    // answers, the clock stands still; once all are answered, it has its whole timeout again.
    ControlReply requestAndWait(QStringView method, const QJsonObject &params = {},
                                std::chrono::milliseconds timeout = std::chrono::minutes(10));
    // Who answers the instance's requests; without one, each is refused.
    void setRequestHandler(RequestHandler handler) { m_requestHandler = std::move(handler); }
    void respond(const QJsonValue &id, const RpcReply &reply);
    // Ends the connection: the requests waiting are answered with `why`, and the instance cancels
    // what it was doing for them (a tool call).
    void close(const QString &why);
    // Asks the instance's hello, for attachToInstance().
    std::optional<QString> greet(const QString &clientName, std::chrono::milliseconds timeout);

signals:
    void notified(const QString &method, const QJsonObject &params);
    // The instance closed the connection, or it broke: every request waiting is answered first.
    void lost(const QString &why);

private:
    void onLine(const QByteArray &line);
    void onFinished(const QString &reason);
    void end(const QString &why);

    std::unique_ptr<StdioHostChannel> m_channel;
    Control::InstanceInfo m_instance;
    qint64 m_nextId = 1;
    void holdWait(const QJsonValue &askId);
    void releaseWait(const QJsonValue &askId);

    std::map<qint64, Handler> m_waiting;
    RequestHandler m_requestHandler;
    QSet<qint64> m_asksOpen;            // the instance's questions not answered yet, by id
    QTimer *m_waitDeadline = nullptr;   // requestAndWait's, while it waits
    std::chrono::milliseconds m_waitTimeout{0};
    bool m_lost = false;
};

// How attachToInstance() went.
struct Attachment
{
    std::unique_ptr<ControlClient> client; // greeted; none when there is no instance or it refused
    // Why there is none: empty when no Tether runs the config at all.
    QString why;
};

// The Tether that runs the config at `configPath`, connected and greeted as `clientName`. One that
// is starting (it has claimed the config, but not yet opened its socket) is waited for, up to
// `timeout`.
Attachment attachToInstance(const QString &configPath, const QString &clientName,
                            std::chrono::milliseconds timeout = std::chrono::seconds(10));

} // namespace Tether
