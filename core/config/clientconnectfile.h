#pragma once

#include "config/clientconnect.h"

#include <QByteArray>
#include <QFileDevice>
#include <QString>

#include <optional>

namespace Tether {

// Writing a connect to the client's file, and taking it back: each connect keeps the file as it
// was (a backup) and a manifest (the file, what connect wrote, the servers it moved) in
// connectStateFolder(), so that an undo can restore the file or, when it changed since, take
// out only Tether's part.

// $XDG_STATE_HOME/tether/connect (default ~/.local/state/tether/connect).
QString connectStateFolder();

// The client's file as a connect finds it.
struct ClientFile
{
    bool exists = false;
    QByteArray content;
    QFileDevice::Permissions permissions;
    QString error; // it exists but cannot be read: nothing may be written

    // Its group or everyone may read it.
    bool readableByOthers() const;
};
ClientFile readClientFile(const QString &path);

// Writes `plan.after` over the file at `path`, which held `before` when the plan was made
// (`before.exists` false: there was none), after a backup: atomically (a temporary file in the
// same folder, renamed over it), with the file's mode kept (a new file is 0600), but for its owner
// alone once it holds the gateway's token. Refuses, writing nothing, when the file changed since it
// was read. On failure `error` says why and what to do.
bool applyConnect(const QString &path, ConnectClient client, const ClientFile &before, const ConnectPlan &plan,
                  QString *error);

struct UndoOutcome
{
    bool done = false;
    QString message; // what was done, for a person
    QString error;
};

// Takes the last connect of `path` back: restores the backup, and the file's mode, when the file is
// still as connect wrote it (removes the file when connect made it), else removes only the "tether" entry and puts
// the moved servers back, saying so.
UndoOutcome undoConnect(const QString &path, ConnectClient client);

// Whether a connect of `path` can be undone: one was recorded.
bool hasConnectRecord(const QString &path);

} // namespace Tether
