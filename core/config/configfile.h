#pragma once

#include "config/configcontext.h"
#include "config/jsonkeyorder.h"
#include "config/serverconfig.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

namespace Tether {

// Reads and parses a file; a missing or unreadable file is a file-level error.
ConfigDocument loadConfig(const QString &path, const ConfigContext &context);

// Writes `root` atomically (a temporary file in the same folder, then rename), mode 0600.
// Refuses, leaving the file untouched, when the file on disk exists but does not parse:
// a broken file is never overwritten. Indented as QJsonDocument does, with every key where the
// file on disk has it (see toOrderedJson: new keys go last, a renamed one stays in place). When
// there is no file yet, keys follow `orderWithoutFile` (the document's keyOrder, such as the
// embedded demo's), else alphabetically. `written` receives the bytes of the saved file.
bool saveConfig(const QString &path, const QJsonObject &root, QString *error,
                const JsonKeyOrder &orderWithoutFile = {}, QByteArray *written = nullptr);

} // namespace Tether
