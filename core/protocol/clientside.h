#pragma once

#include "replies.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace Tether {

// What a server asks of its client (MCP's client features): sampling/createMessage,
// elicitation/create (form or URL mode), roots/list.
struct ServerRequest
{
    QString serverName;
    QString method;
    QJsonObject params; // as the server sent them, its _meta (and progress token) included
    // Set when a request goes to a session's shared side because no single client's request
    // explains it: the clients that had requests in flight to the server then (two or more: which
    // one is meant cannot be told, and the gateway never guesses).
    QStringList undecided;
};

// The client's part of MCP for a server's session: it answers what the server asks and hears the
// notifications meant for it. A host of the gateway, the window and tetherctl each play it for the
// sampling and elicitation of the requests they send; a session's shared side (the gateway's) for
// what no request of theirs explains, and for the session's roots/list, which is the same
// whoever's request runs (a session without one answers the config's roots itself).
class ClientSide
{
public:
    virtual ~ClientSide() = default;

    // "Claude Code 2.1", "the window": in messages and the log.
    virtual QString clientLabel() const = 0;
    // Answers `request` through `reply` exactly once, unless cancelServerRequest() comes first;
    // progress the client reports on it goes to `onProgress`. Returns a handle for the cancel.
    virtual quint64 serverRequest(const ServerRequest &request, ReplyHandler reply, ProgressHandler onProgress) = 0;
    // The server cancelled the request, or its connection ended: nothing more is answered.
    virtual void cancelServerRequest(quint64 handle, const QString &reason) = 0;
    // A notification of the server meant for this client: notifications/elicitation/complete of
    // an elicitation it was asked, and on a session's shared side every notification hosts may
    // want (log messages, resource updates, task status).
    virtual void serverNotification(const QString &serverName, const QString &method, const QJsonObject &params)
    {
        Q_UNUSED(serverName)
        Q_UNUSED(method)
        Q_UNUSED(params)
    }
    // Whether this client gets a session of its own on a server marked `perHost` (a host of the
    // gateway does; the window and tetherctl share the server's first session).
    virtual bool wantsOwnSession() const { return false; }
    // The level at which it wants a server's log messages (logging/setLevel); empty: the server's own.
    virtual QString logLevel() const { return {}; }
};

// What Tether's client declares to a server that may ask for them: sampling (with tools),
// elicitation in form and URL mode, and roots with list_changed.
QJsonObject clientFeatureCapabilities();
// Whether `method` is one of the requests a server may send its client for those features.
bool isClientFeatureRequest(QStringView method);
// Whether `capabilities`, as a client declared them, cover the request `method` (and, for
// elicitation, the mode its `params` ask for).
bool declaresClientFeature(const QJsonObject &capabilities, QStringView method, const QJsonObject &params);
// What is wrong with the params of a client-feature request, for the server that sent it
// ("\"messages\" is missing or not an array"); nothing when they are usable.
std::optional<QString> malformedServerRequest(QStringView method, const QJsonObject &params);
// The task a message belongs to, from its _meta (io.modelcontextprotocol/related-task); empty
// when none is named.
QString relatedTaskId(const QJsonObject &params);

} // namespace Tether
