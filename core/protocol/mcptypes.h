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
    // The definition as the server sent it, in CBOR: as small as compact JSON, and far quicker to
    // write, which counts when a server lists tens of thousands of tools.
    QByteArray cbor;

    QJsonObject raw() const;
    QJsonObject inputSchema() const { return raw().value(u"inputSchema").toObject(); }
    QJsonObject outputSchema() const { return raw().value(u"outputSchema").toObject(); }
    QJsonObject annotations() const { return raw().value(u"annotations").toObject(); }

    bool operator==(const ToolDefinition &other) const { return cbor == other.cbor; }
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

// The parsers of whole results take a result as the server sent it. A result of the wrong shape
// is a protocol error of the server, never taken as empty: std::nullopt, with `error` saying
// what is wrong ("\"tools\" is a string, not an array").

// The server's answer to initialize, with the version it chose.
std::optional<ServerIdentity> parseInitializeResult(const QJsonValue &result, QString *error);

// One page of a tools/list result: its entries, each still to be judged on its own with
// parseToolDefinition, and the cursor of the next page (empty on the last).
struct ToolListPage
{
    QJsonArray tools;
    QString nextCursor;
};
std::optional<ToolListPage> parseToolListPage(const QJsonValue &result, QString *error);

struct ToolCallResult
{
    QJsonArray content;
    bool isError = false;
    QJsonValue structuredContent;
    QJsonObject raw;
};

std::optional<ToolCallResult> parseToolCallResult(const QJsonValue &result, QString *error);

// Human-readable rendering of a content list: text as is, other kinds summarised.
QString renderContent(const QJsonArray &content);

} // namespace Tether
