#pragma once

#include "percentile.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>

#include <vector>

namespace Tether::Bench {

// Timed tool calls: each call's latency and the wall time of them all.
struct Figures
{
    std::vector<double> latenciesMs;
    double seconds = 0;

    double callsPerSecond() const { return seconds > 0 ? double(latenciesMs.size()) / seconds : 0; }
    double p50() const { return percentile(latenciesMs, 0.5); }
    void add(const Figures &other)
    {
        latenciesMs.insert(latenciesMs.end(), other.latenciesMs.begin(), other.latenciesMs.end());
        seconds += other.seconds;
    }
};

// One client's calls one at a time, and with several in flight.
struct SideFigures
{
    Figures sequential;
    Figures concurrent;
};

// {"seconds": …, "latenciesMs": […]} as the SDK client scripts print them.
inline Figures figuresFromJson(const QJsonObject &json)
{
    Figures figures;
    figures.seconds = json.value(QLatin1String("seconds")).toDouble();
    for (const QJsonValue &latency : json.value(QLatin1String("latenciesMs")).toArray())
        figures.latenciesMs.push_back(latency.toDouble());
    return figures;
}

// "  1234 calls/s  p50   0.41 ms  p99   1.20 ms"
inline QString describe(const Figures &figures)
{
    return QStringLiteral("%1 calls/s  p50 %2 ms  p99 %3 ms")
        .arg(figures.callsPerSecond(), 7, 'f', 0)
        .arg(figures.p50(), 6, 'f', 2)
        .arg(percentile(figures.latenciesMs, 0.99), 6, 'f', 2);
}

} // namespace Tether::Bench
