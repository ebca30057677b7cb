#pragma once

#include <QList>
#include <QString>

namespace Tether {

struct ServerStatus;

// Which manual actions apply to a server in its current state.
struct ServerActions
{
    bool start = false;
    bool stop = false;
    bool reconnect = false;
};

ServerActions availableActions(const ServerStatus &status);
// What applies to at least one of the selected servers; each action then goes to those it applies to.
ServerActions availableActions(const QList<ServerStatus> &selection);

// Disabled in the config and stopped: shown as "Disabled" rather than "Stopped".
bool isDisabled(const ServerStatus &status);

// "7 servers: 5 connected, 1 reconnecting, 1 failed"
QString summaryText(const QList<ServerStatus> &statuses);

} // namespace Tether
