#include "gatewayreach.h"

#include "gatewaytoken.h"

#include "common/commandline.h"

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
    const bool usualConfig = config.embedded || configFile == QFileInfo(defaultConfigPath()).absoluteFilePath();
    const QStringList configArguments = usualConfig ? QStringList() : QStringList{u"--config"_s, configFile};
    // tetherctl serve needs nothing more: it relays to the window, HTTP or not, or runs the servers.
    if (http && !gatewayHttp.enabled) {
        const QString turnOn = u"\"gateway\": {\"http\": {\"enabled\": true}} in "_s + configFile;
        const QString serveHttp = joinCommandLine(QStringList{u"tetherctl"_s, u"serve"_s, u"--http"_s} + configArguments);
        // The user unit serves the usual config.
        const QString headless = usualConfig ? u" (systemctl --user enable --now tether-gateway runs it without the window)"_s
                                             : QString();
        reach.notice = u"Nothing serves %1 until a Tether serves the gateway over HTTP: set %2 for the window to serve "
                       "it while it runs, or run %3%4."_s.arg(gatewayHttpUrl(gatewayHttp), turnOn, serveHttp, headless);
    }
    if (!http) {
        reach.tetherctl = QFileInfo(tetherctl).absoluteFilePath();
        reach.serveArguments = QStringList{u"serve"_s} + configArguments;
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
