#pragma once

#include "config/configlocation.h"

#include <QLocalServer>
#include <QLockFile>
#include <QObject>
#include <QString>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace Tether {

// What a running Tether answers a second launch: it comes to the front, or it says why not.
struct LaunchAnswer
{
    bool activated = false;
    QString refusal; // for the second launch to print: what differs and what to do

    bool operator==(const LaunchAnswer &) const = default;
};

// A second launch given `requestedConfig` (an absolute path; empty when it was given no
// --config) while Tether runs `running`: it brings the running window to the front unless it
// asks for another config, which one Tether cannot run beside its own.
LaunchAnswer answerSecondLaunch(const ConfigSource &running, const QString &requestedConfig);

// Where the running Tether of this user listens: $XDG_RUNTIME_DIR/tether.socket (or Qt's
// runtime folder, a folder of the user's alone, when that is not set).
QString instanceSocketPath();

// One Tether per user, so that no server is supervised twice. Started, a Tether first asks the
// one listening on the socket to take over (askRunningInstance); if none answers, it claims the
// socket (claim), replacing one left behind by a Tether that ended without removing it. A lock
// file beside it keeps two launches at once from both claiming it.
class InstanceListener final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InstanceListener)

public:
    using Answer = std::function<LaunchAnswer(const QString &requestedConfig)>;

    InstanceListener(QString socketPath, Answer answer, QObject *parent = nullptr);
    ~InstanceListener() override;

    // The answer of the Tether listening on the socket, or nothing when none does (the socket
    // is missing or left behind). Waits for it at most `timeout`: it is only a local answer.
    static std::optional<LaunchAnswer> askRunningInstance(const QString &socketPath, const QString &requestedConfig,
                                                          std::chrono::milliseconds timeout = std::chrono::seconds(5));

    // Listens for later launches unless a Tether already listens; then its answer is in
    // `answer`. False with `error` set when the socket cannot be made.
    bool claim(const QString &requestedConfig, std::optional<LaunchAnswer> *answer, QString *error);
    // While Tether quits: a launch from then on starts afresh instead of raising a closing window.
    void stopListening() { m_server.close(); }

signals:
    // A later launch was answered with `activated`: the window should come to the front.
    void activationRequested();

private:
    void onNewConnection();

    QString m_socketPath;
    Answer m_answer;
    QLocalServer m_server;
};

} // namespace Tether
