// A remote server that asks for a sign-in Tether does not have, under the manager: the SDK's
// bearer middleware in front of the resource server, oidc-provider as its authorization server,
// and a sign-in with no token. The server waits in Sign-in needed, retrying nothing, until its
// sign-in changes.
#include "config/configcontext.h"
#include "config/configparser.h"
#include "manager/callwait.h"
#include "manager/servermanager.h"
#include "manager/signincontroller.h"
#include "manager/transportfactory.h"
#include "supervisor/connectionsupervisor.h"
#include "supervisor/toolregistry.h"
#include "transport/credentials.h"

#include "support/authpeers.h"
#include "support/stopallandwait.h"

#include "../app/tetherctl/output.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>

using namespace Tether;
using namespace Tether::Testing;
using namespace Qt::StringLiterals;

namespace {

// A sign-in that has no token and cannot get one without the user.
class NoToken final : public ServerCredentials
{
public:
    QByteArray authorization() const override { return {}; }
    void renew(const BearerChallenge &challenge, const QByteArray &rejected, RenewalDone done) override
    {
        challenges.append(challenge);
        rejectedValues.append(rejected);
        done(Renewal::NeedsSignIn, u"not signed in"_s);
    }

    QList<BearerChallenge> challenges;
    QList<QByteArray> rejectedValues;
};

// Keys are the servers' urls; each server gets credentials with no token.
class TestSignIn final : public SignInController
{
public:
    QString keyFor(const ServerConfig &config) const override { return config.url; }
    std::shared_ptr<ServerCredentials> credentialsFor(const ServerConfig &config) override
    {
        auto credentials = std::make_shared<NoToken>();
        issued.insert(config.name, credentials);
        return credentials;
    }
    void signIn(const ServerConfig &, const QStringList &, BrowserOpener, Done done) override
    {
        done(false, u"the test does not sign in"_s);
    }
    void signOut(const ServerConfig &, Done done) override { done(true, {}); }
    SignInInfo info(const ServerConfig &) const override { return {}; }

    void announce(const QString &serverKey) { emit changed(serverKey); }

    QHash<QString, std::shared_ptr<NoToken>> issued;
};

} // namespace

class TestSignInNeeded final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        qRegisterMetaType<ServerStatus>();
        m_authServer = std::make_unique<AuthPeer>(u"oauth-server.mjs"_s, QStringList{u"--resource"_s, u"loopback"_s});
        const QString issuer = m_authServer->ready().value(u"issuer"_s).toString();
        QVERIFY2(!issuer.isEmpty(), qPrintable(m_authServer->stderrText));
        m_resourceServer = std::make_unique<AuthPeer>(u"mcp-resource-server.mjs"_s,
                                                      QStringList{u"--issuer"_s, issuer, u"--scope"_s, u"mcp:read mcp:write"_s});
        const QJsonObject ready = m_resourceServer->ready();
        QVERIFY2(!ready.isEmpty(), qPrintable(m_resourceServer->stderrText));
        m_streamableUrl = ready.value(u"mcp"_s).toString();
        m_sseUrl = ready.value(u"sse"_s).toString();
    }

    void cleanupTestCase()
    {
        m_resourceServer.reset();
        m_authServer.reset();
    }

    // Both transports: the first 401 (no token, no renewal) ends in Sign-in needed with the
    // challenge's scope and the command that signs in; no retry follows, whatever the policy says.
    void serverWaitsInSignInNeeded_data()
    {
        QTest::addColumn<QString>("type");
        QTest::newRow("Streamable HTTP") << u"http"_s;
        QTest::newRow("HTTP+SSE") << u"sse"_s;
    }

    void serverWaitsInSignInNeeded()
    {
        QFETCH(QString, type);
        const QString url = type == u"sse" ? m_sseUrl : m_streamableUrl;
        TestSignIn signIn;
        ServerManager manager;
        manager.setSignIn(&signIn);
        QSignalSpy states(&manager, &ServerManager::stateChanged);
        manager.applyConfig(config(u"docs"_s, type, url));
        QTRY_VERIFY_WITH_TIMEOUT(manager.status(u"docs"_s)->state == ServerState::SignInNeeded, 20000);

        const ServerStatus status = *manager.status(u"docs"_s);
        QCOMPARE(stateName(status.state), u"Sign-in needed"_s);
        QCOMPARE(status.reason, u"sign-in needed: %1 asks for sign-in (scope mcp:read mcp:write): not signed in; use Sign "
                                "in, or run: tetherctl login docs"_s.arg(url));
        QCOMPARE(status.signInScope, u"mcp:read mcp:write"_s);
        QCOMPARE(status.generation, quint64(1));
        QCOMPARE(status.toolCount, 0);
        const std::shared_ptr<NoToken> credentials = signIn.issued.value(u"docs"_s);
        QVERIFY(credentials);
        QCOMPARE(credentials->rejectedValues, QList<QByteArray>{QByteArray()});
        QCOMPARE(credentials->challenges.first().error, u"invalid_token"_s);
        QVERIFY(credentials->challenges.first().resourceMetadata.isValid());

        // Nothing retries: no state change and no second attempt follow.
        const qsizetype seen = states.size();
        QVERIFY(!states.wait(1500));
        QCOMPARE(states.size(), seen);
        QCOMPARE(manager.status(u"docs"_s)->generation, quint64(1));
        QCOMPARE(credentials->rejectedValues.size(), 1);

        // A call is answered at once with what to do.
        const ServerStatus now = *manager.status(u"docs"_s);
        QCOMPARE(unavailableReason(now, true, 0),
                 u"server 'docs' needs sign-in; use Sign in in Tether, or run: tetherctl login docs"_s);

        // As tetherctl status and watch print it.
        QCOMPARE(Ctl::stateText(now), u"Sign-in needed — run: tetherctl login docs"_s);
        QJsonObject line{{u"state"_s, stateName(now.state)}};
        Ctl::addSignIn(line, now);
        QCOMPARE(line.value(u"signIn"_s).toObject(),
                 (QJsonObject{{u"command"_s, u"tetherctl login docs"_s}, {u"scope"_s, u"mcp:read mcp:write"_s}}));

        // Another sign-in's change leaves it alone; its own starts it again.
        signIn.announce(u"http://127.0.0.1:9/elsewhere"_s);
        QVERIFY(!states.wait(300));
        signIn.announce(url);
        QTRY_VERIFY_WITH_TIMEOUT(manager.status(u"docs"_s)->generation == 2, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(manager.status(u"docs"_s)->state == ServerState::SignInNeeded, 20000);
        QCOMPARE(credentials->rejectedValues.size(), 2);
        QVERIFY(stopAllAndWait(manager));
    }

    // A server given on tetherctl's command line (watch --url): the run signs it in itself, so its
    // messages say so and name no `tetherctl login` of a server that is in no config.
    void aRunThatSignsInSaysSo()
    {
        TestSignIn signIn;
        const ServerConfig server = config(u"docs"_s, u"http"_s, m_streamableUrl).servers.value(0);
        ToolRegistry registry;
        SupervisorSettings settings;
        settings.signInAdvice = Ctl::signInThisRunAdvice();
        ConnectionSupervisor supervisor(u"127.0.0.1"_s,
                                        transportFactoryFor(server, HttpFallback::None, signIn.credentialsFor(server)),
                                        settings, &registry);
        QSignalSpy stopped(&supervisor, &ConnectionSupervisor::stopped);
        supervisor.start();
        QTRY_VERIFY_WITH_TIMEOUT(supervisor.status().state == ServerState::SignInNeeded, 20000);

        const ServerStatus status = supervisor.status();
        QCOMPARE(status.reason, u"sign-in needed: %1 asks for sign-in (scope mcp:read mcp:write): not signed in; this run "
                                "signs in (give --browser CMD where there is no display)"_s.arg(m_streamableUrl));
        QCOMPARE(Ctl::stateText(status, Ctl::SignInRoute::ThisRun), u"Sign-in needed — this run signs in"_s);
        QJsonObject line{{u"state"_s, stateName(status.state)}};
        Ctl::addSignIn(line, status, Ctl::SignInRoute::ThisRun);
        QCOMPARE(line.value(u"signIn"_s).toObject(),
                 (QJsonObject{{u"command"_s, QJsonValue()}, {u"scope"_s, u"mcp:read mcp:write"_s}}));

        supervisor.stop();
        QTRY_COMPARE_WITH_TIMEOUT(stopped.size(), 1, 10000);
        QCOMPARE(stopped.first().first().toBool(), true);
    }

private:
    static ConfigDocument config(const QString &name, const QString &type, const QString &url)
    {
        const QByteArray file = QJsonDocument(QJsonObject{
            {u"mcpServers"_s, QJsonObject{{name, QJsonObject{
                {u"type"_s, type},
                {u"url"_s, url},
                {u"reconnect"_s, QJsonObject{{u"initialDelayMs"_s, 50}, {u"maxDelayMs"_s, 100}, {u"jitter"_s, 0}}}}}}}})
                                   .toJson();
        return parseConfig(file, u"servers.json"_s, ConfigContext{systemEnvironment(), {}});
    }

    std::unique_ptr<AuthPeer> m_authServer;
    std::unique_ptr<AuthPeer> m_resourceServer;
    QString m_streamableUrl;
    QString m_sseUrl;
};

QTEST_GUILESS_MAIN(TestSignInNeeded)
#include "tst_signinneeded.moc"
