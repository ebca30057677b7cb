#include "messagelabel.h"

#include <QEvent>
#include <QLabel>
#include <QLayout>
#include <QTextDocument>

namespace Tether {

namespace {

// Red reads as "wrong" in either palette; lighter on a dark window so that it keeps its contrast.
// The words carry the meaning without the colour.
class MessageLabel final : public QLabel
{
public:
    explicit MessageLabel(QWidget *parent)
        : QLabel(parent)
    {
        followPalette();
    }

protected:
    void changeEvent(QEvent *event) override
    {
        // A switch between light and dark at run time reaches the label as a palette change.
        if (event->type() == QEvent::PaletteChange)
            followPalette();
        QLabel::changeEvent(event);
    }

private:
    void followPalette()
    {
        QPalette shown = palette();
        shown.setColor(QPalette::WindowText, shown.color(QPalette::Window).lightness() < 128 ? QColor(0xff, 0x8a, 0x80)
                                                                                            : QColor(0xb0, 0x1c, 0x1c));
        // Setting the palette it already has sends no further change.
        setPalette(shown);
    }
};

} // namespace

QLabel *newMessageLabel(QWidget *parent)
{
    auto *label = new MessageLabel(parent);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->hide();
    return label;
}

void showMessage(QLabel *label, const QString &text)
{
    label->setText(text);
    label->setVisible(!text.isEmpty());
}

void growToFit(QWidget *window)
{
    QLayout *layout = window->layout();
    if (!layout || !window->isVisible())
        return; // a window not yet shown is sized to its contents when it is
    layout->activate();
    const int needed = layout->hasHeightForWidth() ? layout->totalHeightForWidth(window->width())
                                                   : layout->totalSizeHint().height();
    if (needed > window->height())
        window->resize(window->width(), needed);
}

QString plainToolTip(const QString &text)
{
    return Qt::mightBeRichText(text) ? Qt::convertFromPlainText(text) : text;
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
