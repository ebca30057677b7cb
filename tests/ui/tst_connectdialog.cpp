// File ▸ Connect a client…: the dialog previews the change to a copy of a real-shaped client file,
// Connect writes exactly the expected file, Undo gives the original back byte for byte, a broken
// file is explained and left alone; while Tether serves no HTTP a client starts tetherctl serve,
// and a URL nothing answers is not written (the dialog offers to serve it); the window's File menu
// opens it; the keyboard reaches and names every control.
#include "connectdialog.h"
#include "mainwindow.h"
#include "config/clientconnect.h"
#include "config/configstore.h"
#include "manager/servermanager.h"
#include "support/mnemonicchecks.h"
#include "support/namedchild.h"
#include "support/tabwalk.h"
#include "support/testfiles.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

const QString Data = QStringLiteral(TETHER_TEST_DATA "/connect/");

// The config's gateway.http when it is served.
GatewayHttpConfig servedHttp()
{
    GatewayHttpConfig http;
    http.enabled = true;
    return http;
}

} // namespace

class TestConnectDialog final : public QObject
{
    Q_OBJECT

private slots:
    void init()
    {
        m_dir.emplace();
        // The backups go to the test's folder, never the user's.
        qputenv("XDG_STATE_HOME", m_dir->filePath(u"state"_s).toUtf8());
        m_config = m_dir->filePath(u"servers.json"_s);
        QVERIFY(writeFile(m_config, readFile(Data + u"tether_servers.json"_s)));
    }

    void connectThenUndo()
    {
        const QByteArray original = readFile(Data + u"cursor_mcp.json"_s);
        const QString copy = m_dir->filePath(u"mcp.json"_s);
        QVERIFY(writeFile(copy, original));
        const QString longName = u"demo__"_s + QString(50, u'x');
        ConnectDialog dialog({{m_config, false}, u"/opt/tether/bin/tetherctl"_s, {u"demo__echo"_s, longName}, servedHttp()});
        dialog.setClient(ConnectClient::Cursor, copy);
        auto *connectButton = namedChild<QPushButton>(dialog, u"connectButton"_s);
        auto *undoButton = namedChild<QPushButton>(dialog, u"undoButton"_s);
        const QString preview = namedChild<QPlainTextEdit>(dialog, u"preview"_s)->toPlainText();
        QVERIFY2(preview.contains(u"+    16 |         \"tether\": {"_s), qPrintable(preview));
        QVERIFY2(preview.contains(longName) && !preview.contains(u"demo__echo"_s), qPrintable(preview));
        QVERIFY2(preview.endsWith(u"Restart Cursor to load it.\n"_s), qPrintable(preview));
        QVERIFY(!namedChild<QCheckBox>(dialog, u"useStdio"_s)->isChecked());
        QVERIFY(connectButton->isEnabled());
        QVERIFY(!undoButton->isEnabled());
        // The preview made no token; Connect does.
        QVERIFY(!QFile::exists(tokenFile()));

        connectButton->click();
        QByteArray expected = readFile(Data + u"expected/cursor_mcp.json"_s);
        expected.replace("@TOKEN@", readFile(tokenFile()).trimmed());
        QCOMPARE(readFile(copy), expected);
        QVERIFY2(namedChild<QLabel>(dialog, u"outcome"_s)->text().startsWith(u"Connected: "_s),
                 qPrintable(namedChild<QLabel>(dialog, u"outcome"_s)->text()));
        QVERIFY(!connectButton->isEnabled()); // nothing left to change
        QVERIFY(undoButton->isEnabled());

        undoButton->click();
        QCOMPARE(readFile(copy), original);
        QVERIFY(namedChild<QLabel>(dialog, u"outcome"_s)->text().startsWith(u"Restored "_s));
        QVERIFY(!undoButton->isEnabled());
        QVERIFY(connectButton->isEnabled());
    }

    void moveIsPreviewedAndDone()
    {
        const QString copy = m_dir->filePath(u"claude_desktop_config.json"_s);
        QVERIFY(writeFile(copy, readFile(Data + u"claude_desktop_config.json"_s)));
        ConnectDialog dialog({{m_config, false}, u"/opt/tether/bin/tetherctl"_s, {}, {}});
        dialog.setClient(ConnectClient::ClaudeDesktop, copy);
        QCheckBox *stdio = namedChild<QCheckBox>(dialog, u"useStdio"_s);
        QVERIFY(stdio->isChecked() && !stdio->isEnabled()); // Claude Desktop starts its servers itself
        namedChild<QCheckBox>(dialog, u"moveServers"_s)->setChecked(true);
        const QString preview = namedChild<QPlainTextEdit>(dialog, u"preview"_s)->toPlainText();
        QVERIFY2(preview.contains(u"Moved to Tether (it runs them already, so Claude Desktop stops running them too): memory"_s),
                 qPrintable(preview));
        namedChild<QPushButton>(dialog, u"connectButton"_s)->click();
        QByteArray expected = readFile(Data + u"expected/claude_desktop_config.moved.json"_s);
        expected.replace("@TETHERCTL@", "/opt/tether/bin/tetherctl");
        expected.replace("[\"serve\"]", QByteArray("[\"serve\", \"--config\", \"" + m_config.toUtf8() + "\"]"));
        QCOMPARE(readFile(copy), expected);
    }

    void aBrokenFileIsExplainedAndLeftAlone()
    {
        const QByteArray broken = readFile(Data + u"broken.json"_s);
        const QString copy = m_dir->filePath(u"broken.json"_s);
        QVERIFY(writeFile(copy, broken));
        ConnectDialog dialog({{m_config, false}, u"/opt/tether/bin/tetherctl"_s, {}, {}});
        dialog.show();
        dialog.setClient(ConnectClient::ClaudeDesktop, copy);
        QLabel *problem = namedChild<QLabel>(dialog, u"problem"_s);
        QVERIFY(problem->isVisible());
        QVERIFY2(problem->text().contains(copy + u": line 6, column 5:"_s), qPrintable(problem->text()));
        QVERIFY(!namedChild<QPushButton>(dialog, u"connectButton"_s)->isEnabled());
        QVERIFY(namedChild<QPlainTextEdit>(dialog, u"preview"_s)->toPlainText().isEmpty());
        QCOMPARE(readFile(copy), broken);
    }

    void withoutHttpAClientStartsTetherctlServe()
    {
        const QString copy = m_dir->filePath(u"mcp.json"_s);
        QVERIFY(writeFile(copy, readFile(Data + u"cursor_mcp.json"_s)));
        ConnectDialog dialog({{m_config, false}, u"/opt/tether/bin/tetherctl"_s, {}, {}});
        dialog.setClient(ConnectClient::Cursor, copy);
        auto *stdio = namedChild<QCheckBox>(dialog, u"useStdio"_s);
        QVERIFY(stdio->isChecked());
        QVERIFY(stdio->isEnabled()); // it may still be unchecked, to be told what HTTP takes
        const QString preview = namedChild<QPlainTextEdit>(dialog, u"preview"_s)->toPlainText();
        QVERIFY2(preview.contains(u"/opt/tether/bin/tetherctl"_s) && !preview.contains(u"http://"_s), qPrintable(preview));
        QVERIFY(namedChild<QPushButton>(dialog, u"connectButton"_s)->isEnabled());
        QVERIFY(!namedChild<QLabel>(dialog, u"problem"_s)->isVisibleTo(&dialog));
    }

    void aUrlNothingServesIsNotWrittenButHttpIsOffered()
    {
        const QByteArray original = readFile(Data + u"cursor_mcp.json"_s);
        const QString copy = m_dir->filePath(u"mcp.json"_s);
        QVERIFY(writeFile(copy, original));
        int served = 0;
        QString refusal;
        ConnectDialog::Setup setup{{m_config, false}, u"/opt/tether/bin/tetherctl"_s, {}, {}};
        setup.serveHttp = [&](QString *error) {
            ++served;
            *error = refusal;
            return refusal.isEmpty();
        };
        ConnectDialog dialog(setup);
        dialog.show();
        dialog.setClient(ConnectClient::Cursor, copy);
        auto *connectButton = namedChild<QPushButton>(dialog, u"connectButton"_s);
        auto *serveHttp = namedChild<QPushButton>(dialog, u"serveHttp"_s);
        auto *problem = namedChild<QLabel>(dialog, u"problem"_s);
        QVERIFY(!serveHttp->isVisible());

        // HTTP chosen while Tether serves none: said in full, and nothing to connect.
        namedChild<QCheckBox>(dialog, u"useStdio"_s)->setChecked(false);
        QVERIFY(problem->isVisible());
        QVERIFY2(problem->text().contains(u"nothing answers at http://127.0.0.1:27413/mcp"_s), qPrintable(problem->text()));
        QVERIFY(!connectButton->isEnabled());
        QVERIFY(serveHttp->isVisible());
        // Wrapped within the dialog, every line of it shown.
        QVERIFY(problem->wordWrap());
        QVERIFY(dialog.rect().contains(QRect(problem->mapTo(&dialog, QPoint(0, 0)), problem->size())));
        QVERIFY(problem->height() >= problem->heightForWidth(problem->width()));

        // Serving it can fail (the port in use): still nothing to connect.
        refusal = u"Cannot listen on 127.0.0.1 port 27413: The bound address is already in use; is another Tether "
                  "serving the gateway? Stop it, or set gateway.http.port to a free port"_s;
        serveHttp->click();
        QCOMPARE(served, 1);
        QCOMPARE(problem->text(), u"Not served over HTTP: Port 27413 is in use by another program: choose another port."_s);
        QVERIFY(!connectButton->isEnabled());

        // Served: the URL is what Connect writes.
        refusal.clear();
        serveHttp->click();
        QCOMPARE(served, 2);
        QVERIFY(!problem->isVisible());
        QVERIFY(!serveHttp->isVisible());
        const QString preview = namedChild<QPlainTextEdit>(dialog, u"preview"_s)->toPlainText();
        QVERIFY2(preview.contains(u"http://127.0.0.1:27413/mcp"_s), qPrintable(preview));
        QVERIFY(!preview.contains(u"Nothing serves"_s));
        QVERIFY(connectButton->isEnabled());
        QCOMPARE(readFile(copy), original);
    }

    void mnemonicsAreUnique()
    {
        ConnectDialog dialog({{m_config, false}, u"/opt/tether/bin/tetherctl"_s, {}, {}});
        QCOMPARE(mnemonicProblems(&dialog), QStringList());
    }

    void theKeyboardReachesEveryControlAndEscCloses()
    {
        ConnectDialog dialog({{m_config, false}, u"/opt/tether/bin/tetherctl"_s, {}, servedHttp()});
        dialog.setClient(ConnectClient::Cursor, m_dir->filePath(u"mcp.json"_s));
        const QStringList problems = keyboardProblems(&dialog);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(u"; "_s)));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Escape);
        QVERIFY(!dialog.isVisible());
    }

    void theFileMenuOpensIt()
    {
        ServerManager manager;
        ConfigStore store({m_config, false}, {systemEnvironment(), {}}, m_dir->filePath(u"user.json"_s));
        MainWindow window(manager, store);
        bool opened = false;
        QTimer::singleShot(0, this, [&] {
            auto *dialog = qobject_cast<ConnectDialog *>(QApplication::activeModalWidget());
            opened = dialog != nullptr;
            if (dialog)
                dialog->reject();
        });
        namedChild<QAction>(window, u"connectClient"_s)->trigger();
        QVERIFY(opened);
    }

private:
    QString tokenFile() const { return m_dir->filePath(u"gateway-token"_s); }

    std::optional<QTemporaryDir> m_dir;
    QString m_config;
};

QTEST_MAIN(TestConnectDialog)
#include "tst_connectdialog.moc"
