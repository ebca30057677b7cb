#include "servecommand.h"

#include "configrun.h"
#include "exitstatus.h"
#include "output.h"

#include "common/displaytext.h"
#include "common/logging.h"
#include "common/unixsignalwatcher.h"
#include "gateway/gateway.h"
#include "gateway/gatewaysession.h"
#include "gateway/stdiohostchannel.h"

#include <QEventLoop>

#include <csignal>

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

int serve(const ConfigOptions &options)
{
    // A host that goes away mid-write is noticed as a failed write, not as a fatal signal.
    std::signal(SIGPIPE, SIG_IGN);
    UnixSignalWatcher signalWatcher({SIGINT, SIGTERM, SIGHUP});
    ConfigRun run(options);
    if (!run.start(ConfigStore::FileChanges::Follow))
        return Failure;

    ServerManager &manager = run.manager();
    Gateway gateway(manager, run.store().document().gateway);
    QObject::connect(&run.store(), &ConfigStore::documentChanged, &gateway,
                     [&](const ConfigDocument &document) { gateway.setConfig(document.gateway); });
    QObject::connect(&manager.eventLog(), &EventLog::appended, &gateway, [&options](const ServerEvent &event) {
        const bool warning = event.kind == ServerEvent::Kind::ConfigChange && event.level == u"warning";
        const bool detail = event.kind == ServerEvent::Kind::Stderr || event.kind == ServerEvent::Kind::ToolCall;
        if (warning || (options.verbose && detail))
            printNote(event.server + u": "_s + event.text);
    });

    StdioHostChannel channel;
    GatewaySession *session = gateway.openSession(&channel);
    QObject::connect(&channel, &StdioHostChannel::messageReceived, session, &GatewaySession::receive);

    QEventLoop loop;
    bool ending = false;
    const auto end = [&](const QString &reason) {
        if (std::exchange(ending, true))
            return;
        spdlog::info("serve: {}; stopping the servers", reason);
        gateway.closeSession(session, reason);
        QObject::connect(&manager, &ServerManager::allStopped, &loop, &QEventLoop::quit);
        manager.stopAll();
    };
    QObject::connect(&channel, &StdioHostChannel::finished, &loop, end);
    QObject::connect(&signalWatcher, &UnixSignalWatcher::received, &loop,
                     [&](int signalNumber) { end(signalName(signalNumber)); });
    channel.start();
    loop.exec();
    return Success;
}

} // namespace Tether::Ctl
