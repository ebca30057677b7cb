#pragma once

#include "manager/eventlog.h"
#include "protocol/clientside.h"
#include "supervisor/servercatalog.h"
#include "supervisor/serverstatus.h"
#include "supervisor/toolnaming.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>

#include <optional>

// The instance's control protocol (docs/control-protocol.md): JSON-RPC 2.0 methods under "tether/"
// on the instance's local socket, beside the gateway's MCP, for tetherctl and windows attached to
// the Tether that runs a config. Pure functions: the method names, the version, and the values
// that cross the socket written and read back.
namespace Tether::Control {

// Raised when a method or a value changes in a way an older peer would misread.
inline constexpr int ProtocolVersion = 1;

inline constexpr QStringView Prefix = u"tether/";
inline constexpr QStringView Hello = u"tether/hello";
inline constexpr QStringView Status = u"tether/status";
inline constexpr QStringView Subscribe = u"tether/subscribe";
inline constexpr QStringView Start = u"tether/start";
inline constexpr QStringView Stop = u"tether/stop";
inline constexpr QStringView Reconnect = u"tether/reconnect";
inline constexpr QStringView Enable = u"tether/enable";
inline constexpr QStringView Disable = u"tether/disable";
inline constexpr QStringView RetryFailed = u"tether/retryFailed";
inline constexpr QStringView Reload = u"tether/reload";
inline constexpr QStringView Tools = u"tether/tools";
inline constexpr QStringView Call = u"tether/call";
inline constexpr QStringView Catalogs = u"tether/catalogs";
inline constexpr QStringView Read = u"tether/read";
inline constexpr QStringView Prompt = u"tether/prompt";
inline constexpr QStringView Logs = u"tether/logs";
inline constexpr QStringView Cancel = u"tether/cancel";
// Notifications of a subscription.
inline constexpr QStringView StatusChanged = u"tether/statusChanged";
inline constexpr QStringView ServersChanged = u"tether/serversChanged";
inline constexpr QStringView EventAppended = u"tether/event";
inline constexpr QStringView ToolsChanged = u"tether/toolsChanged";
inline constexpr QStringView CatalogChanged = u"tether/catalogChanged";
// Not of a subscription: to the connection whose tether/call it is about.
inline constexpr QStringView Progress = u"tether/progress";
// What a server asks while a tether/call runs (elicitation, sampling), to the connection that made
// the call: a request of the instance, answered by the client, and how the server takes it back.
inline constexpr QStringView Ask = u"tether/ask";
inline constexpr QStringView AskCancelled = u"tether/askCancelled";
// A notification of the server about what it asked (notifications/elicitation/complete).
inline constexpr QStringView AskNotification = u"tether/askNotification";

// Error codes of the control protocol (besides JSON-RPC's own).
enum ErrorCode : int {
    UnknownServer = -32050,
    VersionMismatch = -32051, // hello asked for a version the instance does not speak
    NotHello = -32052,        // a request before tether/hello
    NoAnswerInTime = -32053,  // never sent: the client's own, when the instance did not answer within its wait
};

// Who the instance is, as tether/hello answers.
struct InstanceInfo
{
    QString id;         // the instance record's
    qint64 pid = 0;
    QString kind;       // "window", "daemon" or "serve --http"
    QString configPath;
    QString version;    // of Tether
    QDateTime startedAt;

    bool operator==(const InstanceInfo &) const = default;
};

QJsonObject toJson(const InstanceInfo &info);
InstanceInfo instanceInfoFromJson(const QJsonObject &object);

// A server as the instance runs it: its status, and what its config says of it.
struct ServerView
{
    ServerStatus status;
    QStringList warnings; // of its config: what it runs with may not be what the file seems to say
};

QJsonObject toJson(const ServerStatus &status);
// Every member of toJson(); missing ones keep their defaults, so that a newer instance's
// additions are ignored.
ServerStatus serverStatusFromJson(const QJsonObject &object);
QJsonObject toJson(const ServerView &view);
ServerView serverViewFromJson(const QJsonObject &object);
QList<ServerView> serverViewsFromJson(const QJsonArray &array);

QJsonObject toJson(const RegisteredTool &tool);
// Nothing when its definition cannot be read.
std::optional<RegisteredTool> registeredToolFromJson(const QJsonObject &object);

// A connected server's resources and prompts as last listed, with its name.
QJsonObject toJson(const QString &server, const ServerCatalog &catalog);
// The catalog and its server's name; entries that cannot be read are left out.
ServerCatalog serverCatalogFromJson(const QJsonObject &object, QString *server);

QJsonObject toJson(const ServerEvent &event);
ServerEvent serverEventFromJson(const QJsonObject &object);

// The params of tether/hello as a client sends them.
QJsonObject helloParams(const QString &clientName);

// A server's request as tether/ask carries it, and back.
QJsonObject askParams(const ServerRequest &request);
ServerRequest askedRequest(const QJsonObject &params);
// Why an instance that answered tether/hello with `result` cannot be used by this client, or
// nothing when it can.
std::optional<QString> helloRefusal(const QJsonObject &result);

} // namespace Tether::Control
