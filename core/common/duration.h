#pragma once

#include <QString>
#include <QStringView>

#include <chrono>
#include <optional>

namespace Tether {

// "350 ms", "4.2 s", "2 min 31 s", "1 h 5 min": short and exact enough for people.
QString formatDuration(std::chrono::milliseconds duration);

// Exact, for a field a person may edit and send back: "500 ms", "2 s", "1.5 s", "1 min 30 s",
// "1 h 0.001 s"; parseDuration reads every text it writes back to the same milliseconds.
QString formatDurationExactly(std::chrono::milliseconds duration);

// A duration as people write it: "500 ms", "2 s", "1.5 s", "90s", "1 min", "1h 30min",
// "1 min 30 s" (units ms, s, sec, m, min, h, hr and their long names, in any case, with or without
// a space). A number alone counts milliseconds, as the config file does. None, with `error`
// saying what is wrong with the text and how to write it, for anything else: no text, no
// number, an unknown unit, a negative duration, or one that is not a whole number of milliseconds.
std::optional<std::chrono::milliseconds> parseDuration(QStringView text, QString *error);

} // namespace Tether
