// The Import dialog: the servers of a Claude Desktop or VS Code file listed without secrets, name
// clashes marked and imported only under a new name, and files that cannot be read explained.
#include "config/configparser.h"
#include "importdialog.h"
#include "config/configimport.h"
#include "support/mnemonicchecks.h"
#include "support/namedchild.h"
#include "support/testfiles.h"

#include <QDialogButtonBox>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

const QString ClaudeFile = QStringLiteral(TETHER_TEST_DATA "/config/claude_desktop_config.json");
const QString VsCodeFile = QStringLiteral(TETHER_TEST_DATA "/config/vscode_mcp.json");

ConfigDocument tetherConfig(const QByteArray &json)
{
    const ConfigDocument parsed = parseConfig(json, u"servers.json"_s, {});
    if (!parsed.isValid())
        qFatal("test config does not parse: %s", qPrintable(parsed.errors.join(u"; "_s)));
    return parsed;
}

// Tether already has a "github" server, not the one in the Claude Desktop file.
const QByteArray WithGithub = R"({"mcpServers": {"github": {"command": "gh-mcp"}}})";

QJsonObject serversIn(const QString &path, const QString &key)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return QJsonDocument::fromJson(file.readAll()).object().value(key).toObject();
}

QStringList column(const QTreeWidget *list, int column)
{
    QStringList texts;
    for (int row = 0; row < list->topLevelItemCount(); ++row)
        texts.append(list->topLevelItem(row)->text(column));
    return texts;
}

// Why nothing can be listed (missing file, not JSON, …); empty when the file was read.
QString problemText(const ImportDialog &dialog)
{
    return namedChild<QLabel>(dialog, u"problem"_s)->text();
}

QTreeWidget *serverList(const ImportDialog &dialog)
{
    return namedChild<QTreeWidget>(dialog, u"servers"_s);
}

QPushButton *importButton(const ImportDialog &dialog)
{
    return dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
}

} // namespace

class TestImportDialog final : public QObject
{
    Q_OBJECT

private slots:
    void listsClaudeDesktopServersAndMarksAClash()
    {
        ImportDialog dialog(ImportFormat::ClaudeDesktop, tetherConfig(WithGithub));
        dialog.setSource(ImportFormat::ClaudeDesktop, ClaudeFile);
        QCOMPARE(problemText(dialog), QString());
        const QTreeWidget *list = serverList(dialog);
        QCOMPARE(column(list, ImportDialog::Name), (QStringList{u"filesystem"_s, u"github"_s, u"memory"_s}));
        QCOMPARE(column(list, ImportDialog::Transport), (QStringList{u"stdio"_s, u"stdio"_s, u"stdio"_s}));
        QCOMPARE(list->topLevelItem(0)->text(ImportDialog::CommandOrUrl),
                 u"npx -y @modelcontextprotocol/server-filesystem /Users/ada/Desktop /Users/ada/Downloads"_s);
        // The token's name is shown, its value never.
        const QString github = list->topLevelItem(1)->text(ImportDialog::CommandOrUrl);
        QVERIFY2(github.contains(u"GITHUB_PERSONAL_ACCESS_TOKEN"_s), qPrintable(github));
        QVERIFY2(!github.contains(u"YOUR_TOKEN"_s), qPrintable(github));

        QCOMPARE(list->topLevelItem(0)->checkState(ImportDialog::Name), Qt::Checked);
        QCOMPARE(list->topLevelItem(1)->checkState(ImportDialog::Name), Qt::Unchecked);
        QCOMPARE(list->topLevelItem(2)->checkState(ImportDialog::Name), Qt::Checked);
        const QString clash = list->topLevelItem(1)->text(ImportDialog::Note);
        QVERIFY2(clash.contains(u"already has a server named \"github\""_s) && clash.contains(u"github-2"_s),
                 qPrintable(clash));

        const QJsonObject written = serversIn(ClaudeFile, u"mcpServers"_s);
        QList<std::pair<QString, QJsonObject>> expected{{u"filesystem"_s, written.value(u"filesystem"_s).toObject()},
                                                        {u"memory"_s, written.value(u"memory"_s).toObject()}};
        QCOMPARE(dialog.selectedServers(), expected);
        QVERIFY(importButton(dialog)->isEnabled());

        // Checked, the clashing server comes in under the new name.
        list->topLevelItem(1)->setCheckState(ImportDialog::Name, Qt::Checked);
        QVERIFY(list->topLevelItem(1)->text(ImportDialog::Note).contains(u"imported as \"github-2\""_s));
        expected.insert(1, {u"github-2"_s, written.value(u"github"_s).toObject()});
        QCOMPARE(dialog.selectedServers(), expected);

        for (int row = 0; row < list->topLevelItemCount(); ++row)
            list->topLevelItem(row)->setCheckState(ImportDialog::Name, Qt::Unchecked);
        QVERIFY(dialog.selectedServers().isEmpty());
        QVERIFY(!importButton(dialog)->isEnabled());
    }

    void listsVsCodeServersWithTheirUrls()
    {
        ImportDialog dialog(ImportFormat::VsCode, tetherConfig(R"({"mcpServers": {}})"));
        dialog.setSource(ImportFormat::VsCode, VsCodeFile);
        QCOMPARE(problemText(dialog), QString());
        const QTreeWidget *list = serverList(dialog);
        QCOMPARE(column(list, ImportDialog::Name), (QStringList{u"github"_s, u"playwright"_s, u"events"_s}));
        QCOMPARE(column(list, ImportDialog::Transport), (QStringList{u"http"_s, u"stdio"_s, u"sse"_s}));
        const QString github = list->topLevelItem(0)->text(ImportDialog::CommandOrUrl);
        QVERIFY2(github.startsWith(u"https://api.githubcopilot.com/mcp/"_s) && github.contains(u"Authorization"_s),
                 qPrintable(github));
        QVERIFY2(!github.contains(u"Bearer"_s), qPrintable(github));
        QCOMPARE(list->topLevelItem(2)->text(ImportDialog::CommandOrUrl), u"http://127.0.0.1:3001/sse"_s);

        const QJsonObject written = serversIn(VsCodeFile, u"servers"_s);
        const QList<std::pair<QString, QJsonObject>> expected{
            {u"github"_s, written.value(u"github"_s).toObject()},
            {u"playwright"_s, written.value(u"playwright"_s).toObject()},
            {u"events"_s, written.value(u"events"_s).toObject()}};
        QCOMPARE(dialog.selectedServers(), expected);
    }

    // Enter in the File field reads the file and lists its servers; it never imports them unseen.
    void enterInTheFileFieldOnlyReadsIt()
    {
        ImportDialog dialog(ImportFormat::ClaudeDesktop, tetherConfig(R"({"mcpServers": {}})"));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowActive(&dialog));
        auto *path = dialog.findChild<QLineEdit *>(u"path"_s);
        QSignalSpy finished(&dialog, &QDialog::finished);
        for (const auto &[key, modifier] : {std::pair{Qt::Key_Return, Qt::NoModifier}, std::pair{Qt::Key_Enter, Qt::KeypadModifier}}) {
            dialog.setSource(ImportFormat::ClaudeDesktop, u"/nonexistent/claude_desktop_config.json"_s);
            QCOMPARE(serverList(dialog)->topLevelItemCount(), 0);
            path->setFocus();
            path->selectAll();
            QTest::keyClicks(path, ClaudeFile);
            QTest::keyClick(path, key, modifier);
            QCOMPARE(problemText(dialog), QString());
            QCOMPARE(serverList(dialog)->topLevelItemCount(), 3);
            QVERIFY(importButton(dialog)->isEnabled());
            QCOMPARE(finished.size(), 0);
            QVERIFY(dialog.isVisible());
        }
        // Elsewhere Enter is Import, as in any dialog.
        serverList(dialog)->setFocus();
        QTest::keyClick(serverList(dialog), Qt::Key_Return);
        QCOMPARE(finished.size(), 1);
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
    }

    void everyFieldHasItsOwnMnemonic()
    {
        ImportDialog dialog(ImportFormat::ClaudeDesktop, tetherConfig(R"({"mcpServers": {}})"));
        QCOMPARE(mnemonicProblems(&dialog), QStringList());
    }

    void aMissingFileIsExplained()
    {
        const QString missing = u"/nonexistent/claude_desktop_config.json"_s;
        ImportDialog dialog(ImportFormat::ClaudeDesktop, tetherConfig(WithGithub));
        dialog.setSource(ImportFormat::ClaudeDesktop, missing);
        const QString problem = problemText(dialog);
        QVERIFY2(problem.contains(missing) && problem.contains(u"no such file"_s) && problem.contains(u"Browse"_s),
                 qPrintable(problem));
        QCOMPARE(serverList(dialog)->topLevelItemCount(), 0);
        QVERIFY(dialog.selectedServers().isEmpty());
        QVERIFY(!importButton(dialog)->isEnabled());

        // A readable file afterwards clears the message.
        dialog.setSource(ImportFormat::ClaudeDesktop, ClaudeFile);
        QCOMPARE(problemText(dialog), QString());
        QCOMPARE(serverList(dialog)->topLevelItemCount(), 3);
    }

    void aBrokenFileIsExplained()
    {
        QTemporaryDir folder;
        const QString path = folder.filePath(u"mcp.json"_s);
        QVERIFY(writeFile(path, "{\n  \"servers\": {\"a\": }\n}\n"));
        ImportDialog dialog(ImportFormat::VsCode, tetherConfig(WithGithub));
        dialog.setSource(ImportFormat::VsCode, path);
        const QString problem = problemText(dialog);
        QVERIFY2(problem.contains(path) && problem.contains(u"line 2"_s), qPrintable(problem));
        QCOMPARE(serverList(dialog)->topLevelItemCount(), 0);

        // Comments and trailing commas are VS Code's own JSON (JSONC): read, not refused.
        QVERIFY(writeFile(path, "{\n  // my servers\n  \"servers\": {\"a\": {\"command\": \"x\",},},\n}\n"));
        dialog.setSource(ImportFormat::VsCode, path);
        QCOMPARE(problemText(dialog), QString());
        QCOMPARE(serverList(dialog)->topLevelItemCount(), 1);

        QVERIFY(writeFile(path, R"({"servers": {"a": {"command": "x"}}})"));
        dialog.setSource(ImportFormat::Cursor, path);
        QVERIFY2(problemText(dialog).contains(u"has no \"mcpServers\" object: is it a Cursor file?"_s),
                 qPrintable(problemText(dialog)));
    }

    void vsCodeWithoutAFileSaysWhereToLook()
    {
        ImportDialog dialog(ImportFormat::VsCode, tetherConfig(WithGithub));
        QVERIFY2(problemText(dialog).contains(u".vscode/mcp.json"_s), qPrintable(problemText(dialog)));
        QVERIFY(!importButton(dialog)->isEnabled());
    }

    void aServerTetherCannotRunIsShownNotOffered()
    {
        QTemporaryDir folder;
        const QString path = folder.filePath(u"mcp.json"_s);
        QVERIFY(writeFile(path, R"({"mcpServers": {"broken": {"command": 5}, "fine": {"command": "x"}}})"));
        ImportDialog dialog(ImportFormat::Cursor, tetherConfig(WithGithub));
        dialog.setSource(ImportFormat::Cursor, path);
        const QTreeWidgetItem *broken = serverList(dialog)->topLevelItem(0);
        QCOMPARE(broken->text(ImportDialog::Name), u"broken"_s);
        QVERIFY(!(broken->flags() & Qt::ItemIsUserCheckable));
        QVERIFY(!(broken->flags() & Qt::ItemIsEnabled));
        const QString note = broken->text(ImportDialog::Note);
        QVERIFY2(note.startsWith(u"Cannot be imported: mcpServers.broken.command = 5 is not a string"_s), qPrintable(note));
        QCOMPARE(dialog.selectedServers(),
                 (QList<std::pair<QString, QJsonObject>>{{u"fine"_s, QJsonObject{{u"command"_s, u"x"_s}}}}));
    }

    void aNewNameTakesNoOtherServersName()
    {
        QTemporaryDir folder;
        const QString path = folder.filePath(u"mcp.json"_s);
        QVERIFY(writeFile(path, R"({"mcpServers": {"github": {"command": "a"}, "github-2": {"command": "b"}}})"));
        ImportDialog dialog(ImportFormat::Cursor, tetherConfig(WithGithub));
        dialog.setSource(ImportFormat::Cursor, path);
        serverList(dialog)->topLevelItem(0)->setCheckState(ImportDialog::Name, Qt::Checked);
        const auto selected = dialog.selectedServers();
        QCOMPARE(selected.size(), 2);
        QCOMPARE(selected.at(0).first, u"github-3"_s);
        QCOMPARE(selected.at(1).first, u"github-2"_s);
    }
};

QTEST_MAIN(TestImportDialog)
#include "tst_importdialog.moc"
