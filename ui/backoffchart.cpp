#include "backoffchart.h"

#include "common/duration.h"
#include "supervisor/supervisorcore.h"

#include <QPaintEvent>
#include <QPainter>

#include <cmath>

using namespace Qt::StringLiterals;
using namespace std::chrono;

namespace Tether {

BackoffChart::BackoffChart(QWidget *parent)
    : QWidget(parent)
{
    setAccessibleName(tr("Backoff schedule"));
    setAccessibleDescription(tr("The delay before each retry of one outage; the shaded range is where jitter may move it."));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    setPolicy(m_policy);
}

void BackoffChart::setPolicy(const ReconnectPolicy &policy)
{
    m_policy = policy;
    m_bars.clear();
    if (policy.enabled) {
        // The supervisor's own arithmetic, with the random factor at either end of its range.
        SupervisorCore lowest(policy, [] { return 0.0; });
        SupervisorCore highest(policy, [] { return 1.0; });
        for (int retry = 1; retry <= std::min(policy.maxAttempts, MaxBars); ++retry)
            m_bars.append({retry, policy.baseDelay(retry), lowest.retryDelay(retry), highest.retryDelay(retry)});
    }
    update();
}

int BackoffChart::retriesNotDrawn() const
{
    return m_policy.enabled ? std::max(0, m_policy.maxAttempts - MaxBars) : 0;
}

QSize BackoffChart::sizeHint() const
{
    return {fontMetrics().averageCharWidth() * 60, fontMetrics().height() * 9};
}

QSize BackoffChart::minimumSizeHint() const
{
    return {fontMetrics().averageCharWidth() * 30, fontMetrics().height() * 6};
}

void BackoffChart::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing, false);
    const QPalette &colors = palette();
    const QFontMetrics metrics = fontMetrics();
    const QRect area = contentsRect();
    painter.fillRect(area, colors.base());
    painter.setPen(colors.color(QPalette::Mid));
    painter.drawRect(area.adjusted(0, 0, -1, -1));

    if (m_bars.isEmpty()) {
        painter.setPen(colors.color(QPalette::PlaceholderText));
        painter.drawText(area, Qt::AlignCenter | Qt::TextWordWrap,
                         m_policy.enabled ? tr("No retries") : tr("Reconnect is off: no retries"));
        return;
    }

    milliseconds highest{1};
    for (const Bar &bar : m_bars)
        highest = std::max(highest, bar.longest);
    const QStringList yLabels{formatDuration(highest), formatDuration(highest / 2), formatDuration(0ms)};
    int labelWidth = 0;
    for (const QString &label : yLabels)
        labelWidth = std::max(labelWidth, metrics.horizontalAdvance(label));
    const int gap = metrics.averageCharWidth();
    const QRect plot = area.adjusted(labelWidth + 2 * gap, metrics.height() + gap, -2 * gap,
                                     -(metrics.height() + gap));
    if (plot.width() <= 0 || plot.height() <= 0)
        return;
    const auto yOf = [&](milliseconds delay) {
        return plot.bottom() - int(std::lround(double(delay.count()) / double(highest.count()) * plot.height()));
    };

    // Scale: the top, the middle and zero, each with its duration.
    for (int i = 0; i < 3; ++i) {
        const int y = plot.top() + i * plot.height() / 2;
        painter.setPen(colors.color(QPalette::Midlight));
        painter.drawLine(plot.left(), y, plot.right(), y);
        painter.setPen(colors.color(QPalette::Text));
        painter.drawText(QRect(area.left() + gap, y - metrics.height() / 2, labelWidth, metrics.height()),
                         Qt::AlignRight | Qt::AlignVCenter, yLabels.at(i));
    }

    const double slot = double(plot.width()) / double(m_bars.size());
    const int labelEvery = std::max(1, int(std::ceil(metrics.horizontalAdvance(u"00"_s) * 2.0 / slot)));
    QColor band = colors.color(QPalette::Highlight);
    band.setAlpha(70);
    for (const Bar &bar : std::as_const(m_bars)) {
        const double left = plot.left() + slot * (bar.retry - 1);
        const int bandLeft = int(left + slot * 0.1);
        const int bandWidth = std::max(1, int(slot * 0.8));
        painter.fillRect(QRect(bandLeft, yOf(bar.longest), bandWidth, yOf(bar.shortest) - yOf(bar.longest) + 1), band);
        const int barWidth = std::max(1, int(slot * 0.4));
        const int barLeft = int(left + (slot - barWidth) / 2.0);
        painter.fillRect(QRect(barLeft, yOf(bar.delay), barWidth, plot.bottom() - yOf(bar.delay) + 1),
                         colors.color(QPalette::Highlight));
        if ((bar.retry - 1) % labelEvery == 0) {
            const int centre = int(left + slot / 2.0);
            const int halfWidth = metrics.horizontalAdvance(u"0000"_s);
            painter.setPen(colors.color(QPalette::Text));
            painter.drawText(QRect(centre - halfWidth, plot.bottom() + gap / 2, 2 * halfWidth, metrics.height()),
                             Qt::AlignHCenter | Qt::AlignTop, QString::number(bar.retry));
        }
    }
    painter.setPen(colors.color(QPalette::Mid));
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());

    painter.setPen(colors.color(QPalette::Text));
    const QString rest = formatDuration(m_policy.baseDelay(MaxBars + 1));
    QString caption = tr("Delay before each retry");
    if (retriesNotDrawn() == 1)
        caption = tr("Delay before each retry; retry %1 (not drawn) waits %2").arg(MaxBars + 1).arg(rest);
    else if (retriesNotDrawn() > 1)
        caption = tr("Delay before each retry; retries %1 to %2 (not drawn) wait %3 each")
                      .arg(MaxBars + 1).arg(m_policy.maxAttempts).arg(rest);
    if (!isEnabled())
        caption = tr("Last valid values: %1").arg(caption);
    painter.drawText(QRect(plot.left(), area.top() + gap / 2, plot.width(), metrics.height()),
                     Qt::AlignLeft | Qt::AlignTop, metrics.elidedText(caption, Qt::ElideRight, plot.width()));
}

} // namespace Tether
