#pragma once

#include "hostchannel.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QString>

#include <map>
#include <memory>
#include <set>

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
// for that, the id and method of each line are read, not the rest. When the host's input ends
// (endInput()), the relay still waits for the answers to what the host sent, and says so with
// allAnswered(): what a host pipes in and then closes is answered.
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
    // The host sends nothing more (`reason`: its stdin closed). Its requests still go to their
    // answers; what waits on the host's own answer is refused at once (the instance's requests to
    // it) and its listens are cancelled, since it can neither answer nor cancel any more.
    void endInput(const QString &reason);

signals:
    // The instance closed the connection or it broke (not after close(), nor after endInput():
    // then the relay answers what it had not and tells allAnswered()).
    void lost(const QString &why);
    // After endInput(): every request of the host has been answered. Emitted once, from the event
    // loop, so that the relay may be closed and deleted then.
    void allAnswered();

private:
    void onHostLine(const QByteArray &line);
    void onInstanceLine(const QByteArray &line);
    void onInstanceFinished();
    // Keeps what the host asked of the instance until it is answered or cancelled, and what the
    // instance asked of the host until the host answers.
    void trackHostLine(const QByteArray &line);
    // Answers the requests the instance has not; the host's initialize too unless `initializeToo`
    // is false (a gateway taking over answers it).
    void answerUnanswered(bool initializeToo);
    // After endInput(): answers a request of the instance (by its id as written) for the host.
    void refuseForHost(const QByteArray &id);
    bool hasUnanswered() const;
    void tellWhenAllAnswered();
    // The session of the gateway that took over writes here.
    QString transportName() const override;
    void send(const QByteArray &message, Role role, const QJsonValue &request) override;
    void endWithoutResponse(const QJsonValue &request) override;

    StdioHostChannel &m_host;
    std::unique_ptr<StdioHostChannel> m_instance;
    QByteArray m_hostInitialize; // the line as the host sent it
    bool m_hostSentMore = false; // lines after its initialize (its initialized among them)
    QList<QByteArray> m_held;    // between lost() and takeOver()
    struct Unanswered
    {
        QByteArray method;   // as JSON text, quoted
        QByteArray toolName; // as JSON text, quoted; empty unless a tools/call
    };
    std::map<QByteArray, Unanswered> m_unanswered; // by the id as the host wrote it
    std::set<QByteArray> m_askedOfHost;            // the instance's requests, by their id as written
    bool m_closing = false;
    bool m_inputEnded = false;
    QString m_inputEndReason;
    bool m_toldAllAnswered = false;
    Gateway *m_gateway = nullptr;
    GatewaySession *m_session = nullptr;
};

} // namespace Tether
