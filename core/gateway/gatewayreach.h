#pragma once

#include "config/clientconnect.h"
#include "config/configlocation.h"
#include "config/gatewayconfig.h"

#include <QString>

#include <optional>

namespace Tether {

// How an AI client reaches the gateway of the config `config`: by starting `tetherctl` serve
// (with --config when the config is not the user's usual file), or at the URL of the config's
// endpoint `gatewayHttp` with the token of the config (made on first use, unless `makeToken` is false: a preview then shows
// "TOKEN"). Nothing, with `error` saying why, when the token cannot be read or made.
std::optional<GatewayReach> gatewayReach(bool http, const QString &tetherctl, const ConfigSource &config,
                                         const GatewayHttpConfig &gatewayHttp, bool makeToken, QString *error);

} // namespace Tether
