#include "configstore.h"
#include "configwatcher.h"

#include "common/logging.h"
#include "configfile.h"
#include "configparser.h"

#include <QFileInfo>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace Tether {

ConfigStore::ConfigStore(ConfigSource source, ConfigContext context, QString userPath, QObject *parent)
    : QObject(parent)
    , m_source(std::move(source))
    , m_context(std::move(context))
    , m_userPath(std::move(userPath))
{
}

ConfigStore::~ConfigStore() = default;

void ConfigStore::load(FileChanges fileChanges)
{
    m_fileChanges = fileChanges;
    QByteArray content;
    const ConfigDocument document = adjusted(loadConfig(m_source.path, m_context, &content));
    follow();
    if (!document.isValid()) {
        m_document = document;
        m_content = content;
        reportUnusable(document.errors);
        return;
    }
    adopt(document, content);
}

QStringList ConfigStore::reload()
{
    QByteArray content;
    const ConfigDocument document = adjusted(loadConfig(m_source.path, m_context, &content));
    if (!document.isValid()) {
        reportUnusable(document.errors);
        return document.errors;
    }
    if (document.root != m_document.root || !m_document.isValid())
        adopt(document, content);
    return {};
}

void ConfigStore::follow()
{
    // On the built-in demo, the user's own file is watched for: once it is written, it is run.
    const QString path = m_source.embedded ? m_userPath : m_source.path;
    if (m_fileChanges == FileChanges::Ignore || path.isEmpty()
        || (m_watcher && m_watcher->path() == QFileInfo(path).absoluteFilePath()))
        return;
    m_watcher = std::make_unique<ConfigWatcher>(path, m_context);
    connect(m_watcher.get(), &ConfigWatcher::reloaded, this, [this](const ConfigDocument &read) {
        if (read.root == m_document.root && m_document.isValid() && !m_source.embedded) {
            // The same settings, written differently (or a broken edit undone): nothing to apply,
            // but the file is fine again.
            m_content = m_watcher->lastContent();
            emit problemChanged({});
            return;
        }
        const ConfigDocument document = adjusted(read);
        if (!document.isValid()) {
            reportUnusable(document.errors);
            return;
        }
        if (m_source.embedded) {
            spdlog::info("{} was written: Tether runs it now, in place of its built-in demo", m_userPath);
            m_source = {m_userPath, false};
        }
        adopt(document, m_watcher->lastContent());
    });
    connect(m_watcher.get(), &ConfigWatcher::reloadFailed, this, &ConfigStore::reportUnusable);
}

ConfigDocument ConfigStore::adjusted(ConfigDocument document) const
{
    if (m_adjustment && document.isValid())
        document.errors += m_adjustment(document);
    return document;
}

void ConfigStore::adopt(const ConfigDocument &document, const QByteArray &content)
{
    m_document = document;
    m_content = content;
    emit problemChanged({});
    emit documentChanged(m_document);
}

void ConfigStore::reportUnusable(const QStringList &errors)
{
    emit problemChanged(m_document.isValid()
                            ? tr("%1\nThe servers keep running as they were.").arg(errors.join(u'\n'))
                            : tr("%1\nNo servers were started. Fix the file; Tether picks it up when it is saved.")
                                  .arg(errors.join(u'\n')));
}

QString ConfigStore::changedOnDisk(const QString &target, const ConfigOnDisk &current) const
{
    if (m_source.embedded) {
        if (!current.exists)
            return {};
        return m_watcher ? tr("%1 was written after Tether started on its built-in demo, so nothing was saved over it; "
                              "Tether is loading it now: make the change again")
                               .arg(target)
                         : tr("%1 was created after Tether started on its built-in demo, so nothing was saved over it; "
                              "restart Tether to use it, or move it away and make the change again")
                               .arg(target);
    }
    if (!current.exists || current.content == m_content)
        return {}; // gone: created anew
    return m_document.isValid() && m_watcher && m_content == m_watcher->lastContent()
               ? tr("%1 changed on disk since Tether read it, so nothing was saved over it; Tether is loading the new "
                    "file now: make the change again")
                     .arg(target)
               : tr("%1 on disk cannot be used as it is, so nothing was saved over it; fix the file first (the problem "
                    "is shown above the server list)")
                     .arg(target);
}

bool ConfigStore::save(const QJsonObject &root, QString *error)
{
    const QString target = savePath();
    ConfigDocument edited = adjusted(parseConfig(QJsonDocument(root).toJson(), target, m_context));
    if (!edited.isValid()) {
        if (error)
            *error = tr("%1: the edited config cannot be used, so nothing was saved: %2").arg(target, edited.errors.join(u"; "_s));
        return false;
    }
    // Judged under the lock, so that no other writer can slip in between the check and the write.
    const auto unlessChangedOnDisk = [&](const ConfigOnDisk &current, QString *why) -> std::optional<QJsonObject> {
        *why = changedOnDisk(target, current);
        if (!why->isEmpty()) {
            if (m_watcher)
                m_watcher->reloadSoon(); // as the message promises, even when no change event came
            return std::nullopt;
        }
        return root;
    };
    QByteArray written;
    if (!editConfig(target, unlessChangedOnDisk, error, m_document.keyOrder, &written))
        return false;
    // Read back from what was written, so the servers are listed in the file's order, as a reload lists them.
    edited = adjusted(parseConfig(written, target, m_context));
    spdlog::info("saved {}", target);
    m_source = {target, false};
    follow();
    adopt(edited, written);
    return true;
}

} // namespace Tether
