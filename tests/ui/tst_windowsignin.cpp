// The window's Sign in and Sign out on a server that asks for a sign-in: the sign-in service
// over the real authorization server (oauth-server.mjs) and resource server
// (mcp-resource-server.mjs); the desktop's browser is the scripted one (oauth-browser.mjs),
// reached through QDesktopServices as the window opens it. Details show the account, scopes,
// expiry and store, never a token.
#include "mainwindow.h"
#include "serverdetailsview.h"
#include "trayicon.h"
#include "auth/memorysecretstore.h"
#include "auth/signinservice.h"
#include "config/configstore.h"
#include "manager/servermanager.h"
#include "support/authpeers.h"
#include "support/namedchild.h"
#include "support/stopallandwait.h"
#include "support/testfiles.h"

#include <QAction>
#include <QDesktopServices>
#include <QJsonDocument>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

Q_DECLARE_METATYPE(Tether::TrayNotice)

namespace {

// Stands for the desktop's browser: runs the scripted one on each URL the window opens.
class ScriptedBrowser final : public QObject
{
    Q_OBJECT

public:
    QList<QUrl> opened;

public slots:
    void open(const QUrl &url)
    {
        opened.append(url);
        m_runs.push_back(std::make_unique<AuthPeer>(u"oauth-browser.mjs"_s, QStringList{url.toString(QUrl::FullyEncoded)}));
    }

private:
    std::vector<std::unique_ptr<AuthPeer>> m_runs;
};

} // namespace

class TestWindowSignIn final : public QObject
{
    Q_OBJECT

private slots:
    void signsInAndOutFromTheWindow()
    {
        SignInPeers peers;
        QVERIFY(peers.start());
        const QString url = peers.mcpUrl();

        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{{u"docs"_s, QJsonObject{
                                                                                 {u"url"_s, url}}}}}})
                                    .toJson()));
        ScriptedBrowser browser;
        QDesktopServices::setUrlHandler(u"http"_s, &browser, "open");

        SignInService signIn(std::make_unique<MemorySecretStore>(),
                             {dir.filePath(u"state/signins.json"_s), dir.filePath(u"state/auth.lock"_s)});
        ServerManager manager;
        manager.setSignIn(&signIn);
        ConfigStore store{{path, false}, {systemEnvironment(), {}}, dir.filePath(u"user.json"_s)};
        QObject::connect(&store, &ConfigStore::documentChanged, &manager, &ServerManager::applyConfig);
        MainWindow window(manager, store);
        TrayIcon tray(manager, &window);
        QSignalSpy notices(&tray, &TrayIcon::noticeShown);
        store.load();
        window.show();
        window.selectServer(u"docs"_s);
        QTRY_COMPARE_WITH_TIMEOUT(manager.status(u"docs"_s)->state, ServerState::SignInNeeded, 20000);
        // The tray says so, and how to sign in.
        QTRY_COMPARE_WITH_TIMEOUT(notices.size(), 1, 2 * int(TrayIcon::FailureGroupingWindow.count()) + 1000);
        QCOMPARE(notices.first().first().value<TrayNotice>().title, u"docs needs you to sign in"_s);

        QAction *signInAction = namedChild<QAction>(window, u"signIn"_s);
        QAction *signOutAction = namedChild<QAction>(window, u"signOut"_s);
        auto *details = namedChild<QPlainTextEdit>(window, u"details"_s);
        QTRY_VERIFY(signInAction->isVisible() && signInAction->isEnabled());
        QVERIFY(signOutAction->isVisible() && !signOutAction->isEnabled());
        QTRY_VERIFY2(details->toPlainText().contains(u"Sign-in: needed; use Sign in, or run: tetherctl login docs"_s),
                     qPrintable(details->toPlainText()));

        signInAction->trigger();
        QVERIFY(!signInAction->isEnabled()); // until the browser step ends
        QTRY_COMPARE_WITH_TIMEOUT(manager.status(u"docs"_s)->state, ServerState::Connected, 30000);
        QCOMPARE(browser.opened.size(), 1);
        QCOMPARE(browser.opened.first().host(), QUrl(peers.issuer).host());
        QTRY_VERIFY(signOutAction->isEnabled() && signInAction->isEnabled());
        QCOMPARE(signInAction->text(), u"Sign &in again…"_s);
        QVERIFY2(window.statusBar()->currentMessage().startsWith(u"Signed in to docs as alice (scopes mcp:read)"_s),
                 qPrintable(window.statusBar()->currentMessage()));
        const QString text = details->toPlainText();
        QVERIFY2(text.contains(u"Signed in as alice (scopes mcp:read)"_s), qPrintable(text));
        QVERIFY2(text.contains(u"Access token: expires "_s) && text.contains(u"Tether renews it before then"_s),
                 qPrintable(text));
        QVERIFY2(text.contains(u"Tokens kept in: memory, until Tether quits"_s), qPrintable(text));
        QVERIFY(!text.contains(u"Bearer"_s) && !text.contains(u"eyJ"_s)); // no token, JWT or otherwise

        signOutAction->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(manager.status(u"docs"_s)->state, ServerState::SignInNeeded, 20000);
        QTRY_VERIFY(!signOutAction->isEnabled());
        QCOMPARE(signInAction->text(), u"Sign &in…"_s);
        QVERIFY2(window.statusBar()->currentMessage() == u"Signed out of docs: its tokens are forgotten"_s,
                 qPrintable(window.statusBar()->currentMessage()));
        QDesktopServices::unsetUrlHandler(u"http"_s);
        QVERIFY(stopAllAndWait(manager));
    }

    void signInLinesSayWhatIsKnown()
    {
        const QDateTime now = QDateTime::fromString(u"2026-12-01T12:00:00Z"_s, Qt::ISODate);
        QCOMPARE(ServerDetailsView::signInLines(u"docs"_s, {}, now), QStringList());
        SignInInfo info;
        info.state = SignInInfo::State::SignedIn;
        info.scopes = {u"mcp:read"_s};
        info.expiresAt = now.addSecs(-5);
        info.store = u"file"_s;
        info.storeNote = u"TETHER_TOKEN_STORE=file"_s;
        const QStringList lines = ServerDetailsView::signInLines(u"docs"_s, info, now);
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0], u"Signed in (scopes mcp:read)"_s);
        QVERIFY2(lines[1].startsWith(u"Access token: expired "_s) && lines[1].endsWith(u"; Tether renews it at the next request"_s),
                 qPrintable(lines[1]));
        QCOMPARE(lines[2], u"Tokens kept in: a file readable by you alone (TETHER_TOKEN_STORE=file)"_s);
        info.account = u"ada\x1b[2J"_s;
        QCOMPARE(ServerDetailsView::signInLines(u"docs"_s, info, now).first(), u"Signed in as ada\\x1b[2J (scopes mcp:read)"_s);
    }
};

QTEST_MAIN(TestWindowSignIn)
#include "tst_windowsignin.moc"
