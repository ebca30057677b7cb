#pragma once

#include <QString>

class QLabel;
class QWidget;

namespace Tether {

// A hidden, word-wrapped label for a problem the user has to fix, shown next to what it concerns,
// in a red that follows the palette (light or dark, also when it changes while shown).
// Plain text: messages quote values such as "<TOKEN>" that must not be read as markup.
QLabel *newMessageLabel(QWidget *parent);
// Shows `text` in such a label, or hides it when `text` is empty.
void showMessage(QLabel *label, const QString &text);

// Grows a shown window to the height its layout needs at its width, after messages appeared in it:
// the minimum a layout asks for counts one line of each word-wrapped label, so a longer message
// would be cut off. It never shrinks the window, so what the user resized stays.
void growToFit(QWidget *window);

// Text from a server or another program for a tool tip, which Qt would otherwise read as markup
// when it looks like some ("<b>", "<img …>"): shown as written.
QString plainToolTip(const QString &text);

// Turns a label into a white-on-red banner, for what went wrong as a whole (a config that cannot
// be used, a failed tool call): it reads the same in light and dark palettes.
void makeErrorBanner(QLabel *label);

} // namespace Tether
