#include "stdiocommand.h"

#include "common/commandline.h"

using namespace Qt::StringLiterals;

namespace Tether {

QString StdioServerCommand::commandLine() const
{
    return arguments.isEmpty() ? program : program + u' ' + joinCommandLine(arguments);
}

QString StdioServerCommand::shellLine() const
{
    QStringList words;
    for (const auto &[name, value] : environment)
        words.append(name + u'=' + joinCommandLine({value}));
    words.append(joinCommandLine(QStringList{program} + arguments));
    const QString line = words.join(u' ');
    return workingDirectory.isEmpty() ? line : u"cd "_s + joinCommandLine({workingDirectory}) + u" && "_s + line;
}

QStringList StdioServerCommand::secretValues() const
{
    QStringList values;
    for (const auto &[name, value] : environment)
        values.append(value);
    return values;
}

} // namespace Tether
