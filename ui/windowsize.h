#pragma once

#include <QSize>

namespace Tether {

// The window's size on a first run: what its table wants, within 90 % of the screen's available
// area, so that a laptop screen shows it whole with its title bar.
QSize fittingWindowSize(const QSize &wanted, const QSize &available);

} // namespace Tether
