#include "serveractions.h"

#include "supervisor/serverstatus.h"

#include <QMap>

using namespace Qt::StringLiterals;

namespace Tether {

ServerActions availableActions(const ServerStatus &status)
{
    ServerActions actions;
    if (!status.configErrors.isEmpty())
        return actions; // nothing runs until the config is fixed
    switch (status.state) {
    case ServerState::Stopped:
    case ServerState::Failed:
    case ServerState::Disconnected:
    case ServerState::SignInNeeded:
        actions.start = true;
        actions.reconnect = status.state != ServerState::Stopped;
        actions.stop = status.state != ServerState::Stopped;
        break;
    case ServerState::Starting:
    case ServerState::Connected:
    case ServerState::Retrying:
    case ServerState::Reconnecting:
        actions.stop = true;
        actions.reconnect = true;
        break;
    case ServerState::Stopping:
        break;
    }
    // A disabled server does not start: Enable is the way.
    if (!status.enabled)
        actions.start = actions.reconnect = false;
    return actions;
}

ServerActions availableActions(const QList<ServerStatus> &selection)
{
    ServerActions any;
    for (const ServerStatus &status : selection) {
        const ServerActions actions = availableActions(status);
        any.start |= actions.start;
        any.stop |= actions.stop;
        any.reconnect |= actions.reconnect;
    }
    return any;
}

bool isDisabled(const ServerStatus &status)
{
    return !status.enabled && status.state == ServerState::Stopped;
}

QString summaryText(const QList<ServerStatus> &statuses)
{
    // In the order a person cares about: what works, what is on its way, what needs a hand.
    static const QList<ServerState> order{ServerState::Connected, ServerState::Starting,    ServerState::Retrying,
                                          ServerState::Reconnecting, ServerState::Failed,  ServerState::Disconnected,
                                          ServerState::SignInNeeded, ServerState::Stopping, ServerState::Stopped};
    QMap<int, int> counts;
    int invalid = 0;
    int disabled = 0;
    for (const ServerStatus &status : statuses) {
        if (!status.configErrors.isEmpty())
            ++invalid;
        else if (isDisabled(status))
            ++disabled;
        else
            ++counts[int(status.state)];
    }
    QStringList parts;
    for (ServerState state : order) {
        if (const int count = counts.value(int(state)))
            parts.append(u"%1 %2"_s.arg(count).arg(stateName(state).toLower()));
    }
    if (disabled)
        parts.append(u"%1 disabled"_s.arg(disabled));
    if (invalid)
        parts.append(u"%1 invalid"_s.arg(invalid));
    const QString servers = statuses.size() == 1 ? u"1 server"_s : u"%1 servers"_s.arg(statuses.size());
    return parts.isEmpty() ? servers : servers + u": "_s + parts.join(u", "_s);
}

} // namespace Tether
