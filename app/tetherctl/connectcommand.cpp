#include "connectcommand.h"

#include "configrun.h"
#include "exitstatus.h"
#include "interruption.h"
#include "output.h"

#include "common/closenames.h"
#include "config/clientconnect.h"
#include "config/clientconnectfile.h"
#include "config/configfile.h"
#include "config/configlocation.h"
#include "gateway/gatewayreach.h"
#include "gateway/toolcatalog.h"

#include <QCoreApplication>
#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

namespace {

// The public names of the tools the gateway offers: the config's servers are started for it.
QStringList offeredToolNames(const ConfigOptions &options)
{
    Interruption interruption;
    ConfigRun run(options, &interruption);
    if (!run.start())
        return {};
    run.waitUntilSettled();
    QStringList names;
    const ToolCatalog exposed = exposedTools(run.manager(), run.store().document().gateway.names);
    for (const ExposedTool &tool : exposed.tools())
        names.append(tool.publicName);
    run.shutDown();
    return names;
}

} // namespace

int connectClient(const ConnectOptions &options)
{
    ConnectClient client;
    if (!connectClientFromName(options.client, &client)) {
        printError(u"connect knows %1, not '%2'%3 (see tetherctl --help)"_s.arg(
            connectClientNames().join(u", "_s), options.client, didYouMean(closeNames(options.client, connectClientNames()))));
        return Failure;
    }
    const QString title = connectClientTitle(client);
    const QString path = QFileInfo(options.file.isEmpty() ? defaultClientConfigPath(client) : options.file).absoluteFilePath();
    if (options.undo) {
        const UndoOutcome outcome = undoConnect(path, client);
        if (!outcome.done) {
            printError(outcome.error);
            return Failure;
        }
        printOut(outcome.message);
        return Success;
    }

    const bool http = options.transport.isEmpty() ? clientSpeaksHttp(client) : options.transport == u"http";
    if (!options.transport.isEmpty() && options.transport != u"http" && options.transport != u"stdio") {
        printError(u"connect --transport takes stdio or http, not '%1'"_s.arg(options.transport));
        return Failure;
    }
    if (http && !clientSpeaksHttp(client)) {
        printError(u"%1 starts its servers itself and reads no url from %2: connect it without --transport http"_s.arg(title, path));
        return Failure;
    }
    const ConfigSource config = options.config.source;
    QString error;
    // A preview makes nothing, not even the token. The URL is where the config has the gateway listen.
    const GatewayHttpConfig gatewayHttp = http ? loadConfig(config.path, programConfigContext()).gateway.http
                                               : GatewayHttpConfig();
    const std::optional<GatewayReach> reach =
        gatewayReach(http, QCoreApplication::applicationFilePath(), config, gatewayHttp, !options.dryRun, &error);
    if (!reach) {
        printError(error + u"; nothing was written"_s);
        return Failure;
    }

    const ClientFile before = readClientFile(path);
    if (!before.error.isEmpty()) {
        printError(before.error);
        return Failure;
    }
    std::optional<QList<ServerConfig>> moveMatching;
    if (options.move) {
        const std::optional<QByteArray> tetherConfig = readConfigFile(config.path, &error);
        if (!tetherConfig) {
            printError(error + u"; --move needs Tether's config to know which servers it runs, so nothing was written"_s);
            return Failure;
        }
        moveMatching = serversAsWritten(*tetherConfig, config.path);
    }
    const ConnectPlan plan = planConnect(before.content, path, client, *reach, moveMatching);
    if (!plan.error.isEmpty()) {
        printError(plan.error);
        return Failure;
    }
    // Only clients that prefix the names can find one of them too long.
    const QStringList longNames = clientToolNameBudget(client) < 64 ? namesOverBudget(client, offeredToolNames(options.config))
                                                                    : QStringList();
    printOut(connectPreview(path, client, plan, *reach, longNames, before.readableByOthers()));
    if (options.dryRun) {
        printOut(u"Nothing was written (--dry-run)."_s);
        return Success;
    }
    if (plan.after == before.content) {
        printOut(u"%1 has that entry already: nothing to write."_s.arg(path));
        return Success;
    }
    if (!applyConnect(path, client, before, plan, &error)) {
        printError(error);
        return Failure;
    }
    if (!before.exists) {
        printOut(u"Wrote %1, which did not exist (tetherctl connect %2 --undo removes it)."_s.arg(
            path, connectClientName(client)));
        return Success;
    }
    printOut(u"Wrote %1; its previous content is kept in %2 (tetherctl connect %3 --undo takes it back)."_s.arg(
        path, connectStateFolder(), connectClientName(client)));
    return Success;
}

} // namespace Tether::Ctl
