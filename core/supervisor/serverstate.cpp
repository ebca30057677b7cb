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

QString reconnectAdvice(const QString &serverName, ReasonReader reader)
{
    switch (reader) {
    case ReasonReader::Window:
        break;
    case ReasonReader::Attached:
        return u"connect it again with: "_s + joinCommandLine({u"tetherctl"_s, u"reconnect"_s, serverName});
    case ReasonReader::OwnRun:
        return u"nothing here connects it again: fix the cause, then run this command again"_s;
    case ReasonReader::Log:
        return {};
    }
    return u"use Reconnect or Start to connect again"_s;
}

QString reasonFor(const QString &reason, const QString &serverName, ReasonReader reader)
{
    if (reader == ReasonReader::Window)
        return reason;
    const QString advice = reconnectAdvice(serverName, reader);
    const QString separator = u"; "_s;
    return QString(reason).replace(separator + reconnectAdvice(serverName, ReasonReader::Window),
                                   advice.isEmpty() ? QString() : separator + advice);
}

} // namespace Tether
