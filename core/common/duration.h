#pragma once

#include <QString>

#include <chrono>

namespace Tether {

// "350 ms", "4.2 s", "2 min 31 s", "1 h 5 min": short and exact enough for people.
QString formatDuration(std::chrono::milliseconds duration);

} // namespace Tether
