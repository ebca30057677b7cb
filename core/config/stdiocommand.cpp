#include "stdiocommand.h"

#include "common/commandline.h"

namespace Tether {

QString StdioServerCommand::commandLine() const
{
    return arguments.isEmpty() ? program : program + u' ' + joinCommandLine(arguments);
}

QStringList StdioServerCommand::secretValues() const
{
    QStringList values;
    for (const auto &[name, value] : environment)
        values.append(value);
    return values;
}

} // namespace Tether
