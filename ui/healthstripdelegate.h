#pragma once

#include "manager/healthhistory.h"

#include <QColor>
#include <QRectF>
#include <QStyledItemDelegate>

#include <chrono>

namespace Tether {

QColor healthColor(HealthBand band);

// The narrowest an outage (any band but Connected) is drawn, however short it was: a crash that
// recovered in 50 ms must still show on a strip of ten minutes.
constexpr double MinOutageWidth = 3.0;

struct HealthBandRect
{
    QRectF rect;
    HealthBand band;
};

// Where each span goes on `strip`, whose right edge is `now` and whose width is `window`: oldest
// first, then the outages again on top, each at least MinOutageWidth wide (widened around its
// middle and kept inside the strip), so time spent connected never hides one.
QList<HealthBandRect> healthBandRects(const QList<HealthSpan> &spans, const QDateTime &now,
                                      std::chrono::milliseconds window, const QRectF &strip);

// Paints a row's recent health as coloured bands, oldest on the left and now at the right edge.
// Failed and reconnecting bands are hatched as well, so the strip reads without colour.
class HealthStripDelegate final : public QStyledItemDelegate
{
    Q_OBJECT

public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
};

} // namespace Tether
