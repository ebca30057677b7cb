#pragma once

#include "configoptions.h"
#include "interruption.h"

#include "auth/signinservice.h"
#include "config/configstore.h"
#include "manager/servermanager.h"

#include <QStringList>

#include <functional>
#include <optional>

namespace Tether::Ctl {

// A manager running the servers of a config, for one command. For a one-shot command a signal
// (see Interruption) ends the waits; the command then cancels its call and shuts the servers
// down as always.
class ConfigRun final
{
    Q_DISABLE_COPY_MOVE(ConfigRun)

public:
    // `interruption`, when given, must outlive the run.
    explicit ConfigRun(const ConfigOptions &options, const Interruption *interruption = nullptr);

    // Loads the config and starts its enabled servers; false (and a message printed) on error.
    // Following the file, a change restarts only the servers whose settings changed, and a
    // file that cannot be used changes nothing.
    bool start(ConfigStore::FileChanges fileChanges = ConfigStore::FileChanges::Ignore);
    // Reads the config and judges it, starting nothing (start() then starts its servers): false,
    // with the errors printed, when it cannot be used.
    bool load(ConfigStore::FileChanges fileChanges = ConfigStore::FileChanges::Ignore);

    ServerManager &manager() { return m_manager; }
    const ConfigOptions &options() const { return m_options; }
    bool isLoaded() const { return m_loaded; }
    ConfigStore &store() { return m_store; }

    // Until every server has connected or failed at least once (or the timeout passed, or a
    // signal came).
    void waitUntilSettled();
    // Until the resources and prompts of every connected server are listed (same bounds).
    void waitForCatalogs();
    // Stops every server and waits until their processes have exited.
    void shutDown();

private:
    // Runs the file as changed on disk and says what that changed.
    void applyChangedFile(const ConfigDocument &document);
    bool allSettled() const;
    bool allCatalogsListed() const;
    // Runs the event loop until `done` holds after a change of a server, or the timeout or a signal.
    void waitUntil(const std::function<bool()> &done);

    const ConfigOptions &m_options;
    const Interruption *m_interruption;
    std::unique_ptr<SignInService> m_signIn; // before the manager: its servers' credentials use it
    ServerManager m_manager;
    ConfigStore m_store;
    bool m_loaded = false;
    bool m_running = false; // the first document runs: the store's later ones are changes of the file
};

// Narrows a document of the file to the servers a command names, and applies its request timeout
// and policy flags; why it cannot run, when it cannot.
QStringList adjustForCommand(const ConfigOptions &options, ConfigDocument &document);

// Whether a command that starts the servers itself says so: it does when no Tether runs the
// config for it to ask (sayNoInstanceRuns), once the config is found usable.
enum class OwnRun { Quiet, SaySo };

// Starts the servers of a one-shot command and waits until each has connected or failed once.
// The command says what concerns what it was asked (a server's state, why the server it needs is
// not up), so a supervisor's line of giving up is a detail (-v). The exit status instead when the
// command cannot go on: the config cannot be used, or a signal came (the servers are then stopped
// and waited for).
std::optional<int> startAndSettle(ConfigRun &run, const Interruption &interruption, OwnRun ownRun = OwnRun::Quiet);

bool isUp(const ServerStatus &status);
// Whether `status` counts for the exit status: an enabled server, or one whose config is invalid.
bool counts(const ServerStatus &status);
// Names on stderr each server a listing asked about (one it names, disabled or not, or, naming
// none, every one that counts) that is not connected, rather than leave it out unsaid: "server
// 'x' is not connected, so its tools are not listed: …". Whether there was one.
bool nameServersNotListed(const ConfigOptions &options, const QList<ServerStatus> &statuses, const QString &listed,
                          ReasonReader reader);

} // namespace Tether::Ctl
