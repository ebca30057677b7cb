#pragma once

#include "jsonrpc.h"
#include "mcptypes.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

// MCP's two eras. The handshake era (2024-11-05 … 2025-11-25) opens a session with initialize;
// the stateless era (2026-07-28) has none: every request carries an envelope in its _meta,
// server/discover says what the server offers, a server's questions come back as input_required
// results, and subscriptions/listen carries what changes.
namespace Tether {

enum class ProtocolEra { Handshake, Stateless };
// Who pinned a server's era, as the person who can change it knows it: the server's "protocol"
// setting in the config, or tetherctl's --protocol for a server given on the command line.
enum class EraPinnedBy { Setting, Option };
// What pinned the era, in the words of a refusal: "its \"protocol\" setting" or "--protocol".
QString eraPinText(EraPinnedBy by);
// What to do when the server does not speak the pinned era but speaks `spoken`.
QString eraPinAdvice(EraPinnedBy by, QStringView spoken);

// The stateless revisions Tether speaks, newest first.
const QStringList &statelessProtocolVersions();
// Every revision Tether speaks, newest first: the stateless ones, then the handshake ones.
QStringList spokenProtocolVersions();
std::optional<ProtocolEra> eraOfVersion(const QString &version);

namespace Envelope {
inline constexpr QStringView ProtocolVersion = u"io.modelcontextprotocol/protocolVersion";
inline constexpr QStringView ClientCapabilities = u"io.modelcontextprotocol/clientCapabilities";
inline constexpr QStringView ClientInfo = u"io.modelcontextprotocol/clientInfo";
inline constexpr QStringView LogLevel = u"io.modelcontextprotocol/logLevel";
inline constexpr QStringView ServerInfo = u"io.modelcontextprotocol/serverInfo";
inline constexpr QStringView SubscriptionId = u"io.modelcontextprotocol/subscriptionId";
} // namespace Envelope

// The _meta members a stateless request carries: the version, the capabilities, who asks and, when
// set, the log level wanted.
QJsonObject requestEnvelope(const QJsonObject &clientCapabilities, const QJsonObject &clientInfo,
                            const QString &logLevel = {});
// `params` with the envelope added to its _meta (its other _meta members kept).
QJsonObject withEnvelope(QJsonObject params, const QJsonObject &envelope);

// What a server's server/discover result says: its identity as an initialize result would.
// Its version is the newest stateless one both sides speak; nullopt with `error` set when the
// result has the wrong shape, or with `error` empty when the two share no stateless version
// (`serverVersions` then lists the server's).
std::optional<ServerIdentity> parseDiscoverResult(const QJsonValue &result, QString *error,
                                                  QStringList *serverVersions);

// The versions a -32022 ("unsupported protocol version") error lists as the server's; empty for
// any other error.
QStringList versionsOfUnsupportedVersionError(const JsonRpc::Error &error);

// The results a stateless server gives: "complete", "input_required", or anything else.
enum class ResultType { Complete, InputRequired, Missing, Unknown };
ResultType resultTypeOf(const QJsonObject &result);

// Methods a stateless server's result may answer with input_required.
bool mayRequireInput(QStringView method);

// Over HTTP a stateless request names its method (Mcp-Method) and, for tools/call and
// prompts/get, the name, for resources/read the uri (Mcp-Name): what Mcp-Name carries, or a null
// string when the method has none.
QString mcpNameOf(QStringView method, const QJsonObject &params);
// A header value as MCP writes it: plain when it is safe printable ASCII, else
// "=?base64?…?=" of its UTF-8.
QByteArray encodeMcpHeaderValue(const QString &value);
// The value encodeMcpHeaderValue wrote; nothing when its base64 is broken.
std::optional<QString> decodeMcpHeaderValue(const QByteArray &value);

} // namespace Tether
