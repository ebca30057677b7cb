#include "demoserver.h"

#include "demolog.h"
#include "sleepcall.h"
#include "stdinreader.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QTimer>

#include <climits>
#include <cmath>
#include <fcntl.h>
#include <unistd.h>

using namespace Qt::Literals::StringLiterals;

namespace Demo {

namespace {

// JSON-RPC 2.0 error codes.
constexpr int ParseError = -32700;
constexpr int InvalidRequest = -32600;
constexpr int MethodNotFound = -32601;
constexpr int InvalidParams = -32602;

const QString ServerName = u"tether-demo-server"_s;
const QString LatestProtocolVersion = u"2025-11-25"_s;
const QStringList SupportedProtocolVersions = {u"2025-11-25"_s, u"2025-06-18"_s, u"2025-03-26"_s,
                                               u"2024-11-05"_s};

QString compactJson(const QJsonValue &value)
{
    if (value.isObject())
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    if (value.isArray())
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    // QJsonDocument only holds containers: wrap the scalar and strip the brackets.
    const QByteArray wrapped = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(wrapped.mid(1, wrapped.size() - 2));
}

// A hashable key for a JSON-RPC id; 1 and "1" are different ids.
QString idKey(const QJsonValue &id)
{
    if (id.isString())
        return u"s:"_s + id.toString();
    if (id.isDouble())
        return u"n:"_s + QString::number(id.toDouble(), 'g', 17);
    return {};
}

// Formats a number the way JavaScript's String(n) does for the common cases: 5, 2.5, 0.1.
QString formatNumber(double value)
{
    if (std::isnan(value))
        return u"NaN"_s;
    if (std::isinf(value))
        return value > 0 ? u"Infinity"_s : u"-Infinity"_s;
    if (value == std::trunc(value) && std::fabs(value) < 1e21)
        return QString::number(value == 0 ? 0.0 : value, 'f', 0); // also turns -0 into "0"
    return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

bool isInteger(const QJsonValue &value)
{
    return value.isDouble() && std::isfinite(value.toDouble())
           && value.toDouble() == std::trunc(value.toDouble());
}

QJsonObject textResult(const QString &text, bool isError = false)
{
    return {{u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, text}}}},
            {u"isError"_s, isError}};
}

// A 32x32 PNG (a blue ring round an orange dot) for the 'image' tool: the demo links Qt Core only.
const QString DemoImagePng =
    u"iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAYAAABzenr0AAAAkElEQVR42mNgGAUkAr22g//x4QGzmGYOIdViqjqEUsspcgS1LC"
    "fLEeQaRhVHUMMXFJlBrXgkyxxqp2SSzSNF8ec5Qv+RMcVmEutadIsJOYToUCDWpaQ6gGizqeF7UkJh1AFD0wF0T4R0zYYDXhANiqJ4"
    "wCujQVEdD3iDZFA0yQZFo3RQNMsHRcdk0HTNhi0AAJQbRV3PzUdbAAAAAElFTkSuQmCC"_s;

const QStringList FormatStyles = {u"plain"_s, u"quoted"_s, u"heading"_s};
constexpr int MaxFormatRepeat = 10;

QJsonObject stringProperty(const QString &description)
{
    return {{u"type"_s, u"string"_s}, {u"description"_s, description}};
}

// What a tool may be trusted with: a read-only one changes nothing, so a client may call it again.
enum class ToolEffect { ReadOnly, SideEffects };

QJsonObject tool(const QString &name, const QString &title, const QString &description,
                 const QJsonObject &properties, const QStringList &required,
                 ToolEffect effect = ToolEffect::SideEffects)
{
    QJsonObject definition{{u"name"_s, name},
                           {u"title"_s, title},
                           {u"description"_s, description},
                           {u"inputSchema"_s,
                            QJsonObject{{u"type"_s, u"object"_s},
                                        {u"properties"_s, properties},
                                        {u"required"_s, QJsonArray::fromStringList(required)}}}};
    if (effect == ToolEffect::ReadOnly)
        definition.insert(u"annotations"_s, QJsonObject{{u"readOnlyHint"_s, true}});
    return definition;
}

QJsonObject formatResult(const QJsonObject &arguments)
{
    const QJsonValue text = arguments.value(u"text"_s);
    const QJsonValue style = arguments.value(u"style"_s);
    const QJsonValue uppercase = arguments.value(u"uppercase"_s);
    const QJsonValue repeat = arguments.value(u"repeat"_s);
    if (!text.isString())
        return textResult(u"format needs a string argument 'text'"_s, true);
    if (!style.isUndefined() && !FormatStyles.contains(style.toString()))
        return textResult(u"format: 'style' must be one of "_s + FormatStyles.join(u", "_s), true);
    if (!uppercase.isUndefined() && !uppercase.isBool())
        return textResult(u"format: 'uppercase' must be a boolean"_s, true);
    if (!repeat.isUndefined()
        && (!isInteger(repeat) || repeat.toDouble() < 1 || repeat.toDouble() > MaxFormatRepeat))
        return textResult(u"format: 'repeat' must be an integer from 1 to "_s + QString::number(MaxFormatRepeat), true);

    QString formatted = text.toString();
    if (style.toString() == u"quoted")
        formatted = u"\u201C"_s % formatted % u"\u201D"_s;
    else if (style.toString() == u"heading")
        formatted = u"# "_s + formatted;
    if (uppercase.toBool())
        formatted = formatted.toUpper();
    const int times = repeat.isUndefined() ? 1 : int(repeat.toDouble());
    QStringList copies;
    for (int i = 0; i < times; ++i)
        copies.append(formatted);
    formatted = copies.join(u' ');

    QJsonObject result = textResult(formatted);
    result.insert(u"structuredContent"_s, QJsonObject{{u"text"_s, formatted}, {u"length"_s, formatted.size()}});
    return result;
}

QJsonArray buildTools()
{
    QJsonArray tools{
        tool(u"echo"_s, u"Echo"_s, u"Returns its message unchanged."_s,
             {{u"message"_s, stringProperty(u"Text to echo back."_s)}}, {u"message"_s}, ToolEffect::ReadOnly),
        tool(u"add"_s, u"Add"_s, u"Adds two numbers and returns the sum as text."_s,
             {{u"a"_s, QJsonObject{{u"type"_s, u"number"_s}, {u"description"_s, u"First addend."_s}}},
              {u"b"_s, QJsonObject{{u"type"_s, u"number"_s}, {u"description"_s, u"Second addend."_s}}}},
             {u"a"_s, u"b"_s}, ToolEffect::ReadOnly),
        tool(u"sleep"_s, u"Sleep"_s,
             u"Waits ms milliseconds without blocking other calls; reports progress every 100 ms "
             "when the request has a progress token, and can be cancelled."_s,
             {{u"ms"_s, QJsonObject{{u"type"_s, u"integer"_s},
                                    {u"minimum"_s, 0},
                                    {u"description"_s, u"How long to sleep, in milliseconds."_s}}}},
             {u"ms"_s}, ToolEffect::ReadOnly),
        tool(u"fail"_s, u"Fail"_s, u"Always returns a tool error (isError: true)."_s,
             {{u"message"_s, stringProperty(u"Error text to return."_s)}}, {}),
        tool(u"crash"_s, u"Crash"_s, u"Exits the server process at once, without replying."_s,
             {{u"code"_s, QJsonObject{{u"type"_s, u"integer"_s},
                                      {u"minimum"_s, 0},
                                      {u"maximum"_s, 255},
                                      {u"default"_s, 1},
                                      {u"description"_s, u"Exit code."_s}}}},
             {}),
        tool(u"hang"_s, u"Hang"_s,
             u"Makes the server stop answering anything while it keeps running."_s, {}, {}),
        tool(u"format"_s, u"Format"_s,
             u"Formats a text: a style, upper case, repeated; returns it as text and as structured "
             "content."_s,
             {{u"text"_s, stringProperty(u"Text to format."_s)},
              {u"style"_s, QJsonObject{{u"type"_s, u"string"_s},
                                       {u"enum"_s, QJsonArray::fromStringList(FormatStyles)},
                                       {u"default"_s, FormatStyles.first()},
                                       {u"description"_s, u"plain as is, quoted in quotes, heading after a '# '."_s}}},
              {u"uppercase"_s, QJsonObject{{u"type"_s, u"boolean"_s},
                                           {u"default"_s, false},
                                           {u"description"_s, u"Turn the text into upper case."_s}}},
              {u"repeat"_s, QJsonObject{{u"type"_s, u"integer"_s},
                                        {u"minimum"_s, 1},
                                        {u"maximum"_s, MaxFormatRepeat},
                                        {u"default"_s, 1},
                                        {u"description"_s, u"How many times, separated by spaces."_s}}}},
             {u"text"_s}, ToolEffect::ReadOnly),
        tool(u"image"_s, u"Image"_s, u"Returns a 32x32 PNG picture as image content."_s, {}, {}, ToolEffect::ReadOnly),
    };
    return tools;
}

// The --tools extra tools as compact JSON, made from one serialised template: tens of thousands
// of them start in moments, so a benchmark of the client is not one of this server's start-up.
QList<QByteArray> extraToolsJson(int extraTools)
{
    const QString numberMark = u"{number}"_s;
    const QByteArray templateJson =
        QJsonDocument(tool(u"tool_"_s + numberMark, u"Tool "_s + numberMark,
                           u"Extra tool "_s % numberMark % u" of "_s % QString::number(extraTools)
                               % u" (--tools); returns its message unchanged."_s,
                           {{u"message"_s, stringProperty(u"Text to echo back."_s)}}, {u"message"_s}))
            .toJson(QJsonDocument::Compact);
    QList<QByteArray> tools;
    tools.reserve(extraTools);
    for (int i = 1; i <= extraTools; ++i)
        tools.append(QByteArray(templateJson).replace(numberMark.toUtf8(), QByteArray::number(i)));
    return tools;
}

// --escape-sequences: the echo tool's title and description try to retitle and clear the terminal.
QList<QByteArray> toolsFor(const DemoOptions &options)
{
    QJsonArray tools = buildTools();
    if (options.escapeSequences) {
        QJsonObject echo = tools.at(0).toObject();
        echo.insert(u"title"_s, u"\x1b]0;retitled by the server\x07Echo"_s);
        echo.insert(u"description"_s, u"\x1b[2J\x1b[HReturns its message unchanged."_s);
        tools.replace(0, echo);
    }
    for (const QJsonObject &tool : clientAskTools())
        tools.append(tool);
    QList<QByteArray> compact;
    for (const QJsonValue &tool : std::as_const(tools))
        compact.append(QJsonDocument(tool.toObject()).toJson(QJsonDocument::Compact));
    return compact + extraToolsJson(options.extraTools);
}

} // namespace

DemoServer::DemoServer(const DemoOptions &options, QObject *parent)
    : QObject(parent)
    , m_options(options)
    , m_tools(toolsFor(options))
{
    m_writer.setGarbage(options.garbage);
}

DemoServer::~DemoServer() = default;

void DemoServer::start()
{
    if (m_options.crashAfterMs >= 0) {
        QTimer::singleShot(m_options.crashAfterMs, Qt::PreciseTimer, this, [this] {
            logLine(u"crashing after "_s % QString::number(m_options.crashAfterMs)
                % u" ms (--crash-after-ms)"_s);
            ::_exit(m_options.exitCode);
        });
    }

    m_reader = new StdinReader(this);
    connect(m_reader, &StdinReader::lineReceived, this, &DemoServer::handleLine);
    connect(m_reader, &StdinReader::endOfInput, this, &DemoServer::handleEndOfInput);
}

void DemoServer::handleLine(const QByteArray &line)
{
    // A hung server reads on (to notice EOF) but reacts to nothing.
    if (m_writer.isSilenced())
        return;
    const QByteArray trimmed = line.trimmed();
    if (trimmed.isEmpty())
        return;

    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(trimmed, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        logLine(u"unparsable input line: "_s + parseError.errorString());
        sendError(QJsonValue::Null, ParseError, u"Parse error: "_s + parseError.errorString());
        return;
    }
    if (!document.isObject()) {
        logLine(u"input line is not a JSON object"_s);
        sendError(QJsonValue::Null, InvalidRequest, u"Invalid request: expected a JSON object"_s);
        return;
    }

    const QJsonObject message = document.object();
    const QJsonValue method = message.value(u"method"_s);
    const QJsonValue id = message.value(u"id"_s);
    const QJsonObject params = message.value(u"params"_s).toObject();
    if (method.isString()) {
        if (id.isUndefined())
            handleNotification(method.toString(), params);
        else if (id.isString() || id.isDouble())
            handleRequest(id, method.toString(), params);
        else
            sendError(QJsonValue::Null, InvalidRequest,
                      u"Invalid request: id must be a string or a number"_s);
        return;
    }
    if (!id.isUndefined() && (message.contains(u"result"_s) || message.contains(u"error"_s))) {
        handleResponse(message);
        return;
    }
    logLine(u"ignoring input that is neither request, notification nor response"_s);
    sendError(id.isString() || id.isDouble() ? id : QJsonValue(QJsonValue::Null), InvalidRequest,
              u"Invalid request: missing method"_s);
}

void DemoServer::handleEndOfInput()
{
    if (m_options.ignoreSigterm) {
        logLine(u"stdin closed; staying alive (--ignore-sigterm)"_s);
        return;
    }
    logLine(u"stdin closed; exiting"_s);
    QCoreApplication::exit(0);
}

void DemoServer::handleRequest(const QJsonValue &id, const QString &method,
                               const QJsonObject &params)
{
    if (method == u"initialize")
        handleInitialize(id, params);
    else if (method == u"ping")
        sendResult(id, {});
    else if (method == u"tools/list")
        handleToolsList(id, params);
    else if (method == u"tools/call")
        handleToolsCall(id, params);
    else if (method == u"logging/setLevel") // we advertise the logging capability
        sendResult(id, {});
    else
        sendError(id, MethodNotFound, u"Method not found: "_s + method);
}

void DemoServer::handleNotification(const QString &method, const QJsonObject &params)
{
    if (method == u"notifications/initialized")
        handleInitialized();
    else if (method == u"notifications/cancelled")
        handleCancelled(params);
    // Other notifications need no reaction.
}

void DemoServer::handleResponse(const QJsonObject &message)
{
    const QJsonValue id = message.value(u"id"_s);
    const auto pending = m_pendingClientRequests.constFind(idKey(id));
    if (pending == m_pendingClientRequests.cend()) {
        logLine(u"ignoring response with unknown id "_s + compactJson(id));
        return;
    }
    const ClientRequest request = *pending;
    m_pendingClientRequests.erase(pending);
    const QString &method = request.method;
    const bool isError = message.contains(u"error"_s);
    if (method == u"ping") {
        logLine(u"client answered ping with "_s
            + compactJson(message.value(isError ? u"error"_s : u"result"_s)));
    } else if (isError) {
        const QJsonObject error = message.value(u"error"_s).toObject();
        logLine(u"client answered "_s % method % u" with error "_s % compactJson(error.value(u"code"_s)) % u": "_s
                % error.value(u"message"_s).toString());
    } else {
        logLine(u"client answered "_s % method % u" with result "_s
            % compactJson(message.value(u"result"_s)));
    }
    if (!isError && !request.elicitationId.isEmpty()
        && message.value(u"result"_s).toObject().value(u"action"_s).toString() == u"accept") {
        // The user went through the page: the server says so, as a URL elicitation's server does.
        sendNotification(u"notifications/elicitation/complete"_s, {{u"elicitationId"_s, request.elicitationId}});
    }
    if (!request.callKey.isEmpty()) {
        onClientAnswer(request.callKey, request.index,
                       isError ? QJsonObject{{u"error"_s, message.value(u"error"_s)}}
                               : QJsonObject{{u"result"_s, message.value(u"result"_s)}});
    }
}

void DemoServer::handleInitialize(const QJsonValue &id, const QJsonObject &params)
{
    if (m_options.exitDuringInitialize) {
        logLine(u"exiting during initialize"_s);
        ::_exit(m_options.exitCode);
    }

    QString version = m_options.protocolVersion;
    if (version.isEmpty()) {
        const QString requested = params.value(u"protocolVersion"_s).toString();
        version = SupportedProtocolVersions.contains(requested) ? requested : LatestProtocolVersion;
    }

    if (m_options.notifyBeforeInitializeResult) {
        sendNotification(u"notifications/tools/list_changed"_s);
        sendNotification(u"notifications/message"_s, {{u"level"_s, u"info"_s},
                                                      {u"logger"_s, u"demo"_s},
                                                      {u"data"_s, u"early notice"_s}});
    }

    if (m_options.slowInitializeMs > 0) {
        QTimer::singleShot(m_options.slowInitializeMs, Qt::PreciseTimer, this,
                           [this, id, version] { sendInitializeResult(id, version); });
    } else {
        sendInitializeResult(id, version);
    }
}

void DemoServer::sendInitializeResult(const QJsonValue &id, const QString &protocolVersion)
{
    sendResult(id, {{u"protocolVersion"_s, protocolVersion},
                    {u"capabilities"_s,
                     QJsonObject{{u"tools"_s, QJsonObject{{u"listChanged"_s, true}}},
                                 {u"logging"_s, QJsonObject{}}}},
                    {u"serverInfo"_s, QJsonObject{{u"name"_s, ServerName},
                                                  {u"version"_s, QStringLiteral(TETHER_VERSION)}}},
                    {u"instructions"_s,
                     u"Demo MCP server shipped with Tether. Try echo, add, sleep (with progress "
                     "and cancellation), fail, crash, hang, format and image; sample, elicit, elicit-url "
                     "and roots ask the client."_s}});

    if (m_options.oversizeLineMb > 0) {
        // A valid JSON value, just far too long for a sane client to buffer.
        const qsizetype size = qsizetype(m_options.oversizeLineMb) * 1024 * 1024;
        QByteArray line(size, 'x');
        line[0] = '"';
        line[size - 2] = '"';
        line[size - 1] = '\n';
        m_writer.sendRaw(line);
    }
}

void DemoServer::handleInitialized()
{
    if (m_initialized)
        return;
    m_initialized = true;
    logLine(u"initialized"_s);

    if (m_options.logNotifications) {
        sendNotification(u"notifications/message"_s, {{u"level"_s, u"warning"_s},
                                                      {u"logger"_s, u"demo"_s},
                                                      {u"data"_s, u"demo log notice"_s}});
    }
    if (!m_options.leakEnv.isEmpty()) {
        sendNotification(u"notifications/message"_s, {{u"level"_s, u"info"_s},
                                                      {u"logger"_s, u"demo"_s},
                                                      {u"data"_s, QString(u"configured with"_s
                                                                          + m_options.leakedValue())}});
    }
    if (m_options.pingClient)
        sendRequest(u"demo-ping-1"_s, u"ping"_s);
    if (m_options.sendUnsupportedRequest) {
        sendRequest(u"demo-sampling-1"_s, u"sampling/createMessage"_s,
                    {{u"messages"_s,
                      QJsonArray{QJsonObject{
                          {u"role"_s, u"user"_s},
                          {u"content"_s, QJsonObject{{u"type"_s, u"text"_s},
                                                     {u"text"_s, u"Say hello."_s}}}}}},
                     {u"maxTokens"_s, 16}});
    }
    if (m_options.pingFlood)
        startPingFlood();
    if (m_options.listChangedEveryMs > 0) {
        m_listChangedTimer = new QTimer(this);
        connect(m_listChangedTimer, &QTimer::timeout, this,
                [this] { sendNotification(u"notifications/tools/list_changed"_s); });
        m_listChangedTimer->start(m_options.listChangedEveryMs);
    }
}

void DemoServer::handleToolsList(const QJsonValue &id, const QJsonObject &params)
{
    // The cursor is the decimal offset of the page's first tool.
    qsizetype offset = 0;
    const QJsonValue cursor = params.value(u"cursor"_s);
    if (!cursor.isUndefined() && !cursor.isNull()) {
        const QString text = cursor.toString();
        bool ok = !text.isEmpty() && text.size() <= 9;
        for (const QChar c : text)
            ok = ok && c >= u'0' && c <= u'9';
        offset = ok ? text.toLongLong() : -1;
        if (!cursor.isString() || offset < 0 || (offset > 0 && offset >= m_tools.size())) {
            sendError(id, InvalidParams, u"Invalid cursor: "_s + compactJson(cursor));
            return;
        }
    }

    const qsizetype end = std::min<qsizetype>(offset + m_options.pageSize, m_tools.size());
    QByteArray reply = R"({"jsonrpc":"2.0","id":)" + compactJson(id).toUtf8() + R"(,"result":{"tools":[)";
    for (qsizetype i = offset; i < end; ++i) {
        if (i > offset)
            reply += ',';
        reply += m_tools.at(i);
    }
    reply += ']';
    if (end < m_tools.size())
        reply += R"(,"nextCursor":")" + QByteArray::number(end) + '"';
    reply += "}}";
    m_writer.sendCompact(reply);
    // Once the client has the tools, so it counts as connected when stdout ends.
    if (m_options.closeStdout && end == m_tools.size())
        closeStdout();
}

void DemoServer::closeStdout()
{
    // /dev/null takes fd 1's place, so nothing else opened later lands there.
    const int devNull = ::open("/dev/null", O_WRONLY);
    if (devNull < 0 || ::dup2(devNull, STDOUT_FILENO) < 0) {
        logLine(u"cannot close stdout"_s);
        return;
    }
    ::close(devNull);
    logLine(u"closed stdout; still running (--close-stdout)"_s);
}

void DemoServer::startPingFlood()
{
    logLine(u"no longer reading stdin; flooding the client with pings (--ping-flood)"_s);
    delete m_reader;
    m_reader = nullptr;
    auto *flood = new QTimer(this);
    connect(flood, &QTimer::timeout, this, [this] {
        // Untracked: nobody reads the answers, and a map of them would only grow.
        for (int i = 0; i < 1000; ++i) {
            const QString id = u"flood-"_s + QString::number(++m_floodPings);
            m_writer.send(QJsonObject{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, id}, {u"method"_s, u"ping"_s}});
        }
    });
    flood->start(0);
}

void DemoServer::sendDamagedReply(const QJsonValue &id)
{
    const QByteArray idJson = compactJson(id).toUtf8();
    const QByteArray content = R"("content":[{"type":"text","text":")";
    QByteArray line;
    if (m_options.damagedReply == u"invalid-utf8") {
        line = R"({"jsonrpc":"2.0","id":)" + idJson + R"(,"result":{)" + content + QByteArray("caf\xe9") + R"("}]}})";
    } else if (m_options.damagedReply == u"nul") {
        // A reply written as a C string, its terminating NUL with it.
        line = R"({"jsonrpc":"2.0","id":)" + idJson + R"(,"result":{)" + content + R"(ok"}]}})" + QByteArray(1, '\0');
    } else {
        // Deeper than JSON parsers take, with the id only after it.
        constexpr int Depth = 5000;
        line = R"({"jsonrpc":"2.0","result":{)" + content + R"(deep"}],"structuredContent":{"deep":)"
               + QByteArray(Depth, '[') + QByteArray(Depth, ']') + R"(}},"id":)" + idJson + "}";
    }
    logLine(u"answering with a damaged line: "_s + m_options.damagedReply);
    m_writer.sendRaw(line + '\n');
}

void DemoServer::handleToolsCall(const QJsonValue &id, const QJsonObject &params)
{
    if (!m_options.damagedReply.isEmpty()) {
        sendDamagedReply(id);
        return;
    }
    const QJsonValue nameValue = params.value(u"name"_s);
    if (!nameValue.isString()) {
        sendError(id, InvalidParams, u"Invalid params: tools/call needs a string 'name'"_s);
        return;
    }
    const QString name = nameValue.toString();
    const QJsonObject arguments = params.value(u"arguments"_s).toObject();
    const QJsonValue message = arguments.value(u"message"_s);

    if (name == u"echo") {
        if (!message.isString())
            sendResult(id, textResult(u"echo needs a string argument 'message'"_s, true));
        else
            sendResult(id, textResult(message.toString()));
    } else if (name == u"add") {
        const QJsonValue a = arguments.value(u"a"_s);
        const QJsonValue b = arguments.value(u"b"_s);
        if (!a.isDouble() || !b.isDouble())
            sendResult(id, textResult(u"add needs number arguments 'a' and 'b'"_s, true));
        else
            sendResult(id, textResult(formatNumber(a.toDouble() + b.toDouble())));
    } else if (name == u"sleep") {
        const QJsonValue ms = arguments.value(u"ms"_s);
        if (!isInteger(ms) || ms.toDouble() < 0 || ms.toDouble() > INT_MAX) {
            sendResult(id, textResult(u"sleep needs a non-negative integer argument 'ms'"_s, true));
            return;
        }
        const QJsonValue token =
            params.value(u"_meta"_s).toObject().value(u"progressToken"_s);
        startSleep(id, int(ms.toDouble()), token);
    } else if (name == u"fail") {
        sendResult(id, textResult(message.isString() ? message.toString()
                                                     : u"the fail tool always fails"_s,
                                  true));
    } else if (name == u"crash") {
        const QJsonValue codeValue = arguments.value(u"code"_s);
        if (!codeValue.isUndefined()
            && (!isInteger(codeValue) || codeValue.toDouble() < 0 || codeValue.toDouble() > 255)) {
            sendResult(id, textResult(u"crash needs an integer 'code' between 0 and 255"_s, true));
            return;
        }
        const int code = codeValue.isUndefined() ? 1 : int(codeValue.toDouble());
        logLine(u"crash tool called, exiting with code "_s + QString::number(code));
        ::_exit(code);
    } else if (name == u"format") {
        sendResult(id, formatResult(arguments));
    } else if (name == u"image") {
        sendResult(id, {{u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"image"_s},
                                                               {u"data"_s, DemoImagePng},
                                                               {u"mimeType"_s, u"image/png"_s}}}},
                        {u"isError"_s, false}});
    } else if (isClientAskTool(name)) {
        startClientAsk(id, name, arguments);
    } else if (name == u"hang") {
        logLine(u"hang tool called; no more output from now on"_s);
        m_writer.setSilenced(true);
    } else if (name.startsWith(u"tool_")) {
        bool ok = false;
        const int number = name.mid(5).toInt(&ok);
        if (!ok || number < 1 || number > m_options.extraTools
            || name != u"tool_"_s + QString::number(number)) {
            sendError(id, InvalidParams, u"Unknown tool: "_s + name);
        } else if (!message.isString()) {
            sendResult(id, textResult(name + u" needs a string argument 'message'"_s, true));
        } else {
            sendResult(id, textResult(message.toString()));
        }
    } else {
        sendError(id, InvalidParams, u"Unknown tool: "_s + name);
    }
}

void DemoServer::startSleep(const QJsonValue &id, int ms, const QJsonValue &progressToken)
{
    const QString key = idKey(id);
    if (m_sleeps.contains(key)) {
        sendError(id, InvalidRequest, u"Request id is already in use: "_s + compactJson(id));
        return;
    }
    const bool reportProgress = progressToken.isString() || progressToken.isDouble();
    auto *call = new SleepCall(ms, reportProgress, this);
    m_sleeps.insert(key, call);
    logLine(u"sleeping "_s % QString::number(ms) % u" ms for request "_s % compactJson(id));
    connect(call, &SleepCall::progressed, this, [this, progressToken, ms](qint64 elapsed) {
        sendNotification(u"notifications/progress"_s,
                         {{u"progressToken"_s, progressToken},
                          {u"progress"_s, elapsed},
                          {u"total"_s, ms},
                          {u"message"_s, QString(u"slept "_s % QString::number(elapsed) % u" of "_s
                                                     % QString::number(ms) % u" ms"_s)}});
    });
    connect(call, &SleepCall::finished, this, [this, id, key, call] {
        m_sleeps.remove(key);
        call->deleteLater();
        sendResult(id, textResult(u"slept "_s % QString::number(call->durationMs()) % u" ms"_s));
    });
    call->start();
}

void DemoServer::handleCancelled(const QJsonObject &params)
{
    const QJsonValue requestId = params.value(u"requestId"_s);
    if (const auto asking = m_askingCalls.find(idKey(requestId)); asking != m_askingCalls.end()) {
        // Its requests stay in the books: their answers are still logged as they come.
        logLine(u"cancelled request "_s + compactJson(requestId));
        asking->cancelled = true;
        return;
    }
    SleepCall *call = m_sleeps.take(idKey(requestId));
    if (!call) {
        logLine(u"cancellation for unknown or finished request "_s + compactJson(requestId));
        return;
    }
    logLine(u"cancelled request "_s + compactJson(requestId));
    delete call; // stops its timers: no result is sent for a cancelled request
}

void DemoServer::startClientAsk(const QJsonValue &id, const QString &tool, const QJsonObject &arguments)
{
    const QString key = idKey(id);
    if (m_askingCalls.contains(key) || m_sleeps.contains(key)) {
        sendError(id, InvalidRequest, u"Request id is already in use: "_s + compactJson(id));
        return;
    }
    const ClientAsk ask = clientAskFor(tool, arguments, ++m_clientAsks);
    if (!ask.error.isEmpty()) {
        sendResult(id, textResult(ask.error, true));
        return;
    }
    if (ask.delayMs > 0) {
        logLine(u"%1: sending %2 %3 request(s) in %4 ms, outside any call"_s.arg(tool).arg(ask.requests.size())
                    .arg(ask.method).arg(ask.delayMs));
        sendResult(id, clientAskDeferredResult(ask));
        QTimer::singleShot(ask.delayMs, this, [this, ask] { sendClientAsk(ask, {}); });
        return;
    }
    AskingCall call;
    call.id = id;
    call.tool = tool;
    call.method = ask.method;
    call.silent = ask.silent;
    call.waiting = int(ask.requests.size());
    for (qsizetype i = 0; i < ask.requests.size(); ++i)
        call.outcomes.append(QJsonValue::Null);
    m_askingCalls.insert(key, call);
    logLine(u"%1: asking the client %2 time(s) with %3 for request %4"_s.arg(tool).arg(ask.requests.size())
                .arg(ask.method, compactJson(id)));
    sendClientAsk(ask, key);
}

void DemoServer::sendClientAsk(const ClientAsk &ask, const QString &callKey)
{
    for (qsizetype i = 0; i < ask.requests.size(); ++i) {
        const QString requestId = u"demo-ask-%1"_s.arg(++m_clientAsks);
        sendRequest(requestId, ask.method, ask.requests.at(i));
        ClientRequest &request = m_pendingClientRequests[idKey(requestId)];
        request.callKey = callKey;
        request.index = int(i);
        if (ask.complete && i < ask.elicitationIds.size())
            request.elicitationId = ask.elicitationIds.at(i);
    }
}

void DemoServer::onClientAnswer(const QString &callKey, int index, const QJsonObject &outcome)
{
    const auto it = m_askingCalls.find(callKey);
    if (it == m_askingCalls.end())
        return;
    it->outcomes.replace(index, outcome);
    if (--it->waiting > 0)
        return;
    const AskingCall call = *it;
    m_askingCalls.erase(it);
    if (call.cancelled)
        return; // a cancelled call gets no answer
    if (call.silent) {
        logLine(u"%1: the client answered; not answering request %2 (silent)"_s.arg(call.tool, compactJson(call.id)));
        return;
    }
    sendResult(call.id, clientAskResult(call.tool, call.method, call.outcomes));
}

void DemoServer::sendResult(const QJsonValue &id, const QJsonObject &result)
{
    m_writer.send({{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, id}, {u"result"_s, result}});
}

void DemoServer::sendError(const QJsonValue &id, int code, const QString &message)
{
    m_writer.send({{u"jsonrpc"_s, u"2.0"_s},
                   {u"id"_s, id},
                   {u"error"_s, QJsonObject{{u"code"_s, code},
                                            {u"message"_s, QString(message + m_options.leakedValue())}}}});
}

void DemoServer::sendNotification(const QString &method, const QJsonObject &params)
{
    QJsonObject message{{u"jsonrpc"_s, u"2.0"_s}, {u"method"_s, method}};
    if (!params.isEmpty())
        message.insert(u"params"_s, params);
    m_writer.send(message);
}

void DemoServer::sendRequest(const QString &id, const QString &method, const QJsonObject &params)
{
    m_pendingClientRequests.insert(idKey(id), ClientRequest{method, {}, 0, {}});
    QJsonObject message{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, id}, {u"method"_s, method}};
    if (!params.isEmpty())
        message.insert(u"params"_s, params);
    m_writer.send(message);
}

} // namespace Demo
