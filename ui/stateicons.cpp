#include "stateicons.h"

#include <QImage>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>

#include <algorithm>
#include <array>

namespace Tether {

QColor stateColor(ServerState state)
{
    switch (state) {
    case ServerState::Connected: return QColor(0x2e, 0x9e, 0x44);    // green
    case ServerState::Starting: return QColor(0x2f, 0x6f, 0xd6);     // blue
    case ServerState::Retrying:
    case ServerState::Reconnecting: return QColor(0xe0, 0x8a, 0x00); // amber
    case ServerState::Failed: return QColor(0xd0, 0x33, 0x2f);       // red
    case ServerState::Disconnected: return QColor(0x8e, 0x44, 0xad); // purple
    case ServerState::SignInNeeded: return QColor(0x00, 0x8b, 0x8b); // teal
    case ServerState::Stopping:
    case ServerState::Stopped: return QColor(0x80, 0x80, 0x80);      // grey
    }
    return Qt::gray;
}

static QPixmap drawIcon(ServerState state, int size)
{
    QPixmap pixmap(size, size);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    const QColor color = stateColor(state);
    painter.setPen(QPen(color.darker(130), size / 10.0));
    painter.setBrush(color);
    const QRectF box(size * 0.12, size * 0.12, size * 0.76, size * 0.76);
    switch (state) {
    case ServerState::Connected: // filled circle
        painter.drawEllipse(box);
        break;
    case ServerState::Starting: { // triangle pointing right: on its way
        QPainterPath path;
        path.moveTo(box.topLeft());
        path.lineTo(box.right(), box.center().y());
        path.lineTo(box.bottomLeft());
        path.closeSubpath();
        painter.drawPath(path);
        break;
    }
    case ServerState::Retrying:
    case ServerState::Reconnecting: { // diamond: waiting to try again
        QPainterPath path;
        path.moveTo(box.center().x(), box.top());
        path.lineTo(box.right(), box.center().y());
        path.lineTo(box.center().x(), box.bottom());
        path.lineTo(box.left(), box.center().y());
        path.closeSubpath();
        painter.drawPath(path);
        break;
    }
    case ServerState::Failed: // square with a cross
        painter.drawRect(box);
        painter.setPen(QPen(Qt::white, size / 8.0));
        painter.drawLine(box.topLeft() + QPointF(size * 0.15, size * 0.15), box.bottomRight() - QPointF(size * 0.15, size * 0.15));
        painter.drawLine(box.topRight() + QPointF(-size * 0.15, size * 0.15), box.bottomLeft() + QPointF(size * 0.15, -size * 0.15));
        break;
    case ServerState::Disconnected: // hollow circle: needs a hand
        painter.setBrush(Qt::NoBrush);
        painter.setPen(QPen(color, size / 7.0));
        painter.drawEllipse(box.adjusted(size * 0.05, size * 0.05, -size * 0.05, -size * 0.05));
        break;
    case ServerState::Stopping: // half-filled square
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(box);
        painter.setBrush(color);
        painter.drawRect(QRectF(box.left(), box.center().y(), box.width(), box.height() / 2));
        break;
    case ServerState::Stopped: // hollow square
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(box);
        break;
    case ServerState::SignInNeeded: { // a key: waiting for you to sign in
        const qreal ring = box.width() * 0.42;
        const QRectF bow(box.left(), box.center().y() - ring / 2, ring, ring);
        painter.setBrush(Qt::NoBrush);
        painter.setPen(QPen(color, size / 7.0));
        painter.drawEllipse(bow);
        const qreal y = box.center().y();
        painter.drawLine(QPointF(bow.right(), y), QPointF(box.right(), y));
        painter.drawLine(QPointF(box.right(), y), QPointF(box.right(), y + box.height() * 0.22));
        painter.drawLine(QPointF(box.right() - box.width() * 0.2, y), QPointF(box.right() - box.width() * 0.2, y + box.height() * 0.18));
        break;
    }
    }
    return pixmap;
}

// The icon on a selected row: the shape on a white halo, so that it keeps apart from the
// selection's colour (a grey square on blue, say), which the style would otherwise blend it into.
static QPixmap withHalo(const QPixmap &shape)
{
    // Opaque white wherever the shape, grown by a pixel, covers anything.
    const QImage source = shape.toImage().convertToFormat(QImage::Format_ARGB32);
    QImage halo(source.size(), QImage::Format_ARGB32);
    halo.fill(Qt::transparent);
    for (int y = 0; y < source.height(); ++y) {
        for (int x = 0; x < source.width(); ++x) {
            int covered = 0;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx)
                    if (source.valid(x + dx, y + dy))
                        covered = std::max(covered, qAlpha(source.pixel(x + dx, y + dy)));
            if (covered > 32)
                halo.setPixel(x, y, qRgba(255, 255, 255, 255));
        }
    }
    QPainter painter(&halo);
    painter.drawPixmap(0, 0, shape);
    painter.end();
    return QPixmap::fromImage(halo);
}

// The same pixmaps in every mode but Selected, which gets them on a halo.
static QIcon iconOf(const QList<QPixmap> &sizes)
{
    QIcon icon;
    for (const QPixmap &pixmap : sizes) {
        icon.addPixmap(pixmap, QIcon::Normal);
        icon.addPixmap(pixmap, QIcon::Active);
        icon.addPixmap(withHalo(pixmap), QIcon::Selected);
    }
    return icon;
}

QIcon stateIcon(ServerState state)
{
    static std::array<QIcon, AllServerStates.size()> cache;
    QIcon &icon = cache.at(size_t(state));
    if (icon.isNull())
        icon = iconOf({drawIcon(state, 16), drawIcon(state, 24), drawIcon(state, 32)});
    return icon;
}

QIcon disabledIcon()
{
    static QIcon icon;
    if (!icon.isNull())
        return icon;
    QList<QPixmap> sizes;
    for (int size : {16, 24, 32}) {
        QPixmap pixmap(size, size);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(QPen(stateColor(ServerState::Stopped), size / 8.0));
        const QRectF box(size * 0.15, size * 0.15, size * 0.7, size * 0.7);
        painter.drawEllipse(box);
        painter.drawLine(box.topLeft() + QPointF(size * 0.1, size * 0.1), box.bottomRight() - QPointF(size * 0.1, size * 0.1));
        painter.end();
        sizes.append(pixmap);
    }
    icon = iconOf(sizes);
    return icon;
}

} // namespace Tether
