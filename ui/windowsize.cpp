#include "windowsize.h"

#include <algorithm>

namespace Tether {

QSize fittingWindowSize(const QSize &wanted, const QSize &available)
{
    if (available.isEmpty())
        return wanted;
    return {std::min(wanted.width(), available.width() * 9 / 10), std::min(wanted.height(), available.height() * 9 / 10)};
}

} // namespace Tether
