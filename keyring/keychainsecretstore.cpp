#include "keychainsecretstore.h"

#include <qt6keychain/keychain.h>

#include <QJsonDocument>
#include <QTimer>

#include <memory>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

const QString Service = u"tether"_s;
const QString StoreName = u"keyring"_s;

SecretResult resultOf(const QKeychain::Job *job)
{
    switch (job->error()) {
    case QKeychain::NoError:
        return {SecretResult::Status::Ok, {}, {}, StoreName, {}};
    case QKeychain::EntryNotFound:
        return {SecretResult::Status::NotFound, job->errorString(), {}, StoreName, {}};
    case QKeychain::AccessDenied:
    case QKeychain::AccessDeniedByUser:
        return {SecretResult::Status::AccessDenied, job->errorString(), {}, StoreName, {}};
    default:
        return {SecretResult::Status::Failed, job->errorString(), {}, StoreName, {}};
    }
}

} // namespace

KeychainSecretStore::KeychainSecretStore(std::chrono::milliseconds timeout, QObject *parent)
    : QObject(parent)
    , m_timeout(timeout)
{}

KeychainSecretStore::~KeychainSecretStore() = default;

void KeychainSecretStore::read(const QString &key, SecretDone done)
{
    auto *job = new QKeychain::ReadPasswordJob(Service, this);
    job->setKey(key);
    run(job, [key](QKeychain::Job *finished) {
        SecretResult result = resultOf(finished);
        if (!result.ok())
            return result;
        const QJsonDocument document =
            QJsonDocument::fromJson(static_cast<QKeychain::ReadPasswordJob *>(finished)->textData().toUtf8());
        if (!document.isObject())
            return SecretResult{SecretResult::Status::Failed,
                                u"the keyring's entry %1 is not what Tether writes; sign in again to replace it"_s.arg(key),
                                {}, StoreName, {}};
        result.value = document.object();
        return result;
    }, std::move(done));
}

void KeychainSecretStore::write(const QString &key, const QJsonObject &value, SecretDone done)
{
    auto *job = new QKeychain::WritePasswordJob(Service, this);
    job->setKey(key);
    job->setTextData(QString::fromUtf8(QJsonDocument(value).toJson(QJsonDocument::Compact)));
    run(job, resultOf, std::move(done));
}

void KeychainSecretStore::remove(const QString &key, SecretDone done)
{
    auto *job = new QKeychain::DeletePasswordJob(Service, this);
    job->setKey(key);
    run(job, [](QKeychain::Job *finished) {
        SecretResult result = resultOf(finished);
        if (result.status == SecretResult::Status::NotFound)
            result = {SecretResult::Status::Ok, {}, {}, StoreName, {}};
        return result;
    }, std::move(done));
}

void KeychainSecretStore::run(QKeychain::Job *job, Finish finish, SecretDone done)
{
    // Whichever comes first answers: the job, or the bound. The job deletes itself when it ends,
    // even after the bound (the keyring may still be asking for its password).
    auto answer = std::make_shared<SecretDone>(std::move(done));
    auto *bound = new QTimer(job);
    bound->setSingleShot(true);
    connect(bound, &QTimer::timeout, job, [answer, seconds = m_timeout.count() / 1000.0] {
        if (const SecretDone pending = std::exchange(*answer, nullptr))
            pending({SecretResult::Status::Failed,
                  u"the system keyring did not answer within %1 s (is it waiting to be unlocked?)"_s.arg(seconds),
                  {}, StoreName, {}});
    });
    connect(job, &QKeychain::Job::finished, job, [answer, finish = std::move(finish)](QKeychain::Job *finished) {
        if (const SecretDone pending = std::exchange(*answer, nullptr))
            pending(finish(finished));
    });
    job->setAutoDelete(true);
    bound->start(m_timeout);
    job->start();
}

} // namespace Tether
