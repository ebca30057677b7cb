#include "gatewayreach.h"

#include "gatewaytoken.h"

#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace Tether {

std::optional<GatewayReach> gatewayReach(bool http, const QString &tetherctl, const ConfigSource &config,
                                         const GatewayHttpConfig &gatewayHttp, bool makeToken, QString *error)
{
    GatewayReach reach;
    reach.http = http;
    // The built-in demo's token lives where the user's file will.
    const QString configFile = QFileInfo(config.embedded ? defaultConfigPath() : config.path).absoluteFilePath();
    if (!http) {
        reach.tetherctl = QFileInfo(tetherctl).absoluteFilePath();
        reach.serveArguments = {u"serve"_s};
        if (!config.embedded && configFile != QFileInfo(defaultConfigPath()).absoluteFilePath())
            reach.serveArguments += {u"--config"_s, configFile};
        return reach;
    }
    reach.url = gatewayHttpUrl(gatewayHttp);
    const QString tokenFile = gatewayTokenPath(configFile);
    if (!makeToken && !QFileInfo::exists(tokenFile)) {
        reach.token = u"TOKEN"_s;
        return reach;
    }
    const std::optional<QByteArray> token = loadOrCreateGatewayToken(tokenFile, error);
    if (!token)
        return std::nullopt;
    reach.token = QString::fromLatin1(*token);
    return reach;
}

} // namespace Tether
