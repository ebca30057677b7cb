// Signing in as a user does it: tetherctl login, call, watch and logout, as processes, against
// oidc-provider (oauth-server.mjs) in front of the SDK resource server (mcp-resource-server.mjs),
// the browser step driven by oauth-browser.mjs through --browser. Both transports, refresh,
// a revoked grant, step-up, a pre-registered client, failures, another process's sign-in, and
// that no token appears in any output, the config or the index.
#include "support/authpeers.h"
#include "support/runprogram.h"
#include "support/testfiles.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <memory>

using namespace Qt::StringLiterals;
using namespace Tether::Testing;

namespace {

constexpr int LoginTimeoutMs = 60000;

// `tetherctl watch`, running until the test ends it, its output kept.
class WatchProcess final
{
public:
    WatchProcess(const QStringList &arguments, const QProcessEnvironment &environment)
    {
        m_process.setProcessEnvironment(environment);
        QObject::connect(&m_process, &QProcess::readyReadStandardOutput, &m_process,
                         [this] { out += QString::fromUtf8(m_process.readAllStandardOutput()); });
        QObject::connect(&m_process, &QProcess::readyReadStandardError, &m_process,
                         [this] { err += QString::fromUtf8(m_process.readAllStandardError()); });
        m_process.start(QStringLiteral(TETHERCTL), arguments);
    }
    ~WatchProcess() { stop(); }
    Q_DISABLE_COPY_MOVE(WatchProcess)

    void stop()
    {
        if (m_process.state() == QProcess::NotRunning)
            return;
        ::kill(pid_t(m_process.processId()), SIGTERM);
        if (!m_process.waitForFinished(15000)) {
            m_process.kill();
            m_process.waitForFinished();
        }
        out += QString::fromUtf8(m_process.readAllStandardOutput());
        err += QString::fromUtf8(m_process.readAllStandardError());
    }

    // The states watch printed (its --json lines), in order.
    QStringList states() const
    {
        QStringList states;
        for (const QString &line : out.split(u'\n', Qt::SkipEmptyParts))
            states.append(QJsonDocument::fromJson(line.toUtf8()).object().value(u"state"_s).toString());
        return states;
    }

    QString out;
    QString err;

private:
    QProcess m_process;
};

} // namespace

class TestSignInFlow final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    SignInPeers m_peers;
    QNetworkAccessManager m_network;
    QString m_everything; // all tetherctl printed in this test, for the secrecy checks
    QString m_browserMode;

    static bool keyring() { return qEnvironmentVariable("TETHER_TEST_KEYRING") == u"session"; }

    QString configPath() const { return m_dir->filePath(u"servers.json"_s); }
    QString statePath(const QString &file) const { return m_dir->filePath(u"state/tether/"_s + file); }

    bool startPeers(const QStringList &authArguments, const QStringList &resourceArguments = {})
    {
        return m_peers.start(authArguments, resourceArguments);
    }

    // The config: the server "docs" at the resource server's endpoint of `transport`.
    bool writeConfig(const QString &transport, const QJsonObject &oauth = {})
    {
        QJsonObject docs{{u"type"_s, transport},
                         {u"url"_s, m_peers.endpoints.value(transport == u"sse" ? u"sse"_s : u"mcp"_s).toString()}};
        if (!oauth.isEmpty())
            docs.insert(u"oauth"_s, oauth);
        const QJsonObject root{{u"mcpServers"_s, QJsonObject{{u"docs"_s, docs}}}};
        return writeFile(configPath(), QJsonDocument(root).toJson());
    }

    QProcessEnvironment environment() const
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"XDG_STATE_HOME"_s, m_dir->filePath(u"state"_s));
        environment.insert(u"XDG_CONFIG_HOME"_s, m_dir->filePath(u"config"_s));
        // The file store, unless run in a D-Bus session with a keyring (tst_signinflow_keyring).
        if (keyring())
            environment.remove(u"TETHER_TOKEN_STORE"_s);
        else
            environment.insert(u"TETHER_TOKEN_STORE"_s, u"file"_s);
        environment.insert(u"TETHER_TEST_BROWSER"_s, m_browserMode);
        environment.insert(u"DOCS_SECRET"_s, u"s3cret-of-the-client"_s);
        environment.remove(u"TETHER_BROWSER"_s);
        environment.remove(u"DISPLAY"_s);
        environment.remove(u"WAYLAND_DISPLAY"_s);
        return environment;
    }

    ProgramRun ctl(const QStringList &arguments)
    {
        return ctlWithout(arguments + QStringList{u"--config"_s, configPath()});
    }

    // Without the config: the forms that name the server with --url.
    ProgramRun ctlWithout(const QStringList &arguments)
    {
        const ProgramRun run = runProgram(QStringLiteral(TETHERCTL), arguments, environment(), LoginTimeoutMs);
        m_everything += run.out + run.err;
        return run;
    }

    static QString browserCommand()
    {
        return u"node "_s + AuthPeer::scriptPath(u"oauth-browser.mjs"_s);
    }

    ProgramRun login(const QStringList &more = {})
    {
        return ctl(QStringList{u"login"_s, u"docs"_s, u"--browser"_s, browserCommand()} + more);
    }

    // Changes what the resource server asks for: `pathAndQuery` is one of its /__test/ requests.
    bool tellResourceServer(const QString &pathAndQuery)
    {
        QNetworkRequest request(QUrl(m_peers.endpoints.value(u"mcp"_s).toString()).resolved(QUrl(pathAndQuery)));
        request.setHeader(QNetworkRequest::ContentTypeHeader, u"text/plain"_s);
        QNetworkReply *reply = m_network.post(request, QByteArray());
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!reply->isFinished())
            (void)finished.wait(10000);
        reply->deleteLater();
        return reply->isFinished() && reply->error() == QNetworkReply::NoError;
    }

    QJsonArray getJson(const QUrl &url)
    {
        QNetworkReply *reply = m_network.get(QNetworkRequest(url));
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!reply->isFinished())
            (void)finished.wait(10000);
        reply->deleteLater();
        return QJsonDocument::fromJson(reply->readAll()).array();
    }

    // Every access token the resource server was sent and every refresh token the authorization
    // server issued (oidc-provider's opaque tokens are their ids).
    QStringList tokensIssued()
    {
        QStringList tokens;
        const QUrl resourceOrigin = QUrl(m_peers.endpoints.value(u"mcp"_s).toString()).resolved(QUrl(u"/__test/seen-tokens"_s));
        for (const QJsonValue &token : getJson(resourceOrigin))
            tokens.append(token.toString());
        for (const QJsonValue &token : getJson(QUrl(m_peers.issuer + u"/__test/refresh-tokens"_s)))
            tokens.append(token.toString());
        return tokens;
    }

    std::optional<QJsonObject> signInRecord()
    {
        const QJsonObject servers =
            QJsonDocument::fromJson(readFile(statePath(u"signins.json"_s))).object().value(u"servers"_s).toObject();
        const auto it = servers.constBegin();
        if (servers.size() != 1)
            return std::nullopt;
        return it.value().toObject();
    }

    int tokenEvents(const QString &grantType) const
    {
        int count = 0;
        for (const QJsonObject &line : std::as_const(m_peers.authServer->lines))
            count += line.value(u"event"_s) == u"token"_s && line.value(u"grant_type"_s) == grantType;
        return count;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QDir(QStringLiteral(TETHER_NODE_MODULES "/oidc-provider")).exists(),
                 "oidc-provider is not installed: run npm ci in the source folder");
        QVERIFY2(!QStandardPaths::findExecutable(u"node"_s).isEmpty(), "node is not on PATH");
    }

    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_everything.clear();
        m_browserMode = u"approve"_s;
    }

    void cleanup()
    {
        m_peers = {};
        m_dir.reset();
    }

    void signsInCallsAndSignsOut_data()
    {
        QTest::addColumn<QString>("transport");
        QTest::newRow("streamable http") << u"http"_s;
        QTest::newRow("http+sse") << u"sse"_s;
    }

    void signsInCallsAndSignsOut()
    {
        QFETCH(QString, transport);
        QVERIFY(startPeers({}));
        QVERIFY(writeConfig(transport));

        ProgramRun run = ctl({u"status"_s});
        QCOMPARE(run.exitCode, 5); // no Tether runs the config: status ran the server itself
        QVERIFY2(run.err.contains(u"no Tether runs"_s), qPrintable(run.err));
        QVERIFY2(run.out.contains(u"Sign-in needed — run: tetherctl login docs"_s), qPrintable(run.out + run.err));

        // --verbose: the debug log too must hold no token.
        run = login({u"--verbose"_s});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.err.contains(u"to sign in to docs, open this URL in a browser:"_s), qPrintable(run.err));
        QVERIFY2(run.err.contains(u"code_challenge_method=S256"_s), qPrintable(run.err));
        const QString kept = keyring() ? u"in the system keyring"_s
                                       : u"in a file readable by you alone; not in the keyring: TETHER_TOKEN_STORE=file"_s;
        QVERIFY2(run.err.contains(u"Signed in to docs as alice (scopes mcp:read); the tokens are kept "_s + kept),
                 qPrintable(run.err));
        QCOMPARE(run.out.trimmed(), u"docs: Connected, 2 tools"_s);

        const std::optional<QJsonObject> record = signInRecord();
        QVERIFY(record);
        QCOMPARE(record->value(u"account"_s).toString(), u"alice"_s);
        QCOMPARE(record->value(u"issuer"_s).toString(), m_peers.issuer);
        QCOMPARE(record->value(u"store"_s).toString(), keyring() ? u"keyring"_s : u"file"_s);
        QCOMPARE(QFileInfo(statePath(u"signins.json"_s)).permissions() & 0x0777, QFileDevice::ReadUser | QFileDevice::WriteUser);
        QCOMPARE(QFileInfo(statePath(QString())).permissions() & 0x0777,
                 QFileDevice::ReadUser | QFileDevice::WriteUser | QFileDevice::ExeUser);
        if (keyring())
            QVERIFY(!QFileInfo::exists(statePath(u"credentials.json"_s)));
        else
            QCOMPARE(QFileInfo(statePath(u"credentials.json"_s)).permissions() & 0x0777,
                     QFileDevice::ReadUser | QFileDevice::WriteUser);

        // Another process uses the sign-in: the token comes from the store.
        run = ctl({u"call"_s, u"docs"_s, u"whoami"_s, u"--verbose"_s});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(run.out.trimmed(), u"alice"_s);

        // No token in anything printed, the config or the index; the store has them.
        const QStringList tokens = tokensIssued();
        QVERIFY(tokens.size() >= 2);
        const QString config = QString::fromUtf8(readFile(configPath()));
        const QString index = QString::fromUtf8(readFile(statePath(u"signins.json"_s)));
        const QString store = QString::fromUtf8(readFile(statePath(u"credentials.json"_s)));
        for (const QString &token : tokens) {
            QVERIFY2(!m_everything.contains(token), "a token was printed");
            QVERIFY2(!config.contains(token) && !index.contains(token), "a token was written beside the store");
        }
        QCOMPARE(std::any_of(tokens.begin(), tokens.end(), [&store](const QString &token) { return store.contains(token); }),
                 !keyring());

        run = ctl({u"logout"_s, u"docs"_s});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(run.out.trimmed(), u"Signed out of docs: its tokens are forgotten"_s);
        QVERIFY(!signInRecord());
        QVERIFY(!QString::fromUtf8(readFile(statePath(u"credentials.json"_s))).contains(u"token:"_s));
        run = ctl({u"call"_s, u"docs"_s, u"whoami"_s});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(u"server 'docs' needs sign-in; use Sign in in Tether, or run: tetherctl login docs"_s),
                 qPrintable(run.err));
        run = ctl({u"logout"_s, u"docs"_s});
        QCOMPARE(run.out.trimmed(), u"docs was not signed in"_s);
    }

    void refreshesWithoutTheUserUntilTheGrantIsRevoked()
    {
        // Tokens that live 2 s: refreshed ahead of expiry, and after a 401 when one expired anyway.
        QVERIFY(startPeers({u"--access-ttl"_s, u"2"_s}));
        QVERIFY(writeConfig(u"http"_s));
        QVERIFY2(login().exitCode == 0, qPrintable(m_everything));

        WatchProcess watch({u"watch"_s, u"--json"_s, u"--heartbeat-ms"_s, u"500"_s, u"--heartbeat-timeout-ms"_s, u"400"_s,
                            u"--config"_s, configPath()},
                           environment());
        QTRY_VERIFY_WITH_TIMEOUT(watch.states().contains(u"Connected"_s), 20000);
        QTRY_VERIFY_WITH_TIMEOUT(tokenEvents(u"refresh_token"_s) >= 3, 20000);
        // Renewed under the connection: it never dropped.
        QCOMPARE(watch.states(), (QStringList{u"Stopped"_s, u"Starting"_s, u"Connected"_s}));
        // A second process uses the same sign-in meanwhile, under the same lock.
        const ProgramRun call = ctl({u"call"_s, u"docs"_s, u"whoami"_s});
        QVERIFY2(call.exitCode == 0, qPrintable(call.err));
        QCOMPARE(call.out.trimmed(), u"alice"_s);

        QNetworkReply *revoke = m_network.post(QNetworkRequest(QUrl(m_peers.issuer + u"/__test/revoke-refresh-tokens"_s)), QByteArray());
        QSignalSpy revoked(revoke, &QNetworkReply::finished);
        QVERIFY(revoked.wait(10000));
        revoke->deleteLater();
        QTRY_VERIFY_WITH_TIMEOUT(watch.states().contains(u"Sign-in needed"_s), 20000);
        QTRY_VERIFY(!signInRecord());
        watch.stop();
        m_everything += watch.out + watch.err;
        QVERIFY2(watch.out.contains(u"asks for sign-in (scope mcp:read): the authorization server refused to refresh "
                                    "the token (the token endpoint %1/token answered HTTP 400 invalid_grant: "_s.arg(m_peers.issuer)),
                 qPrintable(watch.out));
        for (const QString &token : tokensIssued())
            QVERIFY2(!m_everything.contains(token), "a token was printed");
    }

    void stepsUpForAnInsufficientScope()
    {
        QVERIFY(startPeers({}));
        QVERIFY(writeConfig(u"http"_s));
        QVERIFY2(login().exitCode == 0, qPrintable(m_everything));
        ProgramRun run = ctl({u"call"_s, u"docs"_s, u"admin_echo"_s, u"{\"text\": \"hi\"}"_s});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(u"HTTP 403 Forbidden: the sign-in lacks the access this needs (scope mcp:read "
                                  "mcp:admin): \"admin_echo needs mcp:admin\"; sign in again"_s),
                 qPrintable(run.err));
        run = login();
        QVERIFY2(run.err.contains(u"Signed in to docs as alice (scopes mcp:read mcp:admin)"_s), qPrintable(run.err));
        run = ctl({u"call"_s, u"docs"_s, u"admin_echo"_s, u"{\"text\": \"hi\"}"_s});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(run.out.trimmed(), u"hi"_s);
    }

    // A server that refuses the tokens for want of scope once connected (its tools/list here):
    // login signs in once more, for the scopes it names on top of the tokens' own.
    void loginStepsUpWhenTheToolListNeedsMore()
    {
        QVERIFY(startPeers({u"--scopes"_s, u"mcp:read mcp:admin mcp:list"_s}, {u"--list-scope"_s, u"mcp:list"_s}));
        QVERIFY(writeConfig(u"http"_s));
        const ProgramRun run = login();
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.err.contains(u"Signed in to docs as alice (scopes mcp:read)"_s), qPrintable(run.err));
        QVERIFY2(run.err.contains(u"Signed in to docs as alice (scopes mcp:read mcp:list)"_s), qPrintable(run.err));
        QVERIFY2(run.out.contains(u"docs: Connected, 2 tools"_s), qPrintable(run.out));
    }

    // Without a browser at hand (the window, a daemon, watch), such a server waits in Sign-in
    // needed, naming the scope, rather than failing as if its token were wrong.
    void aScopeRefusedOnceConnectedAsksForASignIn()
    {
        QVERIFY(startPeers({u"--scopes"_s, u"mcp:read mcp:admin mcp:list"_s}));
        QVERIFY(writeConfig(u"http"_s));
        QVERIFY2(login().exitCode == 0, qPrintable(m_everything));
        QVERIFY(tellResourceServer(u"/__test/list-scope?scope=mcp:list"_s));
        WatchProcess watch({u"watch"_s, u"--json"_s, u"--config"_s, configPath()}, environment());
        QTRY_VERIFY_WITH_TIMEOUT(watch.states().endsWith(u"Sign-in needed"_s), 20000);
        QVERIFY(!watch.states().contains(u"Failed"_s));
        QVERIFY2(watch.out.contains(u"the sign-in lacks the access this needs (scope mcp:read mcp:list)"_s), qPrintable(watch.out));
        // The next sign-in asks for it, and the watching process connects with the new tokens.
        const ProgramRun run = login();
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.err.contains(u"(scopes mcp:read mcp:list)"_s), qPrintable(run.err));
        QTRY_VERIFY_WITH_TIMEOUT(watch.states().endsWith(u"Connected"_s), 20000);
        watch.stop();
    }

    // The same over HTTP+SSE, refused at the request for its event stream: the sign-in that
    // follows asks for the scope named there.
    void loginStepsUpWhenTheEventStreamNeedsMore()
    {
        QVERIFY(startPeers({u"--scopes"_s, u"mcp:read mcp:admin mcp:list"_s}, {u"--stream-scope"_s, u"mcp:list"_s}));
        QVERIFY(writeConfig(u"sse"_s));
        const ProgramRun run = login();
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.err.contains(u"(scopes mcp:read mcp:list)"_s), qPrintable(run.err));
        QVERIFY2(run.out.contains(u"docs: Connected, 2 tools"_s), qPrintable(run.out));
    }

    // A server that refuses a token for the very scope the sign-in asked for: no sign-in can
    // help, so it fails saying so, rather than wait in Sign-in needed for one that changes nothing.
    void aScopeRefusedThoughGivenFails()
    {
        QVERIFY(startPeers({u"--scopes"_s, u"mcp:read mcp:admin mcp:list"_s}));
        QVERIFY(writeConfig(u"http"_s));
        QVERIFY2(login().exitCode == 0, qPrintable(m_everything));
        QVERIFY(tellResourceServer(u"/__test/list-scope?scope=mcp:read&always=1"_s));
        WatchProcess watch({u"watch"_s, u"--json"_s, u"--config"_s, configPath()}, environment());
        QTRY_VERIFY_WITH_TIMEOUT(watch.states().endsWith(u"Failed"_s), 20000);
        watch.stop();
        QVERIFY(!watch.states().contains(u"Sign-in needed"_s));
        QVERIFY2(watch.out.contains(u"the server refuses a token for scopes it was given already (mcp:read); signing in "
                                    "again cannot help"_s),
                 qPrintable(watch.out));
        // login signs in once, and says why the server still does not connect.
        const ProgramRun run = login();
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.count(u"Signed in to docs as alice"_s) == 1, qPrintable(run.err));
        QVERIFY2(run.err.contains(u"docs did not connect after the sign-in: "_s), qPrintable(run.err));
        QVERIFY2(run.err.contains(u"given already (mcp:read)"_s), qPrintable(run.err));
    }

    void usesAPreRegisteredClient()
    {
        QVERIFY(startPeers({u"--client"_s, u"tether-test:s3cret-of-the-client"_s, u"--no-registration"_s}));
        QVERIFY(writeConfig(u"http"_s, {{u"clientId"_s, u"tether-test"_s}, {u"clientSecret"_s, u"${env:DOCS_SECRET}"_s}}));
        const ProgramRun run = login();
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(signInRecord().value_or(QJsonObject()).value(u"clientId"_s).toString(), u"tether-test"_s);
        QVERIFY(!m_everything.contains(u"s3cret-of-the-client"_s));
        QVERIFY(!readFile(statePath(u"signins.json"_s)).contains("s3cret-of-the-client"));
    }

    void failuresSayWhatToDo_data()
    {
        QTest::addColumn<QString>("browserMode");
        QTest::addColumn<QStringList>("resourceArguments");
        QTest::addColumn<QJsonObject>("oauth");
        QTest::addColumn<QString>("message");
        QTest::newRow("no metadata")
            << u"approve"_s << QStringList{u"--prm"_s, u"none"_s} << QJsonObject()
            << u"/mcp publishes no sign-in metadata, so Tether used the default endpoints of MCP 2025-03-26 at its "
               "origin"_s;
        QTest::newRow("state mismatch")
            << u"state"_s << QStringList() << QJsonObject()
            << u"tetherctl: sign-in to docs: the sign-in callback carried a state Tether did not send (a stale or forged "
               "sign-in link); nothing was done; sign in again"_s;
        QTest::newRow("denied") << u"deny"_s << QStringList() << QJsonObject()
                                << u"tetherctl: sign-in to docs: the authorization server refused: access_denied"_s;
        QTest::newRow("browser timeout")
            << u"stall"_s << QStringList() << QJsonObject{{u"browserTimeoutMs"_s, 10000}}
            << u"tetherctl: sign-in to docs was not completed within 10 s (oauth.browserTimeoutMs); run tetherctl login "
               "docs or use Sign in again"_s;
    }

    void failuresSayWhatToDo()
    {
        QFETCH(QString, browserMode);
        QFETCH(QStringList, resourceArguments);
        QFETCH(QJsonObject, oauth);
        QFETCH(QString, message);
        QVERIFY(startPeers({}, resourceArguments));
        QVERIFY(writeConfig(u"http"_s, oauth));
        m_browserMode = browserMode;
        const ProgramRun run = login();
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(u"tetherctl: sign-in to docs"_s) && run.err.contains(message), qPrintable(run.err));
        QVERIFY(!signInRecord());
    }

    void oneServerFormsSignInWithinTheRun()
    {
        QVERIFY(startPeers({}));
        const QString url = m_peers.endpoints.value(u"mcp"_s).toString();
        ProgramRun run = ctlWithout({u"tools"_s, u"--url"_s, url});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(u"server '127.0.0.1' asks for sign-in, and there is no display to open a browser on: "
                                  "give --browser CMD (or TETHER_BROWSER) to sign in here"_s),
                 qPrintable(run.err));

        run = ctlWithout({u"tools"_s, u"--url"_s, url, u"--browser"_s, browserCommand()});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(u"whoami"_s) && run.out.contains(u"admin_echo"_s), qPrintable(run.out));
        QVERIFY2(run.err.contains(u"Signed in to 127.0.0.1 as alice (scopes mcp:read)"_s), qPrintable(run.err));

        // The tokens stay for the URL: no browser needed the next time.
        run = ctlWithout({u"call"_s, u"--url"_s, url, u"whoami"_s});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(run.out.trimmed(), u"alice"_s);

        // A call refused for want of scope: the sign-in steps up within the run, and the call is sent again.
        run = ctlWithout({u"call"_s, u"--url"_s, url, u"admin_echo"_s, u"{\"text\": \"up\"}"_s, u"--browser"_s,
                          browserCommand()});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(run.out.trimmed(), u"up"_s);
        QVERIFY2(run.err.contains(u"(scopes mcp:read mcp:admin)"_s), qPrintable(run.err));

        // watch over HTTP+SSE signs in when the server asks, then connects.
        WatchProcess watch({u"watch"_s, u"--json"_s, u"--url"_s, m_peers.endpoints.value(u"sse"_s).toString(), u"--transport"_s,
                            u"sse"_s, u"--browser"_s, browserCommand()},
                           environment());
        QTRY_VERIFY_WITH_TIMEOUT(watch.states().endsWith(u"Connected"_s), 30000);
        QVERIFY(watch.states().contains(u"Sign-in needed"_s));
        watch.stop();
        m_everything += watch.out + watch.err;

        // A call over HTTP+SSE refused for want of scope steps up too.
        run = ctlWithout({u"call"_s, u"--url"_s, m_peers.endpoints.value(u"sse"_s).toString(), u"--transport"_s, u"sse"_s,
                          u"admin_echo"_s, u"{\"text\": \"up over sse\"}"_s, u"--browser"_s, browserCommand()});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(run.out.trimmed(), u"up over sse"_s);
        QVERIFY2(run.err.contains(u"(scopes mcp:read mcp:admin)"_s), qPrintable(run.err));
        m_everything += run.out + run.err;
        for (const QString &token : tokensIssued())
            QVERIFY2(!m_everything.contains(token), "a token was printed");
    }

    void anotherProcessSignsIn()
    {
        QVERIFY(startPeers({}));
        QVERIFY(writeConfig(u"http"_s));
        WatchProcess watch({u"watch"_s, u"--json"_s, u"--config"_s, configPath()}, environment());
        QTRY_VERIFY_WITH_TIMEOUT(watch.states().contains(u"Sign-in needed"_s), 20000);
        QVERIFY2(login().exitCode == 0, qPrintable(m_everything));
        // The watching process learns of it from the index and connects with the new tokens.
        QTRY_VERIFY_WITH_TIMEOUT(watch.states().endsWith(u"Connected"_s), 20000);
        QVERIFY2(!ctl({u"logout"_s, u"docs"_s}).exitCode, qPrintable(m_everything));
        QTRY_VERIFY_WITH_TIMEOUT(watch.states().endsWith(u"Sign-in needed"_s), 20000);
    }
};

QTEST_GUILESS_MAIN(TestSignInFlow)
#include "tst_signinflow.moc"
