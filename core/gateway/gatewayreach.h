#pragma once

#include "config/clientconnect.h"
#include "config/configlocation.h"

#include <QString>

#include <optional>

namespace Tether {

// Where the gateway listens unless the config says otherwise.
inline constexpr char16_t DefaultGatewayUrl[] = u"http://127.0.0.1:27413/mcp";

// How an AI client reaches the gateway of the config `config`: by starting `tetherctl` serve
// (with --config when the config is not the user's usual file), or at the gateway's URL with the
// token of the config (made on first use, unless `makeToken` is false: a preview then shows
// "TOKEN"). Nothing, with `error` saying why, when the token cannot be read or made.
std::optional<GatewayReach> gatewayReach(bool http, const QString &tetherctl, const ConfigSource &config, bool makeToken,
                                         QString *error);

} // namespace Tether
