#include "columnwidth.h"

#include <algorithm>

namespace Tether {

int columnWidthFor(const QFontMetrics &metrics, const QString &header, const QStringList &texts, int extra,
                   int maxCharacters)
{
    // The header also holds the sort indicator.
    int widest = metrics.horizontalAdvance(header) + metrics.height();
    for (const QString &text : texts)
        widest = std::max(widest, metrics.horizontalAdvance(text) + extra);
    return std::min(widest, metrics.averageCharWidth() * maxCharacters + extra);
}

} // namespace Tether
