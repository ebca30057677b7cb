#pragma once

#include <QJsonObject>
#include <QString>

// The commands on what servers offer besides tools: resources, resource templates and prompts.
namespace Tether::Ctl {

struct CommonOptions;
struct ConfigOptions;

// On the one server named on the command line (--stdio or --url).
int listResources(const CommonOptions &options);
int readResource(const CommonOptions &options, const QString &uri);
int listPrompts(const CommonOptions &options);
int getPrompt(const CommonOptions &options, const QString &name, const QJsonObject &arguments);

// On the servers of the config (or the one named, when `serverName` is not empty). Without a
// server, read goes to the server that lists the URI, and prompt to the one that offers the prompt.
int configResources(const ConfigOptions &options);
int configRead(const ConfigOptions &options, const QString &serverName, const QString &uri);
int configPrompts(const ConfigOptions &options);
int configPrompt(const ConfigOptions &options, const QString &serverName, const QString &name,
                 const QJsonObject &arguments);

} // namespace Tether::Ctl
