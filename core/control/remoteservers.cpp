#include "remoteservers.h"

#include "common/logging.h"
#include "protocol/clientside.h"

#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// The JSON-RPC error of a reply as a call's, read, or prompt's error.
JsonRpc::Error errorOf(const ControlReply &reply)
{
    return reply.error ? *reply.error : JsonRpc::Error{JsonRpc::InvalidReply, u"no answer"_s, {}};
}

bool sameEvent(const ServerEvent &a, const ServerEvent &b)
{
    return a.time == b.time && a.server == b.server && a.kind == b.kind && a.text == b.text;
}

} // namespace

RemoteServers::RemoteServers(std::unique_ptr<ControlClient> instance, const ConfigStore &config, QObject *parent)
    : ServerSource(parent)
    , m_client(std::move(instance))
    , m_config(config)
{
    connect(m_client.get(), &ControlClient::notified, this, &RemoteServers::onNotified);
    connect(m_client.get(), &ControlClient::lost, this, &RemoteServers::lost);
    m_client->setRequestHandler([this](const QJsonValue &id, const QString &, const QJsonObject &question) {
        onAsked(id, question);
    });
    // Which tools are hidden is read from the file, which the window follows itself.
    connect(&m_config, &ConfigStore::documentChanged, this, [this] {
        for (const QString &name : std::as_const(m_order))
            emit toolSwitchesChanged(name);
    });
}

RemoteServers::~RemoteServers() = default;

void RemoteServers::start()
{
    m_client->request(Control::Subscribe, {{u"statuses"_s, true}, {u"events"_s, true}}, [this](const ControlReply &reply) {
        if (reply.error) {
            spdlog::warn("attached: the Tether that runs the config refused to be watched: {}", reply.error->message);
            return;
        }
        takeServers(Control::serverViewsFromJson(reply.result.value(u"servers").toArray()));
        fetchTools({});
        fetchCatalogs({});
        fetchLog();
        emit ready();
    });
}

void RemoteServers::takeServers(const QList<Control::ServerView> &servers)
{
    QStringList order;
    for (const Control::ServerView &server : servers)
        order.append(server.status.name);
    const QStringList previous = m_order;
    for (const QString &name : previous) {
        if (order.contains(name))
            continue;
        m_statuses.remove(name);
        m_catalogs.remove(name);
        m_registry.unregisterServer(name);
        m_eventLog.forget(name);
        m_order.removeOne(name);
        emit serverRemoved(name);
    }
    for (const Control::ServerView &server : servers)
        takeStatus(server.status, true);
    m_order = order;
}

void RemoteServers::takeStatus(const ServerStatus &status, bool stateChange)
{
    const bool added = !m_statuses.contains(status.name);
    m_statuses.insert(status.name, status);
    if (added) {
        if (!m_order.contains(status.name))
            m_order.append(status.name);
        emit serverAdded(status.name);
    }
    emit statusChanged(status);
    if (stateChange || added)
        emit stateChanged(status);
}

QList<std::shared_ptr<ClientSide>> RemoteServers::callers() const
{
    QList<std::shared_ptr<ClientSide>> callers;
    for (const auto &[ticket, call] : m_calls) {
        if (const std::shared_ptr<ClientSide> caller = call.origin.lock(); caller && !callers.contains(caller))
            callers.append(caller);
    }
    return callers;
}

void RemoteServers::onAsked(const QJsonValue &id, const QJsonObject &question)
{
    const ServerRequest request = Control::askedRequest(question);
    // The instance asks this connection, not one call of it: which call is meant is clear only
    // while the calls running are all of one part of the window.
    const QList<std::shared_ptr<ClientSide>> running = callers();
    if (running.size() != 1) {
        m_client->respond(id, RpcReply::failure(JsonRpc::InternalError,
                                                running.isEmpty()
                                                    ? tr("no call of this window is running to answer %1").arg(request.method)
                                                    : tr("calls from several parts of this window are running on %1, and "
                                                         "which one should answer its %2 cannot be told")
                                                          .arg(request.serverName, request.method)));
        return;
    }
    const qint64 key = id.toInteger();
    m_asked[key] = Asked{running.first(), 0}; // before it is asked, which may answer at once
    const QPointer<RemoteServers> self(this);
    const quint64 handle = running.first()->serverRequest(
        request,
        [self, id, key](const RpcReply &answer) {
            if (!self)
                return;
            self->m_asked.erase(key);
            self->m_client->respond(id, answer);
        },
        {});
    if (const auto asked = m_asked.find(key); asked != m_asked.end())
        asked->second.handle = handle;
}

void RemoteServers::onNotified(const QString &method, const QJsonObject &params)
{
    if (method == Control::AskCancelled) {
        const auto asked = m_asked.find(params.value(u"id").toInteger());
        if (asked == m_asked.end())
            return;
        const Asked taken = asked->second;
        m_asked.erase(asked);
        if (const std::shared_ptr<ClientSide> caller = taken.caller.lock())
            caller->cancelServerRequest(taken.handle, params.value(u"reason").toString());
        return;
    }
    if (method == Control::AskNotification) {
        for (const std::shared_ptr<ClientSide> &caller : callers())
            caller->serverNotification(params.value(u"server").toString(), params.value(u"method").toString(),
                                       params.value(u"params").toObject());
        return;
    }
    if (method == Control::StatusChanged) {
        takeStatus(Control::serverStatusFromJson(params.value(u"status").toObject()), params.value(u"stateChanged").toBool());
    } else if (method == Control::EventAppended) {
        const ServerEvent event = Control::serverEventFromJson(params.value(u"event").toObject());
        // How late the window learns of a change: tether-window-bench reads these lines.
        if (event.kind == ServerEvent::Kind::StateChange) {
            spdlog::info("attached: server '{}' is {}, {} ms after the Tether that runs it", event.server,
                         stateName(event.status.state), event.time.msecsTo(QDateTime::currentDateTimeUtc()));
        }
        if (m_earlyEvents)
            m_earlyEvents->append(event);
        else
            m_eventLog.append(event);
    } else if (method == Control::ToolsChanged) {
        fetchTools(params.value(u"server").toString());
    } else if (method == Control::CatalogChanged) {
        fetchCatalogs(params.value(u"server").toString());
    } else if (method == Control::ServersChanged) {
        m_client->request(Control::Status, {}, [this](const ControlReply &reply) {
            if (!reply.error)
                takeServers(Control::serverViewsFromJson(reply.result.value(u"servers").toArray()));
        });
    }
}

void RemoteServers::fetchTools(const QString &server)
{
    QJsonObject params;
    if (!server.isEmpty())
        params.insert(u"server", server);
    m_client->request(Control::Tools, params, [this, server](const ControlReply &reply) {
        if (reply.error)
            return;
        QHash<QString, QList<ToolDefinition>> byServer;
        QHash<QString, bool> available;
        for (const QJsonValue &item : reply.result.value(u"tools").toArray()) {
            if (std::optional<RegisteredTool> tool = Control::registeredToolFromJson(item.toObject())) {
                byServer[tool->serverName].append(tool->definition);
                available.insert(tool->serverName, tool->available);
            }
        }
        const QStringList servers = server.isEmpty() ? m_order : QStringList{server};
        for (const QString &name : servers) {
            if (byServer.value(name).isEmpty()) {
                m_registry.unregisterServer(name);
                continue;
            }
            m_registry.replaceServerTools(name, byServer.value(name));
            m_registry.setServerAvailable(name, available.value(name, true));
        }
    });
}

void RemoteServers::fetchCatalogs(const QString &server)
{
    QJsonObject params;
    if (!server.isEmpty())
        params.insert(u"server", server);
    m_client->request(Control::Catalogs, params, [this](const ControlReply &reply) {
        if (reply.error)
            return;
        for (const QJsonValue &item : reply.result.value(u"catalogs").toArray()) {
            QString name;
            ServerCatalog catalog = Control::serverCatalogFromJson(item.toObject(), &name);
            m_catalogs.insert(name, std::move(catalog));
            emit catalogChanged(name);
        }
    });
}

void RemoteServers::fetchLog()
{
    m_client->request(Control::Logs, {{u"limit"_s, EventLog::DefaultCapPerServer}}, [this](const ControlReply &reply) {
        QList<ServerEvent> log;
        for (const QJsonValue &item : reply.result.value(u"events").toArray())
            log.append(Control::serverEventFromJson(item.toObject()));
        for (const ServerEvent &event : std::as_const(log))
            m_eventLog.append(event);
        const QList<ServerEvent> early = m_earlyEvents.value_or(QList<ServerEvent>());
        m_earlyEvents.reset();
        for (const ServerEvent &event : early) {
            const bool logged = std::any_of(log.cbegin(), log.cend(), [&event](const ServerEvent &held) { return sameEvent(held, event); });
            if (!logged)
                m_eventLog.append(event);
        }
    });
}

const ServerConfig *RemoteServers::serverConfig(const QString &name) const
{
    return m_config.document().server(name);
}

std::optional<ServerStatus> RemoteServers::status(const QString &name) const
{
    const auto found = m_statuses.constFind(name);
    return found == m_statuses.cend() ? std::nullopt : std::optional<ServerStatus>(*found);
}

QList<ServerStatus> RemoteServers::statuses() const
{
    QList<ServerStatus> statuses;
    statuses.reserve(m_order.size());
    for (const QString &name : m_order)
        statuses.append(m_statuses.value(name));
    return statuses;
}

SignInInfo RemoteServers::signInInfo(const QString &) const
{
    return {};
}

void RemoteServers::signIn(const QString &name, const QStringList &, std::function<void(const QUrl &)>,
                           std::function<void(bool, const QString &)> done)
{
    done(false, tr("The Tether (pid %1) that runs %2 signs in for it: run %3, or sign in in its window")
                    .arg(instance().pid)
                    .arg(instance().configPath, signInCommand(name)));
}

void RemoteServers::signOut(const QString &name, std::function<void(bool, const QString &)> done)
{
    done(false, tr("The Tether (pid %1) that runs %2 signs out for it: run tetherctl logout %3")
                    .arg(instance().pid)
                    .arg(instance().configPath, name));
}

void RemoteServers::command(QStringView method, const QStringList &servers)
{
    QJsonObject params;
    if (!servers.isEmpty())
        params.insert(u"servers", QJsonArray::fromStringList(servers));
    m_client->request(method, params, [method = method.toString()](const ControlReply &reply) {
        if (reply.error)
            spdlog::warn("attached: {} was refused: {}", method, reply.error->message);
    });
}

void RemoteServers::start(const QString &name)
{
    command(Control::Start, {name});
}

void RemoteServers::stop(const QString &name)
{
    command(Control::Stop, {name});
}

void RemoteServers::reconnect(const QString &name)
{
    command(Control::Reconnect, {name});
}

void RemoteServers::setEnabled(const QString &name, bool enabled)
{
    command(enabled ? Control::Enable : Control::Disable, {name});
}

void RemoteServers::reconnectAll()
{
    QStringList running;
    for (const ServerStatus &status : statuses()) {
        if (status.state != ServerState::Stopped && status.state != ServerState::Stopping)
            running.append(status.name);
    }
    if (!running.isEmpty())
        command(Control::Reconnect, running);
}

void RemoteServers::retryFailed()
{
    command(Control::RetryFailed, {});
}

ToolCallTicket RemoteServers::callTool(const QString &serverName, const QString &toolName, const ToolCallInput &input,
                                       ToolCallHandler handler, ProgressHandler, CallOptions)
{
    const quint64 ticket = m_nextTicket++;
    m_calls.emplace(ticket, Call{0, std::move(handler), input.origin});
    const qint64 requestId = m_client->request(
        Control::Call, {{u"server"_s, serverName}, {u"tool"_s, toolName}, {u"arguments"_s, input.arguments}},
        [this, ticket](const ControlReply &reply) {
            const auto call = m_calls.find(ticket);
            if (call == m_calls.end())
                return; // cancelled here already
            const ToolCallHandler answer = std::move(call->second.handler);
            m_calls.erase(call);
            ToolCallReply toolReply;
            QString error;
            if (reply.error) {
                toolReply.error = reply.error;
            } else if (std::optional<ToolCallResult> result = parseToolCallResult(reply.result, &error)) {
                toolReply.result = *result;
            } else {
                toolReply.error = JsonRpc::Error{JsonRpc::InvalidReply, error, {}};
            }
            answer(toolReply);
        });
    if (const auto call = m_calls.find(ticket); call != m_calls.end())
        call->second.requestId = requestId;
    return {ticket};
}

bool RemoteServers::cancelToolCall(ToolCallTicket ticket, const QString &reason)
{
    const auto call = m_calls.find(ticket.id);
    if (call == m_calls.end())
        return false;
    const Call cancelled = std::move(call->second);
    m_calls.erase(call);
    m_client->request(Control::Cancel, {{u"id"_s, cancelled.requestId}, {u"reason"_s, reason}}, [](const ControlReply &) {});
    // Answered before this returns, as the manager's calls are.
    cancelled.handler(ToolCallReply::failure(JsonRpc::RequestCancelled,
                                             reason.isEmpty() ? tr("cancelled by the user") : reason));
    return true;
}

void RemoteServers::readResource(const QString &serverName, const QString &uri, ResourceReadHandler handler)
{
    m_client->request(Control::Read, {{u"server"_s, serverName}, {u"uri"_s, uri}},
                      [handler = std::move(handler)](const ControlReply &reply) {
                          ResourceReadReply read;
                          QString error;
                          if (reply.error)
                              read.error = errorOf(reply);
                          else if (std::optional<QList<ResourceContents>> contents = parseResourceReadResult(reply.result, &error))
                              read.contents = *contents;
                          else
                              read.error = JsonRpc::Error{JsonRpc::InvalidReply, error, {}};
                          handler(read);
                      });
}

void RemoteServers::getPrompt(const QString &serverName, const QString &promptName, const QJsonObject &arguments,
                              PromptHandler handler)
{
    m_client->request(Control::Prompt, {{u"server"_s, serverName}, {u"name"_s, promptName}, {u"arguments"_s, arguments}},
                      [handler = std::move(handler)](const ControlReply &reply) {
                          PromptReply prompt;
                          QString error;
                          if (reply.error)
                              prompt.error = errorOf(reply);
                          else if (std::optional<PromptResult> result = parsePromptResult(reply.result, &error))
                              prompt.result = *result;
                          else
                              prompt.error = JsonRpc::Error{JsonRpc::InvalidReply, error, {}};
                          handler(prompt);
                      });
}

} // namespace Tether
