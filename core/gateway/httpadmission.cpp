#include "httpadmission.h"

#include "gatewayprotocol.h"
#include "gatewaytoken.h"

#include "httpserver/httprequest.h"

#include "protocol/jsonrpc.h"
#include "protocol/mcptypes.h"
#include "protocol/protocolera.h"

#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// The media types of an Accept or Content-Type field, lower case, without parameters.
QList<QByteArray> mediaTypes(QByteArrayView field)
{
    QList<QByteArray> types;
    for (const QByteArray &item : field.toByteArray().split(',')) {
        const QByteArray type = item.split(';').first().trimmed().toLower();
        if (!type.isEmpty())
            types.append(type);
    }
    return types;
}

bool accepts(QByteArrayView accept, const QByteArray &type)
{
    if (accept.trimmed().isEmpty())
        return true;
    const QByteArray family = type.first(type.indexOf('/')) + "/*";
    const QList<QByteArray> types = mediaTypes(accept);
    return types.contains(type) || types.contains(family) || types.contains("*/*");
}

// The listener's own names: loopback, and the configured host unless it is a wildcard.
QStringList ownHostNames(const EndpointRules &rules)
{
    QStringList names{u"127.0.0.1"_s, u"localhost"_s, u"[::1]"_s};
    QString host = rules.listenHost;
    if (host.contains(u':') && !host.startsWith(u'['))
        host = u'[' + host + u']';
    if (!host.isEmpty() && host != u"0.0.0.0" && host != u"[::]")
        names.append(host.toLower());
    return names;
}

bool hostAllowed(const QString &hostField, const EndpointRules &rules)
{
    const QString field = hostField.toLower();
    const QString port = QString::number(rules.port);
    for (const QString &name : ownHostNames(rules)) {
        if (field == name || field == name + u':' + port)
            return true;
    }
    for (const QString &allowed : rules.allowedHosts) {
        const QString entry = allowed.toLower();
        // "name" takes any port; "name:port" that port only.
        const bool entryHasPort = entry.lastIndexOf(u':') > entry.lastIndexOf(u']');
        if (field == entry || (!entryHasPort && field.startsWith(entry + u':')))
            return true;
    }
    return false;
}

bool originAllowed(const QString &originField, const EndpointRules &rules)
{
    QString origin = originField.toLower();
    while (origin.endsWith(u'/'))
        origin.chop(1);
    const QString port = QString::number(rules.port);
    for (const QString &scheme : {u"http://"_s, u"https://"_s}) {
        for (const QString &name : ownHostNames(rules)) {
            if (origin == scheme + name + u':' + port)
                return true;
        }
    }
    return std::any_of(rules.allowedOrigins.cbegin(), rules.allowedOrigins.cend(), [&](QString allowed) {
        while (allowed.endsWith(u'/'))
            allowed.chop(1);
        return origin == allowed.toLower();
    });
}

} // namespace

HttpReply jsonRpcErrorReply(int status, int code, const QString &message, HttpHeaders headers)
{
    headers.append("Content-Type", "application/json");
    const QJsonObject body = JsonRpc::makeError(QJsonValue::Null, code, message);
    return {status, headers, JsonRpc::serialize(body)};
}

bool acceptsEventStream(QByteArrayView accept)
{
    return accepts(accept, "text/event-stream");
}

std::optional<HttpReply> refuseEndpointHead(const HttpRequest &head, const EndpointRules &rules)
{
    const auto refuse = [](int status, const QString &message, HttpHeaders headers = {}) {
        // -32000: the code the MCP SDKs' servers give the refusals of their transport.
        HttpReply reply = jsonRpcErrorReply(status, -32000, message, std::move(headers));
        // A peer refused for who or where it is gets nothing more read: it could pipeline
        // refusals for the gateway to queue, and it keeps no slot.
        reply.closeConnection = status == 401 || status == 403;
        return std::optional<HttpReply>(std::move(reply));
    };
    if (head.headers.contains("Origin") && !originAllowed(QString::fromUtf8(head.header("Origin")), rules)) {
        return refuse(403, u"Forbidden: requests from the web page at %1 are refused (a page must not reach your "
                           "tools); to allow it, add it to gateway.http.allowedOrigins"_s.arg(
                               QString::fromUtf8(head.header("Origin"))));
    }
    if (head.headers.contains("Host") && !hostAllowed(QString::fromUtf8(head.header("Host")), rules)) {
        return refuse(403, u"Forbidden: the host name %1 is not this gateway's; connect to http://127.0.0.1:%2/mcp, "
                           "or add the name to gateway.http.allowedHosts"_s.arg(QString::fromUtf8(head.header("Host")))
                               .arg(rules.port));
    }
    const QByteArray authorization = head.header("Authorization");
    if (!bearerTokenMatches(authorization, rules.token)) {
        const QString what = authorization.isEmpty() ? u"no bearer token was sent"_s : u"the bearer token is wrong"_s;
        return refuse(401,
                      u"Unauthorized: %1; send the header \"Authorization: Bearer <token>\" with the token in %2"_s.arg(
                          what, rules.tokenFile),
                      {{"WWW-Authenticate", R"(Bearer realm="tether")"}});
    }
    const bool mcp = head.path == McpPath;
    if (!mcp && head.path != HealthPath && head.path != MetricsPath) {
        return refuse(404, u"Not found: nothing is served at %1; Tether's MCP endpoint is %2"_s.arg(
                               QString::fromUtf8(head.path), QString::fromLatin1(McpPath)));
    }
    const bool allowedMethod = mcp ? (head.method == "GET" || head.method == "POST" || head.method == "DELETE")
                                   : head.method == "GET";
    if (!allowedMethod) {
        const QByteArray allow = mcp ? "GET, POST, DELETE" : "GET";
        return refuse(405, u"Method not allowed: %1 %2 takes %3"_s.arg(QString::fromLatin1(head.method),
                                                                        QString::fromUtf8(head.path),
                                                                        QString::fromLatin1(allow)),
                      {{"Allow", allow}});
    }
    if (!mcp)
        return std::nullopt;
    if (head.method == "POST" && mediaTypes(head.header("Content-Type")).value(0) != "application/json") {
        return refuse(415, u"Unsupported media type: a POST to %1 carries one JSON-RPC message as "
                           "\"Content-Type: application/json\", not \"%2\""_s.arg(
                               QString::fromLatin1(McpPath), QString::fromUtf8(head.header("Content-Type"))));
    }
    const QByteArray accept = head.header("Accept");
    if (head.method == "POST" && !accepts(accept, "application/json") && !acceptsEventStream(accept)) {
        return refuse(406, u"Not acceptable: the answers are application/json or text/event-stream, and the Accept "
                           "header \"%1\" takes neither; send \"Accept: application/json, text/event-stream\""_s.arg(
                               QString::fromUtf8(accept)));
    }
    if (head.method == "GET" && !acceptsEventStream(accept)) {
        return refuse(406, u"Not acceptable: GET %1 opens the session's notification stream, so it needs "
                           "\"Accept: text/event-stream\", not \"%2\""_s.arg(QString::fromLatin1(McpPath),
                                                                             QString::fromUtf8(accept)));
    }
    if (head.method != "POST" && head.header("Mcp-Session-Id").isEmpty()) {
        return refuse(400, u"Bad request: %1 %2 needs the Mcp-Session-Id header that the initialize response "
                           "gave"_s.arg(QString::fromLatin1(head.method), QString::fromLatin1(McpPath)));
    }
    const QByteArray version = head.header("MCP-Protocol-Version");
    if (!version.isEmpty() && !spokenProtocolVersions().contains(QString::fromUtf8(version))) {
        QJsonObject body = JsonRpc::makeError(
            QJsonValue::Null, JsonRpc::UnsupportedProtocolVersion,
            u"Unsupported protocol version: MCP-Protocol-Version %1 is not one Tether speaks (%2)"_s.arg(
                QString::fromUtf8(version), spokenProtocolVersions().join(u", "_s)));
        QJsonObject error = body.value(u"error"_s).toObject();
        error.insert(u"data"_s, QJsonObject{{u"supported"_s, QJsonArray::fromStringList(spokenProtocolVersions())},
                                             {u"requested"_s, QString::fromUtf8(version)}});
        body.insert(u"error"_s, error);
        return HttpReply{400, {{"Content-Type", "application/json"}}, JsonRpc::serialize(body)};
    }
    return std::nullopt;
}

std::optional<HttpReply> refuseStatelessRequest(const HttpRequest &head, const JsonRpc::Message &message)
{
    const auto refuse = [&](const JsonRpc::Error &error) {
        QJsonObject body = JsonRpc::makeError(message.id, error.code, error.message);
        QJsonObject errorObject = body.value(u"error"_s).toObject();
        errorObject.insert(u"data"_s, error.data);
        body.insert(u"error"_s, errorObject);
        return HttpReply{400, {{"Content-Type", "application/json"}}, JsonRpc::serialize(body)};
    };
    if (const std::optional<JsonRpc::Error> error = envelopeError(message.params))
        return refuse(*error);
    const auto mismatch = [&](const char *header, const QString &said, const QString &body) {
        return refuse({JsonRpc::HeaderMismatch,
                       u"Bad request: the headers and the body disagree: %1 says %2, the body %3"_s.arg(
                           QString::fromLatin1(header), said.isNull() ? u"nothing (it is missing)"_s : u"\"%1\""_s.arg(said),
                           u"\"%1\""_s.arg(body)),
                       QJsonObject{{u"mismatch"_s, QJsonObject{{u"header"_s, said.isNull() ? u"(missing)"_s : said},
                                                                {u"body"_s, body}}}}});
    };
    const QString version = message.params.value(u"_meta").toObject().value(Envelope::ProtocolVersion).toString();
    const QByteArray versionHeader = head.header("MCP-Protocol-Version");
    if (QString::fromUtf8(versionHeader) != version)
        return mismatch("MCP-Protocol-Version", versionHeader.isEmpty() ? QString() : QString::fromUtf8(versionHeader), version);
    const QByteArray methodHeader = head.header("Mcp-Method");
    if (QString::fromUtf8(methodHeader) != message.method)
        return mismatch("Mcp-Method", methodHeader.isEmpty() ? QString() : QString::fromUtf8(methodHeader), message.method);
    const QString name = mcpNameOf(message.method, message.params);
    if (!name.isNull()) {
        const QByteArray nameHeader = head.header("Mcp-Name");
        const std::optional<QString> said = decodeMcpHeaderValue(nameHeader);
        if (nameHeader.isEmpty() || !said || *said != name)
            return mismatch("Mcp-Name", nameHeader.isEmpty() ? QString() : QString::fromUtf8(nameHeader), name);
    }
    return std::nullopt;
}

} // namespace Tether
