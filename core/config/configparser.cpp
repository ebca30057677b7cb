#include "configparser.h"

#include "httpheader.h"

#include "common/closenames.h"
#include "common/jsontext.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSet>
#include <QUrl>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace Tether {

QString memberPath(const QString &parent, const QString &key)
{
    const bool plain = !key.isEmpty() && std::all_of(key.begin(), key.end(), [](QChar c) {
        return c.isLetterOrNumber() || c == u'_' || c == u'-';
    });
    if (plain)
        return parent + u'.' + key;
    return parent + u"[\""_s + QString(key).replace(u"\\"_s, u"\\\\"_s).replace(u"\""_s, u"\\\""_s) + u"\"]"_s;
}

QString definedMoreThanOnce(const QString &at, const QList<int> &lines)
{
    QStringList numbers;
    for (const int line : lines) {
        if (numbers.isEmpty() || numbers.last() != QString::number(line))
            numbers.append(QString::number(line));
    }
    const QString count = QString::number(lines.size());
    if (numbers.size() < 2)
        return u"%1 is defined %2 times (line %3)"_s.arg(at, count, numbers.value(0));
    const QString last = numbers.takeLast();
    return u"%1 is defined %2 times (lines %3 and %4)"_s.arg(at, count, numbers.join(u", "_s), last);
}

QStringList definitionsLostByRewrite(const JsonKeyOrder &order)
{
    QStringList lost;
    for (const QString &key : order.duplicateKeys())
        lost.append(definedMoreThanOnce(key, order.linesOf(key)));
    for (const QString &serversKey : {u"mcpServers"_s, u"servers"_s}) {
        const JsonKeyOrder servers = order.members.value(serversKey);
        for (const QString &name : servers.duplicateKeys())
            lost.append(definedMoreThanOnce(memberPath(serversKey, name), servers.linesOf(name)));
    }
    return lost;
}

namespace {

QString quotedList(const QStringList &names)
{
    QStringList quoted;
    for (const QString &name : names)
        quoted.append(u'"' + name + u'"');
    return quoted.join(u", "_s);
}

// Where messages go: a server's errors or the file's, each naming the file first.
struct Sink
{
    QString file;
    QStringList *errors;

    void add(const QString &text) const { errors->append(file + u": "_s + text); }
};

// The same wording as the policy resolution, for the numbers judged here.
std::optional<int> readWholeNumber(const Sink &sink, const QString &path, const QJsonValue &value, int minimum,
                                   int maximum)
{
    const QString rule = u"it must be a whole number from %1 to %2"_s.arg(minimum).arg(maximum);
    const double number = value.toDouble(std::nan(""));
    if (!value.isDouble() || !std::isfinite(number)) {
        sink.add(u"%1 = %2 is not a number: %3"_s.arg(path, quotedJson(value), rule));
        return std::nullopt;
    }
    if (number != std::floor(number) || number < minimum || number > maximum) {
        sink.add(u"%1 = %2 is out of range: %3"_s.arg(path, quotedJson(value), rule));
        return std::nullopt;
    }
    return int(number);
}

void rejectUnknownKeys(const Sink &sink, const QString &path, const QJsonObject &object, const QStringList &known,
                       const QString &what)
{
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        if (!known.contains(it.key()))
            sink.add(u"%1 = %2 is not %3 (known: %4)"_s.arg(memberPath(path, it.key()), quotedJson(it.value()), what,
                                                          known.join(u", "_s)));
    }
}

PoolPolicy readPool(const Sink &sink, const QString &path, const QJsonValue &value, const PoolPolicy &base)
{
    PoolPolicy pool = base;
    if (value.isUndefined())
        return pool;
    if (!value.isObject()) {
        sink.add(u"%1 = %2 is not an object: write it as {\"min\": 1, \"max\": 4, \"maxQueue\": 64}"_s.arg(
            path, quotedJson(value)));
        return pool;
    }
    const QJsonObject object = value.toObject();
    rejectUnknownKeys(sink, path, object, {u"min"_s, u"max"_s, u"maxQueue"_s}, u"a pool setting"_s);
    bool judged = true; // the cross-field rule only between values that passed on their own
    const auto read = [&](const QString &field, int minimum, int maximum, int *target) {
        const QJsonValue given = object.value(field);
        if (given.isUndefined())
            return;
        if (const auto number = readWholeNumber(sink, path + u'.' + field, given, minimum, maximum))
            *target = *number;
        else
            judged = false;
    };
    read(u"min"_s, 0, 64, &pool.min);
    read(u"max"_s, 1, 64, &pool.max);
    read(u"maxQueue"_s, 0, 10000, &pool.maxQueue);
    if (judged && pool.max < pool.min) {
        sink.add(u"%1.max = %2 is less than %1.min = %3: the pool cannot keep open more sessions than it may "
                 "hold; raise max or lower min"_s.arg(path).arg(pool.max).arg(pool.min));
        pool.max = pool.min;
    }
    return pool;
}

// A duration in milliseconds of at most an hour: a request's timeout, the browser step's bound.
std::chrono::milliseconds readTimeout(const Sink &sink, const QString &path, const QJsonValue &value,
                                      std::chrono::milliseconds base, int minimum = 1000)
{
    if (value.isUndefined())
        return base;
    if (const auto number = readWholeNumber(sink, path, value, minimum, 3600000))
        return std::chrono::milliseconds(*number);
    return base;
}

struct Defaults
{
    OAuthSettings oauth;
    ReconnectPolicy reconnect;
    HeartbeatPolicy heartbeat;
    PoolPolicy pool;
    std::chrono::milliseconds timeout = ServerConfig{}.requestTimeout;
};

// A list of strings, such as gateway.http.allowedOrigins; what it holds that is not a string is named.
QStringList readStringList(const Sink &sink, const QString &path, const QJsonValue &value, const QString &example)
{
    QStringList strings;
    if (!value.isArray()) {
        sink.add(u"%1 = %2 is not a list: write it as %3"_s.arg(path, quotedJson(value), example));
        return strings;
    }
    const QJsonArray array = value.toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        if (array.at(i).isString() && !array.at(i).toString().trimmed().isEmpty())
            strings.append(array.at(i).toString().trimmed());
        else
            sink.add(u"%1[%2] = %3 is not a name: write it as a string such as %4"_s.arg(path).arg(i).arg(
                quotedJson(array.at(i)), example));
    }
    return strings;
}

GatewayHttpConfig readGatewayHttp(const Sink &sink, const QJsonValue &value, const QString &configPath)
{
    GatewayHttpConfig http;
    const QString path = u"gateway.http"_s;
    if (value.isUndefined())
        return http;
    if (!value.isObject()) {
        sink.add(u"%1 = %2 is not an object: it holds Tether's HTTP endpoint for MCP hosts, such as "
                 "{\"enabled\": true, \"port\": %3}"_s.arg(path, quotedJson(value)).arg(GatewayHttpConfig::DefaultPort));
        return http;
    }
    const QJsonObject object = value.toObject();
    rejectUnknownKeys(sink, path, object,
                      {u"enabled"_s, u"host"_s, u"port"_s, u"maxBodyBytes"_s, u"allowedOrigins"_s, u"allowedHosts"_s,
                       u"tls"_s},
                      u"an HTTP endpoint setting"_s);
    if (const QJsonValue enabled = object.value(u"enabled"_s); !enabled.isUndefined()) {
        if (enabled.isBool())
            http.enabled = enabled.toBool();
        else
            sink.add(u"%1.enabled = %2 is not true or false"_s.arg(path, quotedJson(enabled)));
    }
    if (const QJsonValue host = object.value(u"host"_s); !host.isUndefined()) {
        if (host.isString() && !host.toString().trimmed().isEmpty())
            http.host = host.toString().trimmed();
        else
            sink.add(u"%1.host = %2 is not an address: write one such as \"127.0.0.1\""_s.arg(path, quotedJson(host)));
    }
    if (const QJsonValue port = object.value(u"port"_s); !port.isUndefined()) {
        if (const auto number = readWholeNumber(sink, path + u".port"_s, port, 1, 65535))
            http.port = quint16(*number);
    }
    if (const QJsonValue bytes = object.value(u"maxBodyBytes"_s); !bytes.isUndefined()) {
        if (const auto number = readWholeNumber(sink, path + u".maxBodyBytes"_s, bytes, 1024, 1024 * 1024 * 1024))
            http.maxBodyBytes = *number;
    }
    if (const QJsonValue origins = object.value(u"allowedOrigins"_s); !origins.isUndefined())
        http.allowedOrigins = readStringList(sink, path + u".allowedOrigins"_s, origins, u"[\"https://app.example\"]"_s);
    if (const QJsonValue hosts = object.value(u"allowedHosts"_s); !hosts.isUndefined())
        http.allowedHosts = readStringList(sink, path + u".allowedHosts"_s, hosts, u"[\"gateway.example\"]"_s);
    if (const QJsonValue tls = object.value(u"tls"_s); !tls.isUndefined()) {
        const QString example = u"{\"certificate\": \"/etc/tether/cert.pem\", \"key\": \"/etc/tether/key.pem\"}"_s;
        const QJsonObject files = tls.toObject();
        if (!tls.isObject()) {
            sink.add(u"%1.tls = %2 is not an object: write it as %3"_s.arg(path, quotedJson(tls), example));
        } else {
            rejectUnknownKeys(sink, path + u".tls"_s, files, {u"certificate"_s, u"key"_s}, u"a TLS setting"_s);
            const QDir base = QFileInfo(configPath).absoluteDir();
            const auto readFile = [&](const QString &key, QString *target) {
                const QJsonValue file = files.value(key);
                if (file.isString() && !file.toString().isEmpty())
                    *target = QDir::cleanPath(base.absoluteFilePath(file.toString()));
                else if (file.isUndefined())
                    sink.add(u"%1.tls has no \"%2\": it needs both PEM files, as %3"_s.arg(path, key, example));
                else
                    sink.add(u"%1.tls.%2 = %3 is not a file name: gateway.http.tls needs both PEM files, as %4"_s.arg(
                        path, key, quotedJson(file), example));
            };
            readFile(u"certificate"_s, &http.tlsCertificate);
            readFile(u"key"_s, &http.tlsKey);
            if (http.tlsCertificate.isEmpty() || http.tlsKey.isEmpty()) {
                http.tlsCertificate.clear();
                http.tlsKey.clear();
            }
        }
    }
    if (!isLoopbackHost(http.host) && !http.usesTls())
        sink.add(u"%1.host = \"%2\" is beyond this machine's loopback, and the gateway serves it only over TLS: "
                 "set gateway.http.tls {\"certificate\": …, \"key\": …}, or use \"127.0.0.1\""_s.arg(path, http.host));
    return http;
}

GatewayConfig readGateway(const Sink &sink, const QJsonValue &value, const QString &configPath)
{
    GatewayConfig gateway;
    if (value.isUndefined())
        return gateway;
    if (!value.isObject()) {
        sink.add(u"gateway = %1 is not an object: it holds how Tether serves its tools to MCP hosts, such as "
                 "{\"outageWaitMs\": 10000}"_s.arg(quotedJson(value)));
        return gateway;
    }
    const QJsonObject object = value.toObject();
    rejectUnknownKeys(sink, u"gateway"_s, object, {u"outageWaitMs"_s, u"toolsPageSize"_s, u"names"_s, u"http"_s},
                      u"a gateway setting"_s);
    if (const QJsonValue wait = object.value(u"outageWaitMs"_s); !wait.isUndefined()) {
        if (const auto number = readWholeNumber(sink, u"gateway.outageWaitMs"_s, wait, 0, 600000))
            gateway.outageWait = std::chrono::milliseconds(*number);
    }
    if (const QJsonValue pageSize = object.value(u"toolsPageSize"_s); !pageSize.isUndefined()) {
        if (const auto number = readWholeNumber(sink, u"gateway.toolsPageSize"_s, pageSize, 1, 100000))
            gateway.toolsPageSize = *number;
    }
    if (const QJsonValue names = object.value(u"names"_s); names == u"plain"_s) {
        gateway.names = GatewayNames::Plain;
    } else if (!names.isUndefined() && names != u"prefixed"_s) {
        sink.add(u"gateway.names = %1 is not valid: it must be \"prefixed\" (every tool as <server>__<tool>) or "
                 "\"plain\" (each server's own names, prefixed only where two servers offer the same one)"_s.arg(
                     quotedJson(names)));
    }
    gateway.http = readGatewayHttp(sink, object.value(u"http"_s), configPath);
    return gateway;
}

// Sign-in settings of one server, and those of Tether that only defaults.oauth holds.
const QStringList ServerOAuthKeys{u"clientId"_s, u"clientSecret"_s, u"scopes"_s, u"redirectPort"_s, u"browserTimeoutMs"_s};
const QStringList TetherOAuthKeys{u"tokenStore"_s, u"clientMetadataUrl"_s};

// Keys of `object` that belong in `elsewhere` are named as such; then the others, as rejectUnknownKeys does.
void rejectMisplacedOAuthKeys(const Sink &sink, const QString &path, QJsonObject object, const QStringList &known,
                              const QStringList &misplaced, const QString &elsewhere, const QString &what)
{
    for (const QString &key : misplaced) {
        if (object.contains(key) && !known.contains(key)) {
            // A client secret is not shown, even in the wrong place.
            const QString given = key == u"clientSecret"
                                      ? memberPath(path, key)
                                      : memberPath(path, key) + u" = "_s + quotedJson(object.value(key));
            sink.add(given + u' ' + elsewhere);
            object.remove(key);
        }
    }
    rejectUnknownKeys(sink, path, object, known, what);
}

// The browser step's bound: at least 10 s, for a person to sign in.
constexpr int MinimumBrowserTimeoutMs = 10000;

// defaults.oauth: what every server's sign-in starts from, and where Tether keeps tokens.
OAuthSettings readOAuthDefaults(const Sink &sink, const QJsonValue &value)
{
    OAuthSettings oauth;
    const QString path = u"defaults.oauth"_s;
    if (value.isUndefined())
        return oauth;
    if (!value.isObject()) {
        sink.add(u"%1 = %2 is not an object: it holds how servers sign in, such as {\"tokenStore\": \"file\", "
                 "\"browserTimeoutMs\": 300000}"_s.arg(path, quotedJson(value)));
        return oauth;
    }
    const QJsonObject object = value.toObject();
    rejectMisplacedOAuthKeys(sink, path, object, QStringList{u"browserTimeoutMs"_s} + TetherOAuthKeys, ServerOAuthKeys,
                             u"is a setting of one server: move it to that server's \"oauth\""_s,
                             u"a sign-in default"_s);
    oauth.browserTimeout = readTimeout(sink, path + u".browserTimeoutMs"_s, object.value(u"browserTimeoutMs"_s),
                                       oauth.browserTimeout, MinimumBrowserTimeoutMs);
    if (const QJsonValue store = object.value(u"tokenStore"_s); !store.isUndefined()) {
        if (store == QJsonValue(u"auto"_s))
            oauth.tokenStore = TokenStoreChoice::Auto;
        else if (store == QJsonValue(u"file"_s))
            oauth.tokenStore = TokenStoreChoice::File;
        else
            sink.add(u"%1.tokenStore = %2 is not a token store Tether knows: it must be \"auto\" (the system keyring, "
                     "else a file readable by you alone) or \"file\" (that file always)"_s.arg(path, quotedJson(store)));
    }
    if (const QJsonValue url = object.value(u"clientMetadataUrl"_s); !url.isUndefined() && !url.isNull()) {
        const QUrl parsed(url.toString(), QUrl::StrictMode);
        const bool https = url.isString() && parsed.isValid() && parsed.scheme() == u"https" && !parsed.host().isEmpty();
        if (https && parsed.path().size() > 1 && !parsed.hasFragment())
            oauth.clientMetadataUrl = url.toString();
        else
            sink.add(u"%1.clientMetadataUrl = %2 is not an https URL with a path: it is where Tether's client metadata "
                     "document is served, such as \"https://example.com/tether/client.json\", or null"_s.arg(
                         path, quotedJson(url)));
    }
    return oauth;
}

// The resolve functions name a server; for `defaults` their messages are given its path instead.
void addDefaultsPolicyErrors(const Sink &sink, const QStringList &errors)
{
    const QString prefix = u"server 'defaults': "_s;
    for (const QString &error : errors)
        sink.add(error.startsWith(prefix) ? u"defaults."_s + error.mid(prefix.size()) : error);
}

Defaults readDefaults(const Sink &sink, const QJsonValue &value)
{
    Defaults defaults;
    if (value.isUndefined())
        return defaults;
    if (!value.isObject()) {
        sink.add(u"defaults = %1 is not an object: it holds what every server starts from, such as "
                 "{\"reconnect\": {\"maxAttempts\": 5}}"_s.arg(quotedJson(value)));
        return defaults;
    }
    const QJsonObject object = value.toObject();
    const QString path = u"defaults"_s;
    rejectUnknownKeys(sink, path, object, {u"reconnect"_s, u"heartbeat"_s, u"pool"_s, u"timeoutMs"_s, u"oauth"_s},
                      u"a default Tether knows"_s);
    defaults.oauth = readOAuthDefaults(sink, object.value(u"oauth"_s));

    const QJsonValue reconnect = object.value(u"reconnect"_s);
    if (reconnect.isObject()) {
        const auto resolution = resolveReconnectPolicy(path, reconnect.toObject());
        defaults.reconnect = resolution.policy;
        addDefaultsPolicyErrors(sink, resolution.errors);
    } else if (!reconnect.isUndefined()) {
        sink.add(u"defaults.reconnect = %1 is not an object: write it as {\"maxAttempts\": 5}"_s.arg(quotedJson(reconnect)));
    }
    const QJsonValue heartbeat = object.value(u"heartbeat"_s);
    if (heartbeat.isObject()) {
        const auto resolution = resolveHeartbeatPolicy(path, heartbeat.toObject());
        defaults.heartbeat = resolution.policy;
        addDefaultsPolicyErrors(sink, resolution.errors);
    } else if (!heartbeat.isUndefined()) {
        sink.add(u"defaults.heartbeat = %1 is not an object: write it as {\"intervalMs\": 30000}"_s.arg(quotedJson(heartbeat)));
    }
    defaults.pool = readPool(sink, u"defaults.pool"_s, object.value(u"pool"_s), defaults.pool);
    defaults.timeout = readTimeout(sink, u"defaults.timeoutMs"_s, object.value(u"timeoutMs"_s), defaults.timeout);
    return defaults;
}

// Reads one server's object; every problem goes to the server's errors.
class ServerReader
{
public:
    ServerReader(const QString &file, QString at, const ConfigContext &context, ServerConfig *server)
        : m_sink{file, &server->errors}
        , m_at(std::move(at))
        , m_object(server->source)
        , m_context(context)
        , m_server(server)
    {}

    void read(const Defaults &defaults)
    {
        if (m_server->name.isEmpty())
            m_sink.add(m_at + u" has an empty name: give the server a name, it is how Tether and its tools refer to it"_s);

        const QJsonValue enabled = m_object.value(u"enabled"_s);
        if (enabled.isBool())
            m_server->enabled = enabled.toBool();
        else if (!enabled.isUndefined())
            m_sink.add(u"%1 = %2 is not valid: it must be true or false"_s.arg(path(u"enabled"_s), quotedJson(enabled)));

        readTransport();
        if (m_server->transport != TransportKind::Stdio)
            readOAuth(defaults.oauth);
        readPolicies(defaults);
        readHiddenTools();
        readClientFeatures();
        readProtocol();
        warnMistypedKeys();
    }

private:
    QString path(const QString &field) const { return memberPath(m_at, field); }
    bool has(const QString &field) const { return m_object.contains(field); }

    // A key a typo away from a setting that is missing ("comand"), said in the error that it is
    // missing: "; mcpServers.x.comand may be \"command\" mistyped". Empty when there is none.
    QString mistypedAs(const QStringList &missing)
    {
        for (const QString &key : m_object.keys()) {
            for (const QString &setting : missing) {
                if (isLikelyTypo(key, setting)) {
                    m_saidMistyped.append(key);
                    return u"; %1 may be \"%2\" mistyped"_s.arg(path(key), setting);
                }
            }
        }
        return {};
    }

    // A key Tether does not read a typo away from one it does ("arg", "evn") leaves that setting
    // unread without a word, so it is said; other keys (another program's own) are kept unsaid.
    void warnMistypedKeys()
    {
        static const QStringList settings{
            u"command"_s, u"args"_s,    u"env"_s,       u"envFile"_s,        u"cwd"_s,     u"type"_s,  u"url"_s,
            u"headers"_s, u"oauth"_s,   u"enabled"_s,   u"reconnect"_s,      u"heartbeat"_s, u"pool"_s, u"timeoutMs"_s,
            u"tools"_s,   u"roots"_s,   u"perHost"_s,   u"clientFeatures"_s, u"protocol"_s};
        for (const QString &key : m_object.keys()) {
            if (settings.contains(key) || m_saidMistyped.contains(key))
                continue;
            const auto meant = std::find_if(settings.cbegin(), settings.cend(),
                                            [&key](const QString &setting) { return isLikelyTypo(key, setting); });
            if (meant != settings.cend()) {
                Sink{m_sink.file, &m_server->warnings}.add(
                    u"%1 is not a setting Tether reads, so it is left unread; did you mean \"%2\"?"_s.arg(path(key), *meant));
            }
        }
    }

    void readTransport()
    {
        const QJsonValue type = m_object.value(u"type"_s);
        std::optional<TransportKind> kind;
        if (!type.isUndefined()) {
            const QString name = type.toString();
            if (type.isString() && name == u"stdio")
                kind = TransportKind::Stdio;
            else if (type.isString() && (name == u"http" || name == u"streamable-http"))
                kind = TransportKind::StreamableHttp;
            else if (type.isString() && name == u"sse")
                kind = TransportKind::Sse;
            else
                m_sink.add(u"%1 = %2 is not a transport Tether knows: it must be \"stdio\", \"http\" (also written "
                           "\"streamable-http\") or \"sse\""_s.arg(path(u"type"_s), quotedJson(type)));
        }
        const bool explicitType = kind.has_value();
        if (!kind && has(u"command"_s) && has(u"url"_s)) {
            // Without a type there is no telling which one was meant; judge neither against the other.
            m_sink.add(u"%1 gives both \"command\" and \"url\": give \"command\" for a server Tether starts, or "
                       "\"url\" for a remote one"_s.arg(m_at));
            m_server->transport = TransportKind::Stdio;
            readStdio(false);
            readRemote(false);
            return;
        }
        if (!kind)
            kind = has(u"url"_s) ? TransportKind::StreamableHttp : TransportKind::Stdio;
        m_server->transport = *kind;

        if (*kind == TransportKind::Stdio) {
            readStdio(explicitType);
            rejectForeign({u"url"_s, u"headers"_s, u"oauth"_s},
                          u"which only an http or sse server uses: remove them, or set \"type\" to \"http\" or \"sse\""_s);
        } else {
            readRemote(explicitType);
            rejectForeign({u"command"_s, u"args"_s, u"env"_s, u"envFile"_s, u"cwd"_s},
                          u"which only a stdio server uses: remove them, or remove \"url\" and \"type\" to start the "
                          "command instead"_s);
        }
    }

    void rejectForeign(const QStringList &fields, const QString &advice)
    {
        QStringList given;
        for (const QString &field : fields) {
            if (has(field))
                given.append(field);
        }
        if (!given.isEmpty())
            m_sink.add(u"%1 is %2 server but also gives %3, %4"_s.arg(
                m_at, m_server->transport == TransportKind::Stdio ? u"a stdio"_s : u"an "_s + transportName(m_server->transport),
                quotedList(given), advice));
    }

    std::optional<QString> expand(const QString &where, const QString &text) const
    {
        const VariableExpansion expansion = expandVariables(where, text, m_context);
        for (const QString &error : expansion.errors)
            m_sink.add(error);
        if (!expansion.isValid())
            return std::nullopt;
        return expansion.text;
    }

    // A string field, expanded; nothing when absent or wrong (the error is recorded).
    std::optional<QString> readString(const QString &field, const QString &rule)
    {
        const QJsonValue value = m_object.value(field);
        if (value.isUndefined())
            return std::nullopt;
        if (!value.isString()) {
            m_sink.add(u"%1 = %2 is not a string: %3"_s.arg(path(field), quotedJson(value), rule));
            return std::nullopt;
        }
        const auto expanded = expand(path(field), value.toString());
        if (expanded && expanded->isEmpty()) {
            m_sink.add(u"%1 = %2 is empty: %3"_s.arg(path(field), quotedJson(value), rule));
            return std::nullopt;
        }
        return expanded;
    }

    enum class SecretMap { Environment, Headers };

    // env and headers: names to string values. The values may be secrets and are never shown.
    QList<std::pair<QString, QString>> readSecretMap(SecretMap kind)
    {
        const bool headers = kind == SecretMap::Headers;
        const QString field = headers ? u"headers"_s : u"env"_s;
        const QString what = headers ? u"header"_s : u"environment variable"_s;
        const QString example = headers ? u"{\"Authorization\": \"Bearer ${env:TOKEN}\"}"_s : u"{\"DEBUG\": \"1\"}"_s;
        QList<std::pair<QString, QString>> entries;
        const QJsonValue value = m_object.value(field);
        if (value.isUndefined())
            return entries;
        if (!value.isObject()) {
            m_sink.add(u"%1 is %2, not an object: it maps %3 names to string values, such as %4"_s.arg(
                path(field), jsonKind(value), what, example));
            return entries;
        }
        const QJsonObject object = value.toObject();
        for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
            const QString where = memberPath(path(field), it.key());
            if (headers && !isHeaderName(it.key())) {
                m_sink.add(u"%1 is not a valid header name: a header name is letters, digits and "
                           "!#$%&'*+-.^_`|~ only, without spaces, colons or control characters, such as "
                           "\"Authorization\""_s.arg(where));
                continue;
            }
            if (!headers && (it.key().isEmpty() || it.key().contains(u'=') || it.key().contains(u'\n'))) {
                m_sink.add(u"%1 is not a valid %2 name: give a name without \"=\" or line breaks"_s.arg(where, what));
                continue;
            }
            if (!it.value().isString()) {
                m_sink.add(u"%1 is %2, not a string: every %3 value must be a string; write it in quotes (the value "
                           "is not shown, it may be a secret)"_s.arg(where, jsonKind(it.value()), what));
                continue;
            }
            const auto expanded = expand(where, it.value().toString());
            if (expanded && headers && !isHeaderValue(*expanded)) {
                // A line break would end the header and send the rest as headers of their own.
                m_sink.add(u"%1 holds a line break or another control character%2, which a header value cannot hold: "
                           "remove it (the value is not shown, it may be a secret)"_s.arg(
                               where, it.value().toString().contains(u"${env:"_s) ? u" once ${env:…} is expanded"_s
                                                                                 : QString()));
                continue;
            }
            if (expanded)
                entries.append({it.key(), *expanded});
        }
        return entries;
    }

    void readStdio(bool explicitType)
    {
        StdioServerCommand &command = m_server->command;
        if (!has(u"command"_s)) {
            m_sink.add((explicitType
                            ? u"%1 has no \"command\": a stdio server needs the program to start, such as \"npx\""_s.arg(m_at)
                            : u"%1 has neither \"command\" nor \"url\": give \"command\" for a server Tether starts, "
                              "such as \"npx\", or \"url\" for a remote one"_s.arg(m_at))
                       + mistypedAs(explicitType ? QStringList{u"command"_s} : QStringList{u"command"_s, u"url"_s}));
        }
        command.program = readString(u"command"_s, u"the command is the program to start, such as \"npx\""_s).value_or(QString());

        const QJsonValue args = m_object.value(u"args"_s);
        if (args.isArray()) {
            const QJsonArray array = args.toArray();
            for (qsizetype i = 0; i < array.size(); ++i) {
                const QString where = u"%1[%2]"_s.arg(path(u"args"_s)).arg(i);
                if (!array.at(i).isString()) {
                    m_sink.add(u"%1 = %2 is not a string: every argument must be a string"_s.arg(where, quotedJson(array.at(i))));
                    continue;
                }
                if (const auto expanded = expand(where, array.at(i).toString()))
                    command.arguments.append(*expanded);
            }
        } else if (!args.isUndefined()) {
            m_sink.add(u"%1 = %2 is not an array: args is a list of strings, such as [\"-y\", \"some-server\"]"_s.arg(
                path(u"args"_s), quotedJson(args)));
        }

        // env wins over envFile, as in VS Code.
        QList<std::pair<QString, QString>> environment = readEnvFile();
        for (const auto &entry : readSecretMap(SecretMap::Environment)) {
            environment.removeIf([&](const auto &existing) { return existing.first == entry.first; });
            environment.append(entry);
        }
        std::sort(environment.begin(), environment.end());
        command.environment = environment;

        // Relative to the config's folder, as envFile is, not to wherever Tether was started.
        const QString cwd = readString(u"cwd"_s, u"cwd is the folder to start the server in"_s).value_or(QString());
        command.workingDirectory = cwd.isEmpty() || !QDir::isRelativePath(cwd)
                                       ? cwd
                                       : QDir::cleanPath(QFileInfo(m_sink.file).absoluteDir().filePath(cwd));
    }

    // VS Code's envFile: NAME=value lines, # comments, optional quotes and "export ".
    QList<std::pair<QString, QString>> readEnvFile()
    {
        QList<std::pair<QString, QString>> entries;
        const auto name = readString(u"envFile"_s, u"envFile is the path of a file of NAME=value lines"_s);
        if (!name)
            return entries;
        const QString where = path(u"envFile"_s);
        const QString fileName = QDir::isRelativePath(*name) ? QFileInfo(m_sink.file).absoluteDir().filePath(*name) : *name;
        QFile file(fileName);
        if (!QFileInfo(fileName).isFile() || !file.open(QIODevice::ReadOnly)) {
            m_sink.add(u"%1 = %2: %3 cannot be read (%4): create it, or remove envFile"_s.arg(
                where, quotedJson(m_object.value(u"envFile"_s)), fileName,
                QFileInfo::exists(fileName) ? file.errorString() : u"no such file"_s));
            return entries;
        }
        const QStringList lines = QString::fromUtf8(file.read(MaxConfigBytes)).split(u'\n');
        for (qsizetype i = 0; i < lines.size(); ++i) {
            QString line = lines.at(i).trimmed();
            if (line.isEmpty() || line.startsWith(u'#'))
                continue;
            if (line.startsWith(u"export "))
                line = line.mid(7).trimmed();
            const qsizetype equals = line.indexOf(u'=');
            const QString key = line.left(equals).trimmed();
            if (equals <= 0 || key.contains(u' ') || key.contains(u'\t')) {
                // The line itself is not shown: it may hold a secret.
                m_sink.add(u"%1: line %2 of %3 is not NAME=value: write one variable per line, such as DEBUG=1"_s.arg(
                    where).arg(i + 1).arg(fileName));
                continue;
            }
            QString value = line.mid(equals + 1).trimmed();
            const bool quoted = value.size() >= 2 && (value.front() == u'"' || value.front() == u'\'')
                                && value.back() == value.front();
            if (quoted) {
                const bool doubleQuoted = value.front() == u'"';
                value = value.mid(1, value.size() - 2);
                if (doubleQuoted)
                    value.replace(u"\\n"_s, u"\n"_s).replace(u"\\\""_s, u"\""_s);
            } else if (const qsizetype comment = value.indexOf(u" #"_s); comment >= 0) {
                value = value.left(comment).trimmed();
            }
            entries.removeIf([&](const auto &existing) { return existing.first == key; });
            entries.append({key, value});
        }
        return entries;
    }

    void readRemote(bool explicitType)
    {
        const QString kind = transportName(m_server->transport);
        if (!has(u"url"_s)) {
            m_sink.add(u"%1 has no \"url\": %2 server needs the address to connect to, such as "
                       "\"https://example.com/mcp\""_s.arg(m_at, explicitType ? u"an "_s + kind : u"a remote"_s)
                       + mistypedAs({u"url"_s}));
        }
        const QString rule = u"a remote server's url starts with http:// or https://, such as \"https://example.com/mcp\""_s;
        if (const QJsonValue written = m_object.value(u"url"_s); written.isString())
            m_server->urlAsWritten = written.toString();
        if (const auto url = readString(u"url"_s, rule)) {
            const QUrl parsed(*url, QUrl::StrictMode);
            const QString scheme = parsed.scheme().toLower();
            if (!parsed.isValid() || (scheme != u"http" && scheme != u"https") || parsed.host().isEmpty()) {
                // The URL as written: a value from the environment may carry a token.
                const QString found = scheme.isEmpty() || scheme == u"http" || scheme == u"https"
                                          ? QString()
                                          : u" (its scheme is \"%1\")"_s.arg(scheme);
                m_sink.add(u"%1 = %2 is not an http or https URL%3: %4"_s.arg(
                    path(u"url"_s), quotedJson(m_object.value(u"url"_s)), found, rule));
            } else {
                m_server->url = *url;
            }
        }
        m_server->headers = readSecretMap(SecretMap::Headers);
    }

    // "oauth": {…} or false: how the server signs in when it asks.
    void readOAuth(const OAuthSettings &defaults)
    {
        OAuthSettings &oauth = m_server->oauth;
        oauth = defaults;
        const QString at = path(u"oauth"_s);
        const QJsonValue value = m_object.value(u"oauth"_s);
        if (value.isUndefined() || value == QJsonValue(true))
            return;
        if (value == QJsonValue(false)) {
            oauth.enabled = false;
            return;
        }
        if (!value.isObject()) {
            m_sink.add(u"%1 = %2 is not an object or false: write it as {\"clientId\": \"tether-desktop\", "
                       "\"scopes\": [\"files:read\"]}, or false to never sign in"_s.arg(at, quotedJson(value)));
            return;
        }
        const QJsonObject object = value.toObject();
        rejectMisplacedOAuthKeys(m_sink, at, object, ServerOAuthKeys, TetherOAuthKeys,
                                 u"is a setting of Tether, not of one server: move it to defaults.oauth"_s,
                                 u"a sign-in setting"_s);

        if (const QJsonValue clientId = object.value(u"clientId"_s); !clientId.isUndefined()) {
            const QString where = memberPath(at, u"clientId"_s);
            const QString rule = u"it is the client id the authorization server gave Tether, such as \"tether-desktop\""_s;
            const auto expanded = clientId.isString() ? expand(where, clientId.toString()) : std::nullopt;
            if (!clientId.isString())
                m_sink.add(u"%1 = %2 is not a string: %3"_s.arg(where, quotedJson(clientId), rule));
            else if (expanded && expanded->isEmpty())
                m_sink.add(u"%1 = %2 is empty: %3"_s.arg(where, quotedJson(clientId), rule));
            else if (expanded)
                oauth.clientId = *expanded;
        }
        if (const QJsonValue secret = object.value(u"clientSecret"_s); !secret.isUndefined()) {
            // Like a header value: the value is never shown.
            const QString where = memberPath(at, u"clientSecret"_s);
            const auto expanded = secret.isString() ? expand(where, secret.toString()) : std::nullopt;
            if (!secret.isString())
                m_sink.add(u"%1 is %2, not a string: write the secret in quotes, or as \"${env:NAME}\" (the value is "
                           "not shown, it may be a secret)"_s.arg(where, jsonKind(secret)));
            else if (expanded && expanded->isEmpty())
                m_sink.add(u"%1 is empty%2: give the secret the authorization server issued with clientId, or remove "
                           "clientSecret for a public client"_s.arg(
                               where, secret.toString().contains(u"${env:"_s) ? u" once ${env:…} is expanded"_s : QString()));
            else if (expanded)
                oauth.clientSecret = *expanded;
            if (!object.contains(u"clientId"_s))
                m_sink.add(u"%1 gives clientSecret without clientId: a secret belongs to a pre-registered client; add "
                           "its clientId, or remove clientSecret"_s.arg(at));
        }
        if (const QJsonValue scopes = object.value(u"scopes"_s); !scopes.isUndefined())
            oauth.scopes = readScopes(memberPath(at, u"scopes"_s), scopes);
        if (const QJsonValue port = object.value(u"redirectPort"_s); !port.isUndefined()) {
            if (const auto number = readWholeNumber(m_sink, memberPath(at, u"redirectPort"_s), port, 1024, 65535))
                oauth.redirectPort = *number;
        }
        oauth.browserTimeout = readTimeout(m_sink, memberPath(at, u"browserTimeoutMs"_s), object.value(u"browserTimeoutMs"_s),
                                           oauth.browserTimeout, MinimumBrowserTimeoutMs);
    }

    // OAuth scopes (RFC 6749 §3.3): each one word of printable characters but the quote and the backslash.
    QStringList readScopes(const QString &at, const QJsonValue &value)
    {
        const QString example = u"[\"files:read\", \"files:write\"]"_s;
        QStringList scopes;
        if (!value.isArray()) {
            m_sink.add(u"%1 = %2 is not a list: write the scopes to ask for as %3"_s.arg(at, quotedJson(value), example));
            return scopes;
        }
        const QJsonArray array = value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i) {
            const QString where = u"%1[%2]"_s.arg(at).arg(i);
            const auto expanded = array.at(i).isString() ? expand(where, array.at(i).toString()) : std::nullopt;
            const bool isScope = expanded && !expanded->isEmpty() && std::all_of(expanded->begin(), expanded->end(), [](QChar c) {
                return c.unicode() >= 0x21 && c.unicode() <= 0x7e && c != u'"' && c != u'\\';
            });
            if (isScope) {
                if (!scopes.contains(*expanded))
                    scopes.append(*expanded);
            } else if (!array.at(i).isString() || expanded) {
                m_sink.add(u"%1 = %2 is not a scope: a scope is one word of letters, digits and punctuation, without "
                           "spaces or quotes, such as \"files:read\""_s.arg(where, quotedJson(array.at(i))));
            }
        }
        return scopes;
    }

    // connection.reconnect / connection.heartbeat (the seed article's form) under the plain field.
    QJsonObject policyInput(const QString &section, const QJsonObject &connection)
    {
        QJsonObject merged;
        const QJsonValue aliased = connection.value(section);
        const QString aliasPath = memberPath(path(u"connection"_s), section);
        if (aliased.isObject())
            merged = aliased.toObject();
        else if (!aliased.isUndefined())
            m_sink.add(u"%1 = %2 is not an object: write it as {\"maxRetries\": 5}"_s.arg(aliasPath, quotedJson(aliased)));

        const QJsonValue plain = m_object.value(section);
        if (!plain.isObject()) {
            if (!plain.isUndefined())
                m_sink.add(u"%1 = %2 is not an object: write it as %3"_s.arg(
                    path(section), quotedJson(plain),
                    section == u"reconnect" ? u"{\"maxAttempts\": 5}"_s : u"{\"intervalMs\": 30000}"_s));
            return merged;
        }
        const QJsonObject object = plain.toObject();
        for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
            const QJsonValue other = merged.value(it.key());
            if (!other.isUndefined() && other != it.value()) {
                m_sink.add(u"%1 = %2 and %3 = %4 disagree: they are the same setting, give only one"_s.arg(
                    memberPath(aliasPath, it.key()), quotedJson(other), memberPath(path(section), it.key()),
                    quotedJson(it.value())));
                merged.remove(it.key()); // neither wins: the default stays
                continue;
            }
            merged.insert(it.key(), it.value());
        }
        return merged;
    }

    void readPolicies(const Defaults &defaults)
    {
        QJsonObject connection;
        const QJsonValue connectionValue = m_object.value(u"connection"_s);
        if (connectionValue.isObject()) {
            connection = connectionValue.toObject();
            rejectUnknownKeys(m_sink, path(u"connection"_s), connection, {u"reconnect"_s, u"heartbeat"_s},
                              u"a connection setting"_s);
        } else if (!connectionValue.isUndefined()) {
            m_sink.add(u"%1 = %2 is not an object: it holds \"reconnect\" and \"heartbeat\", such as "
                       "{\"reconnect\": {\"maxRetries\": 5}}"_s.arg(path(u"connection"_s), quotedJson(connectionValue)));
        }

        const auto reconnect = resolveReconnectPolicy(m_server->name, policyInput(u"reconnect"_s, connection),
                                                      defaults.reconnect);
        m_server->reconnect = reconnect.policy;
        for (const QString &error : reconnect.errors)
            m_sink.add(error);
        const auto heartbeat = resolveHeartbeatPolicy(m_server->name, policyInput(u"heartbeat"_s, connection),
                                                      defaults.heartbeat);
        m_server->heartbeat = heartbeat.policy;
        for (const QString &error : heartbeat.errors)
            m_sink.add(error);

        m_server->pool = readPool(m_sink, path(u"pool"_s), m_object.value(u"pool"_s), defaults.pool);
        m_server->poolConfigured = has(u"pool"_s);
        m_server->requestTimeout = readTimeout(m_sink, path(u"timeoutMs"_s), m_object.value(u"timeoutMs"_s), defaults.timeout);
    }

    // "tools": {"disabled": ["name", …]}: the server's own tool names, kept even when the server does
    // not offer them (yet).
    void readHiddenTools()
    {
        const QString example = u"{\"disabled\": [\"delete_repository\"]}"_s;
        const QJsonValue value = m_object.value(u"tools"_s);
        if (value.isUndefined())
            return;
        if (!value.isObject()) {
            m_sink.add(u"%1 = %2 is not an object: write it as %3"_s.arg(path(u"tools"_s), quotedJson(value), example));
            return;
        }
        const QJsonObject object = value.toObject();
        rejectUnknownKeys(m_sink, path(u"tools"_s), object, {u"disabled"_s}, u"a tools setting"_s);
        const QJsonValue disabled = object.value(u"disabled"_s);
        const QString at = memberPath(path(u"tools"_s), u"disabled"_s);
        if (disabled.isUndefined())
            return;
        if (!disabled.isArray()) {
            m_sink.add(u"%1 = %2 is not an array: it lists the names of the tools to hide, such as "
                       "[\"delete_repository\"]"_s.arg(at, quotedJson(disabled)));
            return;
        }
        const QJsonArray names = disabled.toArray();
        for (qsizetype i = 0; i < names.size(); ++i) {
            const QJsonValue name = names.at(i);
            if (!name.isString() || name.toString().isEmpty()) {
                m_sink.add(u"%1[%2] = %3 is not a tool name: give the name the server lists the tool under"_s.arg(at)
                               .arg(i)
                               .arg(quotedJson(name)));
                continue;
            }
            if (!m_server->hiddenTools.contains(name.toString()))
                m_server->hiddenTools.append(name.toString());
        }
    }

    // "clientFeatures", "perHost" and "roots": what the server may ask of Tether's clients.
    void readClientFeatures()
    {
        for (const auto &[field, target] : {std::pair{u"clientFeatures"_s, &m_server->clientFeatures},
                                            std::pair{u"perHost"_s, &m_server->perHost}}) {
            const QJsonValue value = m_object.value(field);
            if (value.isBool())
                *target = value.toBool();
            else if (!value.isUndefined())
                m_sink.add(u"%1 = %2 is not valid: it must be true or false"_s.arg(path(field), quotedJson(value)));
        }
        const QJsonValue roots = m_object.value(u"roots"_s);
        if (roots.isUndefined())
            return;
        if (!roots.isArray()) {
            m_sink.add(u"%1 = %2 is not an array: it lists folders, such as [\"/home/me/project\"]"_s.arg(
                path(u"roots"_s), quotedJson(roots)));
            return;
        }
        const QJsonArray entries = roots.toArray();
        for (qsizetype i = 0; i < entries.size(); ++i) {
            const QString at = path(u"roots"_s) + u"[%1]"_s.arg(i);
            const QString expanded = entries.at(i).isString() ? expand(at, entries.at(i).toString()).value_or(QString())
                                                              : QString();
            const QUrl url = expanded.startsWith(u"file:") ? QUrl(expanded) : QUrl::fromLocalFile(expanded);
            if (expanded.isEmpty() || !url.isValid() || !url.isLocalFile() || !QDir::isAbsolutePath(url.toLocalFile())) {
                m_sink.add(u"%1 = %2 is not a folder: give an absolute path such as \"/home/me/project\" or a "
                           "file:// URI"_s.arg(at, quotedJson(entries.at(i))));
                continue;
            }
            const QString folder = QDir::cleanPath(url.toLocalFile());
            m_server->roots.append(QJsonObject{{u"uri"_s, QUrl::fromLocalFile(folder).toString(QUrl::FullyEncoded)},
                                               {u"name"_s, QFileInfo(folder).fileName().isEmpty() ? folder
                                                                                                  : QFileInfo(folder).fileName()}});
        }
    }

    // "protocol": the era to speak, or "auto" to find it.
    void readProtocol()
    {
        const QJsonValue value = m_object.value(u"protocol"_s);
        if (value.isUndefined())
            return;
        static const QStringList choices{u"auto"_s, u"2026-07-28"_s, u"2025-11-25"_s};
        if (!value.isString() || !choices.contains(value.toString())) {
            m_sink.add(u"%1 = %2 is not valid: it must be \"auto\" (find the server's era), \"2026-07-28\" or "
                       "\"2025-11-25\""_s.arg(path(u"protocol"_s), quotedJson(value)));
            return;
        }
        m_server->protocol = value.toString();
    }

    Sink m_sink;
    QString m_at;
    const QJsonObject &m_object;
    const ConfigContext &m_context;
    ServerConfig *m_server;
    QStringList m_saidMistyped; // keys an error has named as typos already
};

// Every key written more than once inside a server's object, at any depth: JSON keeps the last one
// and so does Tether, silently unless it says so.
void warnDuplicateKeys(const Sink &sink, const QString &at, const JsonKeyOrder &order)
{
    for (const QString &key : order.duplicateKeys()) {
        sink.add(definedMoreThanOnce(memberPath(at, key), order.linesOf(key))
                 + u": JSON keeps only the last one, and Tether uses it; remove the others"_s);
    }
    QSet<QString> walked;
    for (const QString &key : order.keys) {
        if (!walked.contains(key)) {
            walked.insert(key);
            warnDuplicateKeys(sink, memberPath(at, key), order.members.value(key));
        }
    }
    for (qsizetype i = 0; i < order.elements.size(); ++i)
        warnDuplicateKeys(sink, at + u"[%1]"_s.arg(i), order.elements.at(i));
}

} // namespace

QString parseErrorLocation(const QByteArray &bytes, const QJsonParseError &error)
{
    // Qt reports the offset just past the character it stopped at; name that character.
    const qsizetype offset = std::clamp<qsizetype>(error.offset - 1, 0, bytes.size());
    const QByteArrayView before = QByteArrayView(bytes).first(offset);
    qsizetype lineStart = before.lastIndexOf('\n') + 1;
    if (lineStart == 0 && before.startsWith("\xEF\xBB\xBF"))
        lineStart = 3;
    const qsizetype line = before.count('\n') + 1;
    const qsizetype column = QString::fromUtf8(before.sliced(lineStart)).toUcs4().size() + 1;
    QString text = u"line %1, column %2"_s.arg(line).arg(column);
    const QByteArrayView near = QByteArrayView(bytes).sliced(std::max<qsizetype>(0, offset - 2)).first(
        std::min<qsizetype>(4, bytes.size() - std::max<qsizetype>(0, offset - 2)));
    const QString hint = near.contains("//") || near.contains("/*")
                             ? u"; comments are not allowed in JSON, remove them"_s
                             : QString();
    return text + u" (%1%2)"_s.arg(error.errorString(), hint);
}

bool isBlankConfig(const QByteArray &bytes)
{
    const QByteArray trimmed = bytes.trimmed();
    return trimmed.isEmpty() || trimmed == "\xEF\xBB\xBF";
}

ConfigDocument parseConfig(const QByteArray &bytes, const QString &path, const ConfigContext &context)
{
    ConfigDocument document;
    document.path = path;
    document.serversKey = u"mcpServers"_s;
    const Sink fileSink{path, &document.errors};
    // An empty file (as `touch` makes it) is a config without servers, ready to be saved into.
    if (isBlankConfig(bytes))
        return document;

    QJsonParseError parseError;
    const QJsonDocument json = QJsonDocument::fromJson(bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        fileSink.add(parseErrorLocation(bytes, parseError) + u": the file is not valid JSON; fix it"_s);
        return document;
    }
    if (!json.isObject()) {
        fileSink.add(u"the file holds a JSON %1, not an object: a config file is an object such as "
                     "{\"mcpServers\": {}}"_s.arg(json.isArray() ? u"array"_s : u"value"_s));
        return document;
    }
    document.root = json.object();
    const std::optional<JsonKeyOrder> keyOrder = JsonKeyOrder::scan(bytes);
    document.keyOrder = keyOrder.value_or(JsonKeyOrder());
    const bool hasMcpServers = document.root.contains(u"mcpServers"_s);
    const bool hasServers = document.root.contains(u"servers"_s);
    if (hasMcpServers && hasServers) {
        fileSink.add(u"the file has both \"mcpServers\" and \"servers\": Tether reads one list of servers; move "
                     "them all into \"mcpServers\""_s);
        return document;
    }
    if (hasServers)
        document.serversKey = u"servers"_s;

    const Defaults defaults = readDefaults(fileSink, document.root.value(u"defaults"_s));
    document.oauthDefaults = defaults.oauth;
    document.gateway = readGateway(fileSink, document.root.value(u"gateway"_s), path);

    const QJsonValue serversValue = document.root.value(document.serversKey);
    if (serversValue.isUndefined()) {
        // No servers at all: a key a typo away from the list's name is what was meant.
        for (const QString &key : document.root.keys()) {
            for (const QString &list : {u"mcpServers"_s, u"servers"_s}) {
                if (isLikelyTypo(key, list)) {
                    fileSink.add(u"the file has no \"%1\", so no server would run; \"%2\" is not a key Tether reads: "
                                 "did you mean \"%1\"?"_s.arg(list, key));
                    break;
                }
            }
        }
        return document;
    }
    if (!serversValue.isObject()) {
        fileSink.add(u"%1 = %2 is not an object: it maps each server's name to its settings, such as "
                     "{\"demo\": {\"command\": \"npx\", \"args\": [\"-y\", \"some-server\"]}}"_s.arg(
                         document.serversKey, quotedJson(serversValue)));
        return document;
    }
    const QJsonObject servers = serversValue.toObject();
    const JsonKeyOrder serversOrder = document.keyOrder.members.value(document.serversKey);
    const QStringList order = keyOrder ? serversOrder.keys : servers.keys();
    const QStringList duplicateList = serversOrder.duplicateKeys();
    const QSet<QString> duplicates(duplicateList.cbegin(), duplicateList.cend());

    QSet<QString> seen;
    for (const QString &name : order) {
        if (seen.contains(name))
            continue;
        seen.insert(name);
        const QString at = memberPath(document.serversKey, name);
        const QJsonValue value = servers.value(name);
        if (!value.isObject()) {
            fileSink.add(u"%1 = %2 is not an object: each server is an object such as {\"command\": \"npx\", "
                         "\"args\": [\"-y\", \"some-server\"]}"_s.arg(at, quotedJson(value)));
            continue;
        }
        ServerConfig server;
        server.name = name;
        server.source = value.toObject();
        ServerReader(path, at, context, &server).read(defaults);
        if (duplicates.contains(name)) {
            Sink{path, &server.errors}.add(definedMoreThanOnce(at, serversOrder.linesOf(name))
                                           + u": JSON keeps only the last one; remove or rename the others"_s);
        }
        warnDuplicateKeys(Sink{path, &server.warnings}, at, serversOrder.members.value(name));
        document.servers.append(server);
    }
    return document;
}

} // namespace Tether
