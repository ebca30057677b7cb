#pragma once

#include "supervisor/serverstate.h"

#include <QColor>
#include <QIcon>

namespace Tether {

// Each state has a colour and a shape of its own, so it reads without colour too.
QColor stateColor(ServerState state);
QIcon stateIcon(ServerState state);
// A server disabled in the config: a grey circle struck through, apart from Stopped's square.
QIcon disabledIcon();

} // namespace Tether
