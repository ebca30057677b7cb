#pragma once

#include <QString>

#include <array>

namespace Tether {

// The states a person sees, with the same words in the window, tetherctl and the log.
enum class ServerState {
    Stopped,
    Starting,
    Connected,
    Retrying,     // an initial or retry attempt failed: "connection failed"
    Reconnecting, // an established generation ended: "connection lost"
    Failed,       // the outage budget is used up
    Disconnected, // failed or lost while reconnect is disabled: manual recovery needed
    Stopping,
    SignInNeeded, // the server asks for a sign-in no silent renewal could give: waits for the user
};

inline constexpr std::array AllServerStates{ServerState::Stopped,  ServerState::Starting,     ServerState::Connected,
                                            ServerState::Retrying, ServerState::Reconnecting, ServerState::Failed,
                                            ServerState::Disconnected, ServerState::Stopping,
                                            ServerState::SignInNeeded};

QString stateName(ServerState state);
// The state for a word of stateName(), case-insensitive; false when there is none.
bool stateFromName(const QString &name, ServerState *state);

// What signs in to the server `serverName` from a terminal: "tetherctl login docs".
QString signInCommand(const QString &serverName);

// Who reads why a server waits for a person, and so what it is told to do.
enum class ReasonReader {
    Window,   // with its buttons
    Attached, // tetherctl, on the servers a running Tether runs: the command that acts there
    OwnRun,   // tetherctl running the servers itself: they end with it
    Log,      // the log, read in the window's file and on tetherctl's stderr alike: no advice
};

// What connects a server that waits for a person (Disconnected) again, as `reader` is told:
// "use Reconnect or Start to connect again" in the window, "connect it again with: tetherctl
// reconnect docs" attached to a running Tether.
QString reconnectAdvice(const QString &serverName, ReasonReader reader);
// A status's reason, which the supervisor words for the window (the advice after "; "), as
// `reader` reads it: the window's advice becomes its own.
QString reasonFor(const QString &reason, const QString &serverName, ReasonReader reader);

} // namespace Tether
