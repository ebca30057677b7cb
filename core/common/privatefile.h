#pragma once

#include <QByteArray>
#include <QString>

namespace Tether {

// Files of this user alone, in a folder of this user alone: sign-in tokens and their index, the
// gateway's bearer token.

struct PrivateFileContent
{
    // Why a file that is there is not used.
    enum class Refusal {
        None,
        Unreadable,   // it could not be opened or read
        NotRegular,   // a folder, a link, a device
        OtherOwner,   // another user's
        OpenToOthers, // its group or others may read or write it: `mode` says how
    };

    bool exists = false;
    QByteArray bytes;
    Refusal refusal = Refusal::None;
    unsigned mode = 0; // its permission bits, such as 0644
    QString error; // why it is not used, in words for any private file; empty when read or absent
};

// Reads `path`, refusing a file that is not a regular file, that belongs to another user, or that
// others may read or write: "… is readable by others (mode 0644); Tether does not use it: chmod 600 …".
PrivateFileContent readPrivateFile(const QString &path);

// Replaces `path` with `bytes` at once: written as a mode 0600 file beside it, synced, renamed over
// it. The folder is made with mode 0700 when missing. False with `error` when it cannot be, or
// when what is at `path` is not a regular file (a link, a folder): that is left as it is.
bool writePrivateFile(const QString &path, const QByteArray &bytes, QString *error);

// Makes `path` with `bytes` unless it exists: written and synced beside it first, so that a reader
// sees no file or the whole of it, and a file made meanwhile by another process is kept.
enum class PrivateFileCreation { Created, AlreadyThere, Failed };
PrivateFileCreation createPrivateFile(const QString &path, const QByteArray &bytes, QString *error);

// Makes `folder` (mode 0700) unless it exists; false with `error` set when it cannot.
bool makePrivateFolder(const QString &folder, QString *error);

} // namespace Tether
