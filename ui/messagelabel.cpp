#include "messagelabel.h"

#include <QLabel>

namespace Tether {

QLabel *newMessageLabel(QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Red reads as "wrong" in either palette; lighter on a dark window so that it keeps its
    // contrast. The words carry the meaning without the colour.
    QPalette palette = label->palette();
    palette.setColor(QPalette::WindowText, palette.color(QPalette::Window).lightness() < 128 ? QColor(0xff, 0x8a, 0x80)
                                                                                              : QColor(0xb0, 0x1c, 0x1c));
    label->setPalette(palette);
    label->hide();
    return label;
}

void showMessage(QLabel *label, const QString &text)
{
    label->setText(text);
    label->setVisible(!text.isEmpty());
}

void makeErrorBanner(QLabel *label)
{
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setAutoFillBackground(true);
    label->setMargin(6);
    QPalette palette = label->palette();
    palette.setColor(QPalette::Window, QColor(0xb0, 0x3a, 0x2e));
    palette.setColor(QPalette::WindowText, Qt::white);
    label->setPalette(palette);
}

} // namespace Tether
