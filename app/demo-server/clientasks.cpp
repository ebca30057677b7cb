#include "clientasks.h"

#include <QJsonDocument>
#include <QStringList>

#include <cmath>

using namespace Qt::Literals::StringLiterals;

namespace Demo {

namespace {

constexpr int MaxCount = 64;
constexpr int MaxDelayMs = 60 * 60 * 1000;

const QString DefaultPrompt = u"Say hello."_s;
const QString DefaultElicitMessage = u"Who are you?"_s;
const QString DefaultUrlMessage = u"Open the link to go on."_s;
const QString DefaultUrl = u"https://example.com/demo-consent"_s;

QString compact(const QJsonValue &value)
{
    if (value.isObject())
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    if (value.isArray())
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    const QByteArray wrapped = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(wrapped.mid(1, wrapped.size() - 2));
}

QJsonObject property(const QString &type, const QString &description)
{
    return {{u"type"_s, type}, {u"description"_s, description}};
}

QJsonObject integerProperty(const QString &description, int minimum, int maximum)
{
    return {{u"type"_s, u"integer"_s}, {u"minimum"_s, minimum}, {u"maximum"_s, maximum}, {u"description"_s, description}};
}

// The arguments every asking tool takes.
QJsonObject commonProperties()
{
    return {{u"count"_s, integerProperty(u"How many requests to send at once (default 1)."_s, 1, MaxCount)},
            {u"delayMs"_s, integerProperty(u"Answer the call at once and send the requests this many milliseconds "
                                           "later, outside any call; their answers go to the log."_s,
                                           0, MaxDelayMs)},
            {u"silent"_s, property(u"boolean"_s, u"Never answer the call, whatever the client answers."_s)}};
}

QJsonObject askingTool(const QString &name, const QString &title, const QString &description, QJsonObject properties)
{
    const QJsonObject common = commonProperties();
    for (auto it = common.constBegin(); it != common.constEnd(); ++it)
        properties.insert(it.key(), it.value());
    return {{u"name"_s, name},
            {u"title"_s, title},
            {u"description"_s, description},
            {u"inputSchema"_s, QJsonObject{{u"type"_s, u"object"_s}, {u"properties"_s, properties}, {u"required"_s, QJsonArray{}}}}};
}

// The form of the elicit tool: a name (required) and a confirmation.
QJsonObject elicitSchema()
{
    return {{u"type"_s, u"object"_s},
            {u"properties"_s,
             QJsonObject{{u"name"_s, QJsonObject{{u"type"_s, u"string"_s}, {u"title"_s, u"Name"_s}}},
                         {u"confirm"_s, QJsonObject{{u"type"_s, u"boolean"_s}, {u"title"_s, u"Confirm"_s}}}}},
            {u"required"_s, QJsonArray{u"name"_s}}};
}

// A whole number in [minimum, maximum] under `key`, or `fallback` when absent; false when it is
// something else.
bool readCount(const QJsonObject &arguments, const QString &key, int minimum, int maximum, int fallback, int *value)
{
    const QJsonValue given = arguments.value(key);
    if (given.isUndefined()) {
        *value = fallback;
        return true;
    }
    const double number = given.toDouble(std::nan(""));
    if (!given.isDouble() || number != std::trunc(number) || number < minimum || number > maximum)
        return false;
    *value = int(number);
    return true;
}

QString stringOr(const QJsonObject &arguments, const QString &key, const QString &fallback)
{
    const QJsonValue value = arguments.value(key);
    return value.isString() ? value.toString() : fallback;
}

// What the client answered in a few words, per tool.
QString summary(const QString &tool, const QJsonObject &result)
{
    if (tool == u"sample") {
        const QJsonValue content = result.value(u"content"_s);
        if (content.toObject().value(u"type"_s).toString() == u"text")
            return content.toObject().value(u"text"_s).toString();
        return compact(content);
    }
    if (tool == u"roots") {
        const QJsonArray roots = result.value(u"roots"_s).toArray();
        if (roots.isEmpty())
            return u"no roots"_s;
        QStringList lines;
        for (const QJsonValue &root : roots) {
            const QString name = root.toObject().value(u"name"_s).toString();
            lines.append(root.toObject().value(u"uri"_s).toString() + (name.isEmpty() ? QString() : u" ("_s + name + u')'));
        }
        return lines.join(u'\n');
    }
    QString text = u"action: "_s + result.value(u"action"_s).toString();
    if (result.contains(u"content"_s))
        text += u"; content: "_s + compact(result.value(u"content"_s));
    return text;
}

QString errorText(const QString &method, const QJsonObject &error)
{
    return method % u" failed: error "_s % compact(error.value(u"code"_s)) % u": "_s % error.value(u"message"_s).toString();
}

} // namespace

QList<QJsonObject> clientAskTools()
{
    const QJsonObject malformed = property(u"boolean"_s, u"Send the request without a member it must have."_s);
    return {
        askingTool(u"sample"_s, u"Sample"_s,
                   u"Asks the client's model for a message (sampling/createMessage) and returns its text."_s,
                   {{u"prompt"_s, property(u"string"_s, u"What to ask the model (default \"Say hello.\")."_s)},
                    {u"maxTokens"_s, integerProperty(u"The most tokens to sample (default 64)."_s, 1, 100000)},
                    {u"malformed"_s, malformed}}),
        askingTool(u"elicit"_s, u"Elicit"_s,
                   u"Asks the user to fill in a form of a name and a confirmation (elicitation/create, form mode) and "
                   "returns the action and content."_s,
                   {{u"message"_s, property(u"string"_s, u"What to tell the user."_s)}, {u"malformed"_s, malformed}}),
        askingTool(u"elicit-url"_s, u"Elicit at a URL"_s,
                   u"Asks the user to open a URL (elicitation/create, URL mode) and returns the action; with complete, "
                   "then sends notifications/elicitation/complete."_s,
                   {{u"url"_s, property(u"string"_s, u"The URL to open."_s)},
                    {u"message"_s, property(u"string"_s, u"What to tell the user."_s)},
                    {u"elicitationId"_s, property(u"string"_s, u"The elicitation's id (default: one made up)."_s)},
                    {u"complete"_s, property(u"boolean"_s, u"Send notifications/elicitation/complete after an accept."_s)},
                    {u"malformed"_s, malformed}}),
        askingTool(u"roots"_s, u"Roots"_s, u"Asks the client for its roots (roots/list) and returns them, one a line."_s, {}),
    };
}

bool isClientAskTool(const QString &name)
{
    return name == u"sample" || name == u"elicit" || name == u"elicit-url" || name == u"roots";
}

ClientAsk clientAskFor(const QString &tool, const QJsonObject &arguments, int serial)
{
    ClientAsk ask;
    int count = 1;
    int maxTokens = 64;
    if (!readCount(arguments, u"count"_s, 1, MaxCount, 1, &count)) {
        ask.error = tool % u": 'count' must be an integer from 1 to "_s % QString::number(MaxCount);
        return ask;
    }
    if (!readCount(arguments, u"delayMs"_s, 0, MaxDelayMs, 0, &ask.delayMs)) {
        ask.error = tool % u": 'delayMs' must be an integer from 0 to "_s % QString::number(MaxDelayMs);
        return ask;
    }
    if (tool == u"sample" && !readCount(arguments, u"maxTokens"_s, 1, 100000, 64, &maxTokens)) {
        ask.error = u"sample: 'maxTokens' must be an integer from 1 to 100000"_s;
        return ask;
    }
    ask.silent = arguments.value(u"silent"_s).toBool();
    ask.complete = arguments.value(u"complete"_s).toBool();
    const bool malformed = arguments.value(u"malformed"_s).toBool();
    for (int i = 1; i <= count; ++i) {
        QJsonObject params;
        if (tool == u"sample") {
            ask.method = u"sampling/createMessage"_s;
            params = {{u"maxTokens"_s, maxTokens}};
            if (!malformed) {
                params.insert(u"messages"_s,
                              QJsonArray{QJsonObject{{u"role"_s, u"user"_s},
                                                     {u"content"_s, QJsonObject{{u"type"_s, u"text"_s},
                                                                                {u"text"_s, stringOr(arguments, u"prompt"_s, DefaultPrompt)}}}}});
            }
        } else if (tool == u"elicit") {
            ask.method = u"elicitation/create"_s;
            params = {{u"mode"_s, u"form"_s}, {u"message"_s, stringOr(arguments, u"message"_s, DefaultElicitMessage)}};
            if (!malformed)
                params.insert(u"requestedSchema"_s, elicitSchema());
        } else if (tool == u"elicit-url") {
            ask.method = u"elicitation/create"_s;
            QString id = stringOr(arguments, u"elicitationId"_s, u"demo-elicitation-%1"_s.arg(serial));
            if (count > 1)
                id += u'-' + QString::number(i);
            params = {{u"mode"_s, u"url"_s},
                      {u"message"_s, stringOr(arguments, u"message"_s, DefaultUrlMessage)},
                      {u"elicitationId"_s, id}};
            if (!malformed)
                params.insert(u"url"_s, stringOr(arguments, u"url"_s, DefaultUrl));
            ask.elicitationIds.append(id);
        } else {
            ask.method = u"roots/list"_s;
        }
        ask.requests.append(params);
    }
    return ask;
}

QJsonObject clientAskResult(const QString &tool, const QString &method, const QJsonArray &outcomes)
{
    QStringList lines;
    int answered = 0;
    for (const QJsonValue &outcome : outcomes) {
        const QJsonObject object = outcome.toObject();
        if (object.contains(u"error"_s)) {
            lines.append(errorText(method, object.value(u"error"_s).toObject()));
        } else {
            ++answered;
            lines.append(summary(tool, object.value(u"result"_s).toObject()));
        }
    }
    const bool failed = answered < outcomes.size();
    QString text;
    if (outcomes.size() == 1) {
        text = lines.constFirst();
    } else {
        text = u"answered %1 of %2"_s.arg(answered).arg(outcomes.size());
        for (qsizetype i = 0; i < lines.size(); ++i)
            text += u"\n%1: "_s.arg(i + 1) + lines.at(i);
    }
    return {{u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, text}}}},
            {u"structuredContent"_s, QJsonObject{{u"answered"_s, answered}, {u"outcomes"_s, outcomes}}},
            {u"isError"_s, failed}};
}

QJsonObject clientAskDeferredResult(const ClientAsk &ask)
{
    const QString text = u"will send %1 %2 request(s) in %3 ms, outside this call; the answers go to the log"_s
                             .arg(ask.requests.size())
                             .arg(ask.method)
                             .arg(ask.delayMs);
    return {{u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, text}}}}, {u"isError"_s, false}};
}

} // namespace Demo
