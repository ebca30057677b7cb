#pragma once

#include "config/configcontext.h"

#include <QString>

namespace Tether {

// The configuration Tether runs on: --config FILE, else the user's file
// ($XDG_CONFIG_HOME/tether/servers.json), else the embedded demo configuration.
struct ConfigSource
{
    QString path;
    bool embedded = false; // the built-in demo: read-only, never saved
};

ConfigSource locateConfig(const QString &explicitPath);

// The user's file: $XDG_CONFIG_HOME/tether/servers.json (via QStandardPaths).
QString defaultConfigPath();
// Where edits of `source` are saved, which also names the Tether that runs it (its instance
// record): the file itself, or for the built-in demo the user's file that would replace it.
QString configSavePath(const ConfigSource &source);

// Tether's state of this user: $XDG_STATE_HOME/tether when XDG_STATE_HOME is absolute, else
// ~/.local/state/tether (Qt 6.4 has no GenericStateLocation).
QString tetherStateFolder();

inline constexpr char16_t EmbeddedConfigPath[] = u":/tether/default-servers.json";

// The context of the running program: the real environment, and its own folder as ${tether:bindir}.
ConfigContext programConfigContext();

} // namespace Tether
