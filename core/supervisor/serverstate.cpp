#include "serverstate.h"

#include <array>

using namespace Qt::StringLiterals;

namespace Tether {

static constexpr std::array AllStates{ServerState::Stopped,  ServerState::Starting,     ServerState::Connected,
                                      ServerState::Retrying, ServerState::Reconnecting, ServerState::Failed,
                                      ServerState::Disconnected, ServerState::Stopping};

QString stateName(ServerState state)
{
    switch (state) {
    case ServerState::Stopped: return u"Stopped"_s;
    case ServerState::Starting: return u"Starting"_s;
    case ServerState::Connected: return u"Connected"_s;
    case ServerState::Retrying: return u"Retrying"_s;
    case ServerState::Reconnecting: return u"Reconnecting"_s;
    case ServerState::Failed: return u"Failed"_s;
    case ServerState::Disconnected: return u"Disconnected"_s;
    case ServerState::Stopping: return u"Stopping"_s;
    }
    return {};
}

bool stateFromName(const QString &name, ServerState *state)
{
    for (ServerState candidate : AllStates) {
        if (stateName(candidate).compare(name, Qt::CaseInsensitive) == 0) {
            *state = candidate;
            return true;
        }
    }
    return false;
}

} // namespace Tether
