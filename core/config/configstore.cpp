#include "configstore.h"

#include "common/logging.h"

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

void ConfigStore::load()
{
    const ConfigDocument document = loadConfig(m_source.path, m_context);
    follow();
    if (!document.isValid()) {
        m_document = document;
        emit problemChanged(tr("%1\nNo servers were started. Fix the file; Tether picks it up when it is saved.")
                                .arg(document.errors.join(u'\n')));
        return;
    }
    adopt(document);
}

void ConfigStore::follow()
{
    if (m_source.embedded || (m_watcher && m_watcher->path() == QFileInfo(m_source.path).absoluteFilePath()))
        return;
    m_watcher = std::make_unique<ConfigWatcher>(m_source.path, m_context);
    connect(m_watcher.get(), &ConfigWatcher::reloaded, this, [this](const ConfigDocument &document) {
        if (document.root != m_document.root || !m_document.isValid())
            adopt(document);
    });
    connect(m_watcher.get(), &ConfigWatcher::reloadFailed, this, [this](const QStringList &errors) {
        emit problemChanged(m_document.isValid()
                                ? tr("%1\nThe servers keep running as they were.").arg(errors.join(u'\n'))
                                : tr("%1\nNo servers were started. Fix the file; Tether picks it up when it is saved.")
                                      .arg(errors.join(u'\n')));
    });
}

void ConfigStore::adopt(const ConfigDocument &document)
{
    m_document = document;
    emit problemChanged({});
    emit documentChanged(m_document);
}

bool ConfigStore::save(const QJsonObject &root, QString *error)
{
    const QString target = savePath();
    ConfigDocument edited = parseConfig(QJsonDocument(root).toJson(), target, m_context);
    if (!edited.isValid()) {
        if (error)
            *error = tr("%1: the edited config cannot be used, so nothing was saved: %2").arg(target, edited.errors.join(u"; "_s));
        return false;
    }
    QByteArray written;
    if (!saveConfig(target, root, error, m_document.keyOrder, &written))
        return false;
    // Read back from what was written, so the servers are listed in the file's order, as a reload lists them.
    edited = parseConfig(written, target, m_context);
    spdlog::info("saved {}", target);
    m_source = {target, false};
    follow();
    adopt(edited);
    return true;
}

} // namespace Tether
