#pragma once

#include "usage.h"

namespace Tether::Usage {

// tether, the window: its options, exit statuses, files and examples.
const ProgramUsage &tetherUsage();

} // namespace Tether::Usage
