#pragma once

#include <QJsonObject>
#include <QString>

// The commands on the one server named on the command line (--stdio or --url).
namespace Tether::Ctl {

struct CommonOptions;

int listTools(const CommonOptions &options);
int callTool(const CommonOptions &options, const QString &toolName, const QJsonObject &arguments);

} // namespace Tether::Ctl
