#pragma once

#include "controlprotocol.h"

#include "gateway/localsocketendpoint.h"

#include <QObject>
#include <QString>

#include <functional>

namespace Tether {

class ServerManager;

// The instance's control protocol (controlprotocol.h) on its local socket: the connections whose
// first line is a tether/ request are control sessions, each answered from `manager`, and fed,
// once it subscribes, with status changes and events as they happen. Only the user's own
// processes reach the socket (LocalSocketEndpoint refuses others).
class InstanceControl final : public QObject, public LocalSocketService
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InstanceControl)

public:
    // Reads the config file again and runs it; the reasons it cannot be used, empty when it is.
    using Reload = std::function<QStringList()>;

    // `kind` names the program in tether/hello: "window", "daemon", "serve --http".
    InstanceControl(ServerManager &manager, QString kind, Reload reload, QObject *parent = nullptr);

    bool claims(const QByteArray &firstLine) const override;
    void serve(StdioHostChannel *channel, const QByteArray &firstLine, const GatewayInstanceRecord &instance) override;

private:
    ServerManager &m_manager;
    QString m_kind;
    Reload m_reload;
};

} // namespace Tether
