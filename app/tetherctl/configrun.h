#pragma once

#include "config/configlocation.h"
#include "config/configwatcher.h"
#include "manager/servermanager.h"

#include <QJsonObject>
#include <QStringList>

#include <chrono>
#include <memory>

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

// A manager running the servers of a config, for one command.
class ConfigRun final
{
    Q_DISABLE_COPY_MOVE(ConfigRun)

public:
    explicit ConfigRun(const ConfigOptions &options);
    ~ConfigRun();

    // Loads the config and starts its enabled servers; false (and a message printed) on error.
    bool start();
    // Keeps the file up to date in the manager: a changed file restarts only the servers
    // whose settings changed.
    void followChanges();

    ServerManager &manager() { return m_manager; }

    // Until every server has connected or failed at least once (or the timeout passed).
    void waitUntilSettled();
    // Stops every server and waits until their processes have exited.
    void shutDown();

private:
    // Narrows the document to the chosen servers, applies the policy flags, and runs it.
    bool apply(ConfigDocument document);
    bool allSettled() const;

    const ConfigOptions &m_options;
    ServerManager m_manager;
    std::unique_ptr<ConfigWatcher> m_watcher;
};

} // namespace Tether::Ctl
