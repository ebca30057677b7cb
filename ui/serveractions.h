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

// "7 servers: 5 connected, 1 reconnecting, 1 failed"
QString summaryText(const QList<ServerStatus> &statuses);

} // namespace Tether
