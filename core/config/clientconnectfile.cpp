#include "clientconnectfile.h"

#include "configfile.h"
#include "configlocation.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

constexpr QFileDevice::Permissions OwnerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner;

QByteArray sha256(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

// The manifest and backup of one client file, named after its path.
QString recordBase(const QString &path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    return QDir(connectStateFolder()).filePath(QString::fromLatin1(sha256(absolute.toUtf8()).left(16)));
}

bool writeAtomically(const QString &path, const QByteArray &bytes, QFileDevice::Permissions permissions, QString *error)
{
    // QSaveFile writes a temporary file next to the target (following a symbolic link to it) and
    // renames it over the target on commit.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !file.setPermissions(permissions) || file.write(bytes) != bytes.size()
        || !file.commit()) {
        *error = u"%1 cannot be written (%2), so it was left as it was: check that its folder is yours and "
                 "writable"_s.arg(path, file.errorString());
        return false;
    }
    return true;
}

bool makeStateFolder(QString *error)
{
    const QString folder = connectStateFolder();
    if (!QDir().mkpath(folder) || !QFile::setPermissions(folder, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner)) {
        *error = u"cannot make the folder %1 for the backup, so nothing was written: check that it can be "
                 "created"_s.arg(folder);
        return false;
    }
    return true;
}

struct Manifest
{
    QString path;
    QString client;
    bool existed = true;
    QByteArray written; // sha256 of the file connect wrote
    QString connectedAt;
    QList<MovedServer> moved;
    std::optional<QFileDevice::Permissions> mode; // the file's before the connect
};

std::optional<Manifest> readManifest(const QString &path)
{
    QFile file(recordBase(path) + u".json"_s);
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
    if (json.isEmpty())
        return std::nullopt;
    Manifest manifest{json.value(u"path").toString(), json.value(u"client").toString(), json.value(u"existed").toBool(true),
                      json.value(u"written").toString().toLatin1(), json.value(u"connectedAt").toString(), {}, {}};
    if (const QJsonValue mode = json.value(u"mode"); mode.isDouble())
        manifest.mode = QFileDevice::Permissions::fromInt(mode.toInt());
    for (const QJsonValue &moved : json.value(u"moved").toArray()) {
        manifest.moved.append({moved[u"name"].toString(), moved[u"text"].toString().toUtf8()});
    }
    return manifest;
}

bool writeManifest(const QString &path, const Manifest &manifest, QString *error)
{
    QJsonArray moved;
    for (const MovedServer &server : manifest.moved)
        moved.append(QJsonObject{{u"name"_s, server.name}, {u"text"_s, QString::fromUtf8(server.text)}});
    QJsonObject json{{u"path"_s, manifest.path},     {u"client"_s, manifest.client},
                     {u"existed"_s, manifest.existed}, {u"written"_s, QString::fromLatin1(manifest.written)},
                     {u"connectedAt"_s, manifest.connectedAt}, {u"moved"_s, moved}};
    if (manifest.mode)
        json.insert(u"mode"_s, int(manifest.mode->toInt()));
    return writeAtomically(recordBase(path) + u".json"_s, QJsonDocument(json).toJson(), OwnerOnly, error);
}

void removeRecord(const QString &path)
{
    QFile::remove(recordBase(path) + u".json"_s);
    QFile::remove(recordBase(path) + u".backup"_s);
}

} // namespace

QString connectStateFolder()
{
    return tetherStateFolder() + u"/connect"_s;
}

ClientFile readClientFile(const QString &path)
{
    ClientFile file;
    file.exists = QFileInfo::exists(path);
    if (!file.exists)
        return file;
    QString error;
    const std::optional<QByteArray> bytes = readConfigFile(path, &error);
    if (!bytes)
        file.error = error + u"; nothing was written"_s;
    else
        file.content = *bytes;
    file.permissions = QFileInfo(path).permissions();
    return file;
}

bool ClientFile::readableByOthers() const
{
    return exists && (permissions & (QFileDevice::ReadGroup | QFileDevice::ReadOther));
}

bool hasConnectRecord(const QString &path)
{
    return readManifest(path).has_value();
}

bool applyConnect(const QString &path, ConnectClient client, const ClientFile &before, const ConnectPlan &plan,
                  QString *error)
{
    const ClientFile now = readClientFile(path);
    if (!now.error.isEmpty()) {
        *error = now.error;
        return false;
    }
    if (now.exists != before.exists || now.content != before.content) {
        *error = u"%1 changed while Tether was connecting %2 to it, so nothing was written: connect again"_s.arg(
            path, connectClientTitle(client));
        return false;
    }
    if (!makeStateFolder(error))
        return false;
    // Connecting again over Tether's own edit keeps the first backup: undo goes back to the file
    // as it was before Tether touched it.
    std::optional<Manifest> manifest = readManifest(path);
    if (!manifest || !before.exists || sha256(before.content) != manifest->written) {
        manifest = Manifest{QFileInfo(path).absoluteFilePath(), connectClientName(client), before.exists, {}, {}, {}, {}};
        if (before.exists)
            manifest->mode = before.permissions;
        if (before.exists && !writeAtomically(recordBase(path) + u".backup"_s, before.content, OwnerOnly, error))
            return false;
    }
    manifest->written = sha256(plan.after);
    manifest->connectedAt = QDateTime::currentDateTime().toString(Qt::ISODate);
    manifest->moved += plan.moved;
    if (!writeManifest(path, *manifest, error))
        return false;

    if (!before.exists && !QDir().mkpath(QFileInfo(path).absolutePath())) {
        *error = u"cannot make the folder of %1, so nothing was written"_s.arg(path);
        return false;
    }
    QFileDevice::Permissions mode = before.exists ? before.permissions : OwnerOnly;
    // A token others could read would let them use every tool behind the gateway.
    if (plan.holdsToken)
        mode &= OwnerOnly | QFileDevice::ExeOwner | QFileDevice::ReadUser | QFileDevice::WriteUser | QFileDevice::ExeUser;
    return writeAtomically(path, plan.after, mode, error);
}

UndoOutcome undoConnect(const QString &path, ConnectClient client)
{
    UndoOutcome outcome;
    const std::optional<Manifest> manifest = readManifest(path);
    if (!manifest) {
        outcome.error = u"no connect of %1 is recorded in %2, so there is nothing to undo"_s.arg(path, connectStateFolder());
        return outcome;
    }
    const QString backup = recordBase(path) + u".backup"_s;
    const ClientFile now = readClientFile(path);
    if (!now.error.isEmpty()) {
        outcome.error = now.error;
        return outcome;
    }
    if (!now.exists) {
        outcome.error = manifest->existed
                            ? u"%1 is gone, so nothing was restored; its copy from before the connect is %2"_s.arg(path, backup)
                            : u"%1 is gone already: nothing to undo"_s.arg(path);
        if (!manifest->existed)
            removeRecord(path);
        return outcome;
    }
    const QString title = connectClientTitle(client);
    if (sha256(now.content) == manifest->written) {
        if (!manifest->existed) {
            if (!QFile::remove(path)) {
                outcome.error = u"%1 cannot be removed: check that its folder is writable"_s.arg(path);
                return outcome;
            }
            outcome.message = u"Removed %1, which the connect had made. Restart %2 for it to take effect."_s.arg(path, title);
        } else {
            QFile file(backup);
            if (!file.open(QIODevice::ReadOnly)) {
                outcome.error = u"the backup %1 of %2 cannot be read (%3), so nothing was restored"_s.arg(backup, path, file.errorString());
                return outcome;
            }
            if (!writeAtomically(path, file.readAll(), manifest->mode.value_or(QFileInfo(path).permissions()),
                                 &outcome.error))
                return outcome;
            outcome.message = u"Restored %1 as it was before the connect of %2. Restart %3 to load it."_s.arg(
                path, manifest->connectedAt, title);
        }
        removeRecord(path);
        outcome.done = true;
        return outcome;
    }
    const UndoSplice splice = planUndoSplice(now.content, path, client, manifest->moved);
    if (!splice.error.isEmpty()) {
        outcome.error = splice.error;
        return outcome;
    }
    if (splice.after != now.content
        && !writeAtomically(path, splice.after, QFileInfo(path).permissions(), &outcome.error))
        return outcome;
    QStringList done;
    if (splice.removedEntry)
        done.append(u"removed the \"tether\" entry"_s);
    if (!splice.restored.isEmpty())
        done.append(u"put back %1"_s.arg(splice.restored.join(u", "_s)));
    outcome.message = done.isEmpty()
                          ? u"%1 has no \"tether\" entry and holds the moved servers already: nothing to undo."_s.arg(path)
                          : u"%1 changed since the connect, so it was not restored from the backup; Tether %2 and kept "
                            "every other change. Restart %3 to load it."_s.arg(path, done.join(u" and "_s), title);
    QFile::remove(recordBase(path) + u".json"_s);
    outcome.done = true;
    return outcome;
}

} // namespace Tether
