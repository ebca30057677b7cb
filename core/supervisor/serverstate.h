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

} // namespace Tether
