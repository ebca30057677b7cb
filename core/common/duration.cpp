#include "duration.h"

#include "decimaltext.h"

#include <QStringList>

#include <array>

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

QString formatDurationExactly(std::chrono::milliseconds duration)
{
    const qint64 ms = duration.count();
    if (ms < 1000)
        return u"%1 ms"_s.arg(ms);
    QStringList parts;
    if (const qint64 hours = ms / 3600000)
        parts.append(u"%1 h"_s.arg(hours));
    if (const qint64 minutes = ms / 60000 % 60)
        parts.append(u"%1 min"_s.arg(minutes));
    if (const qint64 milliseconds = ms % 60000) {
        QString seconds = u"%1.%2"_s.arg(milliseconds / 1000).arg(milliseconds % 1000, 3, 10, QChar(u'0'));
        while (seconds.endsWith(u'0'))
            seconds.chop(1);
        if (seconds.endsWith(u'.'))
            seconds.chop(1);
        parts.append(seconds + u" s"_s);
    }
    return parts.join(u' ');
}

namespace {

struct Unit
{
    QLatin1StringView name;
    qint64 ms;
};

constexpr std::array Units{
    Unit{"ms"_L1, 1}, Unit{"msec"_L1, 1}, Unit{"msecs"_L1, 1}, Unit{"millisecond"_L1, 1}, Unit{"milliseconds"_L1, 1},
    Unit{"s"_L1, 1000}, Unit{"sec"_L1, 1000}, Unit{"secs"_L1, 1000}, Unit{"second"_L1, 1000}, Unit{"seconds"_L1, 1000},
    Unit{"m"_L1, 60000}, Unit{"min"_L1, 60000}, Unit{"mins"_L1, 60000}, Unit{"minute"_L1, 60000},
    Unit{"minutes"_L1, 60000},
    Unit{"h"_L1, 3600000}, Unit{"hr"_L1, 3600000}, Unit{"hrs"_L1, 3600000}, Unit{"hour"_L1, 3600000},
    Unit{"hours"_L1, 3600000},
};

// Past this many digits a whole part is longer than any duration anyone means (and than qint64 holds).
constexpr qsizetype MaxWholeDigits = 9;
// A fraction with more digits (trailing zeros aside) is finer than a millisecond in every unit.
constexpr qsizetype MaxFractionDigits = 9;
// Far past any delay Tether takes, and far from qint64's end however many terms are added up.
constexpr qint64 MaxMs = qint64(1) << 53;

std::optional<qint64> unitMs(QStringView name)
{
    for (const Unit &unit : Units) {
        if (name.compare(unit.name, Qt::CaseInsensitive) == 0)
            return unit.ms;
    }
    return std::nullopt;
}

bool isAsciiDigit(QChar c)
{
    return c >= u'0' && c <= u'9';
}

bool isAsciiLetter(QChar c)
{
    return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z');
}

} // namespace

std::optional<std::chrono::milliseconds> parseDuration(QStringView text, QString *error)
{
    const QStringView trimmed = text.trimmed();
    const QString quoted = u"\""_s + trimmed.toString() + u'"';
    const auto fail = [error](const QString &message) {
        *error = message;
        return std::nullopt;
    };
    if (trimmed.isEmpty())
        return fail(u"nothing is written; write a duration like 500 ms, 2 s, 1.5 s or 1 min"_s);
    if (trimmed.startsWith(u'-'))
        return fail(u"%1 is negative; a duration is 0 or more"_s.arg(quoted));

    qint64 total = 0;
    qsizetype at = 0;
    const auto skipWhile = [&](auto predicate) {
        const qsizetype start = at;
        while (at < trimmed.size() && predicate(trimmed.at(at)))
            ++at;
        return trimmed.sliced(start, at - start);
    };
    for (int term = 1; at < trimmed.size(); ++term) {
        const qsizetype numberStart = at;
        QStringView whole = skipWhile(isAsciiDigit);
        QStringView fraction;
        if (at < trimmed.size() && trimmed.at(at) == u'.') {
            ++at;
            fraction = skipWhile(isAsciiDigit);
        }
        const QString number = trimmed.sliced(numberStart, at - numberStart).toString();
        if (at < trimmed.size() && trimmed.at(at) == u',' && !whole.isEmpty())
            return fail(u"%1 has a comma; write decimals with a point, like 1.5 s"_s.arg(quoted));
        if (whole.isEmpty() && fraction.isEmpty()) {
            return fail(u"%1 is not a duration; write it like 500 ms, 2 s, 1.5 s or 1 min (a number alone counts "
                        "milliseconds)"_s.arg(quoted));
        }
        skipWhile([](QChar c) { return c.isSpace(); });
        const QStringView unitName = skipWhile(isAsciiLetter);
        skipWhile([](QChar c) { return c.isSpace(); });

        qint64 unit = 1;
        if (unitName.isEmpty()) {
            // A number alone counts milliseconds, as the config file does; within "1 min 30" it is a slip.
            if (term > 1 || at < trimmed.size())
                return fail(u"%1 has no unit after %2; use ms, s, min or h"_s.arg(quoted, number));
        } else if (const std::optional<qint64> known = unitMs(unitName)) {
            unit = *known;
        } else {
            return fail(u"%1 has an unknown unit \"%2\"; use ms, s, min or h"_s.arg(quoted, unitName.toString()));
        }

        while (whole.startsWith(u'0'))
            whole = whole.sliced(1);
        while (fraction.endsWith(u'0'))
            fraction.chop(1);
        if (whole.size() > MaxWholeDigits)
            return fail(u"%1 is too long for a duration"_s.arg(quoted));
        if (fraction.size() > MaxFractionDigits)
            return fail(u"%1 is not a whole number of milliseconds"_s.arg(quoted));
        qint64 fractionScale = 1;
        for (qsizetype digit = 0; digit < fraction.size(); ++digit)
            fractionScale *= 10;
        const qint64 fractionMs = fraction.isEmpty() ? 0 : fraction.toLongLong() * unit;
        if (fractionMs % fractionScale != 0)
            return fail(u"%1 is not a whole number of milliseconds"_s.arg(quoted));
        total += (whole.isEmpty() ? 0 : whole.toLongLong()) * unit + fractionMs / fractionScale;
        if (total > MaxMs)
            return fail(u"%1 is too long for a duration"_s.arg(quoted));
    }
    return std::chrono::milliseconds(total);
}

} // namespace Tether
