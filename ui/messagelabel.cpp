#include "messagelabel.h"

#include <QLabel>

using namespace Qt::StringLiterals;

namespace Tether {

QLabel *newMessageLabel(QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // A red that reads on light and dark backgrounds alike; the words carry the meaning without it.
    label->setStyleSheet(u"QLabel { color: #d9534f; }"_s);
    label->hide();
    return label;
}

} // namespace Tether
