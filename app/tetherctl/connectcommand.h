#pragma once

#include "configoptions.h"

#include <QString>

namespace Tether::Ctl {

struct ConnectOptions
{
    QString client;        // claude, cursor, vscode, claude-code
    QString file;          // the client's file; empty: its default
    QString transport;     // stdio, http; empty: the client's usual one
    bool move = false;
    bool undo = false;
    bool dryRun = false;
    ConfigOptions config;  // to list the tools whose names the client may refuse
};

// Adds a "tether" entry to an AI client's config file, or (undo) takes the last one back.
int connectClient(const ConnectOptions &options);

} // namespace Tether::Ctl
