#include "servecommand.h"

#include "configrun.h"
#include "exitstatus.h"
#include "output.h"

#include "common/displaytext.h"
#include "common/logging.h"
#include "common/unixsignalwatcher.h"
#include "gateway/gateway.h"
#include "gateway/gatewaysession.h"
#include "gateway/gatewaytoken.h"
#include "gateway/stdiohostchannel.h"
#include "gateway/streamablehttpendpoint.h"

#include <QEventLoop>

#include <csignal>

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

int serve(const ConfigOptions &options, const ServeOptions &serveOptions)
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

    // stdio: one host on stdin/stdout. --http: any number, each in a session of the endpoint.
    std::unique_ptr<StdioHostChannel> channel;
    GatewaySession *session = nullptr;
    std::unique_ptr<StreamableHttpEndpoint> endpoint;
    if (serveOptions.http) {
        GatewayHttpConfig http = gateway.config().http;
        if (serveOptions.port)
            http.port = *serveOptions.port;
        // The built-in demo has no file: its token is kept where the user's config would be.
        const QString configPath = run.store().savePath();
        QString error;
        endpoint = StreamableHttpEndpoint::serve(gateway, http, configPath, &error);
        if (!endpoint) {
            printError(u"serve --http: "_s + error);
            run.shutDown();
            return Failure;
        }
        printNote(u"Serving MCP at %1; hosts send the bearer token in %2"_s.arg(endpoint->url(),
                                                                                gatewayTokenPath(configPath)));
    } else {
        channel = std::make_unique<StdioHostChannel>();
        session = gateway.openSession(channel.get());
        QObject::connect(channel.get(), &StdioHostChannel::messageReceived, session, &GatewaySession::receive);
    }

    QEventLoop loop;
    bool ending = false;
    const auto end = [&](const QString &reason) {
        if (std::exchange(ending, true))
            return;
        spdlog::info("serve: {}; stopping the servers", reason);
        if (session)
            gateway.closeSession(session, reason);
        if (endpoint)
            endpoint->close();
        QObject::connect(&manager, &ServerManager::allStopped, &loop, &QEventLoop::quit);
        manager.stopAll();
    };
    QObject::connect(&signalWatcher, &UnixSignalWatcher::received, &loop,
                     [&](int signalNumber) { end(signalName(signalNumber)); });
    if (channel) {
        QObject::connect(channel.get(), &StdioHostChannel::finished, &loop, end);
        channel->start();
    }
    loop.exec();
    return Success;
}

} // namespace Tether::Ctl
