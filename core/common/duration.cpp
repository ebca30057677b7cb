#include "duration.h"

#include "decimaltext.h"

using namespace Qt::StringLiterals;

namespace Tether {

QString formatDuration(std::chrono::milliseconds duration)
{
    const qint64 ms = duration.count();
    if (ms < 1000) {
        // Every tool call's log line: written in one allocation, without a format string to read.
        const DecimalText digits(ms);
        QString text;
        text.reserve(digits.size() + 3);
        text += digits.latin1();
        text += " ms"_L1;
        return text;
    }

    if (ms < 60000)
        return u"%1 s"_s.arg(QString::number(double(ms) / 1000.0, 'g', ms < 10000 ? 2 : 3));
    const qint64 seconds = ms / 1000;
    if (seconds < 3600)
        return seconds % 60 ? u"%1 min %2 s"_s.arg(seconds / 60).arg(seconds % 60) : u"%1 min"_s.arg(seconds / 60);
    const qint64 minutes = seconds / 60;
    return minutes % 60 ? u"%1 h %2 min"_s.arg(minutes / 60).arg(minutes % 60) : u"%1 h"_s.arg(minutes / 60);
}

} // namespace Tether
