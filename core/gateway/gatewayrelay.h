#pragma once

#include "hostchannel.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QString>

#include <map>
#include <memory>

namespace Tether {

class Gateway;
class GatewaySession;
class StdioHostChannel;

// tetherctl serve in front of a Tether that already serves the gateway (the window, tetherctl
// serve --http): a relay over that instance's local socket, not a second gateway. The host's lines
// go to the instance as they came and the instance's lines come back, framed but not parsed (only
// the lines up to the host's initialize are read, to keep it), so the instance shows the real host
// and the host uses exactly the servers that Tether runs. When the instance goes away, lost()
// tells; takeOver() then hands the host to a gateway of this process: the host's initialize is
// replayed to it (its answer dropped when the host has had one) and the host is told to list the
// tools again. Requests the instance had not answered are answered by the relay when it goes (a
// tool error result for a call, an error for anything else), so that the host can send them again:
// for that, the id and method of each line are read, not the rest.
class GatewayRelay final : public QObject, private HostChannel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(GatewayRelay)

public:
    // Relays `host` (which must outlive the relay) to the instance connected at `instanceSocket`,
    // which the relay closes.
    GatewayRelay(StdioHostChannel &host, int instanceSocket, QObject *parent = nullptr);
    ~GatewayRelay() override;

    void start();
    // From now on `gateway` (which must outlive the relay) answers the host.
    void takeOver(Gateway &gateway);
    // Ends the host's session at the instance (its socket is closed), or at the gateway that took over.
    void close(const QString &reason);

signals:
    // The instance closed the connection or it broke (not after close()).
    void lost(const QString &why);

private:
    void onHostLine(const QByteArray &line);
    void onInstanceLine(const QByteArray &line);
    void onInstanceFinished();
    // Keeps what the host asked of the instance until it is answered or cancelled.
    void trackHostRequest(const QByteArray &line);
    void answerUnanswered();
    // The session of the gateway that took over writes here.
    QString transportName() const override;
    void send(const QByteArray &message, Role role, const QJsonValue &request) override;
    void endWithoutResponse(const QJsonValue &request) override;

    StdioHostChannel &m_host;
    std::unique_ptr<StdioHostChannel> m_instance;
    QByteArray m_hostInitialize; // the line as the host sent it
    bool m_hostSentMore = false; // after its initialize: it has had the answer
    QList<QByteArray> m_held;    // between lost() and takeOver()
    struct Unanswered
    {
        QByteArray method;   // as JSON text, quoted
        QByteArray toolName; // as JSON text, quoted; empty unless a tools/call
    };
    std::map<QByteArray, Unanswered> m_unanswered; // by the id as the host wrote it
    bool m_closing = false;
    Gateway *m_gateway = nullptr;
    GatewaySession *m_session = nullptr;
};

} // namespace Tether
