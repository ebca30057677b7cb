#pragma once

#include <QIcon>

namespace Tether {

// The icon of an action: the desktop's icon theme's `themeName` (freedesktop naming), or else
// Tether's own SVG `fallback` (resources/icons/<fallback>.svg), so that every toolbar and menu
// action has one also without a theme.
QIcon actionIcon(const QString &themeName, const QString &fallback);

} // namespace Tether
