#include "healthstripdelegate.h"

#include "servertablemodel.h"
#include "stateicons.h"

#include <QApplication>
#include <QPainter>

namespace Tether {

QColor healthColor(HealthBand band)
{
    switch (band) {
    case HealthBand::Connected: return stateColor(ServerState::Connected);
    case HealthBand::Reconnecting: return stateColor(ServerState::Reconnecting);
    case HealthBand::Failed: return stateColor(ServerState::Failed);
    case HealthBand::Stopped: return stateColor(ServerState::Stopped);
    }
    return Qt::gray;
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
    const QDateTime now = spans.last().end;
    const double windowMs = double(std::chrono::milliseconds(ServerTableModel::HealthWindow).count());
    const auto xOf = [&](const QDateTime &time) {
        return strip.right() - strip.width() * double(time.msecsTo(now)) / windowMs;
    };
    painter->save();
    painter->setPen(Qt::NoPen);
    for (const HealthSpan &span : spans) {
        // At least a pixel, so a short outage still shows.
        const double left = xOf(span.start);
        const QRectF band(left, strip.top(), std::max(1.0, xOf(span.end) - left), strip.height());
        const QColor color = healthColor(span.band);
        painter->setBrush(span.band == HealthBand::Stopped ? QColor(color.red(), color.green(), color.blue(), 110) : color);
        painter->drawRect(band);
        if (span.band == HealthBand::Failed || span.band == HealthBand::Reconnecting) {
            painter->setBrush(QBrush(color.darker(160),
                                     span.band == HealthBand::Failed ? Qt::DiagCrossPattern : Qt::BDiagPattern));
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
