#include "signinindex.h"

#include "common/privatefile.h"
#include "config/configlocation.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

QJsonObject toJson(const SignInRecord &record)
{
    QJsonObject json{{u"issuer"_s, record.issuer},
                     {u"clientId"_s, record.clientId},
                     {u"account"_s, record.account},
                     {u"scopes"_s, QJsonArray::fromStringList(record.scopes)},
                     {u"store"_s, record.store},
                     {u"storeNote"_s, record.storeNote},
                     {u"updatedAt"_s, record.updatedAt.toUTC().toString(Qt::ISODate)}};
    if (!record.wantedScopes.isEmpty())
        json.insert(u"wantedScopes"_s, QJsonArray::fromStringList(record.wantedScopes));
    json.insert(u"expiresAt"_s, record.expiresAt.isValid() ? QJsonValue(record.expiresAt.toUTC().toString(Qt::ISODate))
                                                           : QJsonValue(QJsonValue::Null));
    return json;
}

SignInRecord recordFrom(const QJsonObject &json)
{
    SignInRecord record;
    record.issuer = json.value(u"issuer"_s).toString();
    record.clientId = json.value(u"clientId"_s).toString();
    record.account = json.value(u"account"_s).toString();
    for (const QJsonValue &scope : json.value(u"scopes"_s).toArray())
        record.scopes.append(scope.toString());
    record.expiresAt = QDateTime::fromString(json.value(u"expiresAt"_s).toString(), Qt::ISODate);
    record.store = json.value(u"store"_s).toString();
    record.storeNote = json.value(u"storeNote"_s).toString();
    record.updatedAt = QDateTime::fromString(json.value(u"updatedAt"_s).toString(), Qt::ISODate);
    for (const QJsonValue &scope : json.value(u"wantedScopes"_s).toArray())
        record.wantedScopes.append(scope.toString());
    return record;
}

std::optional<QJsonObject> readServers(const QString &path, QString *error)
{
    const PrivateFileContent content = readPrivateFile(path);
    if (!content.error.isEmpty()) {
        *error = content.error;
        return std::nullopt;
    }
    if (!content.exists)
        return QJsonObject();
    const QJsonDocument document = QJsonDocument::fromJson(content.bytes);
    if (!document.isObject()) {
        *error = u"%1 is not the JSON object Tether writes; Tether does not use it: remove it (it holds no secret)"_s.arg(path);
        return std::nullopt;
    }
    return document.object().value(u"servers"_s).toObject();
}

bool writeServers(const QString &path, const QJsonObject &servers, QString *error)
{
    if (servers.isEmpty()) {
        if (!QFile::exists(path) || QFile::remove(path))
            return true;
        *error = u"Cannot remove %1"_s.arg(path);
        return false;
    }
    const QJsonObject document{{u"version"_s, 1}, {u"servers"_s, servers}};
    return writePrivateFile(path, QJsonDocument(document).toJson(QJsonDocument::Indented), error);
}

} // namespace

SignInInfo SignInRecord::info() const
{
    return {SignInInfo::State::SignedIn, account, scopes, expiresAt, store, storeNote};
}

SignInIndex::SignInIndex(QString path)
    : m_path(std::move(path))
{}

QString SignInIndex::defaultPath()
{
    return tetherStateFolder() + u"/signins.json"_s;
}

QHash<QString, SignInRecord> SignInIndex::records(QString *error) const
{
    QString problem;
    QHash<QString, SignInRecord> records;
    const std::optional<QJsonObject> servers = readServers(m_path, &problem);
    if (error)
        *error = problem;
    if (!servers)
        return records;
    for (auto it = servers->constBegin(); it != servers->constEnd(); ++it)
        records.insert(it.key(), recordFrom(it.value().toObject()));
    return records;
}

std::optional<SignInRecord> SignInIndex::record(const QString &serverUrl) const
{
    const QHash<QString, SignInRecord> all = records();
    const auto found = all.constFind(serverUrl);
    if (found == all.constEnd())
        return std::nullopt;
    return *found;
}

bool SignInIndex::put(const QString &serverUrl, const SignInRecord &record, QString *error)
{
    std::optional<QJsonObject> servers = readServers(m_path, error);
    if (!servers)
        return false;
    servers->insert(serverUrl, toJson(record));
    return writeServers(m_path, *servers, error);
}

bool SignInIndex::remove(const QString &serverUrl, QString *error)
{
    std::optional<QJsonObject> servers = readServers(m_path, error);
    if (!servers)
        return false;
    if (!servers->contains(serverUrl))
        return true;
    servers->remove(serverUrl);
    return writeServers(m_path, *servers, error);
}

} // namespace Tether
