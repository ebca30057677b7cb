#include "healthstripdelegate.h"

#include "servertablemodel.h"
#include "stateicons.h"

#include <QApplication>
#include <QPainter>

#include <algorithm>

namespace Tether {

QColor healthColor(HealthBand band)
{
    switch (band) {
    case HealthBand::Connected: return stateColor(ServerState::Connected);
    case HealthBand::Reconnecting: return stateColor(ServerState::Reconnecting);
    case HealthBand::Failed: return stateColor(ServerState::Failed);
    case HealthBand::Stopped: return stateColor(ServerState::Stopped);
    case HealthBand::SignInNeeded: return stateColor(ServerState::SignInNeeded);
    }
    return Qt::gray;
}

QList<HealthBandRect> healthBandRects(const QList<HealthSpan> &spans, const QDateTime &now,
                                      std::chrono::milliseconds window, const QRectF &strip)
{
    QList<HealthBandRect> rects;
    if (strip.width() <= 0 || window.count() <= 0)
        return rects;
    const auto xOf = [&](const QDateTime &time) {
        return strip.right() - strip.width() * double(time.msecsTo(now)) / double(window.count());
    };
    const auto rectOf = [&](const HealthSpan &span, double minWidth) {
        double left = xOf(span.start);
        double right = xOf(span.end);
        if (right - left < minWidth) {
            const double middle = (left + right) / 2;
            left = std::clamp(middle - minWidth / 2, strip.left(), std::max(strip.left(), strip.right() - minWidth));
            right = std::min(strip.right(), left + minWidth);
        }
        return QRectF(left, strip.top(), right - left, strip.height());
    };
    for (const HealthSpan &span : spans)
        rects.append({rectOf(span, 1.0), span.band});
    for (const HealthSpan &span : spans) {
        if (span.band != HealthBand::Connected)
            rects.append({rectOf(span, MinOutageWidth), span.band});
    }
    return rects;
}

void HealthStripDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    // The row's background and selection, as for every other cell.
    QStyleOptionViewItem background = option;
    initStyleOption(&background, index);
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawPrimitive(QStyle::PE_PanelItemViewItem, &background, painter, widget);

    const QRectF strip = QRectF(option.rect).adjusted(3, option.rect.height() * 0.25, -3, -option.rect.height() * 0.25);
    const auto spans = index.data(ServerTableModel::HealthRole).value<QList<HealthSpan>>();
    if (spans.isEmpty() || strip.width() <= 0)
        return;
    painter->save();
    painter->setPen(Qt::NoPen);
    for (const auto &[band, kind] : healthBandRects(spans, spans.last().end, ServerTableModel::HealthWindow, strip)) {
        const QColor color = healthColor(kind);
        painter->setBrush(kind == HealthBand::Stopped ? QColor(color.red(), color.green(), color.blue(), 110) : color);
        painter->drawRect(band);
        // A pattern of its own for each band that is not plain, so that the strip reads without colour.
        const Qt::BrushStyle pattern = kind == HealthBand::Failed         ? Qt::DiagCrossPattern
                                       : kind == HealthBand::Reconnecting ? Qt::BDiagPattern
                                       : kind == HealthBand::SignInNeeded ? Qt::VerPattern
                                                                          : Qt::NoBrush;
        if (pattern != Qt::NoBrush) {
            painter->setBrush(QBrush(color.darker(160), pattern));
            painter->drawRect(band);
        }
    }
    // The time before the first record is unknown, not stopped: an outline only.
    painter->setBrush(Qt::NoBrush);
    painter->setPen(QPen(option.palette.color(QPalette::Mid), 1));
    painter->drawRect(strip);
    painter->restore();
}

QSize HealthStripDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    return QStyledItemDelegate::sizeHint(option, index).expandedTo(QSize(120, 0));
}

} // namespace Tether
