#pragma once

#include "configcontext.h"
#include "serverconfig.h"

#include <QDateTime>
#include <QFileSystemWatcher>
#include <QObject>
#include <QTimer>

namespace Tether {

// Reloads a config file when it changes on disk, including editors that save by writing a new
// file and renaming it over the old one. Changes are debounced, and a file that does not parse
// is reported, never applied.
class ConfigWatcher final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConfigWatcher)

public:
    ConfigWatcher(QString path, ConfigContext context, std::chrono::milliseconds debounce = std::chrono::milliseconds(300),
                  QObject *parent = nullptr);

    const QString &path() const { return m_path; }
    // The file's content as last read: what the latest reloaded() or reloadFailed() was about
    // (empty when the file could not be read at all).
    const QByteArray &lastContent() const { return m_lastContent; }

    // Reads the file again shortly, as a change event would: for a change the events missed (two
    // saves alike in size and time) that a writer has just seen.
    // A reload already due is not put off.
    void reloadSoon()
    {
        if (!m_debounce.isActive())
            m_debounce.start();
    }

signals:
    void reloaded(const Tether::ConfigDocument &document);
    // The new file is broken: the running set stays as it was.
    void reloadFailed(const QStringList &errors);

private:
    // What tells one version of the file from another without reading it.
    struct FileStamp
    {
        bool exists = false;
        qint64 size = 0;
        QDateTime modified;
        QDateTime created;

        bool operator==(const FileStamp &) const = default;
    };

    void watch();
    void reload();
    FileStamp stamp() const;

    QString m_path;
    ConfigContext m_context;
    QFileSystemWatcher m_watcher;
    QTimer m_debounce;
    QByteArray m_lastContent;
    FileStamp m_stamp; // as the folder's last change left the file
    QString m_readError; // why the file could not be read last time; empty when it was
};

} // namespace Tether
