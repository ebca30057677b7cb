#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <chrono>

namespace Tether {

struct ReconnectPolicy
{
    bool enabled = true;
    int initialDelayMs = 500;
    int maxDelayMs = 30000;
    int maxAttempts = 10;
    double jitter = 0.2; // the delay is multiplied by a uniform factor in [1 - jitter, 1 + jitter]

    // A connection that stays up this long ends an outage; derived, not a separate setting.
    std::chrono::milliseconds stabilityWindow() const { return std::chrono::milliseconds(maxDelayMs); }
    // The undisturbed delay before retry k (1-based): initialDelayMs * 2^(k-1), capped.
    std::chrono::milliseconds baseDelay(int retry) const;
    // The sum of every retry's base delay: how long one outage is retried before giving up.
    std::chrono::milliseconds totalRetryTime() const;

    bool operator==(const ReconnectPolicy &) const = default;
};

struct HeartbeatPolicy
{
    bool enabled = true;
    int intervalMs = 30000;
    int timeoutMs = 10000;
    int maxFailures = 3;

    bool operator==(const HeartbeatPolicy &) const = default;
};

template<typename Policy>
struct PolicyResolution
{
    Policy policy;       // the defaults overlaid with every valid field
    QStringList errors;  // one message per rejected field or rule; empty when valid
    bool isValid() const { return errors.isEmpty(); }
};

// The single place a policy is judged, whether it comes from a config file, command-line
// flags or code. `input` holds the fields to set (JSON numbers and booleans); fields it lacks
// keep their value from `base`. Every out-of-range value and every cross-field violation
// yields a message naming the server, the field, the value and the rule. The seed article's
// names are accepted as aliases: maxRetries, baseDelay, maxDelay (reconnect) and interval
// (heartbeat).
PolicyResolution<ReconnectPolicy> resolveReconnectPolicy(const QString &serverName, const QJsonObject &input,
                                                         const ReconnectPolicy &base = {});
PolicyResolution<HeartbeatPolicy> resolveHeartbeatPolicy(const QString &serverName, const QJsonObject &input,
                                                         const HeartbeatPolicy &base = {});

QJsonObject toJson(const ReconnectPolicy &policy);
QJsonObject toJson(const HeartbeatPolicy &policy);

} // namespace Tether
