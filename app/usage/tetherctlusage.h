#pragma once

#include "usage.h"

namespace Tether::Usage {

// tetherctl: its commands, options, exit statuses, files and examples.
const ProgramUsage &tetherctlUsage();

} // namespace Tether::Usage
