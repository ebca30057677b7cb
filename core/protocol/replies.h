#pragma once

#include "jsonrpc.h"
#include "mcptypes.h"

#include <QJsonValue>
#include <QObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

// What a request to a server comes back with, and the handlers that receive it. Every request
// is answered exactly once: with the server's reply or with why there is none.
namespace Tether {

struct RpcReply
{
    QJsonValue result;
    std::optional<JsonRpc::Error> error;
    bool fromServer = false; // the error is the server's own answer, not one Tether made
    QByteArray resultJson{}; // `result` as the server wrote it; kept for replies to tools/call
    // A tool's result known as text alone (`result` undefined, McpClientSession::takeReplyAsText):
    // its isError.
    bool textResultIsError = false;
    bool ok() const { return !error; }

    // A request that got no answer from the server; `code` is a JsonRpc::ErrorCode.
    static RpcReply failure(int code, const QString &message);
};

struct ToolListReply
{
    QList<ToolDefinition> tools;
    QStringList warnings; // entries that were skipped, and why
    std::optional<JsonRpc::Error> error;
};

struct ToolCallReply
{
    ToolCallResult result;
    std::optional<JsonRpc::Error> error;
    bool fromServer = false; // the error is the server's own answer, not one Tether made

    // A call that got no result from the server; `code` is a JsonRpc::ErrorCode.
    static ToolCallReply failure(int code, const QString &message);
};

struct ResourceListReply
{
    QList<ResourceDefinition> resources;
    QList<ResourceTemplate> templates;
    QStringList warnings; // entries that were skipped, and why
    std::optional<JsonRpc::Error> error;
};

struct PromptListReply
{
    QList<PromptDefinition> prompts;
    QStringList warnings; // entries that were skipped, and why
    std::optional<JsonRpc::Error> error;
};

struct ResourceReadReply
{
    QList<ResourceContents> contents;
    std::optional<JsonRpc::Error> error;
};

struct PromptReply
{
    PromptResult result;
    std::optional<JsonRpc::Error> error;
};

struct ProgressUpdate
{
    double progress = 0;
    std::optional<double> total;
    QString message;
};

using ReplyHandler = std::function<void(const RpcReply &)>;
using ToolListHandler = std::function<void(const ToolListReply &)>;
using ToolCallHandler = std::function<void(const ToolCallReply &)>;
using ProgressHandler = std::function<void(const ProgressUpdate &)>;
using ResourceListHandler = std::function<void(const ResourceListReply &)>;
using PromptListHandler = std::function<void(const PromptListReply &)>;
using ResourceReadHandler = std::function<void(const ResourceReadReply &)>;
using PromptHandler = std::function<void(const PromptReply &)>;

// Answers `handler` from the event loop rather than from inside the call that failed, so that
// a caller is never re-entered; not at all once `context` is gone.
template<typename Reply>
void answerLater(QObject *context, std::function<void(const Reply &)> handler, Reply reply)
{
    QMetaObject::invokeMethod(
        context, [handler = std::move(handler), reply = std::move(reply)] { handler(reply); }, Qt::QueuedConnection);
}

} // namespace Tether
