#include "serverstate.h"

#include "common/commandline.h"

using namespace Qt::StringLiterals;

namespace Tether {

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
    case ServerState::SignInNeeded: return u"Sign-in needed"_s;
    }
    return {};
}

bool stateFromName(const QString &name, ServerState *state)
{
    for (ServerState candidate : AllServerStates) {
        if (stateName(candidate).compare(name, Qt::CaseInsensitive) == 0) {
            *state = candidate;
            return true;
        }
    }
    return false;
}

QString signInCommand(const QString &serverName)
{
    return joinCommandLine({u"tetherctl"_s, u"login"_s, serverName});
}

} // namespace Tether
