#include "configfile.h"

#include "configparser.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSaveFile>

using namespace Qt::StringLiterals;

namespace Tether {

ConfigDocument loadConfig(const QString &path, const ConfigContext &context)
{
    const auto failed = [&path](const QString &text) {
        ConfigDocument document;
        document.path = path;
        document.serversKey = u"mcpServers"_s;
        document.errors.append(path + u": "_s + text);
        return document;
    };
    const QFileInfo info(path);
    if (!info.exists())
        return failed(u"no such file"_s);
    if (info.isDir())
        return failed(u"is a folder, not a file"_s);
    if (info.size() > MaxConfigBytes)
        return failed(u"is %1 bytes, too large for a config file (at most %2)"_s.arg(info.size()).arg(MaxConfigBytes));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return failed(u"cannot be read: %1"_s.arg(file.errorString()));
    const QByteArray bytes = file.read(MaxConfigBytes + 1);
    if (file.error() != QFileDevice::NoError)
        return failed(u"cannot be read: %1"_s.arg(file.errorString()));
    if (bytes.size() > MaxConfigBytes)
        return failed(u"is too large for a config file (at most %1 bytes)"_s.arg(MaxConfigBytes));
    return parseConfig(bytes, path, context);
}

bool saveConfig(const QString &path, const QJsonObject &root, QString *error, const JsonKeyOrder &orderWithoutFile,
                QByteArray *written)
{
    const auto fail = [&](const QString &text) {
        if (error)
            *error = path + u": "_s + text;
        return false;
    };
    const QFileInfo info(path);
    if (info.isDir())
        return fail(u"is a folder, not a file: nothing was saved"_s);
    JsonKeyOrder order = orderWithoutFile;
    if (info.exists()) {
        // What the user wrote by hand is never replaced by a save they did not see fail to load.
        QFile existing(path);
        if (!existing.open(QIODevice::ReadOnly))
            return fail(u"the file on disk cannot be read (%1), so it was left untouched"_s.arg(existing.errorString()));
        const QByteArray bytes = existing.readAll();
        if (!isBlankConfig(bytes)) {
            QJsonParseError parseError;
            QJsonDocument::fromJson(bytes, &parseError);
            if (parseError.error != QJsonParseError::NoError) {
                return fail(parseErrorLocation(bytes, parseError)
                            + u": the file on disk is broken (not valid JSON), so it was left untouched: fix it or "
                              "move it away, then save again"_s);
            }
            order = JsonKeyOrder::scan(bytes).value_or(order);
        }
    }
    const QString folder = info.absolutePath();
    if (!QDir().mkpath(folder))
        return fail(u"cannot create the folder %1"_s.arg(folder));

    // QSaveFile writes a temporary file next to the target and renames it over the target on commit.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return fail(u"cannot be written: %1"_s.arg(file.errorString()));
    if (!file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner))
        return fail(u"cannot restrict the file to its owner: %1; nothing was saved"_s.arg(file.errorString()));
    const QByteArray bytes = toOrderedJson(root, order);
    if (file.write(bytes) != bytes.size())
        return fail(u"cannot be written: %1; the file was left as it was"_s.arg(file.errorString()));
    if (!file.commit())
        return fail(u"cannot be written: %1; the file was left as it was"_s.arg(file.errorString()));
    if (written)
        *written = bytes;
    return true;
}

} // namespace Tether
