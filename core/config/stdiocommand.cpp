#include "stdiocommand.h"

#include "common/commandline.h"

namespace Tether {

QString StdioServerCommand::commandLine() const
{
    return arguments.isEmpty() ? program : program + u' ' + joinCommandLine(arguments);
}

} // namespace Tether
