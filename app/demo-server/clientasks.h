#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace Demo {

// The tools that ask the client something (MCP's client features), always listed whatever the
// client declared: sample (sampling/createMessage), elicit (elicitation/create in form mode),
// elicit-url (elicitation/create in URL mode) and roots (roots/list). Plain values: the server
// sends the requests and gathers the answers.
QList<QJsonObject> clientAskTools();
bool isClientAskTool(const QString &name);

// What one call of such a tool asks of the client.
struct ClientAsk
{
    QString method;
    QList<QJsonObject> requests; // the params of each request, sent all at once
    QStringList elicitationIds;  // elicit-url: the id of each request
    int delayMs = 0;             // > 0: the call is answered at once and the requests sent this much later
    bool silent = false;         // the call is never answered, whatever the client says
    bool complete = false;       // elicit-url: notifications/elicitation/complete after each accept
    QString error;               // what is wrong with the arguments; then nothing is asked
};

// The requests a call of `tool` with `arguments` makes; `serial` tells its elicitation ids apart.
ClientAsk clientAskFor(const QString &tool, const QJsonObject &arguments, int serial);

// The tool's result once every request is answered: `outcomes` holds, in the order the requests
// were sent, {"result": …} or {"error": {"code", "message"}} for each. An error makes it an error
// result; structuredContent carries the outcomes as they came.
QJsonObject clientAskResult(const QString &tool, const QString &method, const QJsonArray &outcomes);

// The result of a call whose requests are sent later, outside it.
QJsonObject clientAskDeferredResult(const ClientAsk &ask);

} // namespace Demo
