#pragma once

#include <QFontMetrics>
#include <QStringList>

namespace Tether {

// A column wide enough for the widest of `texts` with `extra` pixels for an icon and the cell's
// margins, but no wider than `maxCharacters` average characters (a very long URL is elided
// rather than pushing the other columns out of sight), and never narrower than its header needs
// (`headerWidth`: its text, sort indicator and margins, as the header view measures them).
int columnWidthFor(const QFontMetrics &metrics, int headerWidth, const QStringList &texts, int extra, int maxCharacters);

} // namespace Tether
