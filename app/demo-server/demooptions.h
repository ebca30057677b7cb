#pragma once

#include <QString>
#include <QStringList>

class QCoreApplication;

namespace Demo {

// Everything the command line can ask for. Most flags make the server misbehave on purpose,
// so that Tether's integration tests can check how the client copes.
struct DemoOptions final
{
    bool failAtStartup = false;
    int crashAfterMs = -1; // < 0: never
    bool exitDuringInitialize = false;
    int slowInitializeMs = 0;
    bool ignoreSigterm = false;
    bool spawnGrandchild = false;
    QString pidFile;
    bool burnCpu = false;
    bool spawnDaemon = false;
    QString daemonPidFile;
    QString logFile;
    bool garbage = false;
    int listChangedEveryMs = 0; // 0: never
    bool notifyBeforeInitializeResult = false;
    int extraTools = 0;
    int pageSize = 100;
    int oversizeLineMb = 0; // 0: never
    bool pingClient = false;
    bool sendUnsupportedRequest = false;
    bool logNotifications = false;
    int stderrLines = 0;
    int exitCode = 1;
    QString protocolVersion; // empty: negotiate
    QString leakEnv;         // an environment variable whose value the server repeats everywhere
    bool escapeSequences = false;
    bool closeStdout = false;
    bool pingFlood = false;
    QString damagedReply; // empty: none; else one of DamagedReplyKinds

    static const QStringList DamagedReplyKinds;

    // --leak-env: " (NAME=value)", what a careless server adds to what it says; empty without it.
    QString leakedValue() const;

    // Parses the application's arguments; handles --help/--version and exits with code 2 on a
    // usage error.
    static DemoOptions fromCommandLine(const QCoreApplication &app);
};

} // namespace Demo
