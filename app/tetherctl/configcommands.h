#pragma once

#include <QJsonObject>
#include <QString>

// The commands on the servers of the config file.
namespace Tether::Ctl {

struct ConfigOptions;

// One-shot table of every server: each enabled server is connected once.
int configStatus(const ConfigOptions &options);
// Like status, exit 0 only if every enabled server comes up; says why each failure failed.
int configCheck(const ConfigOptions &options);
int configTools(const ConfigOptions &options);
// The names of the servers, without starting them: for scripts and the shell completions.
int configServers(const ConfigOptions &options);
// `serverName` empty: route by tool name alone across every server.
int configCall(const ConfigOptions &options, const QString &serverName, const QString &toolName,
               const QJsonObject &arguments);

} // namespace Tether::Ctl
