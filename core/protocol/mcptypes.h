#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace Tether {

// Protocol revisions Tether speaks, newest first; the first is the one it asks for.
const QStringList &supportedProtocolVersions();

struct ServerIdentity
{
    QString protocolVersion;
    QString name;
    QString version;
    QString title;
    QString instructions;
    QJsonObject capabilities;
};

// A tool as the server defined it. The definition is kept as compact JSON text and its parts
// are read from it on demand: a manager of hundreds of servers holds thousands of tools.
struct ToolDefinition
{
    QString name;
    QString title;
    QString description;
    QByteArray json; // the definition exactly as the server sent it, compact

    QJsonObject raw() const;
    QJsonObject inputSchema() const { return raw().value(u"inputSchema").toObject(); }
    QJsonObject outputSchema() const { return raw().value(u"outputSchema").toObject(); }
    QJsonObject annotations() const { return raw().value(u"annotations").toObject(); }

    bool operator==(const ToolDefinition &other) const { return json == other.json; }
};

// One parameter of a tool, from the properties of its input schema.
struct ToolParameter
{
    QString name;
    bool required = false;
    QJsonObject schema; // the property's own schema

    bool operator==(const ToolParameter &) const = default;
};

// The parameters of an input schema in the order people read them: the required ones first, in
// the schema's "required" order, then the others by name. A name "required" lists that is not a
// property, or lists twice, is left out.
QList<ToolParameter> toolParameters(const QJsonObject &inputSchema);

// Parses one entry of a tools/list result; std::nullopt with `error` set when it is unusable.
std::optional<ToolDefinition> parseToolDefinition(const QJsonValue &value, QString *error);

struct ToolCallResult
{
    QJsonArray content;
    bool isError = false;
    QJsonValue structuredContent;
    QJsonObject raw;
};

ToolCallResult parseToolCallResult(const QJsonObject &result);

// Human-readable rendering of a content list: text as is, other kinds summarised.
QString renderContent(const QJsonArray &content);

} // namespace Tether
