#include "configwatcher.h"

#include "common/logging.h"
#include "configfile.h"
#include "configparser.h"

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
    connect(&m_watcher, &QFileSystemWatcher::directoryChanged, this, [this] {
        watch(); // the file's folder may have been made just now
        // Other files of the folder (each writer's lock file, an editor's backup) do not put off
        // the reload of this one.
        if (const FileStamp now = stamp(); now != m_stamp) {
            m_stamp = now;
            m_debounce.start();
        }
    });
    m_lastContent = readConfigFile(m_path, &m_readError).value_or(QByteArray());
    m_stamp = stamp();
    watch();
}

void ConfigWatcher::watch()
{
    if (!m_watcher.files().contains(m_path) && QFileInfo::exists(m_path))
        m_watcher.addPath(m_path);
    // Its folder, or while that is not made yet, the nearest folder above it that is: where the
    // file (or the folders down to it) will appear.
    QString folder = QFileInfo(m_path).absolutePath();
    while (!QFileInfo(folder).isDir() && QFileInfo(folder).absolutePath() != folder)
        folder = QFileInfo(folder).absolutePath();
    if (!m_watcher.directories().contains(folder))
        m_watcher.addPath(folder);
}

ConfigWatcher::FileStamp ConfigWatcher::stamp() const
{
    const QFileInfo info(m_path);
    if (!info.exists())
        return {};
    // A file renamed over this one (as every save is) was created anew.
    return {true, info.size(), info.lastModified(), info.birthTime()};
}

void ConfigWatcher::reload()
{
    watch(); // a renamed-over file is a new inode: follow it again
    QString error;
    const std::optional<QByteArray> content = readConfigFile(m_path, &error);
    if (!content) {
        if (!QFileInfo::exists(m_path) || error == m_readError)
            return; // mid-rename or deleted (the next change event brings it back), or said already
        // Too large, or unreadable: reported as a file that cannot be used is.
        m_readError = error;
        m_lastContent.clear();
        spdlog::error("{} changed but cannot be used, the running servers stay as they were: {}", m_path, error);
        emit reloadFailed({error});
        return;
    }
    if (*content == m_lastContent && m_readError.isEmpty())
        return;
    m_readError.clear();
    m_lastContent = *content;
    const ConfigDocument document = parseConfig(*content, m_path, m_context);
    if (!document.isValid()) {
        spdlog::error("{} changed but cannot be used, the running servers stay as they were: {}", m_path,
                      document.errors.join(QStringLiteral("; ")));
        emit reloadFailed(document.errors);
        return;
    }
    emit reloaded(document);
}

} // namespace Tether
