#pragma once

#include "config/policy.h"

#include <QList>
#include <QWidget>

#include <chrono>

namespace Tether {

// The backoff schedule of a reconnect policy: the delay before each retry of one outage as a
// bar, with the range jitter spreads it over shaded around it. Disabled, it is greyed and its
// caption says it shows the last valid values.
class BackoffChart final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BackoffChart)

public:
    // One retry as drawn.
    struct Bar
    {
        int retry = 0;                      // 1-based
        std::chrono::milliseconds delay{};   // without jitter
        std::chrono::milliseconds shortest{}; // with the most jitter either way
        std::chrono::milliseconds longest{};

        bool operator==(const Bar &) const = default;
    };

    // Past the last bar drawn every delay is the longest one, so more bars would say nothing new.
    static constexpr int MaxBars = 30;

    explicit BackoffChart(QWidget *parent = nullptr);

    void setPolicy(const ReconnectPolicy &policy);
    const ReconnectPolicy &policy() const { return m_policy; }
    // What is drawn: retries 1 to maxAttempts (at most MaxBars); none while reconnect is off.
    const QList<Bar> &bars() const { return m_bars; }
    // Retries past the last bar.
    int retriesNotDrawn() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    ReconnectPolicy m_policy;
    QList<Bar> m_bars;
};

} // namespace Tether
