#pragma once

#include "config/configlocation.h"

#include <QJsonObject>
#include <QStringList>

#include <chrono>

namespace Tether::Ctl {

// The servers of a config file (or of the embedded demo configuration).
struct ConfigOptions
{
    ConfigSource source;
    QStringList servers;          // restrict to these; empty: every server
    std::chrono::milliseconds timeout{60000};
    bool json = false;
    bool verbose = false;
    QJsonObject reconnectOverrides; // policy flags, applied over each server's policy
    QJsonObject heartbeatOverrides;
};

} // namespace Tether::Ctl
