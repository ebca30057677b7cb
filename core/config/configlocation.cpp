#include "configlocation.h"

#include <QCoreApplication>
#include <QFileInfo>

namespace Tether {

ConfigSource locateConfig(const QString &explicitPath)
{
    if (!explicitPath.isEmpty())
        return {explicitPath, false};
    const QString userFile = defaultConfigPath();
    if (QFileInfo::exists(userFile))
        return {userFile, false};
    return {QString::fromUtf16(EmbeddedConfigPath), true};
}

ConfigContext programConfigContext()
{
    return {systemEnvironment(), QCoreApplication::applicationDirPath()};
}

} // namespace Tether
