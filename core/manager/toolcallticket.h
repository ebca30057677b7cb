#pragma once

#include <QtGlobal>

namespace Tether {

// Names one tool call made through the manager, for cancelToolCall(). A plain value: it stays
// safe to use after the call has been answered (cancelling it then does nothing).
struct ToolCallTicket
{
    quint64 id = 0;
    bool isValid() const { return id != 0; }
};

} // namespace Tether
