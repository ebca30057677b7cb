#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include <utility>

namespace Tether {

// A local server as a command to run: a value, which the stdio transport starts.
struct StdioServerCommand
{
    QString program;
    QStringList arguments;
    QList<std::pair<QString, QString>> environment; // added to Tether's own environment
    QString workingDirectory;
    // How to show the server in messages and logs, e.g. as written in the config file, before
    // ${env:…} put secrets into it; empty: "stdio: " and the command line.
    QString shownAs;

    QString commandLine() const; // program and arguments, quoted where needed
    // The command as a POSIX shell runs it, every word quoted where needed, with its working
    // folder and environment: "cd /srv && TOKEN=x node 'my server.js'".
    QString shellLine() const;
    QStringList secretValues() const; // the environment's values

    bool operator==(const StdioServerCommand &) const = default;
};

} // namespace Tether
