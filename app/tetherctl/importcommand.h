#pragma once

#include <QString>

namespace Tether::Ctl {

// Merges another program's MCP servers into Tether's config file (`target`).
int importConfig(const QString &formatName, const QString &sourcePath, const QString &target);

} // namespace Tether::Ctl
