#include "policy.h"

#include "common/jsontext.h"

#include <cmath>
#include <optional>

using namespace Qt::StringLiterals;

namespace Tether {

std::chrono::milliseconds ReconnectPolicy::baseDelay(int retry) const
{
    // In double: 2^(k-1) overflows any integer long before the cap stops mattering; past 2^62
    // every delay is capped anyway, and the exponent stays finite (0 * inf would be NaN).
    const double delay = double(initialDelayMs) * std::pow(2.0, double(std::clamp(retry, 1, 63) - 1));
    return std::chrono::milliseconds(qint64(std::min(delay, double(maxDelayMs))));
}

std::chrono::milliseconds ReconnectPolicy::totalRetryTime() const
{
    std::chrono::milliseconds total{0};
    for (int retry = 1; retry <= maxAttempts; ++retry)
        total += baseDelay(retry);
    return total;
}

namespace {

struct NumberField
{
    QString name;
    QString alias; // the seed article's name for the same field, if any
    double minimum;
    double maximum;
    bool wholeNumber;
};

// Reads fields from one policy object and collects errors in one wording.
class FieldReader
{
public:
    FieldReader(QString serverName, QString section, const QJsonObject &input, QStringList *errors)
        : m_serverName(std::move(serverName)), m_section(std::move(section)), m_input(input), m_errors(errors)
    {}

    void error(const QString &text) { m_errors->append(u"server '%1': %2"_s.arg(m_serverName, text)); }
    // A cross-field rule is judged only between values that passed on their own.
    bool rejected(const QString &field) const { return m_rejected.contains(field); }
    QString path(const QString &field) const { return m_section + u'.' + field; }

    std::optional<bool> readBool(const QString &field)
    {
        m_known.append(field);
        const QJsonValue value = m_input.value(field);
        if (value.isUndefined())
            return std::nullopt;
        if (!value.isBool()) {
            error(u"%1 = %2 is not valid: it must be true or false"_s.arg(path(field), quotedJson(value)));
            return std::nullopt;
        }
        return value.toBool();
    }

    std::optional<double> readNumber(const NumberField &field)
    {
        m_known.append(field.name);
        QJsonValue value = m_input.value(field.name);
        QString given = field.name;
        if (!field.alias.isEmpty()) {
            m_known.append(field.alias);
            const QJsonValue aliased = m_input.value(field.alias);
            if (!aliased.isUndefined()) {
                if (!value.isUndefined() && value != aliased) {
                    m_rejected.append(field.name);
                    error(u"%1 = %2 and %3 = %4 disagree: they are the same setting, give only one"_s.arg(
                        path(field.alias), quotedJson(aliased), path(field.name), quotedJson(value)));
                    return std::nullopt;
                }
                value = aliased;
                given = field.alias;
            }
        }
        if (value.isUndefined())
            return std::nullopt;
        const QString bounds = u"from %1 to %2"_s.arg(QString::number(field.minimum, 'g', 12),
                                                       QString::number(field.maximum, 'g', 12));
        const QString rule = (field.wholeNumber ? u"it must be a whole number "_s : u"it must be a number "_s) + bounds;
        const double number = value.toDouble(std::nan(""));
        if (!value.isDouble() || !std::isfinite(number)) {
            m_rejected.append(field.name);
            error(u"%1 = %2 is not a number: %3"_s.arg(path(given), quotedJson(value), rule));
            return std::nullopt;
        }
        if ((field.wholeNumber && number != std::floor(number)) || number < field.minimum || number > field.maximum) {
            m_rejected.append(field.name);
            error(u"%1 = %2 is out of range: %3"_s.arg(path(given), quotedJson(value), rule));
            return std::nullopt;
        }
        return number;
    }

    void rejectUnknownFields()
    {
        for (auto it = m_input.constBegin(); it != m_input.constEnd(); ++it) {
            if (!m_known.contains(it.key()))
                error(u"%1 = %2 is not a %3 setting (known: %4)"_s.arg(path(it.key()), quotedJson(it.value()), m_section,
                                                                     m_known.join(u", "_s)));
        }
    }

private:
    QString m_serverName;
    QString m_section;
    const QJsonObject &m_input;
    QStringList *m_errors;
    QStringList m_known;
    QStringList m_rejected;
};

} // namespace

PolicyResolution<ReconnectPolicy> resolveReconnectPolicy(const QString &serverName, const QJsonObject &input,
                                                         const ReconnectPolicy &base)
{
    PolicyResolution<ReconnectPolicy> resolution{base, {}};
    ReconnectPolicy &policy = resolution.policy;
    FieldReader reader(serverName, u"reconnect"_s, input, &resolution.errors);

    if (const auto enabled = reader.readBool(u"enabled"_s))
        policy.enabled = *enabled;
    if (const auto value = reader.readNumber({u"initialDelayMs"_s, u"baseDelay"_s, 0, 3600000, true}))
        policy.initialDelayMs = int(*value);
    if (const auto value = reader.readNumber({u"maxDelayMs"_s, u"maxDelay"_s, 0, 86400000, true}))
        policy.maxDelayMs = int(*value);
    if (const auto value = reader.readNumber({u"maxAttempts"_s, u"maxRetries"_s, 1, 1000, true}))
        policy.maxAttempts = int(*value);
    if (const auto value = reader.readNumber({u"jitter"_s, {}, 0, 1, false}))
        policy.jitter = *value;
    reader.rejectUnknownFields();

    const bool delaysJudged = !reader.rejected(u"initialDelayMs"_s) && !reader.rejected(u"maxDelayMs"_s);
    if (delaysJudged && policy.maxDelayMs < policy.initialDelayMs) {
        reader.error(u"reconnect.maxDelayMs = %1 is less than reconnect.initialDelayMs = %2: the longest delay must "
                     "be at least the first one"_s.arg(policy.maxDelayMs).arg(policy.initialDelayMs));
    }
    return resolution;
}

PolicyResolution<HeartbeatPolicy> resolveHeartbeatPolicy(const QString &serverName, const QJsonObject &input,
                                                         const HeartbeatPolicy &base)
{
    PolicyResolution<HeartbeatPolicy> resolution{base, {}};
    HeartbeatPolicy &policy = resolution.policy;
    FieldReader reader(serverName, u"heartbeat"_s, input, &resolution.errors);

    if (const auto enabled = reader.readBool(u"enabled"_s))
        policy.enabled = *enabled;
    if (const auto value = reader.readNumber({u"intervalMs"_s, u"interval"_s, 100, 86400000, true}))
        policy.intervalMs = int(*value);
    if (const auto value = reader.readNumber({u"timeoutMs"_s, {}, 10, 3600000, true}))
        policy.timeoutMs = int(*value);
    if (const auto value = reader.readNumber({u"maxFailures"_s, {}, 1, 100, true}))
        policy.maxFailures = int(*value);
    reader.rejectUnknownFields();

    const bool timesJudged = !reader.rejected(u"intervalMs"_s) && !reader.rejected(u"timeoutMs"_s);
    if (timesJudged && policy.timeoutMs > policy.intervalMs) {
        reader.error(u"heartbeat.timeoutMs = %1 is more than heartbeat.intervalMs = %2: a ping must time out before "
                     "the next one is due"_s.arg(policy.timeoutMs).arg(policy.intervalMs));
    }
    return resolution;
}

QJsonObject toJson(const ReconnectPolicy &policy)
{
    return {{u"enabled"_s, policy.enabled},
            {u"initialDelayMs"_s, policy.initialDelayMs},
            {u"maxDelayMs"_s, policy.maxDelayMs},
            {u"maxAttempts"_s, policy.maxAttempts},
            {u"jitter"_s, policy.jitter}};
}

QJsonObject toJson(const HeartbeatPolicy &policy)
{
    return {{u"enabled"_s, policy.enabled},
            {u"intervalMs"_s, policy.intervalMs},
            {u"timeoutMs"_s, policy.timeoutMs},
            {u"maxFailures"_s, policy.maxFailures}};
}

} // namespace Tether
