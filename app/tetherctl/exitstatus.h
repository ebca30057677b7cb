#pragma once

namespace Tether::Ctl {

// Exit statuses are a contract: scripts depend on them.
enum ExitStatus : int { Success = 0, ToolError = 1, Failure = 2 };

} // namespace Tether::Ctl
