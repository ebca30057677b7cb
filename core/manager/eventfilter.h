#pragma once

#include "manager/eventlog.h"

#include <optional>

namespace Tether {

// Which events a log shows: one server's or every server's, from a level up, of one kind, with
// a text in them. The default lets every event through.
struct EventFilter
{
    enum class Level { Any, WarningsAndErrors, Errors };

    QString server;                        // empty: every server
    Level level = Level::Any;
    std::optional<ServerEvent::Kind> kind; // empty: every kind
    QString text;                          // in eventText(), ignoring case; empty: any

    bool matches(const ServerEvent &event) const;
};

} // namespace Tether
