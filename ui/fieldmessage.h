#pragma once

#include <QList>
#include <QString>

namespace Tether {

// A field of a form and the config path it edits.
struct FieldLabel
{
    QString path;  // as the config's judges name it: "reconnect.maxDelayMs", "mcpServers.demo.command"
    QString label; // as the form shows it: "Longest delay"; empty: only its members are named
    QString item = {}; // what one member below the path is: "Environment variable" for env.API_KEY
};

// A config judge's message in the words of the form that edits those settings, since the form
// shows labels and not the file's keys: each path it names becomes its field's label, and
// "path = value" the label with the value after it. So "reconnect.maxDelayMs = 100 is less than
// reconnect.initialDelayMs = 500: …" reads "Longest delay (100) is less than First delay (500):
// …", an empty value reads "Command is empty: …", and a member below a field names its item:
// "….env.API_KEY uses …" reads 'Environment variable "API_KEY" uses …', "….args[2]" 'Argument 3'.
QString inFormWords(const QString &message, const QList<FieldLabel> &fields);

// A label's text as a message names its field: "&Longest delay:" reads "Longest delay".
QString fieldName(const QString &labelText);

} // namespace Tether
