#pragma once

#include "config/configlocation.h"
#include "config/serverconfig.h"

#include <QObject>
#include <QStringList>

#include <functional>
#include <memory>

namespace Tether {

class ConfigWatcher;
struct ConfigOnDisk;

// The config Tether runs on, as both the window and a text editor change it: the current
// document, where edits are saved, and the reload of outside edits. The embedded demo is
// read-only; the first edit saves it, changed, as the user's file and goes on from there.
class ConfigStore final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConfigStore)

public:
    ConfigStore(ConfigSource source, ConfigContext context, QString userPath = defaultConfigPath(),
                QObject *parent = nullptr);
    ~ConfigStore() override;

    // Whether the store picks up later changes of the file: a command that runs once reads it once.
    enum class FileChanges { Follow, Ignore };

    // Shapes each document read from the file before the store takes it (tetherctl narrows it to
    // the servers named on its command line and applies its policy flags). The errors it returns
    // make the document one that cannot be used, as a broken file is: reported, never taken.
    using Adjustment = std::function<QStringList(ConfigDocument &document)>;
    void setAdjustment(Adjustment adjustment) { m_adjustment = std::move(adjustment); }

    // Reads the file and, unless told to ignore its changes, starts following it. Emits
    // documentChanged when it can be used, and problemChanged either way.
    void load(FileChanges fileChanges = FileChanges::Follow);
    // Reads the file again now (tetherctl's reload): the reasons it cannot be used, when it cannot
    // (what runs is kept, as for a broken edit of the file); empty when it was taken.
    QStringList reload();

    const ConfigDocument &document() const { return m_document; }
    const ConfigContext &context() const { return m_context; }
    bool isEmbedded() const { return m_source.embedded; }
    // The file the servers come from (a resource path for the embedded demo).
    QString path() const { return m_source.path; }
    // The file an edit is written to.
    QString savePath() const { return m_source.embedded ? m_userPath : m_source.path; }

    // Writes `root` atomically, under the file's lock (see editConfig), and applies it at once.
    // Refuses, writing nothing, when `root` is not a usable config, or when the file on disk is not
    // what Tether last read or wrote (changed by hand or by tetherctl import meanwhile, or broken):
    // an edit made on an older copy would undo that change. `error` then says why.
    bool save(const QJsonObject &root, QString *error);

signals:
    void documentChanged(const Tether::ConfigDocument &document);
    // Empty when the file is fine.
    void problemChanged(const QString &problem);

private:
    void follow();
    // The document shaped by the adjustment; its errors say why it cannot be used.
    ConfigDocument adjusted(ConfigDocument document) const;
    void adopt(const ConfigDocument &document, const QByteArray &content);
    void reportUnusable(const QStringList &errors);
    // Why the file on disk, as found under its lock, cannot take an edit now; empty when it can.
    QString changedOnDisk(const QString &target, const ConfigOnDisk &current) const;

    ConfigSource m_source;
    FileChanges m_fileChanges = FileChanges::Follow;
    Adjustment m_adjustment;
    ConfigContext m_context;
    QString m_userPath;
    ConfigDocument m_document;
    QByteArray m_content; // of the file, as last read or written: what m_document came from
    std::unique_ptr<ConfigWatcher> m_watcher;
};

} // namespace Tether
