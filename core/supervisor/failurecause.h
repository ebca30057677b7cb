#pragma once

#include <QString>

#include <optional>

namespace Tether {

// What is known of a failed or lost connection.
struct FailureFacts
{
    QString error;                  // the whole story, as the session reported it
    QString program;                // stdio: the program started (or not)
    std::optional<int> startErrno;  // stdio: the program could not be started: the errno of its exec
    std::optional<int> exitCode;    // stdio: how the process ended
    std::optional<int> exitSignal;
    QString lastStderrLine;
    // The connection carried Tether's own sign-in: only then do its words about the sign-in
    // (which a server's own message could quote) say anything about it.
    bool signsIn = false;
};

// The cause of a failure, first: a few words with what to do, for the table and notifications,
// while the whole story stays in the reason and the last error.
struct FailureCause
{
    QString summary; // "command not found: github-mcp-server", "HTTP 401: needs a token"
    QString hint;    // what to do; empty when the summary says it
    // False when no retry can fix it (a missing or non-executable program, credentials the
    // server refuses, a protocol version Tether does not speak): the supervisor gives up at once
    // instead of using its retry budget on it.
    bool retryable = true;
    // Set when a sign-in fixes it, not a retry: the server refused the sign-in's token for want of
    // scope, and names the scopes it wants (empty when it named none).
    std::optional<QString> signInScope = std::nullopt;

    // "summary (hint)"
    QString text() const;
    bool operator==(const FailureCause &) const = default;
};

FailureCause failureCause(const FailureFacts &facts);

} // namespace Tether
