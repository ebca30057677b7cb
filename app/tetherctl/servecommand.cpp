#include "servecommand.h"

#include "configrun.h"
#include "exitstatus.h"
#include "instancecommands.h"
#include "output.h"

#include "common/displaytext.h"
#include "common/logging.h"
#include "common/unixsignalwatcher.h"
#include "gateway/gateway.h"
#include "gateway/gatewayinstance.h"
#include "gateway/gatewayprotocol.h"
#include "gateway/gatewayrelay.h"
#include "gateway/gatewaysession.h"
#include "gateway/stdiohostchannel.h"

#include <QEventLoop>

#include <csignal>

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

// What the gateway offers before its servers start: whatever any enabled server may offer.
static QJsonObject capabilitiesBeforeStart(const ConfigDocument &document)
{
    QList<QJsonObject> unknown;
    for (const ServerConfig &server : document.servers) {
        if (server.enabled && server.isValid())
            unknown.append(QJsonObject());
    }
    return gatewayCapabilities(unknown);
}

int serve(const ConfigOptions &options, const ServeOptions &serveOptions)
{
    if (serveOptions.http)
        return runDaemon(options, HttpServing{serveOptions.port});
    // A host that goes away mid-write is noticed as a failed write, not as a fatal signal.
    std::signal(SIGPIPE, SIG_IGN);
    UnixSignalWatcher signalWatcher({SIGINT, SIGTERM, SIGHUP});
    ConfigRun run(options);
    // The built-in demo has no file: its token and instance are kept where the user's file would be.
    const QString configPath = run.store().savePath();

    // The servers of the config behind a gateway of this process: from the start, or when the
    // Tether relayed to goes away.
    std::unique_ptr<Gateway> gateway;
    const auto superviseServers = [&] {
        if (!run.start(ConfigStore::FileChanges::Follow))
            return false;
        gateway = std::make_unique<Gateway>(run.manager(), run.store().document().gateway);
        QObject::connect(&run.store(), &ConfigStore::documentChanged, gateway.get(),
                         [&](const ConfigDocument &document) { gateway->setConfig(document.gateway); });
        QObject::connect(&run.manager().eventLog(), &EventLog::appended, gateway.get(), [&options](const ServerEvent &event) {
            // With -v the servers' stderr lines are printed by the run already; a call's line is the gateway's.
            const bool warning = event.kind == ServerEvent::Kind::ConfigChange && event.level == u"warning";
            const bool detail = event.kind == ServerEvent::Kind::ToolCall;
            if (warning || (options.verbose && detail))
                printNote(event.server + u": "_s + event.text);
        });
        return true;
    };

    // One host on stdin/stdout, relayed to a running Tether of the same config when there is one.
    auto channel = std::make_unique<StdioHostChannel>();
    std::unique_ptr<GatewayRelay> relay;
    GatewaySession *session = nullptr;
    if (serveOptions.bridge && options.servers.isEmpty()) {
        QString why;
        if (const std::optional<LiveGatewayInstance> instance = findLiveGatewayInstance(configPath, &why)) {
            spdlog::info("serve: relaying to the Tether at {} (pid {})", instance->record.socket, instance->record.pid);
            relay = std::make_unique<GatewayRelay>(*channel, instance->socket);
        } else if (!why.isEmpty()) {
            spdlog::info("serve: supervising the servers here: {}", why);
        }
    }
    // The servers start with the host's first message but a server/discover: a client finding the
    // era asks that of a process of its own, which it then ends.
    const bool startsOnFirstMessage = !relay;
    if (startsOnFirstMessage && !run.load(ConfigStore::FileChanges::Follow))
        return Failure;
    QEventLoop loop;
    int status = Success;
    bool ending = false;
    // After the host closed its input, what it sent is answered and written before serve ends.
    bool inputEnded = false;
    bool writesLast = false; // a signal ends serve without waiting for the host to read
    bool waitsForOutput = false;
    const auto quit = [&] {
        if (!writesLast || channel->isOutputWritten()) {
            loop.quit();
            return;
        }
        waitsForOutput = true;
        QObject::connect(channel.get(), &StdioHostChannel::outputWritten, &loop, &QEventLoop::quit);
    };
    const auto end = [&](const QString &reason) {
        if (std::exchange(ending, true))
            return;
        spdlog::info("serve: {}; stopping", reason);
        if (relay)
            relay->close(reason); // its connection to the instance, or its session of the gateway that took over
        if (!gateway) {
            // Relayed: the instance's servers are not this process's to stop.
            quit();
            return;
        }
        if (session)
            gateway->closeSession(std::exchange(session, nullptr), reason);
        QObject::connect(&run.manager(), &ServerManager::allStopped, &loop, quit);
        run.manager().stopAll();
    };
    // The host sends nothing more: each request it sent is still answered (within the bounds every
    // request has), then serve ends as above.
    const auto endWhenAnswered = [&](const QString &reason) {
        if (ending || std::exchange(inputEnded, true))
            return;
        writesLast = true;
        if (relay) {
            spdlog::info("serve: {}; ending once the requests it sent are answered", reason);
            QObject::connect(relay.get(), &GatewayRelay::allAnswered, &loop, [&end, reason] { end(reason); });
            relay->endInput(reason);
            return;
        }
        if (session)
            session->endInput(reason);
        if (!session || !session->hasRequests()) {
            end(reason);
            return;
        }
        spdlog::info("serve: {}; ending once the requests it sent are answered", reason);
        // Queued: the session may be inside a signal of its own, answering.
        QObject::connect(session, &GatewaySession::hostChanged, &loop, [&, reason] {
            if (!ending && !session->hasRequests())
                end(reason);
        }, Qt::QueuedConnection);
    };
    QObject::connect(&signalWatcher, &UnixSignalWatcher::received, &loop, [&](int signalNumber) {
        writesLast = false;
        if (waitsForOutput)
            loop.quit();
        else
            end(signalName(signalNumber));
    });
    if (relay) {
        QObject::connect(relay.get(), &GatewayRelay::lost, &loop, [&](const QString &why) {
            spdlog::warn("serve: {}; supervising the servers here from now on", why);
            if (!superviseServers()) {
                status = Failure;
                end(u"the config cannot be used"_s);
                return;
            }
            relay->takeOver(*gateway);
        });
        relay->start();
    }
    if (startsOnFirstMessage) {
        QObject::connect(channel.get(), &StdioHostChannel::messageReceived, &loop, [&](const QByteArray &payload) {
            if (!session) {
                if (const std::optional<QByteArray> answer = answerToEraProbe(payload, capabilitiesBeforeStart(run.store().document()))) {
                    channel->send(*answer, HostChannel::Role::Response, {});
                    return;
                }
                if (!superviseServers()) {
                    status = Failure;
                    end(u"the config cannot be used"_s);
                    return;
                }
                session = gateway->openSession(channel.get());
            }
            session->receive(payload);
        });
    }
    QObject::connect(channel.get(), &StdioHostChannel::finished, &loop, [&](const QString &reason) {
        // The client's messages that could not be read are a failure of serve, said without -v.
        if (channel->ending() == StdioHostChannel::Ending::LineTooLong) {
            status = Failure;
            printError(u"serve: the client sent a line of more than %1 MiB on stdin, more than one MCP message may "
                       "take here; serve stops reading it and ends. Have the client send less in one message (a "
                       "file's path rather than its content)"_s.arg(StdioHostChannel::MaxLineBytes / (1024 * 1024)));
        } else if (channel->ending() == StdioHostChannel::Ending::InputFailed) {
            status = Failure;
            printError(u"serve: "_s + reason + u"; serve ends"_s);
        }
        // A host that no longer reads gets no answers: nothing to wait for.
        if (channel->canWrite())
            endWhenAnswered(reason);
        else
            end(reason);
    });
    channel->start();
    loop.exec();
    return status;
}

} // namespace Tether::Ctl
