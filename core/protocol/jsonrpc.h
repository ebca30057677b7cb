#pragma once

#include <QByteArrayView>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>

// JSON-RPC 2.0 messages as MCP uses them: classification of what arrives, construction of
// what leaves. Pure functions on JSON values.
namespace Tether::JsonRpc {

enum ErrorCode : int {
    ParseError = -32700,
    InvalidRequest = -32600,
    MethodNotFound = -32601,
    InvalidParams = -32602,
    InternalError = -32603,
    // MCP 2026-07-28: HTTP headers that disagree with the body, a request whose capabilities do not
    // cover the input a server needs, a protocol version the receiver does not speak.
    HeaderMismatch = -32020,
    MissingClientCapability = -32021,
    UnsupportedProtocolVersion = -32022,
    // Local failures, never sent on the wire (the MCP SDKs use the same numbers).
    ConnectionClosed = -32000,
    RequestTimeout = -32001,
    // A request the transport itself failed (an HTTP error status, a network error, its own
    // transfer timeout): no answer from the MCP server came.
    TransportError = -32003,
    // The server answered, but with nothing usable: a reply that cannot be parsed, or a result
    // of the wrong shape. A protocol error of that server.
    InvalidReply = -32004,
    // A request that was never sent: its server is not connected (starting, reconnecting, failed,
    // stopped or disabled). Safe to send again once it is.
    ServerUnavailable = -32005,
    RequestCancelled = -32800,
};

struct Error
{
    int code = 0;
    QString message;
    QJsonValue data;
};

enum class MessageKind { Request, Notification, Response, ErrorResponse, Invalid };

struct Message
{
    MessageKind kind = MessageKind::Invalid;
    QJsonValue id;       // Request, Response, ErrorResponse
    QString method;      // Request, Notification
    QJsonObject params;  // Request, Notification
    QJsonValue result;   // Response
    Error error;         // ErrorResponse
    QString invalidReason; // Invalid: why the value is not a JSON-RPC message
};

Message classify(const QJsonObject &object);

// One line of the stdio stream, or one SSE data block: a JSON object or a batch array.
struct DecodedPayload
{
    QList<QJsonObject> messages;
    QByteArray text; // the payload, when it is one message object (not a batch)
    QString error; // set when the payload is not JSON or holds no message objects
    // A payload that is not JSON may still show at its top level the "id" of a response (and no
    // "method"): the request it answers can then fail at once rather than wait for its timeout.
    // Undefined when no such id can be told.
    QJsonValue damagedReplyId = QJsonValue::Undefined;
};
DecodedPayload decodePayload(QByteArrayView payload);
// The answer, in place of the server's, to the request whose reply arrived as `damage`
// ("a line on stdout that is not JSON (…)").
QJsonObject makeDamagedReplyError(const QJsonValue &id, const QString &damage);

QJsonObject makeRequest(const QJsonValue &id, const QString &method, const QJsonObject &params = {});
QJsonObject makeNotification(const QString &method, const QJsonObject &params = {});
QJsonObject makeResult(const QJsonValue &id, const QJsonValue &result);
QJsonObject makeError(const QJsonValue &id, int code, const QString &message);

QByteArray serialize(const QJsonObject &message); // compact, no trailing newline
// A request as serialize(makeRequest(id, method, params)) writes it, from `params` already
// written as JSON (empty: none): no object is built around them, which would copy them whole.
QByteArray serializeRequest(qint64 id, const QString &method, const QByteArray &params);

} // namespace Tether::JsonRpc
