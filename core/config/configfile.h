#pragma once

#include "config/configcontext.h"
#include "config/jsonkeyorder.h"
#include "config/serverconfig.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <chrono>
#include <functional>
#include <optional>

namespace Tether {

// How long a writer of a config file waits for another one to finish before it gives up.
inline constexpr std::chrono::milliseconds ConfigLockWait{10000};

// The bytes of a config file, read whole: every reader goes through here, so that each holds to
// MaxConfigBytes. Nothing when the file is missing, a folder, too large or unreadable; `error`
// (optional) then says which, naming the file.
std::optional<QByteArray> readConfigFile(const QString &path, QString *error);

// Reads and parses a file; a missing, unreadable or too large file is a file-level error.
// `content` (optional) receives the bytes the document was parsed from.
ConfigDocument loadConfig(const QString &path, const ConfigContext &context, QByteArray *content = nullptr);

// A config file as a writer finds it while it holds the file's lock.
struct ConfigOnDisk
{
    bool exists = false;
    QByteArray content; // empty when it does not exist
};

// Given the file as it is now, the root to write. Nothing writes nothing: a refusal when it sets
// `error` (never null), else there was nothing to change.
using ConfigEdit = std::function<std::optional<QJsonObject>(const ConfigOnDisk &current, QString *error)>;

// The one way a config file is written, so that two writers (the window, tetherctl import, a text
// editor's user aside) never lose each other's changes: takes the file's lock (`path` + ".lock",
// waiting at most `lockWait`, and saying which process holds it when that was not enough; a lock
// left by a process that is gone is taken over), reads the file, asks `edit` what to write from
// what it read, and writes that atomically (a temporary file in the same folder, then rename),
// mode 0600, before it lets go of the lock.
// Refuses, leaving the file untouched, when the file on disk exists but does not parse: a broken
// file is never overwritten. Laid out as QJsonDocument's Indented, but with the file's own
// indentation and line ends (jsonTextStyleOf), and with every key where the file on disk has it
// (see toOrderedJson: new keys go last, a renamed one stays in place). When there is no file yet,
// four spaces a level, and keys follow `orderWithoutFile` (the document's keyOrder, such as the
// embedded demo's), else alphabetically. `written` receives the bytes of the saved file.
bool editConfig(const QString &path, const ConfigEdit &edit, QString *error, const JsonKeyOrder &orderWithoutFile = {},
                QByteArray *written = nullptr, std::chrono::milliseconds lockWait = ConfigLockWait);

} // namespace Tether
