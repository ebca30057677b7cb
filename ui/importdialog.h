#pragma once

#include <QDialog>
#include <QJsonObject>
#include <QList>
#include <QStringList>

#include <utility>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QTreeWidget;
class QTreeWidgetItem;

namespace Tether {

enum class ImportFormat;
struct ConfigDocument;
struct ImportCandidate;

// Import from Claude Desktop, Cursor or VS Code: reads the other program's file with
// previewImport, lists its servers with secrets left out, and lets the user check which to add.
// A server whose name Tether already has is left unchecked; checked, it is added under a new name
// that the list shows. The dialog edits nothing itself: the caller adds selectedServers().
class ImportDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ImportDialog)

public:
    enum Column { Name, Transport, CommandOrUrl, Note };

    ImportDialog(ImportFormat format, const ConfigDocument &document, QWidget *parent = nullptr);

    // Chooses the source and reads it; an empty path is the program's usual place.
    void setSource(ImportFormat format, const QString &path = QString());
    // The checked servers in file order, each under the name it gets in Tether's config.
    QList<std::pair<QString, QJsonObject>> selectedServers() const;

protected:
    void keyPressEvent(QKeyEvent *event) override;

private:
    struct Candidate
    {
        QString name;       // in the source file
        QString importName; // in Tether's config
        QJsonObject entry;
    };

    ImportFormat currentFormat() const;
    void read();
    void showProblem(const QString &problem);
    void addCandidate(const ImportCandidate &candidate, QStringList *taken);
    void updateItem(QTreeWidgetItem *item);
    void updateSummary();
    void browse();

    QStringList m_existingNames;
    QList<Candidate> m_candidates; // one per list row
    QComboBox *m_format;
    QLineEdit *m_path;
    QLabel *m_problem;
    QTreeWidget *m_servers;
    QLabel *m_summary;
    QDialogButtonBox *m_buttons;
};

} // namespace Tether
