#include "configwatcher.h"

#include "common/logging.h"
#include "configparser.h"

#include <QFile>
#include <QFileInfo>

namespace Tether {

ConfigWatcher::ConfigWatcher(QString path, ConfigContext context, std::chrono::milliseconds debounce, QObject *parent)
    : QObject(parent)
    , m_path(QFileInfo(path).absoluteFilePath())
    , m_context(std::move(context))
{
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(debounce);
    connect(&m_debounce, &QTimer::timeout, this, &ConfigWatcher::reload);
    // The folder too: a save by rename replaces the file the watcher was following.
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, this, [this] { m_debounce.start(); });
    connect(&m_watcher, &QFileSystemWatcher::directoryChanged, this, [this] { m_debounce.start(); });
    QFile file(m_path);
    if (file.open(QIODevice::ReadOnly))
        m_lastContent = file.readAll();
    watch();
}

void ConfigWatcher::watch()
{
    if (!m_watcher.files().contains(m_path) && QFileInfo::exists(m_path))
        m_watcher.addPath(m_path);
    const QString folder = QFileInfo(m_path).absolutePath();
    if (!m_watcher.directories().contains(folder))
        m_watcher.addPath(folder);
}

void ConfigWatcher::reload()
{
    watch(); // a renamed-over file is a new inode: follow it again
    QFile file(m_path);
    if (!file.open(QIODevice::ReadOnly))
        return; // mid-rename or deleted: the next change event brings it back
    const QByteArray content = file.readAll();
    if (content == m_lastContent)
        return;
    m_lastContent = content;
    const ConfigDocument document = parseConfig(content, m_path, m_context);
    if (!document.isValid()) {
        spdlog::error("{} changed but cannot be used, the running servers stay as they were: {}", m_path,
                      document.errors.join(QStringLiteral("; ")));
        emit reloadFailed(document.errors);
        return;
    }
    emit reloaded(document);
}

} // namespace Tether
