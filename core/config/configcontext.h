#pragma once

#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace Tether {

// Returns the value of an environment variable, or nothing when it is not set.
using EnvironmentLookup = std::function<std::optional<QString>(const QString &name)>;
EnvironmentLookup systemEnvironment();

// Variables Tether itself provides in a config, besides ${env:NAME}: ${tether:bindir} is the
// folder of the running Tether programs (where tether-demo-server is installed too).
struct ConfigContext
{
    EnvironmentLookup environment; // none: systemEnvironment()
    QString binDir;
};

struct VariableExpansion
{
    QString text;       // every reference replaced by its value; meaningless when invalid
    QStringList errors; // one per reference that cannot be expanded
    bool isValid() const { return errors.isEmpty(); }
};

// Expands ${env:NAME} and ${tether:bindir} in `text`, the value at `where` in the config (such as
// "mcpServers.demo.command"). Any other ${...} is an error: running with it unexpanded would pass
// a wrong value silently. Messages start with `where` and name the reference, never a value.
VariableExpansion expandVariables(const QString &where, const QString &text, const ConfigContext &context);

} // namespace Tether
