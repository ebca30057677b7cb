#pragma once

#include <QString>

class QAbstractItemView;

namespace Tether {

// While `view` has no rows, says why in its viewport, in the palette's placeholder colour and
// wrapped to its width ("No AI client is connected. …"), rather than leaving it blank. Calling it
// again changes the text; an empty text shows nothing.
void setEmptyHint(QAbstractItemView *view, const QString &text);
// The text shown now: empty while the view has rows or no hint was set.
QString emptyHintShown(const QAbstractItemView *view);

} // namespace Tether
