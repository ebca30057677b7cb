#include "filesecretstore.h"

#include "common/privatefile.h"
#include "config/configlocation.h"

#include <QFile>
#include <QJsonDocument>

#include <optional>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

const QString StoreName = u"file"_s;

// "token:<url>" → the section "tokens" and the name "<url>".
struct Place
{
    QString section;
    QString name;
};

std::optional<Place> placeOf(const QString &key)
{
    const qsizetype colon = key.indexOf(u':');
    const QString kind = key.left(colon);
    if (colon <= 0 || (kind != u"token" && kind != u"client"))
        return std::nullopt;
    return Place{kind + u's', key.mid(colon + 1)};
}

SecretResult failure(const QString &error)
{
    return {SecretResult::Status::Failed, error, {}, StoreName, {}};
}

SecretResult unknownKey(const QString &key)
{
    return failure(u"%1 is not a key of the token file (token:<server url> or client:<issuer>)"_s.arg(key));
}

// The file as an object; an absent file is an empty one.
std::optional<QJsonObject> readDocument(const QString &path, QString *error)
{
    const PrivateFileContent content = readPrivateFile(path);
    if (!content.error.isEmpty()) {
        *error = content.error;
        return std::nullopt;
    }
    if (!content.exists)
        return QJsonObject{{u"version"_s, 1}};
    const QJsonDocument document = QJsonDocument::fromJson(content.bytes);
    if (!document.isObject()) {
        *error = u"%1 is not the JSON object Tether writes; Tether does not use it: move it away, and sign in again"_s.arg(
            path);
        return std::nullopt;
    }
    return document.object();
}

} // namespace

FileSecretStore::FileSecretStore(QString path)
    : m_path(std::move(path))
{}

QString FileSecretStore::defaultPath()
{
    return tetherStateFolder() + u"/credentials.json"_s;
}

void FileSecretStore::read(const QString &key, SecretDone done)
{
    const auto place = placeOf(key);
    if (!place)
        return done(unknownKey(key));
    QString error;
    const auto document = readDocument(m_path, &error);
    if (!document)
        return done(failure(error));
    const QJsonValue entry = document->value(place->section).toObject().value(place->name);
    if (!entry.isObject())
        return done({SecretResult::Status::NotFound, u"%1 holds nothing for %2"_s.arg(m_path, place->name), {}, StoreName, {}});
    done({SecretResult::Status::Ok, {}, entry.toObject(), StoreName, {}});
}

void FileSecretStore::write(const QString &key, const QJsonObject &value, SecretDone done)
{
    edit(key, [&value](QJsonObject &entries, const QString &name) { entries.insert(name, value); }, std::move(done));
}

void FileSecretStore::remove(const QString &key, SecretDone done)
{
    edit(key, [](QJsonObject &entries, const QString &name) { entries.remove(name); }, std::move(done));
}

void FileSecretStore::edit(const QString &key, const std::function<void(QJsonObject &, const QString &)> &change,
                           SecretDone done)
{
    const auto place = placeOf(key);
    if (!place)
        return done(unknownKey(key));
    QString error;
    std::optional<QJsonObject> document = readDocument(m_path, &error);
    if (!document)
        return done(failure(error));
    QJsonObject section = document->value(place->section).toObject();
    const QJsonObject before = section;
    change(section, place->name);
    if (section == before)
        return done({SecretResult::Status::Ok, {}, {}, StoreName, {}});
    if (section.isEmpty())
        document->remove(place->section);
    else
        document->insert(place->section, section);
    // Nothing left: no file, so that none lies around once the keyring holds everything.
    const bool empty = !document->contains(u"tokens"_s) && !document->contains(u"clients"_s);
    if (empty && !QFile::remove(m_path))
        return done(failure(u"Cannot remove %1"_s.arg(m_path)));
    if (!empty && !writePrivateFile(m_path, QJsonDocument(*document).toJson(QJsonDocument::Indented), &error))
        return done(failure(error));
    done({SecretResult::Status::Ok, {}, {}, StoreName, {}});
}

} // namespace Tether
