#include "catalogcommands.h"

#include "configrun.h"
#include "exitstatus.h"
#include "instancelink.h"
#include "oneshotconnection.h"
#include "output.h"
#include "servertarget.h"

#include "config/serverconfig.h"

#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

namespace {

// What one server offers; `server` is empty when only one server was asked, and is then
// neither a column nor a JSON key.
struct NamedCatalog
{
    QString server;
    ServerCatalog catalog;
};

QString firstLine(const QString &text)
{
    return text.section(u'\n', 0, 0).trimmed();
}

QJsonObject withServer(QJsonObject entry, const QString &server)
{
    if (!server.isEmpty())
        entry.insert(u"server", server);
    return entry;
}

QStringList row(const QString &server, const QStringList &cells)
{
    return server.isEmpty() ? cells : QStringList{server} + cells;
}

void printResources(const QList<NamedCatalog> &catalogs, bool json, bool serverColumn)
{
    if (json) {
        QJsonArray resources;
        QJsonArray templates;
        for (const NamedCatalog &named : catalogs) {
            for (const ResourceDefinition &resource : named.catalog.resources)
                resources.append(withServer(resource.raw, named.server));
            for (const ResourceTemplate &resourceTemplate : named.catalog.templates)
                templates.append(withServer(resourceTemplate.raw, named.server));
        }
        printJson(QJsonDocument(QJsonObject{{u"resources"_s, resources}, {u"resourceTemplates"_s, templates}}));
        return;
    }
    const QString serverHeading = serverColumn ? u"SERVER"_s : QString();
    QList<QStringList> table{row(serverHeading, {u"URI"_s, u"NAME"_s, u"TYPE"_s, u"DESCRIPTION"_s})};
    for (const NamedCatalog &named : catalogs) {
        const QString server = serverColumn ? named.server : QString();
        for (const ResourceDefinition &resource : named.catalog.resources)
            table.append(row(server, {resource.uri, resource.name, resource.mimeType, firstLine(resource.description)}));
        // A template is a URI with {placeholders}: read fills them in.
        for (const ResourceTemplate &resourceTemplate : named.catalog.templates)
            table.append(row(server, {resourceTemplate.uriTemplate, resourceTemplate.name, resourceTemplate.mimeType,
                                      firstLine(resourceTemplate.description)}));
    }
    if (table.size() == 1)
        printOut(u"(no resources)"_s);
    else
        printOut(formatColumns(table));
}

QString argumentList(const PromptDefinition &prompt)
{
    QStringList names;
    for (const PromptArgument &argument : prompt.arguments)
        names.append(argument.required ? argument.name + u'*' : argument.name);
    return names.isEmpty() ? u"-"_s : names.join(u", "_s);
}

void printPrompts(const QList<NamedCatalog> &catalogs, bool json, bool serverColumn)
{
    if (json) {
        QJsonArray prompts;
        for (const NamedCatalog &named : catalogs) {
            for (const PromptDefinition &prompt : named.catalog.prompts)
                prompts.append(withServer(prompt.raw, named.server));
        }
        printJson(QJsonDocument(prompts));
        return;
    }
    const QString serverHeading = serverColumn ? u"SERVER"_s : QString();
    QList<QStringList> table{row(serverHeading, {u"NAME"_s, u"ARGUMENTS (* required)"_s, u"DESCRIPTION"_s})};
    for (const NamedCatalog &named : catalogs) {
        const QString server = serverColumn ? named.server : QString();
        for (const PromptDefinition &prompt : named.catalog.prompts)
            table.append(row(server, {prompt.name, argumentList(prompt), firstLine(prompt.description)}));
    }
    if (table.size() == 1)
        printOut(u"(no prompts)"_s);
    else
        printOut(formatColumns(table));
}

// Text as it is; bytes of a text type as UTF-8 text; other bytes summarised (--json has them).
void printContents(const QList<ResourceContents> &contents, bool json)
{
    if (json) {
        QJsonArray parts;
        for (const ResourceContents &part : contents) {
            QJsonObject object{{u"uri"_s, part.uri}};
            if (!part.mimeType.isEmpty())
                object.insert(u"mimeType", part.mimeType);
            if (part.text)
                object.insert(u"text", *part.text);
            else
                object.insert(u"blob", QString::fromLatin1(part.blob.toBase64()));
            parts.append(object);
        }
        printJson(QJsonDocument(QJsonObject{{u"contents"_s, parts}}));
        return;
    }
    QStringList parts;
    for (const ResourceContents &part : contents) {
        if (part.text)
            parts.append(*part.text);
        else if (part.mimeType.startsWith(u"text/"))
            parts.append(QString::fromUtf8(part.blob));
        else
            parts.append(u"[%1: %2, %3 bytes; --json gives them as base64]"_s.arg(
                part.uri, part.mimeType.isEmpty() ? u"binary"_s : part.mimeType).arg(part.blob.size()));
    }
    printOut(parts.join(u'\n'));
}

void printPrompt(const PromptResult &result, bool json)
{
    if (json) {
        printJson(QJsonDocument(result.raw));
        return;
    }
    const QString messages = renderPromptMessages(result.messages);
    printOut(result.description.isEmpty() ? messages : result.description + u"\n\n"_s + messages);
}

// The server's catalog as one connection lists it; the exit status instead when it could not.
template<typename Reply>
std::optional<Reply> listed(OneShotConnection &connection, const CommonOptions &options,
                            std::optional<Reply> (OneShotConnection::*list)(), std::optional<int> *exitStatus)
{
    if (!connection.open()) {
        *exitStatus = connection.interruption().exitStatus().value_or(Failure);
        return std::nullopt;
    }
    std::optional<Reply> reply = (connection.*list)();
    if (const std::optional<int> interrupted = connection.interruption().exitStatus()) {
        *exitStatus = interrupted;
        return std::nullopt;
    }
    if (!reply || reply->error) {
        printError(u"server '%1': %2"_s.arg(options.target.name, reply ? reply->error->message : connection.failure()));
        *exitStatus = Failure;
        return std::nullopt;
    }
    return reply;
}

} // namespace

int listResources(const CommonOptions &options)
{
    OneShotConnection connection(options);
    std::optional<int> exitStatus;
    const std::optional<ResourceListReply> reply = listed(connection, options, &OneShotConnection::listResources, &exitStatus);
    if (!reply)
        return *exitStatus;
    if (!connection.offers(u"resources") && !options.json) {
        printOut(u"(server '%1' offers no resources)"_s.arg(options.target.name));
        return Success;
    }
    ServerCatalog catalog;
    catalog.resources = reply->resources;
    catalog.templates = reply->templates;
    printResources({{{}, catalog}}, options.json, false);
    return Success;
}

int listPrompts(const CommonOptions &options)
{
    OneShotConnection connection(options);
    std::optional<int> exitStatus;
    const std::optional<PromptListReply> reply = listed(connection, options, &OneShotConnection::listPrompts, &exitStatus);
    if (!reply)
        return *exitStatus;
    if (!connection.offers(u"prompts") && !options.json) {
        printOut(u"(server '%1' offers no prompts)"_s.arg(options.target.name));
        return Success;
    }
    ServerCatalog catalog;
    catalog.prompts = reply->prompts;
    printPrompts({{{}, catalog}}, options.json, false);
    return Success;
}

int readResource(const CommonOptions &options, const QString &uri)
{
    OneShotConnection connection(options);
    if (!connection.open())
        return connection.interruption().exitStatus().value_or(Failure);
    const std::optional<ResourceReadReply> reply = connection.readResource(uri);
    if (const std::optional<int> interrupted = connection.interruption().exitStatus())
        return *interrupted;
    if (!reply || reply->error) {
        printError(u"reading '%1' from server '%2' failed: %3"_s.arg(
            uri, options.target.name, reply ? reply->error->message : connection.failure()));
        return Failure;
    }
    printContents(reply->contents, options.json);
    return Success;
}

int getPrompt(const CommonOptions &options, const QString &name, const QJsonObject &arguments)
{
    OneShotConnection connection(options);
    if (!connection.open())
        return connection.interruption().exitStatus().value_or(Failure);
    const std::optional<PromptReply> reply = connection.getPrompt(name, arguments);
    if (const std::optional<int> interrupted = connection.interruption().exitStatus())
        return *interrupted;
    if (!reply || reply->error) {
        printError(u"getting the prompt '%1' from server '%2' failed: %3"_s.arg(
            name, options.target.name, reply ? reply->error->message : connection.failure()));
        return Failure;
    }
    printPrompt(reply->result, options.json);
    return Success;
}

namespace {

// The catalogs of the connected servers, once listed, and the state of every server asked about
// (`statuses`), with the servers still running; the exit status instead when the command cannot go
// on (the config cannot be used, a signal came: the servers are then stopped).
std::optional<int> connectedCatalogs(ConfigRun &run, const Interruption &interruption, QList<NamedCatalog> *catalogs,
                                     QList<ServerStatus> *statuses)
{
    if (const std::optional<int> status = startAndSettle(run, interruption, OwnRun::SaySo))
        return status;
    run.waitForCatalogs();
    if (interruption.happened()) {
        run.shutDown();
        return interruption.exitStatus();
    }
    *statuses = run.manager().statuses();
    for (const ServerStatus &status : std::as_const(*statuses)) {
        if (isUp(status))
            catalogs->append({status.name, run.manager().catalog(status.name)});
    }
    return std::nullopt;
}

// The same from the instance that runs the config; the exit status instead when it cannot be asked.
std::optional<int> connectedCatalogs(ControlClient &instance, const ConfigOptions &options, QList<NamedCatalog> *catalogs,
                                     QList<ServerStatus> *statuses)
{
    int exitStatus = Success;
    const std::optional<QJsonObject> status = askInstance(instance, Control::Status, {}, {}, &exitStatus);
    const std::optional<QJsonObject> listed =
        status ? askInstance(instance, Control::Catalogs, {}, {}, &exitStatus) : std::nullopt;
    if (!listed)
        return exitStatus;
    QStringList connected;
    QStringList known;
    for (const Control::ServerView &server : Control::serverViewsFromJson(status->value(u"servers").toArray())) {
        known.append(server.status.name);
        if (!options.servers.isEmpty() && !options.servers.contains(server.status.name))
            continue;
        statuses->append(server.status);
        if (isUp(server.status))
            connected.append(server.status.name);
    }
    for (const QString &name : options.servers) {
        if (!known.contains(name)) {
            printError(noServerNamedText(instance.instance().configPath, name, known));
            return Failure;
        }
    }
    for (const QJsonValue &item : listed->value(u"catalogs").toArray()) {
        QString server;
        ServerCatalog catalog = Control::serverCatalogFromJson(item.toObject(), &server);
        if (connected.contains(server))
            catalogs->append({server, std::move(catalog)});
    }
    return std::nullopt;
}

// The one server whose catalog says yes to `offers`, or why there is none.
QString serverOffering(const QList<NamedCatalog> &catalogs, const std::function<bool(const ServerCatalog &)> &offers,
                       QString *error, const QString &what, const QString &fix)
{
    QStringList servers;
    for (const NamedCatalog &named : catalogs) {
        if (offers(named.catalog))
            servers.append(named.server);
    }
    if (servers.size() == 1)
        return servers.first();
    *error = servers.isEmpty() ? u"no connected server offers %1"_s.arg(what)
                               : u"%1 is offered by several servers (%2); %3"_s.arg(what, servers.join(u", "_s), fix);
    return {};
}


// Every connected server's list of one kind (`listed`: "resources"), printed by `print`; on stderr,
// each server asked about that is not connected, as `tools` names it, and why a list failed (its
// `error`).
int listCatalogs(const ConfigOptions &options, const QString &listed, QString ServerCatalog::*error,
                 void (*print)(const QList<NamedCatalog> &, bool json, bool serverColumn))
{
    QList<NamedCatalog> catalogs;
    QList<ServerStatus> statuses;
    const InstanceLink instance = linkToInstance(options);
    if (instance.refused)
        return Failure;
    if (instance.client) {
        if (const std::optional<int> status = connectedCatalogs(*instance.client, options, &catalogs, &statuses))
            return *status;
    } else {
        Interruption interruption;
        ConfigRun run(options, &interruption);
        if (const std::optional<int> status = connectedCatalogs(run, interruption, &catalogs, &statuses))
            return *status;
        run.shutDown();
    }
    const bool unreachable = nameServersNotListed(options, statuses, listed,
                                                  instance.client ? ReasonReader::Attached : ReasonReader::OwnRun);
    if (unreachable && !options.servers.isEmpty())
        return ServersDown;
    bool failed = false;
    for (const NamedCatalog &named : std::as_const(catalogs)) {
        if (!(named.catalog.*error).isEmpty()) {
            printError(named.catalog.*error);
            failed = true;
        }
    }
    print(catalogs, options.json, true);
    return failed ? Failure : unreachable ? ServersDown : Success;
}

} // namespace

int configResources(const ConfigOptions &options)
{
    return listCatalogs(options, u"resources"_s, &ServerCatalog::resourcesError, printResources);
}

int configPrompts(const ConfigOptions &options)
{
    return listCatalogs(options, u"prompts"_s, &ServerCatalog::promptsError, printPrompts);
}

namespace {

// Runs the config's servers (or the one named), or asks the instance that runs them, picks the
// server with `choose` when none is named (it says why there is none in its error), sends one
// request (with `send`, or to the instance as `method` with `params` and the server's name, its
// result read with `parse`), waits for its reply and has `print` print it.
template<typename Reply>
int askOneServer(const ConfigOptions &options, const QString &serverName,
                 const std::function<QString(const QList<NamedCatalog> &, QString *error)> &choose,
                 const std::function<void(ServerManager &, const QString &server, std::function<void(const Reply &)>)> &send,
                 QStringView method, const QJsonObject &params, const std::function<Reply(const QJsonObject &)> &parse,
                 const std::function<int(const QString &server, const Reply &)> &print)
{
    ConfigOptions scoped = options;
    if (!serverName.isEmpty())
        scoped.servers = {serverName};
    const InstanceLink instance = linkToInstance(scoped);
    if (instance.refused)
        return Failure;
    QList<NamedCatalog> catalogs;
    QList<ServerStatus> statuses;
    std::optional<Interruption> interruption;
    std::optional<ConfigRun> run;
    if (instance.client) {
        if (const std::optional<int> status = connectedCatalogs(*instance.client, scoped, &catalogs, &statuses))
            return *status;
    } else {
        interruption.emplace();
        run.emplace(scoped, &*interruption);
        if (const std::optional<int> status = connectedCatalogs(*run, *interruption, &catalogs, &statuses))
            return *status;
    }
    // The server named is asked: it must be up. Unnamed, one is chosen among those that are.
    bool failed = false;
    for (const ServerStatus &status : std::as_const(statuses)) {
        if (scoped.servers.contains(status.name) && !isUp(status)) {
            printError(u"server '%1' is not connected: %2"_s.arg(
                status.name, reasonFor(status.reason, status.name,
                                       instance.client ? ReasonReader::Attached : ReasonReader::OwnRun)));
            failed = true;
        }
    }
    QString error;
    const QString server = failed || !serverName.isEmpty() ? serverName : choose(catalogs, &error);
    if (failed || server.isEmpty()) {
        if (run)
            run->shutDown();
        if (!error.isEmpty()) {
            // What the servers that are not up offer is not known: they are named.
            QStringList notUp;
            for (const ServerStatus &status : std::as_const(statuses)) {
                if (counts(status) && !isUp(status))
                    notUp.append(status.name);
            }
            if (!notUp.isEmpty())
                error += u" (not connected, so not asked: %1)"_s.arg(notUp.join(u", "_s));
            printError(error);
        }
        return Failure;
    }
    std::optional<Reply> reply;
    if (instance.client) {
        QJsonObject request = params;
        request.insert(u"server", server);
        int exitStatus = Success;
        const std::optional<ControlReply> answer =
            askInstanceForReply(*instance.client, method, request, &exitStatus, options.timeout);
        if (!answer)
            return exitStatus;
        reply = answer->error ? Reply{} : parse(answer->result);
        if (answer->error)
            reply->error = answer->error;
        return print(server, *reply);
    }
    QEventLoop loop;
    QObject::connect(&*interruption, &Interruption::interrupted, &loop, &QEventLoop::quit);
    send(run->manager(), server, [&](const Reply &received) {
        reply = received;
        loop.quit();
    });
    if (!reply && !interruption->happened())
        loop.exec();
    run->shutDown();
    if (const std::optional<int> interrupted = interruption->exitStatus())
        return *interrupted;
    return print(server, *reply);
}

} // namespace

int configRead(const ConfigOptions &options, const QString &serverName, const QString &uri)
{
    const QString fix = u"name the server: tetherctl read SERVER URI"_s;
    const auto choose = [&](const QList<NamedCatalog> &catalogs, QString *error) {
        // The server that lists the URI, else the one server that has resources at all.
        QString server = serverOffering(catalogs, [&uri](const ServerCatalog &catalog) {
            return std::any_of(catalog.resources.cbegin(), catalog.resources.cend(),
                               [&uri](const ResourceDefinition &resource) { return resource.uri == uri; });
        }, error, u"the resource '%1'"_s.arg(uri), fix);
        if (server.isEmpty())
            server = serverOffering(catalogs, [](const ServerCatalog &catalog) { return catalog.offersResources; },
                                    error, u"resources"_s, fix);
        error->prepend(u"cannot read '%1': "_s.arg(uri));
        return server;
    };
    return askOneServer<ResourceReadReply>(
        options, serverName, choose,
        [&uri](ServerManager &manager, const QString &server, ResourceReadHandler done) {
            manager.readResource(server, uri, std::move(done));
        },
        Control::Read, QJsonObject{{u"uri"_s, uri}},
        [](const QJsonObject &result) {
            ResourceReadReply reply;
            QString error;
            if (std::optional<QList<ResourceContents>> contents = parseResourceReadResult(result, &error))
                reply.contents = *contents;
            else
                reply.error = JsonRpc::Error{JsonRpc::InvalidReply, error, {}};
            return reply;
        },
        [&](const QString &server, const ResourceReadReply &reply) {
            if (reply.error) {
                printError(u"reading '%1' from server '%2' failed: %3"_s.arg(uri, server, reply.error->message));
                return int(Failure);
            }
            printContents(reply.contents, options.json);
            return int(Success);
        });
}

int configPrompt(const ConfigOptions &options, const QString &serverName, const QString &name,
                 const QJsonObject &arguments)
{
    const auto choose = [&](const QList<NamedCatalog> &catalogs, QString *error) {
        const QString server = serverOffering(catalogs, [&name](const ServerCatalog &catalog) {
            return std::any_of(catalog.prompts.cbegin(), catalog.prompts.cend(),
                               [&name](const PromptDefinition &prompt) { return prompt.name == name; });
        }, error, u"the prompt '%1'"_s.arg(name), u"name the server: tetherctl prompt SERVER NAME"_s);
        error->prepend(u"cannot get the prompt '%1': "_s.arg(name));
        return server;
    };
    return askOneServer<PromptReply>(
        options, serverName, choose,
        [&](ServerManager &manager, const QString &server, PromptHandler done) {
            manager.getPrompt(server, name, arguments, std::move(done));
        },
        Control::Prompt, QJsonObject{{u"name"_s, name}, {u"arguments"_s, arguments}},
        [](const QJsonObject &result) {
            PromptReply reply;
            QString error;
            if (std::optional<PromptResult> parsed = parsePromptResult(result, &error))
                reply.result = *parsed;
            else
                reply.error = JsonRpc::Error{JsonRpc::InvalidReply, error, {}};
            return reply;
        },
        [&](const QString &server, const PromptReply &reply) {
            if (reply.error) {
                printError(u"getting the prompt '%1' from server '%2' failed: %3"_s.arg(name, server, reply.error->message));
                return int(Failure);
            }
            printPrompt(reply.result, options.json);
            return int(Success);
        });
}

} // namespace Tether::Ctl
