#pragma once

#include "configoptions.h"

#include "control/controlclient.h"

#include <QJsonObject>

#include <chrono>
#include <memory>
#include <optional>

namespace Tether::Ctl {

// The Tether that runs the config of a command (the window, tetherctl daemon, serve --http), when
// one does: the command then shows and changes what that instance runs, and starts no server.
struct InstanceLink
{
    std::unique_ptr<ControlClient> client;
    // One runs the config but cannot be used (said on stderr): the command must not start the
    // servers a second time.
    bool refused = false;
};

// Attaches to the instance of `options`' config.
InstanceLink linkToInstance(const ConfigOptions &options);
// The one line on stderr that says no Tether runs the config, so a command runs its servers itself.
void sayNoInstanceRuns(const ConfigOptions &options);

// One request to the instance: its reply, result or error; nothing when no reply can come (a
// signal came, or the instance went: said on stderr), with `exitStatus` set to the signal's status
// or NoInstance. A signal closes the connection, which cancels at the instance what it asked, as
// does an answer that does not come within `timeout` (a tool call's --timeout-ms): its error then
// says so.
std::optional<ControlReply> askInstanceForReply(ControlClient &client, QStringView method, const QJsonObject &params,
                                                int *exitStatus,
                                                std::chrono::milliseconds timeout = std::chrono::minutes(10));
// One request to the instance: its result, or nothing with the failure printed (prefixed with
// `what`) and `exitStatus` set: Failure for an error answer, else as askInstanceForReply().
std::optional<QJsonObject> askInstance(ControlClient &client, QStringView method, const QJsonObject &params,
                                       const QString &what, int *exitStatus);

} // namespace Tether::Ctl
