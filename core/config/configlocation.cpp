#include "configlocation.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

using namespace Qt::StringLiterals;

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

QString defaultConfigPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + u"/tether/servers.json"_s;
}

QString configSavePath(const ConfigSource &source)
{
    return source.embedded ? defaultConfigPath() : source.path;
}

QString tetherStateFolder()
{
    QString state = qEnvironmentVariable("XDG_STATE_HOME");
    if (state.isEmpty() || !QDir::isAbsolutePath(state))
        state = QDir::homePath() + u"/.local/state"_s;
    return state + u"/tether"_s;
}

ConfigContext programConfigContext()
{
    return {systemEnvironment(), QCoreApplication::applicationDirPath()};
}

} // namespace Tether
