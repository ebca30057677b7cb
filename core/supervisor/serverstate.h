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
};

inline constexpr std::array AllServerStates{ServerState::Stopped,  ServerState::Starting,     ServerState::Connected,
                                            ServerState::Retrying, ServerState::Reconnecting, ServerState::Failed,
                                            ServerState::Disconnected, ServerState::Stopping};

QString stateName(ServerState state);
// The state for a word of stateName(), case-insensitive; false when there is none.
bool stateFromName(const QString &name, ServerState *state);

} // namespace Tether
