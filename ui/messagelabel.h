#pragma once

class QLabel;
class QWidget;

namespace Tether {

// A hidden, word-wrapped label for a problem the user has to fix, shown next to what it concerns.
// Plain text: messages quote values such as "<TOKEN>" that must not be read as markup.
QLabel *newMessageLabel(QWidget *parent);

} // namespace Tether
