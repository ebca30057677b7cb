#pragma once

#include <QByteArray>
#include <QString>

namespace Tether {

// Files of this user alone, in a folder of this user alone: the token file and the sign-in index.

struct PrivateFileContent
{
    bool exists = false;
    QByteArray bytes;
    QString error; // why it is not used; empty when it was read or is absent
};

// Reads `path`, refusing a file that is not a regular file, that belongs to another user, or that
// others may read or write: "… is readable by others (mode 0644); Tether does not use it: chmod 600 …".
PrivateFileContent readPrivateFile(const QString &path);

// Replaces `path` with `bytes` at once: written as a mode 0600 file beside it, synced, renamed over
// it. The folder is made with mode 0700 when missing. False with `error` when it cannot be.
bool writePrivateFile(const QString &path, const QByteArray &bytes, QString *error);

// Makes `folder` (mode 0700) unless it exists; false with `error` set when it cannot.
bool makePrivateFolder(const QString &folder, QString *error);

} // namespace Tether
