#pragma once

#include "supervisor/connectionsupervisor.h"
#include "transport/stdiotransport.h"

#include <QJsonObject>
#include <QString>

#include <chrono>

namespace Tether::Ctl {

// Exit statuses are a contract: scripts depend on them.
enum ExitStatus : int { Success = 0, ToolError = 1, Failure = 2 };

struct ServerTarget
{
    QString name;
    StdioServerCommand command;
};

struct CommonOptions
{
    ServerTarget target;
    std::chrono::milliseconds timeout{60000};
    bool json = false;
    bool verbose = false;
};

int listTools(const CommonOptions &options);
int callTool(const CommonOptions &options, const QString &toolName, const QJsonObject &arguments);
// Supervises the server and prints one line per state change until SIGINT or SIGTERM.
int watch(const CommonOptions &options, const SupervisorSettings &settings);

// Prints "tetherctl: <message>" as one line on stderr.
void printError(const QString &message);

} // namespace Tether::Ctl
