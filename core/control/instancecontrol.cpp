#include "instancecontrol.h"

#include "gateway/stdiohostchannel.h"
#include "config/serverconfig.h"
#include "manager/servermanager.h"
#include "protocol/jsonrpc.h"
#include "protocol/clientside.h"
#include "protocol/jsonrpcpeer.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QPointer>

#include <map>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

constexpr int DefaultLogLimit = 200;

QByteArray errorMessage(const QJsonValue &id, int code, const QString &message, const QJsonValue &data = {})
{
    QJsonObject error{{u"code"_s, code}, {u"message"_s, message}};
    if (!data.isUndefined() && !data.isNull())
        error.insert(u"data"_s, data);
    return JsonRpc::serialize(QJsonObject{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, id}, {u"error"_s, error}});
}

class ControlSession;

// The client's part of MCP for the calls of one connection: what a server asks while one of them
// runs (elicitation, sampling) is asked of that tetherctl or window (tether/ask), which answers it
// on its terminal or in its window.
class AskingClientSide final : public ClientSide
{
public:
    explicit AskingClientSide(ControlSession *session)
        : m_session(session)
    {
    }
    QString clientLabel() const override;
    quint64 serverRequest(const ServerRequest &request, ReplyHandler reply, ProgressHandler onProgress) override;
    void cancelServerRequest(quint64 handle, const QString &reason) override;
    void serverNotification(const QString &serverName, const QString &method, const QJsonObject &params) override;

private:
    QPointer<ControlSession> m_session;
};

// One connection of a tetherctl or a window: its requests answered, its subscription fed. A
// child of its channel, it goes with it; calls it made that are still running are cancelled.
class ControlSession final : public QObject
{
public:
    ControlSession(ServerManager &manager, StdioHostChannel *channel, Control::InstanceInfo info,
                   const InstanceControl::Reload &reload)
        : QObject(channel)
        , m_manager(manager)
        , m_channel(channel)
        , m_info(std::move(info))
        , m_reload(reload)
    {
        connect(channel, &StdioHostChannel::messageReceived, this, &ControlSession::receive);
    }

    ~ControlSession() override
    {
        // Its channel has gone already (the session is its child): nothing is sent from here on,
        // not the cancelled calls' answers, nor the events their cancellation logs.
        m_ending = true;
        disconnect(&m_manager, nullptr, this, nullptr);
        disconnect(&m_manager.eventLog(), nullptr, this, nullptr);
        disconnect(&m_manager.registry(), nullptr, this, nullptr);
        const auto calls = std::exchange(m_calls, {});
        for (const auto &[id, ticket] : calls)
            m_manager.cancelToolCall(ticket, u"the tetherctl or window that made the call went away"_s);
        for (const auto &[id, reply] : std::exchange(m_asked, {}))
            reply(RpcReply::failure(JsonRpc::InternalError, u"the tetherctl or window asked went away"_s));
    }

    QString clientLabel() const { return m_clientName; }

    // A server's request, asked of this connection's client; its answer comes to receive().
    quint64 ask(const ServerRequest &request, ReplyHandler reply)
    {
        if (m_ending) {
            reply(RpcReply::failure(JsonRpc::InternalError, u"the tetherctl or window asked went away"_s));
            return 0;
        }
        const qint64 id = m_nextAsk++;
        m_asked.emplace(id, std::move(reply));
        send(JsonRpc::serialize(JsonRpc::makeRequest(id, Control::Ask.toString(), Control::askParams(request))));
        return quint64(id);
    }

    void cancelAsk(quint64 handle, const QString &reason)
    {
        if (m_asked.erase(qint64(handle)))
            notify(Control::AskCancelled, {{u"id"_s, qint64(handle)}, {u"reason"_s, reason}});
    }

    void passOn(const QString &serverName, const QString &method, const QJsonObject &params)
    {
        notify(Control::AskNotification, {{u"server"_s, serverName}, {u"method"_s, method}, {u"params"_s, params}});
    }

    void receive(const QByteArray &line)
    {
        const JsonRpc::DecodedPayload payload = JsonRpc::decodePayload(line);
        if (!payload.error.isEmpty()) {
            send(errorMessage(QJsonValue::Null, JsonRpc::ParseError,
                              u"not a control request: %1; send one JSON-RPC request per line"_s.arg(payload.error)));
            return;
        }
        for (const QJsonObject &object : payload.messages) {
            const JsonRpc::Message message = JsonRpc::classify(object);
            if (message.kind == JsonRpc::MessageKind::Request)
                handle(message);
            else if (message.kind == JsonRpc::MessageKind::Response || message.kind == JsonRpc::MessageKind::ErrorResponse)
                answered(message);
            else if (message.kind == JsonRpc::MessageKind::Invalid)
                send(errorMessage(QJsonValue::Null, JsonRpc::InvalidRequest, message.invalidReason));
        }
    }

private:
    // The client's answer to what it was asked.
    void answered(const JsonRpc::Message &response)
    {
        const auto asked = m_asked.find(response.id.toInteger(-1));
        if (asked == m_asked.end())
            return; // taken back by the server meanwhile
        const ReplyHandler reply = std::move(asked->second);
        m_asked.erase(asked);
        RpcReply answer;
        if (response.kind == JsonRpc::MessageKind::Response)
            answer.result = response.result;
        else
            answer.error = response.error;
        reply(answer);
    }

    void send(const QByteArray &message)
    {
        if (!m_ending)
            m_channel->send(message, HostChannel::Role::Response, {});
    }
    void answer(const QJsonValue &id, const QJsonValue &result) { send(JsonRpc::serialize(JsonRpc::makeResult(id, result))); }
    void notify(QStringView method, const QJsonObject &params)
    {
        send(JsonRpc::serialize(JsonRpc::makeNotification(method.toString(), params)));
    }

    void handle(const JsonRpc::Message &request)
    {
        const QString &method = request.method;
        if (method == Control::Hello)
            return hello(request);
        if (!m_greeted) {
            return send(errorMessage(request.id, Control::NotHello,
                                     u"send tether/hello first: it tells which control protocol the peer speaks"_s));
        }
        if (method == Control::Status)
            return answer(request.id, QJsonObject{{u"servers"_s, servers()}, {u"callsInFlight"_s, m_manager.callsInFlight()}});
        if (method == Control::Subscribe)
            return subscribe(request);
        if (method == Control::Start || method == Control::Stop || method == Control::Reconnect
            || method == Control::Enable || method == Control::Disable)
            return act(request);
        if (method == Control::RetryFailed) {
            m_manager.retryFailed();
            return answer(request.id, QJsonObject());
        }
        if (method == Control::Reload)
            return reload(request);
        if (method == Control::Tools)
            return tools(request);
        if (method == Control::Call)
            return call(request);
        if (method == Control::Catalogs)
            return catalogs(request);
        if (method == Control::Read)
            return forward(request, u"resources/read"_s, QJsonObject{{u"uri"_s, request.params.value(u"uri")}});
        if (method == Control::Prompt) {
            return forward(request, u"prompts/get"_s,
                           QJsonObject{{u"name"_s, request.params.value(u"name")},
                                       {u"arguments"_s, request.params.value(u"arguments").toObject()}});
        }
        if (method == Control::Logs)
            return logs(request);
        if (method == Control::Cancel)
            return cancel(request);
        send(errorMessage(request.id, JsonRpc::MethodNotFound,
                          u"this Tether (version %1) has no control method %2"_s.arg(QStringLiteral(TETHER_VERSION), method)));
    }

    void hello(const JsonRpc::Message &request)
    {
        const int version = request.params.value(u"protocolVersion").toInt(-1);
        if (version != Control::ProtocolVersion) {
            return send(errorMessage(
                request.id, Control::VersionMismatch,
                u"this Tether (version %1) speaks control protocol %2, not %3; use the tetherctl of the same version"_s
                    .arg(QStringLiteral(TETHER_VERSION))
                    .arg(Control::ProtocolVersion)
                    .arg(request.params.value(u"protocolVersion").toVariant().toString()),
                QJsonObject{{u"supported"_s, QJsonArray{Control::ProtocolVersion}}}));
        }
        m_greeted = true;
        if (const QString name = request.params.value(u"client").toObject().value(u"name").toString(); !name.isEmpty())
            m_clientName = name;
        answer(request.id, QJsonObject{{u"protocolVersion"_s, Control::ProtocolVersion}, {u"instance"_s, Control::toJson(m_info)}});
    }

    QJsonArray servers() const
    {
        QJsonArray array;
        for (const ServerStatus &status : m_manager.statuses()) {
            const ServerConfig *config = m_manager.serverConfig(status.name);
            array.append(Control::toJson(Control::ServerView{status, config ? config->warnings : QStringList()}));
        }
        return array;
    }

    // The servers a request names, or nothing, with the error sent, when one is not in the config.
    std::optional<QStringList> namedServers(const JsonRpc::Message &request, bool required)
    {
        QStringList names;
        for (const QJsonValue &name : request.params.value(u"servers").toArray())
            names.append(name.toString());
        if (const QString server = request.params.value(u"server").toString(); !server.isEmpty())
            names.append(server);
        const QStringList known = m_manager.serverNames();
        QStringList unknown;
        for (const QString &name : std::as_const(names)) {
            if (!known.contains(name))
                unknown.append(name);
        }
        if (!unknown.isEmpty()) {
            QStringList texts;
            for (const QString &name : std::as_const(unknown))
                texts.append(noServerNamedText(m_info.configPath, name, known));
            send(errorMessage(request.id, Control::UnknownServer, texts.join(u"; "_s),
                              QJsonObject{{u"servers"_s, QJsonArray::fromStringList(unknown)}}));
            return std::nullopt;
        }
        if (required && names.isEmpty()) {
            send(errorMessage(request.id, JsonRpc::InvalidParams,
                              u"%1 needs \"servers\": the names of the servers (servers: %2)"_s.arg(request.method,
                                                                                                   known.join(u", "_s))));
            return std::nullopt;
        }
        return names;
    }

    void subscribe(const JsonRpc::Message &request)
    {
        const bool statuses = request.params.value(u"statuses").toBool(true);
        const bool events = request.params.value(u"events").toBool(false);
        disconnect(&m_manager, nullptr, this, nullptr);
        disconnect(&m_manager.eventLog(), nullptr, this, nullptr);
        connect(&m_manager, &ServerManager::stateChanged, this, [this](const ServerStatus &status) {
            notify(Control::StatusChanged, {{u"status"_s, Control::toJson(status)}, {u"stateChanged"_s, true}});
        });
        if (statuses) {
            connect(&m_manager, &ServerManager::statusChanged, this, [this](const ServerStatus &status) {
                notify(Control::StatusChanged, {{u"status"_s, Control::toJson(status)}, {u"stateChanged"_s, false}});
            });
        }
        const auto serversChanged = [this] {
            notify(Control::ServersChanged, {{u"servers"_s, QJsonArray::fromStringList(m_manager.serverNames())}});
        };
        connect(&m_manager, &ServerManager::serverAdded, this, serversChanged);
        connect(&m_manager, &ServerManager::serverRemoved, this, serversChanged);
        disconnect(&m_manager.registry(), nullptr, this, nullptr);
        connect(&m_manager.registry(), &ToolRegistry::toolsChanged, this, [this](const ToolChange &change) {
            notify(Control::ToolsChanged, {{u"server"_s, change.serverName}});
        });
        connect(&m_manager.registry(), &ToolRegistry::availabilityChanged, this, [this](const QString &server) {
            notify(Control::ToolsChanged, {{u"server"_s, server}});
        });
        connect(&m_manager, &ServerManager::catalogChanged, this,
                [this](const QString &server) { notify(Control::CatalogChanged, {{u"server"_s, server}}); });
        if (events) {
            connect(&m_manager.eventLog(), &EventLog::appended, this,
                    [this](const ServerEvent &event) { notify(Control::EventAppended, {{u"event"_s, Control::toJson(event)}}); });
        }
        answer(request.id, QJsonObject{{u"servers"_s, servers()}});
    }

    void act(const JsonRpc::Message &request)
    {
        const std::optional<QStringList> names = namedServers(request, true);
        if (!names)
            return;
        if (request.method == Control::Start || request.method == Control::Reconnect) {
            // A server that will not start is refused, rather than told "starting" and left stopped.
            QStringList refusals;
            for (const QString &name : *names) {
                const ServerConfig *config = m_manager.serverConfig(name);
                if (config && !config->isValid())
                    refusals.append(u"server '%1' cannot start: its config is invalid: %2; correct it in %3"_s.arg(
                        name, config->errors.join(u"; "_s), m_info.configPath));
                else if (config && !config->enabled)
                    refusals.append(u"server '%1' is disabled (\"enabled\": false); enable it in Tether's window, or "
                                    "set \"enabled\" to true in %2, to start it"_s.arg(name, m_info.configPath));
            }
            if (!refusals.isEmpty())
                return send(errorMessage(request.id, JsonRpc::InvalidParams, refusals.join(u"; "_s)));
        }
        for (const QString &name : *names) {
            if (request.method == Control::Start)
                m_manager.start(name);
            else if (request.method == Control::Stop)
                m_manager.stop(name);
            else if (request.method == Control::Reconnect)
                m_manager.reconnect(name);
            else
                m_manager.setEnabled(name, request.method == Control::Enable);
        }
        answer(request.id, QJsonObject());
    }

    void reload(const JsonRpc::Message &request)
    {
        const QStringList errors = m_reload ? m_reload() : QStringList{u"this Tether cannot reload its config"_s};
        if (!errors.isEmpty()) {
            return send(errorMessage(request.id, JsonRpc::InvalidParams,
                                     u"%1 cannot be used, so nothing changed: %2"_s.arg(m_info.configPath,
                                                                                          errors.join(u"; "_s))));
        }
        answer(request.id, QJsonObject());
    }

    void tools(const JsonRpc::Message &request)
    {
        const std::optional<QStringList> names = namedServers(request, false);
        if (!names)
            return;
        QJsonArray tools;
        const QList<RegisteredTool> registered =
            names->isEmpty() ? m_manager.registry().tools() : m_manager.registry().serverTools(names->first());
        for (const RegisteredTool &tool : registered)
            tools.append(Control::toJson(tool));
        answer(request.id, QJsonObject{{u"tools"_s, tools}});
    }

    void catalogs(const JsonRpc::Message &request)
    {
        const std::optional<QStringList> names = namedServers(request, false);
        if (!names)
            return;
        QJsonArray catalogs;
        for (const QString &name : m_manager.serverNames()) {
            if (names->isEmpty() || names->contains(name))
                catalogs.append(Control::toJson(name, m_manager.catalog(name)));
        }
        answer(request.id, QJsonObject{{u"catalogs"_s, catalogs}});
    }

    void call(const JsonRpc::Message &request)
    {
        const std::optional<QStringList> names = namedServers(request, false);
        if (!names)
            return;
        const QString tool = request.params.value(u"tool").toString();
        ToolCallInput input(request.params.value(u"arguments").toObject());
        input.origin = m_asking; // what the server asks meanwhile goes to this connection's client
        const QString key = QString::fromUtf8(JsonRpc::serialize(QJsonObject{{u"id"_s, request.id}}));
        // The server's log shows the call, as it shows the gateway's and the window's.
        QString server = names->value(0);
        QString logged = tool;
        if (server.isEmpty()) {
            if (const ToolRoute route = m_manager.route(tool); route.tool) {
                server = route.tool->serverName;
                logged = route.tool->publicName;
            }
        } else {
            const QList<RegisteredTool> tools = m_manager.registry().serverTools(server);
            const auto named = std::find_if(tools.cbegin(), tools.cend(),
                                            [&tool](const RegisteredTool &registered) { return registered.definition.name == tool; });
            if (named != tools.cend())
                logged = named->publicName;
        }
        const auto answered = std::make_shared<bool>(false);
        QElapsedTimer clock;
        clock.start();
        const auto handler = [self = QPointer(this), &manager = m_manager, caller = m_clientName, id = request.id, key,
                              answered, server, logged, clock](const ToolCallReply &reply) {
            *answered = true;
            if (!server.isEmpty()) {
                manager.eventLog().append(toolCallEvent(server, caller, logged, reply,
                                                        std::chrono::milliseconds(clock.elapsed())));
            }
            if (!self || self->m_ending)
                return;
            self->m_calls.erase(key);
            if (reply.error)
                return self->send(errorMessage(id, reply.error->code, reply.error->message, reply.error->data));
            self->answer(id, reply.result.raw);
        };
        // Its progress goes to the connection that made the call, its id the token.
        const auto onProgress = [self = QPointer(this), id = request.id](const ProgressUpdate &update) {
            if (self && !self->m_ending)
                self->notify(Control::Progress, progressParams(id, update));
        };
        // A server in an outage is waited for, as the gateway's clients wait.
        const CallOptions options = m_manager.outageCallOptions();
        const ToolCallTicket ticket = names->isEmpty()
                                          ? m_manager.callTool(tool, input, handler, onProgress, options)
                                          : m_manager.callTool(names->first(), tool, input, handler, onProgress, options);
        if (!*answered)
            m_calls.emplace(key, ticket);
    }

    void forward(const JsonRpc::Message &request, const QString &method, const QJsonObject &params)
    {
        const std::optional<QStringList> names = namedServers(request, true);
        if (!names)
            return;
        m_manager.request(names->first(), method, params, [self = QPointer(this), id = request.id](const RpcReply &reply) {
            if (!self || self->m_ending)
                return;
            if (reply.error)
                return self->send(errorMessage(id, reply.error->code, reply.error->message, reply.error->data));
            self->answer(id, reply.result);
        });
    }

    // A call of this session, by the id of its tether/call: answered at once as cancelled.
    void cancel(const JsonRpc::Message &request)
    {
        const QString key = QString::fromUtf8(JsonRpc::serialize(QJsonObject{{u"id"_s, request.params.value(u"id")}}));
        const auto call = m_calls.find(key);
        const bool cancelled = call != m_calls.end()
                               && m_manager.cancelToolCall(call->second, request.params.value(u"reason").toString());
        answer(request.id, QJsonObject{{u"cancelled"_s, cancelled}});
    }

    void logs(const JsonRpc::Message &request)
    {
        const std::optional<QStringList> names = namedServers(request, false);
        if (!names)
            return;
        const qsizetype limit = request.params.value(u"limit").toInt(DefaultLogLimit);
        QList<ServerEvent> events =
            names->isEmpty() ? m_manager.eventLog().allEvents() : m_manager.eventLog().events(names->first());
        if (limit >= 0 && events.size() > limit)
            events = events.mid(events.size() - limit);
        QJsonArray array;
        for (const ServerEvent &event : std::as_const(events))
            array.append(Control::toJson(event));
        answer(request.id, QJsonObject{{u"events"_s, array}});
    }

    ServerManager &m_manager;
    StdioHostChannel *m_channel;
    Control::InstanceInfo m_info;
    const InstanceControl::Reload &m_reload;
    bool m_greeted = false;
    bool m_ending = false;
    QString m_clientName = u"a tetherctl"_s; // as its hello names it
    std::map<QString, ToolCallTicket> m_calls; // by the request's id, as JSON text
    const std::shared_ptr<AskingClientSide> m_asking = std::make_shared<AskingClientSide>(this);
    std::map<qint64, ReplyHandler> m_asked; // what its client was asked and has not answered, by id
    qint64 m_nextAsk = 1;
};

QString AskingClientSide::clientLabel() const
{
    return m_session ? m_session->clientLabel() : u"a tetherctl or window that has left"_s;
}

quint64 AskingClientSide::serverRequest(const ServerRequest &request, ReplyHandler reply, ProgressHandler)
{
    if (!m_session) {
        reply(RpcReply::failure(JsonRpc::InternalError, u"the tetherctl or window asked went away"_s));
        return 0;
    }
    return m_session->ask(request, std::move(reply));
}

void AskingClientSide::cancelServerRequest(quint64 handle, const QString &reason)
{
    if (m_session)
        m_session->cancelAsk(handle, reason);
}

void AskingClientSide::serverNotification(const QString &serverName, const QString &method, const QJsonObject &params)
{
    if (m_session)
        m_session->passOn(serverName, method, params);
}

} // namespace

InstanceControl::InstanceControl(ServerManager &manager, QString kind, Reload reload, QObject *parent)
    : QObject(parent)
    , m_manager(manager)
    , m_kind(std::move(kind))
    , m_reload(std::move(reload))
{
}

bool InstanceControl::claims(const QByteArray &firstLine) const
{
    const JsonRpc::DecodedPayload payload = JsonRpc::decodePayload(firstLine);
    return payload.messages.size() == 1
           && payload.messages.first().value(u"method").toString().startsWith(Control::Prefix);
}

void InstanceControl::serve(StdioHostChannel *channel, const QByteArray &firstLine, const GatewayInstanceRecord &instance)
{
    Control::InstanceInfo info;
    info.id = instance.instance;
    info.pid = instance.pid;
    info.kind = m_kind;
    info.configPath = instance.configPath;
    info.version = instance.version;
    info.startedAt = instance.startedAt;
    auto *session = new ControlSession(m_manager, channel, info, m_reload);
    session->receive(firstLine);
}

} // namespace Tether
