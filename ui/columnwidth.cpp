#include "columnwidth.h"

#include <algorithm>

namespace Tether {

int columnWidthFor(const QFontMetrics &metrics, int headerWidth, const QStringList &texts, int extra, int maxCharacters)
{
    int widest = 0;
    for (const QString &text : texts)
        widest = std::max(widest, metrics.horizontalAdvance(text) + extra);
    return std::max(headerWidth, std::min(widest, metrics.averageCharWidth() * maxCharacters + extra));
}

} // namespace Tether
