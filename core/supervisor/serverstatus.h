#pragma once

#include "serverstate.h"

#include <QDateTime>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <optional>

namespace Tether {

// A value snapshot of one supervised server: what the window, tetherctl and the log show.
struct ServerStatus
{
    QString name;
    QString transport;          // "stdio: node server.js"
    ServerState state = ServerState::Stopped;
    bool enabled = true;        // false: disabled in the config, so it stays stopped
    QString reason;             // why it is in this state, for people
    int attempt = 0;            // retries used in the current outage
    int maxAttempts = 0;
    std::optional<qint64> nextDelayMs; // the retry scheduled now, if any
    QDateTime nextRetryAt;      // when it starts (invalid when none is scheduled)
    quint64 generation = 0;     // connection attempts so far
    quint64 outages = 0;        // outages begun so far (a failed start or a lost connection begins one)
    qint64 connectedMsTotal = 0; // time spent Connected so far, over every generation
    qint64 pid = 0;             // of the current server process, 0 when none
    int toolCount = 0;
    QDateTime connectedSince;   // invalid unless Connected
    int heartbeatMisses = 0;    // pings in a row without an answer; a warning while Connected
    QString lastError;
    // The cause of the last failure in a few words with what to do ("command not found: x
    // (install it, …)"); empty while nothing has failed since the last connection.
    QString cause;
    std::optional<int> lastExitCode;   // of the last generation that ended
    std::optional<int> lastExitSignal;
    QStringList lastStderrTail; // the last stderr lines of the last generation that ended
    quint64 lastExitGeneration = 0; // which generation the three above describe (0: none yet)
    // Sign-in needed: the scope the server asked for (space-separated; empty when it named none).
    QString signInScope;
    // Sign-in needed because the server refused the sign-in's token for want of that scope (a
    // step-up), not for want of a token it accepts.
    bool scopeRefused = false;
    QStringList configErrors;   // why the configuration of this server cannot be used
    int sessions = 0;           // connected sessions (more than one for a pooled server)
    // The MCP revision of the last connection ("2026-07-28", "2025-11-25"); empty before any.
    QString protocolVersion;

    qint64 uptimeMs(const QDateTime &now = QDateTime::currentDateTimeUtc()) const
    {
        return connectedSince.isValid() ? connectedSince.msecsTo(now) : 0;
    }
};

} // namespace Tether

Q_DECLARE_METATYPE(Tether::ServerStatus)
