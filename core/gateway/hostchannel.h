#pragma once

#include <QByteArray>
#include <QJsonValue>
#include <QString>

namespace Tether {

// How a host is connected to the gateway: stdio (one stream each way) or Streamable HTTP (a
// stream per request, and one for the session's own notifications). A GatewaySession writes
// through it and says what each message belongs to, so that each transport can route it.
class HostChannel
{
public:
    // What a message of the session is.
    enum class Role {
        Response,     // the answer to `request`: the last message for it
        Progress,     // a progress notification of `request`
        Notification, // the session's own (list_changed, log messages); `request` is null
        // A request of the gateway's own (a server's sampling, elicitation or roots, passed on)
        // or its cancellation: it belongs with the host's `request` when that is given (it goes
        // on that request's stream), else with the session.
        Request,
    };

    virtual ~HostChannel() = default;

    // "stdio", "stdio (relayed)" or "http", as the window names the host's connection.
    virtual QString transportName() const = 0;
    // One JSON-RPC message, compact JSON without a line end.
    virtual void send(const QByteArray &message, Role role, const QJsonValue &request) = 0;
    // The host cancelled `request`: nothing more is sent for it, not even a response.
    virtual void endWithoutResponse(const QJsonValue &request) = 0;
};

} // namespace Tether
