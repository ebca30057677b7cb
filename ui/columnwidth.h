#pragma once

#include <QFontMetrics>
#include <QStringList>

namespace Tether {

// A column wide enough for the widest of `texts` (and its header) with `extra` pixels for an icon
// and the cell's margins, but no wider than `maxCharacters` average characters: a very long URL
// is elided rather than pushing the other columns out of sight.
int columnWidthFor(const QFontMetrics &metrics, const QString &header, const QStringList &texts, int extra,
                   int maxCharacters);

} // namespace Tether
