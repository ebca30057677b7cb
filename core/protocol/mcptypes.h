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

struct ToolDefinition
{
    QString name;
    QString title;
    QString description;
    QJsonObject inputSchema;
    QJsonObject outputSchema;
    QJsonObject annotations;
    QJsonObject raw; // the definition exactly as the server sent it

    bool operator==(const ToolDefinition &other) const { return raw == other.raw; }
};

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
