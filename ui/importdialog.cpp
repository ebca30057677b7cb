#include "importdialog.h"

#include "messagelabel.h"

#include "config/configimport.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTreeWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// Another program's config is a few kilobytes; anything this large is not one.
constexpr qint64 MaxSourceBytes = 16 * 1024 * 1024;

QString programName(ImportFormat format)
{
    switch (format) {
    case ImportFormat::ClaudeDesktop: return ImportDialog::tr("Claude Desktop");
    case ImportFormat::Cursor: return ImportDialog::tr("Cursor");
    case ImportFormat::VsCode: return ImportDialog::tr("VS Code");
    }
    return {};
}

// The command line or URL as written, and the names of env variables or headers, never their values.
QString summaryOf(const ServerConfig &server)
{
    const QString prefix = transportName(server.transport) + u": "_s;
    QString text = server.describe();
    if (text.startsWith(prefix))
        text = text.sliced(prefix.size());
    const QJsonObject redacted = server.redacted();
    const QString secretsKey = server.transport == TransportKind::Stdio ? u"env"_s : u"headers"_s;
    const QStringList names = redacted.value(secretsKey).toObject().keys();
    if (!names.isEmpty())
        text += u"  (%1: %2, values hidden)"_s.arg(secretsKey, names.join(u", "_s));
    return text;
}

} // namespace

ImportDialog::ImportDialog(ImportFormat format, const ConfigDocument &document, QWidget *parent)
    : QDialog(parent)
    , m_existingNames(document.root.value(document.serversKey.isEmpty() ? u"mcpServers"_s : document.serversKey)
                          .toObject()
                          .keys())
    , m_format(new QComboBox(this))
    , m_path(new QLineEdit(this))
    , m_problem(newMessageLabel(this))
    , m_servers(new QTreeWidget(this))
    , m_summary(new QLabel(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Import servers"));
    resize(760, 420);

    m_format->setObjectName(u"source"_s);
    m_path->setObjectName(u"path"_s);
    m_problem->setObjectName(u"problem"_s); // why nothing can be listed: a missing file, not JSON, …
    m_servers->setObjectName(u"servers"_s);
    m_servers->setAccessibleName(tr("Servers to import"));
    for (const ImportFormat each : {ImportFormat::ClaudeDesktop, ImportFormat::Cursor, ImportFormat::VsCode})
        m_format->addItem(programName(each), int(each));
    connect(m_format, &QComboBox::currentIndexChanged, this, [this] {
        m_path->setText(defaultImportPath(currentFormat()));
        read();
    });
    connect(m_path, &QLineEdit::editingFinished, this, &ImportDialog::read);
    auto *browseButton = new QPushButton(tr("&Browse…"), this);
    connect(browseButton, &QPushButton::clicked, this, &ImportDialog::browse);
    auto *pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path);
    pathRow->addWidget(browseButton);

    m_servers->setHeaderLabels({tr("Server"), tr("Transport"), tr("Command or URL"), tr("Note")});
    m_servers->setRootIsDecorated(false);
    m_servers->setColumnWidth(Name, 160);
    m_servers->setColumnWidth(Transport, 80);
    m_servers->setColumnWidth(CommandOrUrl, 280);
    connect(m_servers, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem *item, int column) {
        if (column != Name)
            return;
        updateItem(item);
        updateSummary();
    });

    // Mnemonics of its own, so that none clashes with the platform's.
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("I&mport"));
    m_buttons->button(QDialogButtonBox::Cancel)->setText(tr("Cancel"));
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *form = new QFormLayout;
    form->addRow(tr("&Import from:"), m_format);
    auto *pathLabel = new QLabel(tr("&File:"), this);
    pathLabel->setBuddy(m_path); // a row of a layout gets no buddy by itself
    form->addRow(pathLabel, pathRow);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addWidget(m_servers, 1);
    layout->addWidget(m_summary);
    layout->addWidget(m_buttons);

    setSource(format);
}

void ImportDialog::setSource(ImportFormat format, const QString &path)
{
    {
        const QSignalBlocker blocker(m_format);
        m_format->setCurrentIndex(m_format->findData(int(format)));
    }
    m_path->setText(path.isEmpty() ? defaultImportPath(format) : path);
    read();
}

QList<std::pair<QString, QJsonObject>> ImportDialog::selectedServers() const
{
    QList<std::pair<QString, QJsonObject>> selected;
    for (int row = 0; row < m_servers->topLevelItemCount(); ++row) {
        if (m_servers->topLevelItem(row)->checkState(Name) == Qt::Checked)
            selected.append({m_candidates.at(row).importName, m_candidates.at(row).entry});
    }
    return selected;
}

ImportFormat ImportDialog::currentFormat() const
{
    return ImportFormat(m_format->currentData().toInt());
}

void ImportDialog::read()
{
    m_servers->clear();
    m_candidates.clear();
    showProblem(QString());
    updateSummary();

    const ImportFormat format = currentFormat();
    const QString path = m_path->text().trimmed();
    if (path.isEmpty()) {
        showProblem(format == ImportFormat::VsCode
                        ? tr("VS Code keeps MCP servers with each workspace (.vscode/mcp.json) or in its user "
                             "settings.json: choose that file with Browse….")
                        : tr("Choose the %1 file with Browse….").arg(programName(format)));
        return;
    }
    const QFileInfo info(path);
    if (!info.exists()) {
        showProblem(tr("%1: no such file. If %2 keeps its servers elsewhere, choose that file with Browse…; "
                       "otherwise there is nothing to import from %2.").arg(path, programName(format)));
        return;
    }
    if (info.isDir()) {
        showProblem(tr("%1 is a folder, not a file: choose the %2 file with Browse….").arg(path, programName(format)));
        return;
    }
    if (info.size() > MaxSourceBytes) {
        showProblem(tr("%1 is %2 bytes, too large for a %3 config file: choose the right file with Browse….")
                        .arg(path).arg(info.size()).arg(programName(format)));
        return;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        showProblem(tr("%1 cannot be read: %2. Check that you may read it, or choose another file with Browse….")
                        .arg(path, file.errorString()));
        return;
    }
    const ImportPreview preview = previewImport(file.read(MaxSourceBytes), path, format);
    if (!preview.error.isEmpty()) {
        showProblem(tr("Nothing can be imported: %1").arg(preview.error));
        return;
    }
    if (preview.servers.isEmpty()) {
        showProblem(tr("%1 has no MCP servers to import.").arg(path));
        return;
    }

    // A renamed server must not take the name of another one in the file either.
    QStringList taken = m_existingNames;
    for (const ImportCandidate &candidate : preview.servers)
        taken.append(candidate.name);
    const QSignalBlocker blocker(m_servers);
    for (const ImportCandidate &candidate : preview.servers)
        addCandidate(candidate, &taken);
    updateSummary();
}

void ImportDialog::showProblem(const QString &problem)
{
    showMessage(m_problem, problem);
}

void ImportDialog::addCandidate(const ImportCandidate &candidate, QStringList *taken)
{
    Candidate row{candidate.name, candidate.name, candidate.entry};
    const bool clash = m_existingNames.contains(candidate.name);
    if (clash) {
        for (int suffix = 2; taken->contains(row.importName); ++suffix)
            row.importName = u"%1-%2"_s.arg(candidate.name).arg(suffix);
        taken->append(row.importName);
    }
    m_candidates.append(row);

    auto *item = new QTreeWidgetItem(m_servers);
    item->setText(Name, candidate.name);
    item->setText(Transport, transportName(candidate.server.transport));
    item->setText(CommandOrUrl, summaryOf(candidate.server));
    item->setToolTip(CommandOrUrl, plainToolTip(item->text(CommandOrUrl)));
    if (!candidate.problem.isEmpty()) {
        // Tether could not run it: shown with the reason, never offered.
        const QString prefix = m_path->text().trimmed() + u": "_s; // the file is named above
        QStringList reasons;
        for (const QString &error : candidate.server.errors)
            reasons.append(error.startsWith(prefix) ? error.sliced(prefix.size()) : error);
        item->setFlags(item->flags() & ~(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled));
        item->setText(Note, tr("Cannot be imported: %1").arg(reasons.join(u"; "_s)));
        item->setToolTip(Note, plainToolTip(item->text(Note)));
        return;
    }
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(Name, clash ? Qt::Unchecked : Qt::Checked);
    updateItem(item);
}

void ImportDialog::updateItem(QTreeWidgetItem *item)
{
    const Candidate &row = m_candidates.at(m_servers->indexOfTopLevelItem(item));
    if (row.importName == row.name) {
        item->setText(Note, item->checkState(Name) == Qt::Checked ? tr("New") : tr("Skipped"));
        return;
    }
    item->setText(Note, item->checkState(Name) == Qt::Checked
                            ? tr("Tether already has a server named \"%1\": this one is imported as \"%2\".")
                                  .arg(row.name, row.importName)
                            : tr("Tether already has a server named \"%1\": skipped. Check it to import it as "
                                 "\"%2\".").arg(row.name, row.importName));
    item->setToolTip(Note, plainToolTip(item->text(Note)));
}

void ImportDialog::updateSummary()
{
    const qsizetype chosen = selectedServers().size();
    m_summary->setText(m_candidates.isEmpty()
                           ? QString()
                           : tr("Servers found: %1. Chosen to import: %2.").arg(m_candidates.size()).arg(chosen));
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(chosen > 0);
}

void ImportDialog::keyPressEvent(QKeyEvent *event)
{
    // Enter in the path field reads the file (the field's editingFinished) and stops there: the
    // servers are imported only once the user has seen the list.
    const bool enter = event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter;
    if (enter && focusWidget() == m_path) {
        event->accept();
        return;
    }
    QDialog::keyPressEvent(event);
}

void ImportDialog::browse()
{
    const QString start = m_path->text().trimmed().isEmpty() ? QDir::homePath() : QFileInfo(m_path->text()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("%1 file to import from").arg(programName(currentFormat())),
                                                      start, tr("JSON files (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    m_path->setText(path);
    read();
}

} // namespace Tether
