#pragma once

#include "config/serverconfig.h"
#include "config/stdiocommand.h"
#include "supervisor/connectionsupervisor.h"

#include <QString>
#include <QStringList>

#include <chrono>
#include <optional>

namespace Tether {
class SignInService;
}

namespace Tether::Ctl {

// One server named on the command line, with --stdio or --url.
struct ServerTarget
{
    QString name;     // in messages and watch lines: the program's file name, or the url's host
    QString shownAs;  // the command line, or "http: URL" as given (before ${env:…} expanded)
    TransportFactory transport;
    // A remote server that signs in when it asks, in the same run: what to sign in to.
    std::optional<ServerConfig> signsInAs;
};

ServerTarget stdioTarget(const StdioServerCommand &command);

// What --url, --transport and --header say.
struct RemoteServerFlags
{
    QString url;
    QString transport;     // "http", "sse", or empty: Streamable HTTP falling back to HTTP+SSE
    QStringList headers;   // "Name: value"
    std::chrono::milliseconds timeout{60000};
};

// The server of --url, judged by the config's own rules: a bad url or header gets the message
// the config file would give, worded for the flag. Nothing, and `error` set, when it is invalid.
// With `signIn`, a server that asks signs in (unless --header gives an Authorization).
std::optional<ServerTarget> remoteTarget(const RemoteServerFlags &flags, SignInService *signIn, QString *error);

// The options of a command on the server named on the command line.
struct CommonOptions
{
    ServerTarget target;
    std::chrono::milliseconds timeout{60000};
    std::optional<ProtocolEra> pinnedEra; // --protocol; none: auto
    bool json = false;
    bool verbose = false;
    SignInService *signIn = nullptr; // signs in target.signsInAs when the server asks
    QString browser;                 // --browser or $TETHER_BROWSER, for that sign-in
};

} // namespace Tether::Ctl
