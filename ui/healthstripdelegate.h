#pragma once

#include "manager/healthhistory.h"

#include <QColor>
#include <QStyledItemDelegate>

namespace Tether {

QColor healthColor(HealthBand band);

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
